include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        try_catch { action me.act() }
    }
    tree U(me: &mut Agent) {
        try_catch {}
    }
}
fn main() {}
