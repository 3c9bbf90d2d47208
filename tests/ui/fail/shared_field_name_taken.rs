include!("../agent.rs");

behavior_tree! {
    tree Squad(me: &mut Agent, shared: &SquadShared) {
        select { gate(1) { action me.act() }, 'n1: cond me.ok() }
    }
}
fn main() {}
