use bt::{Status, behavior_tree};

struct Agent;
impl Agent {
    fn ok(&self) -> bool { true }
    fn act(&mut self) -> Status { Status::Success }
}

behavior_tree! {
    tree T(me: &mut Agent) {
        retry(2.5) { action me.act() }
    }
}
fn main() {}
