include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        repeat(0) { action me.act() }
    }
}
fn main() {}
