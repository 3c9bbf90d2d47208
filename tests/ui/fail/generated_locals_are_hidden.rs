include!("../agent.rs");

// The generated code's locals (`__r`, `__s0`, ...) and labels are hygienic:
// tree expressions cannot see them, even by guessing their names.
behavior_tree! {
    tree T(me: &mut Agent) {
        sequence { cond me.ok(), cond __r.is_success() }
    }
}

fn main() {}
