include!("../agent.rs");

struct Wait;
impl bt::Leaf<Agent> for Wait {
    type Memory = ();
    fn tick(&self, _: &mut (), _: &mut Agent) -> Status { Status::Running }
}

behavior_tree! {
    tree T(me: &Agent) {
        sequence { cond me.ok(), Wait }
    }
}
fn main() {}
