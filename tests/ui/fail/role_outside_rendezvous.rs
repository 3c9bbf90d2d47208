include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent, shared: &TShared) {
        sequence {
            rendezvous(2) as role { cond role == 0 },
            cond role == 1,
        }
    }
}
fn main() {}
