include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.act(), action me.act() }
    }
}
fn main() {}
