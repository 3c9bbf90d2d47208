include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        parallel_all(max_failures = -4) { success, success, failure }
    }
}
fn main() {}
