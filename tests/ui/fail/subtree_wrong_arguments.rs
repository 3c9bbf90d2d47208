use bt::{Status, behavior_tree};

struct Agent;
impl Agent {
    fn ok(&self) -> bool { true }
    fn act(&mut self) -> Status { Status::Success }
}

behavior_tree! {
    tree Inner(me: &mut Agent, speed: f32) {
        action me.act()
    }

    tree Outer(me: &mut Agent) {
        sequence { cond me.ok(), Inner(me) }
    }
}
fn main() {}
