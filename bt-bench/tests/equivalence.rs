//! Every implementation that can express a reference tree does exactly the
//! same work on the same scripted run; the macro's trees never allocate
//! while ticking; the generated sources are up to date.

use bt_bench::harness::{self, Imp, TreeId};

#[global_allocator]
static ALLOC: bt_bench::alloc::Counting = bt_bench::alloc::Counting;

#[test]
fn all_implementations_agree_on_every_tree_and_scenario() {
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            let reference = harness::checksum(Imp::Dyn, tree, scenario, 64, 300).unwrap();
            assert!(
                reference.calls > 64 * 300,
                "{tree:?}/{scenario:?} does some work"
            );
            for imp in Imp::ALL {
                match harness::checksum(imp, tree, scenario, 64, 300) {
                    Ok(sum) => assert!(
                        sum.agrees_with(&reference),
                        "{imp:?} on {tree:?}/{scenario:?}: {sum:?}\nboxed-dyn: {reference:?}"
                    ),
                    Err(why) => assert!(
                        matches!((imp, tree), (Imp::Bhv, TreeId::Guard | TreeId::Large)),
                        "{imp:?} cannot express {tree:?}: {why}"
                    ),
                }
            }
        }
    }
}

#[test]
fn scenarios_put_the_load_they_name() {
    use bt_bench::world::Scenario;
    for tree in TreeId::ALL {
        let run = |scenario| harness::checksum(Imp::Ours, tree, scenario, 64, 300).unwrap();
        let steady = run(Scenario::Steady);
        let restarts = run(Scenario::Restarts);
        // Steady: after the first tick every root stays Running.
        assert!(steady.roots[2] >= 64 * 299, "{tree:?} steady: {steady:?}");
        // Restarts: the root keeps finishing (every few ticks even in the
        // large tree).
        assert!(
            restarts.roots[0] + restarts.roots[1] > 64 * 300 / 10,
            "{tree:?} restarts: {restarts:?}"
        );
        if tree != TreeId::Small {
            let preemption = run(Scenario::Preemption);
            assert!(
                preemption.halts.unwrap() > 64 * 10,
                "{tree:?} preemption: {preemption:?}"
            );
        }
    }
}

#[test]
fn generated_trees_do_not_allocate_while_ticking() {
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            // Recording every agent allocates nothing per tick either.
            for imp in [Imp::Ours, Imp::Hand, Imp::Recorded] {
                let per_tick =
                    harness::allocations_per_tick(imp, tree, scenario, 100, 200).unwrap();
                assert_eq!(per_tick, 0.0, "{imp:?} {tree:?}/{scenario:?}");
            }
        }
    }
}

/// Hot reload's engine: the interpreter with compiled expressions reached
/// by index allocates nothing per tick either.
#[test]
fn the_interpreted_tick_does_not_allocate() {
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            let per_tick =
                harness::allocations_per_tick(Imp::Interpreted, tree, scenario, 100, 200).unwrap();
            assert_eq!(per_tick, 0.0, "{tree:?}/{scenario:?}");
        }
    }
}

#[test]
fn generated_sources_are_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, text) in bt_bench::codegen::files() {
        let committed = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(
            committed == text,
            "{path} is stale: run `cargo run -p bt-bench --bin gen`"
        );
    }
}

/// The generated decider and the hand-written one make the same calls and
/// return the same statuses, with and without trace hooks.
#[test]
fn decider_variants_agree() {
    use bt_bench::decider::{Herd, Variant};
    let run = |v: Variant| {
        let mut herd = Herd::new(v, 64);
        for _ in 0..400 {
            herd.step();
        }
        (herd.calls(), herd.statuses)
    };
    let reference = run(Variant::Hand);
    for v in Variant::ALL {
        assert_eq!(run(v), reference, "{}", v.name());
    }
}

/// The gated and ungated trees make the same calls, and every permit comes back.
#[test]
fn gate_herds_agree() {
    use bt_bench::decider::GateHerd;
    let mut with = GateHerd::new(true, 64);
    let mut without = GateHerd::new(false, 64);
    for _ in 0..100 {
        with.step();
        without.step();
    }
    assert_eq!(with.statuses, without.statuses);
    assert_eq!(with.shared.gate.inside(), 0);
}

#[test]
fn the_guards_state_is_no_larger_than_the_hand_written_one() {
    // The priorities' tag sits in the parallel's record beside one shared
    // memory, as the hand-written guard keeps its running branch in a byte
    // beside one `act` word.
    state_is_no_larger::<bt_bench::ours::Guard, bt_bench::hand::GuardHand>(12);
}

#[test]
fn the_small_trees_state_is_no_larger_than_the_hand_written_one() {
    // `idle` is an `instant`, so the select keeps nothing for it, and the
    // attack's ticks left are a `NonZeroU32`, so "not attacking" is their
    // 0, as in the hand-written tree's `u32`.
    state_is_no_larger::<bt_bench::ours::Small, bt_bench::hand::SmallHand>(4);
}

/// `Ours` is `bytes` long, and no longer than `Hand`.
fn state_is_no_larger<Ours, Hand>(bytes: usize) {
    let (ours, hand) = (std::mem::size_of::<Ours>(), std::mem::size_of::<Hand>());
    assert_eq!(ours, bytes);
    assert!(ours <= hand, "{ours} bytes against {hand}");
}
