include!("../agent.rs");

// `return` in an action's block would leave the whole tick.
behavior_tree! {
    tree T(me: &mut Agent) {
        sequence {
            action {
                if me.ok() { return Status::Success; }
                Status::Running
            },
            cond me.ok() && (|| { return true; })(),
        }
    }
}
fn main() {}
