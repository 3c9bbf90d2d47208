use bt::{Status, behavior_tree};

struct Agent;
impl Agent {
    fn ok(&self) -> bool { true }
    fn act(&mut self) -> Status { Status::Success }
}

struct Wander { radius: f32 }

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.ok(), Wander { radius: 2.0 } }
    }
}
fn main() {}
