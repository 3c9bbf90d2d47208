// Shared by the ui cases: an agent type for trees to act on.
use bt::{Status, behavior_tree};

#[allow(dead_code)]
struct Agent;

#[allow(dead_code)]
impl Agent {
    fn ok(&self) -> bool {
        true
    }
    fn act(&mut self) -> Status {
        Status::Success
    }
}
