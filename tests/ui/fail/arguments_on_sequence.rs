include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence(2) { action me.act(), action me.act() }
    }
}
fn main() {}
