use bt::{Status, behavior_tree};

struct Agent;
impl Agent {
    fn ok(&self) -> bool { true }
    fn act(&mut self) -> Status { Status::Success }
}

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
