//! Trees at the edges of the documented limits compile and behave: a
//! 1,000-wide sequence (whose resume code is flat, not nested), a wide
//! `sequence_with_memory`, 100-wide parallels (128-bit masks), and a chain
//! 100 nodes deep (the deepest rustc's default `recursion_limit` lays out).

mod common;

use bt::{BehaviorTree, Status, behavior_tree};
use common::steps::{Counter, Step};

behavior_tree! {
    pub tree Wide(me: &mut Counter) {
        sequence {
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
        }
    }

    pub tree WideMemory(me: &mut Counter) {
        sequence_with_memory {
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
        }
    }

    pub tree WideParallel(me: &mut Counter) {
        parallel {
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
        }
    }

    pub tree WideParallelFailures(me: &mut Counter) {
        parallel(success = 90, failure = 3) {
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
            Step, Step, Step, Step, Step, Step, Step, Step, Step, Step,
        }
    }

    pub tree Deep(me: &mut Counter) {
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
        Step
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
        } } } } } } } } } }
    }
}

#[test]
fn a_thousand_wide_sequence_resumes_at_each_child_in_turn() {
    let (mut me, mut t) = (Counter::default(), Wide::default());
    for tick in 1..=1000 {
        assert_eq!(t.tick(&mut me), Status::Running, "tick {tick}");
        assert_eq!(me.starts, tick);
        let path: Vec<usize> = t.active_path().iter().map(|n| n.info.id).collect();
        assert_eq!(path, [0, tick as usize], "tick {tick}");
    }
    assert_eq!(t.tick(&mut me), Status::Success);
    assert_eq!(<Wide as BehaviorTree>::NODES.len(), 1001);
    assert!(!t.is_active());
}

#[test]
fn a_wide_sequence_with_memory_resumes_where_it_failed() {
    let (mut me, mut t) = (Counter::default(), WideMemory::default());
    for _ in 0..35 {
        t.tick(&mut me);
    }
    // Child 34 runs; it fails, and the next tick starts it again.
    me.fail = true;
    assert_eq!(t.tick(&mut me), Status::Failure);
    me.fail = false;
    assert_eq!(t.tick(&mut me), Status::Running);
    assert_eq!(me.starts, 36);
    // Children 34 to 39 finish one per tick, the last on the sixth.
    for _ in 0..5 {
        assert_eq!(t.tick(&mut me), Status::Running);
    }
    assert_eq!(t.tick(&mut me), Status::Success);
}

#[test]
fn a_hundred_wide_parallel_tracks_each_running_child() {
    let (mut me, mut t) = (Counter::default(), WideParallel::default());
    assert_eq!(t.tick(&mut me), Status::Running);
    assert_eq!(me.starts, 100);
    assert_eq!(t.active_path().len(), 101);
    // Every child is resumed, not started again, and succeeds.
    assert_eq!(t.tick(&mut me), Status::Success);
    assert_eq!((me.starts, me.halts), (100, 0));
    assert!(!t.is_active());
    // The first failure ends the node and halts the 99 others, the last
    // child's bit (99) included.
    assert_eq!(t.tick(&mut me), Status::Running);
    me.fail = true;
    assert_eq!(t.tick(&mut me), Status::Failure);
    assert_eq!((me.starts, me.halts), (200, 99));
    assert!(!t.is_active());
    me.fail = false;
    assert_eq!(t.tick(&mut me), Status::Running);
    assert_eq!(me.starts, 300);
}

#[test]
fn a_hundred_wide_parallel_counts_failures_over_its_children() {
    let (mut me, mut t) = (Counter::default(), WideParallelFailures::default());
    assert_eq!(t.tick(&mut me), Status::Running);
    // The third failure (child 2) ends the node; children 3 to 99 are halted.
    me.fail = true;
    assert_eq!(t.tick(&mut me), Status::Failure);
    assert_eq!((me.starts, me.halts), (100, 97));
    assert!(!t.is_active());
}

#[test]
fn a_hundred_deep_chain_ticks_and_resets() {
    let (mut me, mut t) = (Counter::default(), Deep::default());
    assert_eq!(<Deep as BehaviorTree>::NODES.len(), 201);
    assert_eq!(t.tick(&mut me), Status::Running);
    t.reset(&mut me);
    assert_eq!(me.halts, 1);
    // 101 steps, each running for one tick: the last succeeds on tick 102.
    // After tick k, the step of the k-th nested sequence runs: the path
    // is every sequence down to it, then the step.
    for k in 1..=101 {
        assert_eq!(t.tick(&mut me), Status::Running);
        let path: Vec<(usize, usize)> = t
            .active_path()
            .iter()
            .map(|n| (n.info.id, n.depth))
            .collect();
        // The 101st step is the innermost sequence's second child.
        let sequences = (0..k.min(100)).map(|level| (2 * level, level));
        let step = if k <= 100 { (2 * k - 1, k) } else { (200, 100) };
        let expected: Vec<(usize, usize)> = sequences.chain([step]).collect();
        assert_eq!(path, expected, "tick {k}");
    }
    assert_eq!(t.tick(&mut me), Status::Success);
    assert_eq!(me.starts, 102);
}
