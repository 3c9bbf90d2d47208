include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        select {
            when me.ok() => action me.act(),
            success,
        }
    }
}
fn main() {}
