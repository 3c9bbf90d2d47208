include!("../agent.rs");

// A named count is a `u32` constant: rustc checks the type on its name.
const TRIES: usize = 3;

behavior_tree! {
    tree T(me: &mut Agent) {
        repeat(TRIES) { action me.act() }
    }
}
fn main() {}
