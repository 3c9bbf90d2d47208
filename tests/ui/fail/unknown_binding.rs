include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond you.ok(), action me.act() }
    }
}
fn main() {}
