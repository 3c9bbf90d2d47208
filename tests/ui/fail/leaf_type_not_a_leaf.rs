include!("../agent.rs");

struct Wander { radius: f32 }

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.ok(), Wander { radius: 2.0 } }
    }
}
fn main() {}
