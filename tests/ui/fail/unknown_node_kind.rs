use bt::{Status, behavior_tree};

struct Agent;
impl Agent {
    fn ok(&self) -> bool { true }
    fn act(&mut self) -> Status { Status::Success }
}

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.ok(), fallback { action me.act() } }
    }
}
fn main() {}
