include!("../agent.rs");

// A misspelled keyword is one error, and what it holds is still checked:
// a second misspelling and a bad count inside it are reported too.
behavior_tree! {
    tree T(me: &mut Agent) {
        sequense {
            cond me.ok(),
            selekt { action me.act() },
            repeat(0) { action me.act() },
        }
    }
}
fn main() {}
