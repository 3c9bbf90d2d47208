//! A saved tree whose runtime is re-exported under another path: the serde
//! derives find serde through that path too.

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
    #[bt(crate = engine::ai::runtime, serde)]
    pub tree Saved(me: &mut Agent, cx: &engine::ai::runtime::Ctx, shared: &SavedShared) {
        select {
            gate(1) { wait(1) },
            prioritized { when me.ready => action Status::Success, else => failure },
        }
    }
}

fn main() {
    let shared = SavedShared::new();
    let mut agent = Agent { ready: false };
    let mut state = Saved::default();
    let cx = engine::ai::runtime::Ctx::new(0.0, 0.1);
    assert_eq!(state.tick(&mut agent, &cx, &shared), Status::Running);
    let saved = serde_json::to_string(&(&state, &shared)).unwrap();
    let (mut loaded, shared): (Saved, SavedShared) = serde_json::from_str(&saved).unwrap();
    assert!(loaded.is_active());
    assert_eq!(shared.n1.inside(), 1);
    loaded.reset(&shared);
    assert_eq!(shared.n1.inside(), 0);
}
