include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        after(succes = me.act()) { action me.act() }
    }
}
fn main() {}
