include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        parallel(succes = 1) { action me.act(), action me.act() }
    }
}
fn main() {}
