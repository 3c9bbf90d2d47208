include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        retry(2) { cond me.ok(), action me.act() }
    }
}
fn main() {}
