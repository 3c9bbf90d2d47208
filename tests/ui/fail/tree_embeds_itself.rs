include!("../agent.rs");

behavior_tree! {
    tree Patrol(me: &mut Agent) { sequence { action me.act(), Guard(me) } }
    tree Guard(me: &mut Agent) { select { cond me.ok(), Patrol(me) } }
    tree Loop(me: &mut Agent) { invert { Loop(me) } }
}
fn main() {}
