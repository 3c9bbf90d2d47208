use bt::{Status, behavior_tree};

struct Agent;
impl Agent {
    fn ok(&self) -> bool { true }
    fn act(&mut self) -> Status { Status::Success }
}

behavior_tree! {
    pub fn T(me: &mut Agent) {
        action me.act()
    }
}
fn main() {}
