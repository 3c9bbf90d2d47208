include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        prioritized {
            every(5.0) when me.ok() => cooldown(2.0) { action me.act() },
            else => wait(1.0),
        }
    }
}
fn main() {}
