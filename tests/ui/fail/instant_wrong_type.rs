include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.ok(), instant Status::Success }
    }
}
fn main() {}
