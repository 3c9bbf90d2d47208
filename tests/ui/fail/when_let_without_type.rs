include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        prioritized {
            when let Some(target) = Some(3) => action me.act(),
            else => success,
        }
    }
}
fn main() {}
