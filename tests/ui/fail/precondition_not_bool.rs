include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        success_if(me.act()) { action me.act() }
    }
}
fn main() {}
