//! A chain 300 nodes deep, the deepest the documented limits allow: the
//! crate raises rustc's `recursion_limit` to 328 and the tree says so too.
#![recursion_limit = "328"]

mod common;

use bt::{BehaviorTree, Status, behavior_tree};
use common::steps::{Counter, Step};

behavior_tree! {
    #[bt(recursion_limit = 328)]
    pub tree Deep300(me: &mut Counter) {
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step, sequence { Step,
        Step
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
        } } } } } } } } } } } } } } } } } } } } } } } } } } } } }
    }
}

#[test]
fn a_300_deep_chain_compiles_ticks_and_resets() {
    let (mut me, mut t) = (Counter::default(), Deep300::default());
    let nodes = <Deep300 as BehaviorTree>::NODES;
    assert_eq!(nodes.iter().map(|n| n.depth).max(), Some(299));
    assert_eq!(nodes.len(), 599);
    assert_eq!(t.tick(&mut me), Status::Running);
    t.reset(&mut me);
    assert_eq!(me.halts, 1);
    // 300 steps, each running for one tick: the last succeeds one tick later.
    for _ in 0..300 {
        assert_eq!(t.tick(&mut me), Status::Running);
    }
    assert_eq!(t.active_path().len(), 300);
    assert_eq!(t.tick(&mut me), Status::Success);
    assert_eq!(me.starts, 301);
}
