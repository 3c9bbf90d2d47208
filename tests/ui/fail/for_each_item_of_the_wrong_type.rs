include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        for_each(x: u8 = me.ok()) { action me.act() }
    }
}
fn main() {}
