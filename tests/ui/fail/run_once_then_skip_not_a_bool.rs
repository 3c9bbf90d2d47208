include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { run_once(then_skip = yes) { action me.act() } }
    }
}
fn main() {}
