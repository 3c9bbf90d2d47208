include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        select { reactive_sequence {}, action me.act() }
    }
}
fn main() {}
