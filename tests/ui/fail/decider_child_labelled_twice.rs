include!("../agent.rs");

// A decider's child takes one label, before its guard.
behavior_tree! {
    tree T(me: &mut Agent) {
        prioritized {
            'attack: when me.ok() => 'hit: action me.act(),
            else => action me.act(),
        }
    }
}
fn main() {}
