include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence {
            precondition(me.ok(), otherwise = fail) { action me.act() },
            precondition(me.ok(), otherwise = skip) { action me.act() },
        }
    }
    tree U(me: &mut Agent) {
        precondition(me.ok(), otherwise = skip) { action me.act() }
    }
}
fn main() {}
