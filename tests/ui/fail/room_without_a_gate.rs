include!("../agent.rs");

// `room('label)` asks a gate or global cooldown of the same tree.
behavior_tree! {
    tree T(me: &mut Agent, shared: &TShared) {
        prioritized {
            room('walk) => sequence { 'walk: action me.act(), 'door: gate(1) { action me.act() } },
            room('dor) => action me.act(),
            else => action me.act(),
        }
    }
}
fn main() {}
