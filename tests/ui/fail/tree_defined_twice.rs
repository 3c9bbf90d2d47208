include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) { action me.act() }
    tree T(me: &mut Agent) { cond me.ok() }
}
fn main() {
    // The first definition is declared: using it reports nothing more.
    let _ = T::default();
}
