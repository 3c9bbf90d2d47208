include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        scored {
            score me.ok() => action me.act(),
            score 0.5 => action me.act(),
        }
    }
}
fn main() {}
