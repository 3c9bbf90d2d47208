include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        prioritized { when let ready: bool = me.ok() => success, else => failure }
    }
}
fn main() {}
