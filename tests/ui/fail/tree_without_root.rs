include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {}
}
fn main() {}
