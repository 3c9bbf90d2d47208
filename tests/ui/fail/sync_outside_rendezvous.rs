include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent, shared: &TShared) {
        sequence { action me.act(), sync }
    }
}
fn main() {}
