include!("../agent.rs");

// A missing comma is reported at the end of the node it should follow.
behavior_tree! {
    tree T(me: &mut Agent) {
        sequence {
            cond me.ok()
            action me.act(),
        }
    }
}
fn main() {}
