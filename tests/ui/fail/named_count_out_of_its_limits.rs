include!("../agent.rs");

// A named count's limits are checked when the constant is evaluated.
const NONE: u32 = 0;
const CROWD: u32 = 300;

behavior_tree! {
    tree T(me: &mut Agent, shared: &TShared) {
        sequence {
            gate(NONE) { action me.act() },
            rendezvous(CROWD) as _role { action me.act() },
        }
    }
}
fn main() {}
