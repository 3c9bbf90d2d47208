include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.ok(), force_success {} }
    }
}

// The tree has an error, yet code using it type-checks: only the tree's
// error is reported, not a cascade of "cannot find type `T`".
fn main() {
    let mut agent = Agent;
    let mut state = T::default();
    let _status: Status = state.tick(&mut agent);
    state.reset(&mut agent);
}
