include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        random {
            action me.act(),
            success,
        }
    }
}
fn main() {}
