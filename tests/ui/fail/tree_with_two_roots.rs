include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        cond me.ok(),
        action me.act(),
    }
}
fn main() {}
