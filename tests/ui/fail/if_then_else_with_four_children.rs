include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        if_then_else { cond me.ok(), action me.act(), success, failure }
    }
}
fn main() {}
