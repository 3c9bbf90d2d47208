include!("../agent.rs");

behavior_tree! {
    pub fn T(me: &mut Agent) {
        action me.act()
    }
}
fn main() {}
