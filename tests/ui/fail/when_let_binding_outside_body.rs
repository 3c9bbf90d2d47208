include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        prioritized {
            when let Some(target): Option<u32> = Some(3) => action { let _ = target; me.act() },
            when target > 2 => action me.act(),
            else => cond target == 3,
        }
    }
}
fn main() {}
