include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        repeat(-2) { action me.act() }
    }
}
fn main() {}
