include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        parallel(success = 3, failure = 1) { action me.act(), action me.act() }
    }
}
fn main() {}
