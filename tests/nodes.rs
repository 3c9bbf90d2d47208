//! Behaviour of every node kind, as exact traces of leaf events per tick.
//! See `common/mod.rs` for the trace notation.

mod common;

use bt::{BehaviorTree, NodeKind, Status, behavior_tree};
use common::{L, World};

behavior_tree! {
    tree Seq(w: &mut World) {
        sequence { cond w.cond("c"), L { n: "a" }, action w.act("x"), L { n: "b" } }
    }

    tree Sel(w: &mut World) {
        select { cond w.cond("c"), L { n: "a" }, L { n: "b" } }
    }

    tree ReactiveSeq(w: &mut World) {
        reactive_sequence { cond w.cond("c"), L { n: "a" }, L { n: "b" } }
    }

    tree ReactiveSel(w: &mut World) {
        reactive_select { cond w.cond("c"), L { n: "a" }, L { n: "b" } }
    }

    tree Par(w: &mut World) {
        parallel(success = 2, failure = 2) { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree ParDefault(w: &mut World) {
        parallel { L { n: "a" }, L { n: "b" } }
    }

    tree ParHopeless(w: &mut World) {
        parallel(success = 2, failure = 3) { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree ParInstant(w: &mut World) {
        parallel(success = 1, failure = 2) { cond w.cond("c"), cond w.cond("d") }
    }

    tree SelInstant(w: &mut World) {
        select { sequence { cond w.cond("c"), L { n: "a" } }, instant w.now("i") }
    }

    tree NicheInstant(w: &mut World) {
        select { sequence { cond w.cond("c"), Niche }, instant w.now("i") }
    }

    tree NicheAction(w: &mut World) {
        select { sequence { cond w.cond("c"), Niche }, action w.act("i") }
    }

    tree Mapping(w: &mut World) {
        sequence { invert { L { n: "a" } }, force_failure { cond w.cond("c") } }
    }

    tree ForceOk(w: &mut World) {
        force_success { L { n: "a" } }
    }

    tree KeepRunning(w: &mut World) {
        keep_running_until_failure { L { n: "a" } }
    }

    tree Rep(w: &mut World) {
        repeat(3) { L { n: "a" } }
    }

    tree Ret(w: &mut World) {
        retry(2) { L { n: "a" } }
    }

    tree RepeatPreempted(w: &mut World) {
        reactive_sequence { cond w.cond("c"), repeat(2) { L { n: "a" } } }
    }

    tree Constants() {
        select { failure, sequence { success, running } }
    }

    tree Deep(w: &mut World) {
        parallel {
            sequence { L { n: "a" }, parallel { L { n: "b" }, L { n: "c" } } },
            invert { L { n: "d" } },
        }
    }
}

fn lines(expected: &[&str]) -> Vec<String> {
    expected.iter().map(|s| s.to_string()).collect()
}

#[test]
fn sequence_resumes_at_the_running_child_and_restarts_after_failure() {
    let mut w = World::new(&[("c", "SS"), ("a", "RSF"), ("x", "RS"), ("b", "S")]);
    let mut t = Seq::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&["R: ?c=S +a=R", "R: .a=S x=R", "S: x=S +b=S", "F: ?c=S +a=F"])
    );
    assert!(!t.is_active());
}

#[test]
fn select_resumes_at_the_running_child() {
    let mut w = World::new(&[("c", "FS"), ("a", "RF"), ("b", "RS")]);
    let mut t = Sel::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&["R: ?c=F +a=R", "R: .a=F +b=R", "S: .b=S", "S: ?c=S"])
    );
}

#[test]
fn reactive_sequence_reticks_earlier_children_and_halts_the_later_one() {
    let mut w = World::new(&[("c", "SSFS"), ("a", "SRS"), ("b", "RS")]);
    let mut t = ReactiveSeq::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: ?c=S +a=S +b=R",
            // `a` runs again while `b` was running: `a` starts, then `b` is halted.
            "R: ?c=S +a=R !b",
            // the condition fails: the running `a` is halted.
            "F: ?c=F !a",
            "S: ?c=S +a=S +b=S",
        ])
    );
    assert!(w.open_leaves().is_empty());
}

#[test]
fn reactive_sequence_resumes_the_running_child_in_place() {
    let mut w = World::new(&[("c", "SSS"), ("a", "SSS"), ("b", "RRS")]);
    let mut t = ReactiveSeq::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&[
            "R: ?c=S +a=S +b=R",
            "R: ?c=S +a=S .b=R",
            "S: ?c=S +a=S .b=S"
        ])
    );
}

#[test]
fn reactive_select_lets_a_higher_priority_child_preempt() {
    let mut w = World::new(&[("c", "FFSF"), ("a", "FRF"), ("b", "RF")]);
    let mut t = ReactiveSel::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: ?c=F +a=F +b=R",
            "R: ?c=F +a=R !b",
            "S: ?c=S !a",
            "F: ?c=F +a=F +b=F"
        ])
    );
    assert!(w.open_leaves().is_empty());
}

#[test]
fn parallel_finishes_at_its_thresholds_and_halts_the_rest() {
    let mut w = World::new(&[("a", "RSF"), ("b", "SF"), ("c", "R")]);
    let mut t = Par::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&[
            "R: +a=R +b=S +c=R",
            // `b` finished on the first tick and is not ticked again.
            "S: .a=S !c",
            // two failures: done before `c` is even started.
            "F: +a=F +b=F",
        ])
    );
}

#[test]
fn parallel_defaults_to_all_must_succeed() {
    let mut w = World::new(&[("a", "RF"), ("b", "R")]);
    let mut t = ParDefault::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["R: +a=R +b=R", "F: .a=F !b"])
    );
}

#[test]
fn parallel_fails_once_success_is_impossible() {
    let mut w = World::new(&[("a", "RF"), ("b", "F"), ("c", "R")]);
    let mut t = ParHopeless::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["R: +a=R +b=F +c=R", "F: .a=F !c"])
    );
}

#[test]
fn parallel_of_instant_children_finishes_in_one_tick() {
    let mut w = World::new(&[("c", "FF"), ("d", "SF")]);
    let mut t = ParInstant::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["S: ?c=F ?d=S", "F: ?c=F ?d=F"])
    );
    assert_eq!(<ParInstant as BehaviorTree>::STATE_SIZE, 0);
}

/// A leaf whose memory is never 0, as a `NonZeroU32`.
struct Niche;

impl bt::Leaf<World> for Niche {
    type Memory = NonZero;

    fn tick(&self, ticks: &mut NonZero, _: &mut World) -> Status {
        ticks.0 = ticks.0.saturating_add(1);
        Status::Running
    }
}

#[derive(Clone, Copy, Debug)]
struct NonZero(std::num::NonZeroU32);

impl Default for NonZero {
    fn default() -> Self {
        NonZero(std::num::NonZeroU32::MIN)
    }
}

#[test]
fn instant_returns_its_outcome_and_its_parent_keeps_no_state_for_it() {
    let mut w = World::new(&[("c", "FSF"), ("a", "RS"), ("i", "SF")]);
    let mut t = SelInstant::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&["S: ?c=F i=S", "R: ?c=S +a=R", "S: .a=S", "F: ?c=F i=F"])
    );
    // With an `action`, the select keeps a variant for the Running it could
    // return; with an `instant`, the select's state is the leaf's memory
    // alone, with "not running" in the memory's niche.
    assert_eq!(<NicheInstant as BehaviorTree>::STATE_SIZE, 4);
    assert_eq!(<NicheAction as BehaviorTree>::STATE_SIZE, 8);
    let kinds: Vec<NodeKind> = SelInstant::NODES.iter().map(|n| n.kind).collect();
    assert_eq!(kinds[4], NodeKind::Instant);
}

#[test]
fn invert_and_force_map_final_statuses_only() {
    let mut w = World::new(&[("a", "RFS"), ("c", "S")]);
    let mut t = Mapping::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: +a=R", "F: .a=F ?c=S", "F: +a=S"])
    );

    let mut w = World::new(&[("a", "FRF")]);
    let mut t = ForceOk::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["S: +a=F", "R: +a=R", "S: .a=F"])
    );
}

#[test]
fn keep_running_until_failure_reports_success_as_running_and_restarts_the_child() {
    let mut w = World::new(&[("a", "SRSF")]);
    let mut t = KeepRunning::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&["R: +a=S", "R: +a=R", "R: .a=S", "F: +a=F"])
    );
    // Running after a success, yet nothing is held: the next tick starts anew.
    let mut w = World::new(&[("a", "S")]);
    let mut t = KeepRunning::default();
    assert_eq!(w.run(1, |w| t.tick(w)), lines(&["R: +a=S"]));
    assert!(!t.is_active());
}

#[test]
fn repeat_reruns_a_succeeding_child_n_times() {
    let mut w = World::new(&[("a", "SRSSF")]);
    let mut t = Rep::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: +a=S +a=R", "S: .a=S +a=S", "F: +a=F"])
    );
}

#[test]
fn retry_reruns_a_failing_child_up_to_n_attempts() {
    let mut w = World::new(&[("a", "FRFS")]);
    let mut t = Ret::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: +a=F +a=R", "F: .a=F", "S: +a=S"])
    );
}

#[test]
fn preempted_repeat_halts_its_child_and_forgets_its_count() {
    let mut w = World::new(&[("c", "SFS"), ("a", "SRSS")]);
    let mut t = RepeatPreempted::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: ?c=S +a=S +a=R", "F: ?c=F !a", "S: ?c=S +a=S +a=S"])
    );
}

#[test]
fn constants() {
    let mut t = Constants::default();
    assert_eq!(t.tick(), Status::Running);
    assert_eq!(t.tick(), Status::Running);
}

#[test]
fn reset_halts_every_running_leaf_deepest_first_in_child_order() {
    let mut w = World::new(&[("a", "SS"), ("b", "R"), ("c", "R"), ("d", "R")]);
    let mut t = Deep::default();
    assert_eq!(w.run(1, |w| t.tick(w)), lines(&["R: +a=S +b=R +c=R +d=R"]));
    assert!(t.is_active());
    t.reset(&mut w);
    assert_eq!(w.take_events(), "!b !c !d");
    assert!(!t.is_active());
    assert!(w.open_leaves().is_empty());
    // Reset twice halts nothing twice.
    t.reset(&mut w);
    assert_eq!(w.take_events(), "");
}

mod guards {
    use super::common::{L, World};
    bt::behavior_tree! {
        /// Used by another module as a subtree; `tag` names its leaf.
        pub tree Inner(w: &mut World, tag: &'static str) {
            sequence { L { n: tag }, action w.act("x") }
        }
    }
}

behavior_tree! {
    tree Outer(w: &mut World) {
        reactive_select { cond w.cond("c"), guards::Inner(w, "a") }
    }
}

#[test]
fn subtree_is_ticked_with_its_arguments_and_halted_when_preempted() {
    let mut w = World::new(&[("c", "FFFS"), ("a", "RRS"), ("x", "R")]);
    let mut t = Outer::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: ?c=F +a=R",
            "R: ?c=F .a=R",
            "R: ?c=F .a=S x=R",
            "S: ?c=S"
        ])
    );

    let mut w = World::new(&[("c", "FS"), ("a", "R")]);
    let mut t = Outer::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["R: ?c=F +a=R", "S: ?c=S !a"])
    );
    let (outer, inner) = (Outer::STATE_SIZE, guards::Inner::STATE_SIZE);
    assert!(
        outer >= inner,
        "the subtree's state is part of the parent's: {outer} < {inner}"
    );
}

/// A leaf with a large memory, to show that exclusive branches share bytes.
struct Big;
impl bt::Leaf<World> for Big {
    type Memory = Blob;
    fn tick(&self, _: &mut Blob, _: &mut World) -> Status {
        Status::Running
    }
}
#[derive(Clone, Debug)]
struct Blob(#[allow(dead_code)] [u8; 64]);
impl Default for Blob {
    fn default() -> Self {
        Blob([0; 64])
    }
}

behavior_tree! {
    tree Exclusive(w: &mut World) {
        select { sequence { cond w.cond("c"), Big }, sequence { cond w.cond("d"), Big } }
    }
    tree Concurrent(w: &mut World) {
        parallel { Big, Big }
    }
}

#[test]
fn exclusive_branches_share_bytes_and_concurrent_ones_do_not() {
    let exclusive = <Exclusive as BehaviorTree>::STATE_SIZE;
    let concurrent = <Concurrent as BehaviorTree>::STATE_SIZE;
    assert!((64..2 * 64).contains(&exclusive), "{exclusive}");
    assert!(concurrent >= 2 * 64, "{concurrent}");
    assert_eq!(std::mem::size_of::<Exclusive>(), exclusive);
}

behavior_tree! {
    /// Looks around while one of four branches runs; the three with state
    /// all run `L`, so the parallel keeps which branch runs in a tag beside
    /// one `Run`.
    tree Lookout(w: &mut World) {
        parallel(success = 2, failure = 1) {
            force_success { L { n: "look" } },
            reactive_select {
                reactive_sequence { cond w.cond("hurt"), L { n: "flee" } },
                sequence { cond w.cond("seen"), invert { L { n: "fight" } } },
                action w.act("wait"),
                L { n: "walk" },
            },
        }
    }
}

#[test]
fn exclusive_branches_of_one_leaf_type_in_a_parallel_share_one_memory() {
    let mut w = World::new(&[
        ("look", "RRRRS"),
        ("hurt", "FFSSFF"),
        ("seen", "FSFF"),
        ("wait", "FRS"),
        ("walk", "R"),
        ("fight", "R"),
        ("flee", "RR"),
    ]);
    let mut t = Lookout::default();
    // Each leaf checks that the memory it ticks or halts is its own run's.
    assert_eq!(
        w.run(6, |w| t.tick(w)),
        lines(&[
            "R: +look=R ?hurt=F ?seen=F wait=F +walk=R",
            "R: .look=R ?hurt=F ?seen=S +fight=R !walk",
            "R: .look=R ?hurt=S +flee=R !fight",
            "R: .look=R ?hurt=S .flee=R",
            "R: .look=S ?hurt=F !flee ?seen=F wait=R",
            "S: ?hurt=F ?seen=F wait=S",
        ])
    );
    assert!(!t.is_active());
    // Halting mid-run halts the running branch's leaf through the memory.
    let mut w = World::new(&[("look", "R"), ("hurt", "S"), ("flee", "R")]);
    let mut t = Lookout::default();
    assert_eq!(
        w.run(1, |w| t.tick(w)),
        lines(&["R: +look=R ?hurt=S +flee=R"])
    );
    t.reset(&mut w);
    assert_eq!(w.take_events(), "!look !flee");
    // Two memories and one word for the masks and the tag.
    let size = <Lookout as BehaviorTree>::STATE_SIZE;
    let run = std::mem::size_of::<common::Run>();
    assert!(size <= 2 * run + 8, "{size} bytes, {run} per memory");
}

const META_LINE: u32 = line!();
behavior_tree! {
    tree Meta(w: &mut World) {
        'root: select {
            'fight: sequence { cond w.cond("c"), L { n: "a" } },
            guards::Inner(w, "b"),
        }
    }
}

#[test]
fn metadata_describes_every_node() {
    let nodes = <Meta as BehaviorTree>::NODES;
    let shape: Vec<_> = nodes
        .iter()
        .map(|n| (n.id, n.kind, n.label, n.parent, n.depth, n.line - META_LINE))
        .collect();
    assert_eq!(
        shape,
        [
            (0, NodeKind::Select, Some("root"), None, 0, 3),
            (1, NodeKind::Sequence, Some("fight"), Some(0), 1, 4),
            (2, NodeKind::Cond, None, Some(1), 2, 4),
            (3, NodeKind::Leaf, None, Some(1), 2, 4),
            (4, NodeKind::Subtree, None, Some(0), 1, 5),
        ]
    );
    assert_eq!(nodes[2].detail, r#"cond w.cond("c")"#);
    assert_eq!(nodes[3].detail, r#"L { n: "a" }"#);
    assert_eq!(nodes[4].detail, r#"guards::Inner(w, "b")"#);
    assert_eq!(nodes[1].column, 13);
    assert_eq!(<Meta as BehaviorTree>::NAME, "Meta");
}

#[test]
fn active_path_follows_the_running_branch_into_subtrees() {
    let mut w = World::new(&[("c", "SF"), ("a", "R"), ("b", "R")]);
    let mut t = Meta::default();
    assert!(t.active_path().is_empty());

    assert_eq!(t.tick(&mut w), Status::Running);
    let path: Vec<_> = t
        .active_path()
        .iter()
        .map(|n| (n.info.tree, n.info.id, n.depth))
        .collect();
    assert_eq!(path, [("Meta", 0, 0), ("Meta", 1, 1), ("Meta", 3, 2)]);

    t.reset(&mut w);
    w.take_events();
    assert_eq!(t.tick(&mut w), Status::Running);
    let path: Vec<_> = t
        .active_path()
        .iter()
        .map(|n| (n.info.tree, n.info.id, n.depth))
        .collect();
    // Meta/select -> Meta/subtree -> Inner/sequence -> Inner/leaf
    assert_eq!(
        path,
        [
            ("Meta", 0, 0),
            ("Meta", 4, 1),
            ("Inner", 0, 2),
            ("Inner", 1, 3)
        ]
    );
}
