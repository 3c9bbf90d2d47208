//! Trees at the edges of the documented limits compile and behave: a
//! 1,000-wide sequence (whose resume code is flat, not nested), a wide
//! `sequence_with_memory`, 100-wide parallels (128-bit masks), a select of
//! 40 actions and a chain 100 nodes deep (the deepest rustc's default
//! `recursion_limit` lays out).

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

/// `Running` for the child `me.starts` names, `Failure` for the others.
fn run(k: u32, me: &mut Counter) -> Status {
    if me.starts == k {
        Status::Running
    } else {
        Status::Failure
    }
}

behavior_tree! {
    /// 40 children that run without state, then a stateful leaf inside a
    /// sequence: the active path of a wide node with more such children
    /// than one chunk is found through one computed index.
    pub tree WideActions(me: &mut Counter) {
        select {
            action run(0, me), action run(1, me), action run(2, me), action run(3, me), action run(4, me), action run(5, me), action run(6, me), action run(7, me),
            action run(8, me), action run(9, me), action run(10, me), action run(11, me), action run(12, me), action run(13, me), action run(14, me), action run(15, me),
            action run(16, me), action run(17, me), action run(18, me), action run(19, me), action run(20, me), action run(21, me), action run(22, me), action run(23, me),
            action run(24, me), action run(25, me), action run(26, me), action run(27, me), action run(28, me), action run(29, me), action run(30, me), action run(31, me),
            action run(32, me), action run(33, me), action run(34, me), action run(35, me), action run(36, me), action run(37, me), action run(38, me), action run(39, me),
            sequence { Step, Step },
        }
    }
}

#[test]
fn a_wide_select_reports_its_running_child_with_or_without_state() {
    let mut t = WideActions::default();
    for k in [0u32, 1, 17, 31, 32, 39] {
        let mut me = Counter {
            starts: k,
            ..Counter::default()
        };
        assert_eq!(t.tick(&mut me), Status::Running);
        let path: Vec<usize> = t.active_path().iter().map(|n| n.info.id).collect();
        assert_eq!(path, [0, k as usize + 1], "child {k}");
        assert_eq!(t.active_path()[1].depth, 1);
        t.reset(&mut me);
    }
    // No action runs: the sequence does, with its first step.
    let mut me = Counter {
        starts: 99,
        ..Counter::default()
    };
    assert_eq!(t.tick(&mut me), Status::Running);
    let path: Vec<usize> = t.active_path().iter().map(|n| n.info.id).collect();
    assert_eq!(path, [0, 41, 42]);
}
