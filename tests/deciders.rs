//! Spore-style decider groups: hysteresis, interrupts, masked redecides,
//! policies, guards, scopes and time nodes, as exact traces per tick. See
//! `common/mod.rs` for the notation; `?g=S` is a guard's `when` clause.

mod common;

use bt::{BehaviorTree, Ctx, Status, TickError, behavior_tree};
use common::{L, World};

bt::bitflags::bitflags! {
    /// Decision flags.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Mode: u8 {
        /// It is night.
        const NIGHT = 1;
        /// The agent is dead.
        const DEAD = 2;
    }
    /// Stimuli flags.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Senses: u8 {
        /// Took a hit.
        const HIT = 1;
        /// Smells food.
        const FOOD = 2;
    }
}

type Cx = Ctx<Mode, Senses>;

fn at(t: f64) -> Cx {
    Ctx::new(t, 0.1)
}

/// Draws the given numbers in order, for exact random choices: with `k`
/// candidates, a draw `v` picks candidate `floor(v * k / 2^32)`.
pub struct Draws(Vec<u32>);

impl bt::rand_core::TryRng for Draws {
    type Error = std::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.remove(0))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(u64::from(self.0.remove(0)))
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        unimplemented!("not used by the trees")
    }
}

/// Draw that picks candidate `i` of `k`.
fn nth(i: u32, k: u32) -> u32 {
    ((u64::from(i) << 32) / u64::from(k)) as u32 + 1
}

behavior_tree! {
    tree Prio(w: &mut World, cx: &Ctx<Mode, Senses>) {
        prioritized {
            'flee: when w.cond("g0") => L { n: "a" },
            'fight: when w.cond("g1") => L { n: "b" },
            'idle: else => L { n: "c" },
        }
    }

    tree Nested(w: &mut World, #[context] cx: &Cx) {
        prioritized {
            'guard: when w.cond("g0") => prioritized {
                when w.cond("g1") => L { n: "a" },
                when w.cond("g2") => L { n: "b" },
            },
            'idle: else => L { n: "c" },
        }
    }

    tree Bounded(w: &mut World, #[context] cx: &Cx) {
        prioritized(redecides = 1) {
            else => L { n: "a" },
            else => L { n: "b" },
            else => L { n: "c" },
        }
    }

    tree Seq(w: &mut World, #[context] cx: &Cx) {
        sequential {
            when w.cond("g0") => L { n: "a" },
            when w.cond("g1") => L { n: "b" },
            when w.cond("g2") => L { n: "c" },
        }
    }

    tree Rand(w: &mut World, rng: &mut Draws) {
        random(rng) {
            when w.cond("g0") => L { n: "a" },
            when w.cond("g1") => L { n: "b" },
            when w.cond("g2") => L { n: "c" },
        }
    }

    tree Shuf(w: &mut World, rng: &mut Draws) {
        shuffle(rng) {
            L { n: "a" },
            L { n: "b" },
            when w.cond("g2") => L { n: "c" },
        }
    }

    tree Score(w: &mut World) {
        scored {
            score w.score("s0") => L { n: "a" },
            score w.score("s1") => L { n: "b" },
            when w.cond("g2") => L { n: "c" },
        }
    }
}

#[test]
fn hysteresis_keeps_the_active_child_without_rechecking_its_guard() {
    let mut w = World::new(&[("g0", "FFF"), ("g1", "S"), ("b", "RRR")]);
    let mut tree = Prio::default();
    let lines = w.run(3, |w| tree.tick(w, &at(0.0)));
    // Only `flee`, above the active `fight`, is checked; `fight`'s own guard
    // and `idle` below it are not.
    assert_eq!(
        lines,
        ["R: ?g0=F ?g1=S +b=R", "R: ?g0=F .b=R", "R: ?g0=F .b=R"]
    );
}

#[test]
fn a_higher_guard_interrupts_and_the_active_body_is_halted_first() {
    let mut w = World::new(&[("g0", "FFS"), ("g1", "FF"), ("c", "RR"), ("a", "R")]);
    let mut tree = Prio::default();
    let lines = w.run(3, |w| tree.tick(w, &at(0.0)));
    // While `idle` (last) is active, both guards above it are checked.
    assert_eq!(
        lines,
        [
            "R: ?g0=F ?g1=F +c=R",
            "R: ?g0=F ?g1=F .c=R",
            "R: ?g0=S !c +a=R"
        ]
    );
    assert_eq!(w.open_leaves(), ["a"]);
}

#[test]
fn a_failing_body_redecides_in_the_same_tick_with_itself_masked() {
    let mut w = World::new(&[("g0", "FF"), ("g1", "S"), ("b", "F"), ("c", "R")]);
    let mut tree = Prio::default();
    let lines = w.run(1, |w| tree.tick(w, &at(0.0)));
    // `fight` fails on start: redecide, `fight` masked (its guard is not
    // asked again), `idle` takes over in the same tick.
    assert_eq!(lines, ["R: ?g0=F ?g1=S +b=F ?g0=F +c=R"]);
}

#[test]
fn a_group_whose_children_all_reject_fails_and_its_parent_redecides() {
    let mut w = World::new(&[("g0", "S"), ("g1", "F"), ("g2", "F"), ("c", "R")]);
    let mut tree = Nested::default();
    let lines = w.run(1, |w| tree.tick(w, &at(0.0)));
    assert_eq!(lines, ["R: ?g0=S ?g1=F ?g2=F +c=R"]);
}

#[test]
fn failure_inside_a_nested_group_is_masked_at_each_level() {
    // `a` runs, then fails: the inner group redecides (`b` rejects), fails,
    // and the root redecides with `guard` masked: `idle` runs.
    let mut w = World::new(&[
        ("g0", "S"),
        ("g1", "S"),
        ("a", "RF"),
        ("g2", "F"),
        ("c", "R"),
    ]);
    let mut tree = Nested::default();
    let lines = w.run(2, |w| tree.tick(w, &at(0.0)));
    assert_eq!(lines, ["R: ?g0=S ?g1=S +a=R", "R: .a=F ?g2=F +c=R"]);
}

#[test]
fn a_succeeding_body_ends_the_group_and_the_next_tick_decides_afresh() {
    let mut w = World::new(&[("g0", "FFF"), ("g1", "SS"), ("b", "RSR")]);
    let mut tree = Prio::default();
    let lines = w.run(3, |w| tree.tick(w, &at(0.0)));
    assert_eq!(
        lines,
        [
            "R: ?g0=F ?g1=S +b=R",
            "S: ?g0=F .b=S",
            "R: ?g0=F ?g1=S +b=R"
        ]
    );
    assert!(tree.is_active());
}

#[test]
fn nobody_accepting_fails_the_group() {
    let mut w = World::new(&[("g0", "F"), ("g1", "F"), ("g2", "F")]);
    let mut tree = Seq::default();
    assert_eq!(
        w.run(1, |w| tree.tick(w, &at(0.0))),
        ["F: ?g0=F ?g1=F ?g2=F"]
    );
    assert!(!tree.is_active());
}

#[test]
fn the_redecide_bound_turns_a_thrashing_tick_into_an_error() {
    let mut w = World::new(&[("a", "F"), ("b", "F"), ("c", "R")]);
    let mut tree = Bounded::default();
    let result = tree.try_tick(&mut w, &at(0.0));
    // One redecide is allowed (after `a`); the second (after `b`) is not.
    assert_eq!(w.take_events(), "+a=F +b=F");
    let Err(TickError::RedecideLimit { node, status }) = result else {
        panic!("expected the redecide limit, got {result:?}");
    };
    assert_eq!((node.id, status), (0, Status::Failure));
    assert!(!tree.is_active(), "the group failed and holds nothing");
    assert!(w.open_leaves().is_empty());
    // Within the bound, the tick is fine.
    let mut w = World::new(&[("a", "F"), ("b", "R")]);
    assert_eq!(tree.try_tick(&mut w, &at(0.0)), Ok(Status::Running));
}

#[test]
fn sequential_takes_the_children_in_turn_across_activations() {
    let mut w = World::new(&[
        ("g0", "SSF"),
        ("a", "SS"),
        ("g1", "SF"),
        ("b", "S"),
        ("g2", "SF"),
        ("c", "S"),
    ]);
    let mut tree = Seq::default();
    let lines = w.run(5, |w| tree.tick(w, &at(0.0)));
    assert_eq!(
        lines,
        [
            "S: ?g0=S +a=S",
            "S: ?g1=S +b=S",
            "S: ?g2=S +c=S",
            "S: ?g0=S +a=S",
            // `b` rejects now; the turn passes to `c`'s guard, then wraps.
            "F: ?g1=F ?g2=F ?g0=F",
        ]
    );
}

#[test]
fn random_picks_uniformly_among_the_accepting_children() {
    let mut w = World::new(&[
        ("g0", "SSS"),
        ("g1", "FSS"),
        ("g2", "SSS"),
        ("a", "S"),
        ("b", "S"),
        ("c", "S"),
    ]);
    // Tick 1: `a` and `c` accept, the draw picks the second of two: `c`.
    // Tick 2: all three accept, the draw picks the first: `a`.
    // Tick 3: the draw picks the second of three: `b`.
    let mut rng = Draws(vec![nth(1, 2), nth(0, 3), nth(1, 3)]);
    let mut tree = Rand::default();
    let lines = w.run(3, |w| tree.tick(w, &mut rng));
    assert_eq!(
        lines,
        [
            "S: ?g0=S ?g1=F ?g2=S +c=S",
            "S: ?g0=S ?g1=S ?g2=S +a=S",
            "S: ?g0=S ?g1=S ?g2=S +b=S",
        ]
    );
    assert!(rng.0.is_empty(), "one draw per decision");
}

#[test]
fn shuffle_runs_every_child_once_before_any_repeats() {
    let mut w = World::new(&[("g2", "SSSS"), ("a", "SS"), ("b", "SS"), ("c", "SS")]);
    // Always draw the last candidate: c, then b (of a, b), then a (the only
    // one left: no draw), then a new round: c again.
    let mut rng = Draws(vec![nth(2, 3), nth(1, 2), nth(2, 3)]);
    let mut tree = Shuf::default();
    let lines = w.run(4, |w| tree.tick(w, &mut rng));
    assert_eq!(
        lines,
        [
            "S: ?g2=S +c=S",
            "S: ?g2=S +b=S",
            "S: ?g2=S +a=S",
            "S: ?g2=S +c=S",
        ]
    );
    assert!(rng.0.is_empty());
}

#[test]
fn scored_runs_the_best_positive_score_and_ties_go_to_the_earlier_child() {
    let mut w = World::new(&[("g2", "SSS"), ("a", "S"), ("c", "SS")])
        .with_scores("s0", &[0.5, 2.0, 0.0])
        .with_scores("s1", &[0.9, 2.0, -1.0]);
    let mut tree = Score::default();
    let lines = w.run(3, |w| tree.tick(w));
    assert_eq!(
        lines,
        [
            // `c` has no score clause: it scores 1.0 and beats 0.5 and 0.9.
            "S: #s0=0.5 #s1=0.9 ?g2=S +c=S",
            // 2.0 ties 2.0: the earlier child wins.
            "S: #s0=2 #s1=2 ?g2=S +a=S",
            // Scores of zero or below reject.
            "S: #s0=0 #s1=-1 ?g2=S +c=S",
        ]
    );
    let _ = Status::Running;
}
