include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent, shared: &TShared) {
        select { gate(0) { action me.act() }, success }
    }
}
fn main() {}
