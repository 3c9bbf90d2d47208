include!("../agent.rs");

behavior_tree! {
    tree Squad(me: &mut Agent) {
        select { gate(1) { action me.act() }, rendezvous(2) { success } }
    }
}
fn main() {}
