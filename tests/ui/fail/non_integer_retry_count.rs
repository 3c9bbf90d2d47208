include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        retry(2.5) { action me.act() }
    }
}
fn main() {}
