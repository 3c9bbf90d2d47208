//! Counts and sizes given as named constants, in every position a literal
//! is accepted: rustc checks their type, and a compile-time assertion their
//! limits (see the ui cases `named_count_*`).

mod common;

use bt::{Status, behavior_tree};
use common::{L, World};

const TRIES: u32 = 3;
const NEED: u32 = 2;
const MAX_REPAIRERS: u32 = 2;
const PAIR: u32 = 2;
const BOUND: u32 = 5;

mod limits {
    pub const TWICE: u32 = 2;
}

behavior_tree! {
    tree Repeated(w: &mut World) {
        repeat(TRIES) { L { n: "a" } }
    }

    tree Retried(w: &mut World) {
        retry(limits::TWICE) { L { n: "a" } }
    }

    tree Together(w: &mut World) {
        parallel(success = NEED, failure = NEED) { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree AllOf(w: &mut World) {
        parallel_all(max_failures = NEED) { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree Gated(w: &mut World, shared: &GatedShared) {
        select {
            'bench: gate(MAX_REPAIRERS) { L { n: "repair" } },
            action w.act("wait"),
        }
    }

    tree Bounded(w: &mut World) {
        prioritized(redecides = BOUND) {
            when w.cond("g") => L { n: "a" },
            else => L { n: "b" },
        }
    }

    tree Met(w: &mut World, shared: &MetShared) {
        rendezvous(PAIR) as _role { L { n: "meet" } }
    }
}

#[test]
fn repeat_and_retry_run_a_named_number_of_times() {
    // A child that finishes at once runs again in the same tick.
    let mut w = World::new(&[("a", "SSS")]);
    assert_eq!(Repeated::default().tick(&mut w), Status::Success);
    assert_eq!(w.take_events(), "+a=S +a=S +a=S");
    let mut w = World::new(&[("a", "SSRS")]);
    let mut state = Repeated::default();
    assert_eq!(state.tick(&mut w), Status::Running);
    assert_eq!(state.tick(&mut w), Status::Success);
    assert_eq!(w.take_events(), "+a=S +a=S +a=R .a=S");

    let mut w = World::new(&[("a", "FF")]);
    assert_eq!(Retried::default().tick(&mut w), Status::Failure);
    assert_eq!(w.take_events(), "+a=F +a=F");
}

#[test]
fn parallel_thresholds_can_be_named() {
    // Two of three succeed: success, before the third starts.
    let mut w = World::new(&[("a", "S"), ("b", "S")]);
    assert_eq!(Together::default().tick(&mut w), Status::Success);
    assert_eq!(w.take_events(), "+a=S +b=S");
    // The first runs on; two of three fail: failure, and the first is halted.
    let mut w = World::new(&[("a", "R"), ("b", "F"), ("c", "F")]);
    assert_eq!(Together::default().tick(&mut w), Status::Failure);
    assert_eq!(w.take_events(), "+a=R +b=F +c=F !a");
    // All finish; two failures reach `max_failures`.
    let mut w = World::new(&[("a", "F"), ("b", "S"), ("c", "F")]);
    assert_eq!(AllOf::default().tick(&mut w), Status::Failure);
    let mut w = World::new(&[("a", "F"), ("b", "S"), ("c", "S")]);
    assert_eq!(AllOf::default().tick(&mut w), Status::Success);
}

#[test]
fn a_gate_of_a_named_capacity_admits_that_many() {
    let shared = GatedShared::new();
    assert_eq!(shared.bench.capacity(), MAX_REPAIRERS);
    let mut events = Vec::new();
    for _ in 0..3 {
        let mut w = World::new(&[("repair", "R"), ("wait", "R")]);
        Gated::default().tick(&mut w, &shared);
        events.push(w.take_events());
    }
    assert_eq!(events, ["+repair=R", "+repair=R", "wait=R"]);
    assert!(shared.bench.is_full());
}

#[test]
fn a_named_redecide_bound_and_rendezvous_size_work_as_literals() {
    let mut w = World::new(&[("g", "S"), ("a", "R")]);
    assert_eq!(Bounded::default().tick(&mut w), Status::Running);
    let shared = MetShared::new();
    let (mut a, mut b) = (Met::default(), Met::default());
    let mut w = World::new(&[("meet", "SS")]);
    assert_eq!(a.tick(&mut w, &shared), Status::Running);
    assert_eq!(b.tick(&mut w, &shared), Status::Success);
    assert_eq!(a.tick(&mut w, &shared), Status::Success);
}
