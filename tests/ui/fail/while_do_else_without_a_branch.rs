include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        while_do_else { cond me.ok() }
    }
}
fn main() {}
