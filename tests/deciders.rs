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
    tree Prio(w: &mut World, cx: &Ctx<Mode, Senses, impl bt::Trace>) {
        prioritized {
            'flee: when w.cond("g0") => L { n: "a" },
            'fight: when w.cond("g1") => L { n: "b" },
            'idle: else => L { n: "c" },
        }
    }

    /// `Prio`, remembering when each child activated.
    #[bt(activation_times)]
    tree PrioTimed(w: &mut World, cx: &Ctx<Mode, Senses, impl bt::Trace>) {
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

/// Something a `when let` guard finds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Food {
    /// Which one.
    pub id: u32,
}

/// World plus what guards look at.
pub struct Agent {
    /// The scripted world.
    pub w: World,
    /// What `when let` finds, changed by the tests between ticks.
    pub food: Option<Food>,
    /// Food ids eaten, one per tick of `eat`.
    pub eaten: Vec<u32>,
}

behavior_tree! {
    tree Eat(me: &mut Agent, cx: &Ctx<Mode, Senses>) {
        prioritized {
            'hurt: stimuli(any = Senses::HIT) flags(none = Mode::DEAD) => action me.w.act("flee"),
            'eat: when let Some(food): Option<Food> = me.food => action {
                me.eaten.push(food.id);
                Status::Running
            },
            'look: every(2) when me.w.cond("look") => action me.w.act("looked"),
            'night: flags(all = Mode::NIGHT | Mode::DEAD) => success,
            else => running,
        }
    }

    tree Hooks(w: &mut World, cx: &Ctx<Mode, Senses>) {
        prioritized {
            when w.cond("g0") => L { n: "a" },
            else => scope(enter = w.act("enter"), tick = w.cond("tick"), exit = w.note("exit")) {
                L { n: "b" }
            },
        }
    }

    tree Timers(w: &mut World, cx: Ctx<Mode, Senses>) {
        sequence {
            wait(1),
            timeout(2.0) { L { n: "a" } },
            delay(0.5) { L { n: "b" } },
        }
    }

    tree Cool(w: &mut World, cx: &Ctx<Mode, Senses>) {
        select {
            cooldown(3) { L { n: "a" } },
            run_once { L { n: "b" } },
            action w.act("fallback"),
        }
    }
}

#[test]
fn a_when_let_value_stays_bound_for_the_whole_activation() {
    let mut me = Agent {
        w: World::default(),
        food: Some(Food { id: 7 }),
        eaten: Vec::new(),
    };
    let mut tree = Eat::default();
    let cx = at(0.0);
    tree.tick(&mut me, &cx);
    // The world changes; the active child keeps the food its guard saw.
    me.food = Some(Food { id: 8 });
    tree.tick(&mut me, &cx);
    me.food = None;
    tree.tick(&mut me, &cx);
    assert_eq!(me.eaten, [7, 7, 7]);
    // A new activation binds anew.
    tree.reset();
    me.food = Some(Food { id: 9 });
    tree.tick(&mut me, &cx);
    assert_eq!(me.eaten, [7, 7, 7, 9]);
}

#[test]
fn flag_preconditions_check_decision_and_stimuli_flags() {
    let mut me = Agent {
        w: World::new(&[("flee", "SSS"), ("look", "FFF")]),
        food: None,
        eaten: Vec::new(),
    };
    let mut tree = Eat::default();
    let hit = |t| at(t).stimuli(Senses::HIT | Senses::FOOD);
    // stimuli(any = HIT) and flags(none = DEAD) both pass.
    assert_eq!(tree.tick(&mut me, &hit(0.0)), Status::Success);
    assert_eq!(me.w.take_events(), "flee=S");
    // Dead: `hurt` is masked off by its flag check; `look` rejects; night
    // needs NIGHT *and* DEAD.
    assert_eq!(
        tree.tick(&mut me, &hit(0.0).flags(Mode::DEAD)),
        Status::Running
    );
    assert_eq!(me.w.take_events(), "?look=F");
    tree.reset();
    let both = Mode::NIGHT | Mode::DEAD;
    assert_eq!(tree.tick(&mut me, &at(5.0).flags(both)), Status::Success);
    assert_eq!(me.w.take_events(), "?look=F");
    // No stimuli: `hurt` rejects.
    assert_eq!(tree.tick(&mut me, &at(5.5)), Status::Running);
    assert_eq!(me.w.take_events(), "", "`look` waits until 7.0");
}

#[test]
fn every_checks_a_guard_at_most_once_per_period() {
    let mut me = Agent {
        w: World::new(&[("look", "FFS"), ("looked", "S")]),
        food: None,
        eaten: Vec::new(),
    };
    let mut tree = Eat::default();
    let mut checks = Vec::new();
    for t in [0.0, 1.0, 1.9, 2.0, 3.0, 4.5, 5.0] {
        tree.tick(&mut me, &at(t));
        checks.push(format!("{t}:{}", me.w.take_events()));
    }
    assert_eq!(
        checks,
        [
            "0:?look=F",
            "1:",
            "1.9:",
            "2:?look=F",
            "3:",
            "4.5:?look=S looked=S",
            "5:"
        ]
    );
}

#[test]
fn scope_hooks_run_on_enter_every_tick_and_exit_including_on_halt() {
    let mut w = World::new(&[
        ("g0", "FFFS"),
        ("enter", "SS"),
        ("tick", "SSSS"),
        ("b", "RSR"),
        ("a", "R"),
    ]);
    let mut tree = Hooks::default();
    let lines = w.run(4, |w| tree.tick(w, &at(0.0)));
    assert_eq!(
        lines,
        [
            "R: ?g0=F enter=S ?tick=S +b=R",
            "S: ?g0=F ?tick=S .b=S exit",
            "R: ?g0=F enter=S ?tick=S +b=R",
            // Interrupted: `b` is halted first, then the scope exits.
            "R: ?g0=S !b exit +a=R",
        ]
    );
    // Reset halts `a`; the scope is not active, so no exit.
    tree.reset(&mut w);
    assert_eq!(w.take_events(), "!a");
}

#[test]
fn a_scope_whose_enter_or_tick_hook_rejects_fails() {
    let mut w = World::new(&[
        ("g0", "FFFFF"),
        ("enter", "FS"),
        ("tick", "SF"),
        ("b", "RR"),
    ]);
    let mut tree = Hooks::default();
    let lines = w.run(3, |w| tree.tick(w, &at(0.0)));
    assert_eq!(
        lines,
        [
            // `enter` refuses: the scope fails without exit; the masked
            // redecide asks `g0` again, and the group fails.
            "F: ?g0=F enter=F ?g0=F",
            "R: ?g0=F enter=S ?tick=S +b=R",
            // `tick` refuses: the child is halted, then exit.
            "F: ?g0=F ?tick=F !b exit ?g0=F",
        ]
    );
}

#[test]
fn reset_runs_the_exit_hook_of_an_active_scope() {
    let mut w = World::new(&[("g0", "F"), ("enter", "S"), ("tick", "S"), ("b", "R")]);
    let mut tree = Hooks::default();
    tree.tick(&mut w, &at(0.0));
    w.take_events();
    tree.reset(&mut w);
    assert_eq!(w.take_events(), "!b exit");
}

behavior_tree! {
    /// An `exit` hook that names the context only inside a format string.
    tree Farewell(log: &mut Vec<String>, cx: &Ctx<Mode, Senses>) {
        scope(exit = log.push(format!("left at {}", cx.now))) { wait(5) }
    }
}

behavior_tree! {
    /// The same, with the context captured by the format string itself.
    tree Captured(log: &mut Vec<String>, cx: &Ctx<Mode, Senses>) {
        scope(exit = log.push(format!("{cx:?}"))) { wait(5) }
    }
}

#[test]
fn reset_takes_the_bindings_an_exit_hook_names_even_inside_a_format_string() {
    let mut log = Vec::new();
    let mut farewell = Farewell::default();
    farewell.tick(&mut log, &at(1.0));
    // Both bindings: the hook names `log` and `cx`.
    farewell.reset(&mut log, &at(2.5));
    assert_eq!(log, ["left at 2.5"]);

    let mut log = Vec::new();
    let mut captured = Captured::default();
    captured.tick(&mut log, &at(1.0));
    captured.reset(&mut log, &at(3.0));
    assert_eq!(log.len(), 1);
    assert!(log[0].contains("now: 3.0"), "{log:?}");
}

#[test]
fn wait_timeout_and_delay_follow_the_context_time() {
    let mut w = World::new(&[("a", "RRRRS"), ("b", "RS")]);
    let mut tree = Timers::default();
    let times = [
        10.0, 10.5, 11.0, 12.0, 12.75, 13.0, 13.25, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25,
    ];
    let lines: Vec<String> = times
        .iter()
        .map(|&t| {
            let status = tree.tick(&mut w, at(t));
            format!("{t} {}", w.take_line(status))
        })
        .collect();
    assert_eq!(
        lines,
        [
            "10 R:",         // wait(1) starts
            "10.5 R:",       //
            "11 R: +a=R",    // waited 1 s: timeout(2) starts `a`
            "12 R: .a=R",    //
            "12.75 R: .a=R", //
            "13 F: !a",      // 2 s since `a` started: halted, timeout fails
            "13.25 R:",      // the sequence starts over: wait(1)
            "14 R:",         //
            "14.25 R: +a=R", //
            "14.5 R: .a=S",  // `a` made it; delay(0.5) starts
            "14.75 R:",      //
            "15 R: +b=R",    // 0.5 s later `b` starts
            "15.25 S: .b=S", //
        ]
    );
}

#[test]
fn cooldown_blocks_after_each_run_and_run_once_remembers_its_result() {
    let mut w = World::new(&[("a", "FSF"), ("b", "RFR"), ("fallback", "SSR")]);
    let mut tree = Cool::default();
    let mut lines: Vec<String> = [0.0, 1.0, 2.0, 3.0, 4.0]
        .iter()
        .map(|&t| {
            let status = tree.tick(&mut w, &at(t));
            format!("{t} {}", w.take_line(status))
        })
        .collect();
    // Reset forgets the cooldown and the run_once mark.
    tree.reset(&mut w);
    let status = tree.tick(&mut w, &at(4.5));
    lines.push(format!("4.5 {}", w.take_line(status)));
    assert_eq!(
        lines,
        [
            "0 R: +a=F +b=R",       // `a` fails: cooling down until 3
            "1 S: .b=F fallback=S", // `b` finished: failure, for good
            "2 S: fallback=S",      // neither `a` (cooling) nor `b` (done) tick
            "3 S: +a=S",            // cooled down
            "4 R: fallback=R",      //
            "4.5 R: +a=F +b=R",     // after reset
        ]
    );
}

#[test]
fn print_state_shows_the_active_path_with_labels_kinds_and_time_active() {
    let mut w = World::new(&[("g0", "FFF"), ("g1", "FS"), ("c", "R"), ("b", "RR")]);
    let mut tree = PrioTimed::default();
    tree.tick(&mut w, &at(1.0)); // idle from 1.0
    tree.tick(&mut w, &at(2.5)); // fight from 2.5
    tree.tick(&mut w, &at(3.0));
    let mut text = String::new();
    tree.print_state(6.25, &mut text).unwrap();
    assert_eq!(
        text,
        "*0 (prioritized)\n  *2 'fight (leaf L { n: \"b\" }) 3.75s\n"
    );
    tree.reset(&mut w, &at(7.0));
    let mut text = String::new();
    tree.print_state(7.0, &mut text).unwrap();
    assert_eq!(text, "PrioTimed (inactive)\n");
}

#[test]
fn without_activation_times_print_state_shows_no_time_and_the_state_is_smaller() {
    let mut w = World::new(&[("g0", "FFF"), ("g1", "FS"), ("c", "R"), ("b", "RR")]);
    let mut tree = Prio::default();
    tree.tick(&mut w, &at(1.0));
    tree.tick(&mut w, &at(2.5));
    let mut text = String::new();
    tree.print_state(6.25, &mut text).unwrap();
    assert_eq!(
        text,
        "*0 (prioritized)\n  *2 'fight (leaf L { n: \"b\" })\n"
    );
    // The leaf's memory and the active child; the timed tree adds an f64.
    assert_eq!(
        PrioTimed::STATE_SIZE - Prio::STATE_SIZE,
        core::mem::size_of::<f64>()
    );
    assert_ne!(Prio::LAYOUT_HASH, PrioTimed::LAYOUT_HASH);
}

#[test]
fn trace_levels_report_transitions_or_every_decision_for_one_agent() {
    use std::cell::RefCell;
    let lines = RefCell::new(Vec::new());
    let record = |e: &bt::TraceEvent| lines.borrow_mut().push(e.to_string());
    let mut w = World::new(&[("g0", "FFFF"), ("g1", "FFS"), ("c", "RR"), ("b", "RR")]);
    let mut tree = PrioTimed::default();
    // Level 2 for agent 1 only: agent 2's ticks print nothing.
    let level2 = bt::Tracer::new(2, record).only_agent(1);
    tree.tick(&mut w, &at(1.0).agent(1).trace(&level2));
    tree.tick(&mut w, &at(1.5).agent(2).trace(&level2));
    tree.tick(&mut w, &at(2.0).agent(1).trace(&level2));
    assert_eq!(
        lines.take(),
        [
            "BT(1) agent 1 @ 1.000: activating 'idle (n3 leaf) in n0 prioritized",
            "BT(2) agent 1 @ 2.000: interrupting 'idle (n3 leaf) for 'fight (n2 leaf) in n0 prioritized",
            // The leaves an interrupt halts (here the child itself).
            "BT(2) agent 1 @ 2.000:   halting 'idle (n3 leaf)",
            "BT(1) agent 1 @ 2.000: activating 'fight (n2 leaf) in n0 prioritized",
        ]
    );
    // Level 5: every decision, every tick.
    let level5 = bt::Tracer::new(5, record);
    tree.tick(&mut w, &at(3.0).agent(1).trace(&level5));
    assert_eq!(
        lines.take(),
        [
            "BT(3) agent 1 @ 3.000: tick PrioTimed starts",
            "BT(5) agent 1 @ 3.000: guard of 'flee (n1 leaf) rejects at `when w.cond(\"g0\")`",
            "BT(4) agent 1 @ 3.000: continuing 'fight (n2 leaf) in n0 prioritized, active for 1.000s",
            "BT(3) agent 1 @ 3.000: tick PrioTimed ends: Running",
        ]
    );
    // Without activation times, the same event says no duration.
    let mut w = World::new(&[("g0", "FF"), ("g1", "SS"), ("b", "RR")]);
    let mut tree = Prio::default();
    tree.tick(&mut w, &at(1.0));
    tree.tick(&mut w, &at(2.0).agent(1).trace(&level5));
    assert_eq!(
        lines.take()[2],
        "BT(4) agent 1 @ 2.000: continuing 'fight (n2 leaf) in n0 prioritized"
    );
}

behavior_tree! {
    /// Every policy with `when let` children and children that finish at
    /// once, which take other code paths than running children.
    tree Mixed(me: &mut Agent, rng: &mut Draws) {
        sequence {
            random(rng) {
                when let Some(f): Option<Food> = me.food => action { me.eaten.push(f.id); Status::Success },
                when let Some(f): Option<Food> = me.food => action { me.eaten.push(f.id + 100); Status::Running },
            },
            sequential {
                when me.w.cond("s0") => action me.w.act("i0"),
                action me.w.act("i1"),
            },
            scored {
                when let Some(f): Option<Food> = me.food score f.id as f32 => action { me.eaten.push(f.id + 200); Status::Success },
                score 0.5 => failure,
            },
        }
    }
}

#[test]
fn when_let_values_and_instant_children_under_every_policy() {
    let mut me = Agent {
        w: World::new(&[("s0", "SF"), ("i0", "F"), ("i1", "S")]),
        food: Some(Food { id: 4 }),
        eaten: Vec::new(),
    };
    // random picks the second child (running), then it keeps running;
    let mut rng = Draws(vec![nth(1, 2)]);
    let mut tree = Mixed::default();
    assert_eq!(tree.tick(&mut me, &mut rng), Status::Running);
    me.food = Some(Food { id: 5 });
    assert_eq!(tree.tick(&mut me, &mut rng), Status::Running);
    assert_eq!(me.eaten, [104, 104], "the value bound at activation");
    // Reset, and draw the first child: it succeeds at once; `sequential`
    // runs `i0`, which fails at once: redecide with it masked, `i1`
    // succeeds; `scored` binds the food and wins with 5.0 over 0.5.
    tree.reset();
    me.eaten.clear();
    let mut rng = Draws(vec![nth(0, 2)]);
    assert_eq!(tree.tick(&mut me, &mut rng), Status::Success);
    assert_eq!(me.eaten, [5, 205]);
    assert_eq!(me.w.take_events(), "?s0=S i0=F i1=S");
}

behavior_tree! {
    tree Inner(w: &mut World, cx: &Ctx<Mode, Senses>) {
        select { cooldown(5) { L { n: "a" } }, action w.act("rest") }
    }

    tree Outer(w: &mut World, cx: &Ctx<Mode, Senses>) {
        switch(w.act("pick")) {
            Status::Success => Inner(w, cx),
            _ => action w.act("other"),
        }
    }
}

#[test]
fn a_subtree_remembers_its_cooldowns_after_being_left_and_entered_again() {
    let mut w = World::new(&[("pick", "SFSS"), ("a", "SS"), ("other", "S"), ("rest", "S")]);
    let mut tree = Outer::default();
    let lines: Vec<String> = [0.0, 1.0, 2.0, 6.0]
        .iter()
        .map(|&t| {
            let status = tree.tick(&mut w, &at(t));
            format!("{t} {}", w.take_line(status))
        })
        .collect();
    assert_eq!(
        lines,
        [
            "0 S: pick=S +a=S",    // cooling down until 5
            "1 S: pick=F other=S", // the subtree is left
            "2 S: pick=S rest=S",  // entered again: still cooling down
            "6 S: pick=S +a=S",
        ]
    );
}
