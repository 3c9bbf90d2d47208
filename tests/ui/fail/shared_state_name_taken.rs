include!("../agent.rs");

behavior_tree! {
    tree Squad(me: &mut Agent, shared: &SquadShared) {
        gate(1) { action me.act() }
    }
    tree SquadShared(me: &mut Agent) {
        cond me.ok()
    }
}
fn main() {}
