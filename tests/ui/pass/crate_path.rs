//! A crate that re-exports `bt` under another path tells the macro where the
//! runtime is with `#[bt(crate = path)]`.

mod engine {
    pub mod ai {
        pub use ::bt as runtime;
    }
}

use engine::ai::runtime::{BehaviorTree, Status, behavior_tree};

pub struct Agent {
    ready: bool,
}

behavior_tree! {
    /// Every kind of generated item goes through the re-exported path.
    #[bt(crate = engine::ai::runtime)]
    pub tree Reexported(me: &mut Agent, cx: &engine::ai::runtime::Ctx, shared: &ReexportedShared) {
        select {
            gate(1) { wait(1) },
            prioritized { when me.ready => action Status::Success, else => failure },
        }
    }
}

fn main() {
    let shared = ReexportedShared::new();
    let mut agent = Agent { ready: false };
    let mut state = Reexported::default();
    let cx = engine::ai::runtime::Ctx::new(0.0, 0.1);
    assert_eq!(state.tick(&mut agent, &cx, &shared), Status::Running);
    assert!(state.is_active());
    state.reset(&shared);
    assert_eq!(shared.n1.inside(), 0);
}
