include!("../agent.rs");

behavior_tree! {
    tree Broken(me: &mut, other: u8) {
        repeat(,) { action me.act() }
    }
    tree Fine(me: &mut Agent) {
        cond me.ok()
    }
}

fn main() {
    // `Fine` is generated in full, so this reports nothing.
    let _ = <Fine as bt::BehaviorTree>::NODES.len();
    // `Broken` keeps its parameters, the malformed one as anything: this
    // call reports nothing either.
    let _ = Broken::default().tick(&mut Agent, 1);
}
