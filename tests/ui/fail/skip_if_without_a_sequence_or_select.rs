include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        parallel { skip_if(me.ok()) { action me.act() }, success }
    }

    tree Root(me: &mut Agent) {
        run_once(then_skip = true) { action me.act() }
    }
}
fn main() {}
