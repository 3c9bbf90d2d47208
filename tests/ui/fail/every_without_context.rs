include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        every(2) { action me.act() }
    }
}
fn main() {}
