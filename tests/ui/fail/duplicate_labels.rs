include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        select {
            'attack: action me.act(),
            'attack: cond me.ok(),
        }
    }
}
fn main() {}
