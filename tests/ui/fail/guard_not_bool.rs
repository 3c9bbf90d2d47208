include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        prioritized { when me.act() => success, else => failure }
    }
}
fn main() {}
