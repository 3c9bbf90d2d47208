include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence {
            invert {},
            repeat(-1) { action me.act() },
            selector { cond me.ok() },
            parallel(success = 9) { action me.act() },
        }
    }
}
fn main() {}
