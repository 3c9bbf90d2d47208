include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        for_each(me.ok().then_some(1)) { action me.act() }
    }
    tree U(me: &mut Agent) {
        repeat(n: u8 = 3) { action me.act() }
    }
    tree V(me: &mut Agent) {
        for_each(x: u8 = None, if_empty = skip) { success }
    }
}
fn main() {}
