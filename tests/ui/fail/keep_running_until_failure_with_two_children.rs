include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        keep_running_until_failure { action me.act(), cond me.ok() }
    }
}
fn main() {}
