//! BehaviorTree.CPP's common catalog: the nodes and options this DSL has
//! for it (`if_then_else`, `while_do_else`, `sequence_with_memory`,
//! `parallel_all`, relative thresholds, `repeat`/`retry(forever)`,
//! `run_once(then_skip)`, the pre- and postcondition decorators, `every`,
//! `timeout(0)`), as exact traces per tick. See `common/mod.rs` for the
//! notation.

mod common;

use bt::{BehaviorTree, Ctx, Status, behavior_tree};
use common::{L, World};
use std::collections::VecDeque;

type Cx = Ctx;

fn at(t: f64) -> Cx {
    Ctx::new(t, 0.1)
}

behavior_tree! {
    tree Ite(w: &mut World) {
        if_then_else { cond w.cond("c"), L { n: "a" }, L { n: "b" } }
    }

    tree IteNoElse(w: &mut World) {
        if_then_else { cond w.cond("c"), L { n: "a" } }
    }

    tree IteRunningCondition(w: &mut World) {
        if_then_else { L { n: "c" }, L { n: "a" }, L { n: "b" } }
    }

    tree Wde(w: &mut World) {
        while_do_else { cond w.cond("c"), L { n: "a" }, L { n: "b" } }
    }

    tree WdeNoElse(w: &mut World) {
        while_do_else { cond w.cond("c"), L { n: "a" } }
    }

    tree WdeInstantBranch(w: &mut World) {
        while_do_else { cond w.cond("c"), cond w.cond("d"), L { n: "b" } }
    }

    tree WdeRunningCondition(w: &mut World) {
        while_do_else { L { n: "c" }, L { n: "a" }, L { n: "b" } }
    }

    tree TryCatch(w: &mut World) {
        try_catch { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree TryCatchAction(w: &mut World) {
        try_catch { cond w.cond("t"), action w.act("x") }
    }

    tree TryCatchInstant(w: &mut World) {
        try_catch { L { n: "a" }, cond w.cond("x") }
    }

    tree TryCatchHalted(w: &mut World) {
        reactive_sequence { cond w.cond("g"), try_catch { L { n: "a" }, L { n: "c" } } }
    }

    tree TryCatchWide(w: &mut World) {
        try_catch { success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree SwitchEq(w: &mut World, name: &String, home: &str) {
        switch_eq(*name) {
            home => L { n: "h" },
            "work" => L { n: "w" },
            "work" => L { n: "never" },
            _ => cond w.cond("d"),
        }
    }

    tree ForEach(w: &mut World, q: &mut VecDeque<&'static str>) {
        for_each(n: &'static str = q.pop_front()) { L { n: *n } }
    }

    tree ForEachOrFail(w: &mut World, q: &mut VecDeque<&'static str>) {
        for_each(n: &'static str = q.pop_front(), if_empty = failure) { L { n: *n } }
    }

    tree ForEachWaits(w: &mut World, q: &mut VecDeque<&'static str>) {
        for_each(n: &'static str = q.pop_front(), if_empty = running) { L { n: *n } }
    }

    tree ForEachHalted(w: &mut World, q: &mut VecDeque<&'static str>) {
        reactive_sequence { cond w.cond("g"), for_each(n: &'static str = q.pop_front()) { L { n: *n } } }
    }

    tree AsyncSeq(w: &mut World) {
        async_sequence { cond w.cond("c"), L { n: "a" }, action w.act("x"), cond w.cond("d") }
    }

    tree AsyncSel(w: &mut World) {
        async_select { cond w.cond("c"), cond w.cond("d"), cond w.cond("e") }
    }

    tree AsyncWide(w: &mut World) {
        async_sequence { success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, success, L { n: "a" }, success, success }
    }

    tree AsyncHalted(w: &mut World) {
        reactive_sequence { cond w.cond("g"), async_sequence { L { n: "a" }, L { n: "b" } } }
    }

    tree SeqMem(w: &mut World) {
        sequence_with_memory { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree SeqMemHalted(w: &mut World) {
        reactive_sequence { cond w.cond("g"), sequence_with_memory { L { n: "a" }, L { n: "b" } } }
    }

    tree ParAll(w: &mut World) {
        parallel_all(max_failures = 2) { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree ParAllInstant(w: &mut World) {
        parallel_all { cond w.cond("c"), cond w.cond("d") }
    }

    tree ParAllButOne(w: &mut World) {
        parallel(success = -2) { L { n: "a" }, L { n: "b" }, L { n: "c" } }
    }

    tree RepeatForever(w: &mut World) {
        repeat(forever) { L { n: "a" } }
    }

    tree RetryForever(w: &mut World) {
        retry(forever) { cond w.cond("c") }
    }

    tree ForeverPreempted(w: &mut World) {
        reactive_sequence { cond w.cond("g"), repeat(forever) { L { n: "a" } } }
    }

    tree OnceThenSkip(w: &mut World) {
        sequence { run_once(then_skip = true) { L { n: "a" } }, L { n: "b" } }
    }

    tree OnceThenSkipInSelect(w: &mut World) {
        select { run_once(then_skip = true) { L { n: "a" } }, L { n: "b" } }
    }

    tree Preconditions(w: &mut World) {
        sequence {
            skip_if(w.cond("s")) { L { n: "a" } },
            success_if(w.cond("y")) { L { n: "b" } },
            failure_if(w.cond("f")) { L { n: "c" } },
        }
    }

    tree Precondition(w: &mut World) {
        sequence {
            precondition(w.cond("p")) { L { n: "a" } },
            precondition(w.cond("q"), otherwise = skip) { L { n: "b" } },
            precondition(w.cond("r"), otherwise = success) { L { n: "c" } },
        }
    }

    tree PreconditionWaits(w: &mut World) {
        select {
            precondition(w.cond("p"), otherwise = running) { L { n: "a" } },
            L { n: "b" },
        }
    }

    tree PreconditionSkipsInSelect(w: &mut World) {
        select { precondition(w.cond("p"), otherwise = skip) { L { n: "a" } }, L { n: "b" } }
    }

    tree While(w: &mut World) {
        select { run_while(w.cond("w")) { L { n: "a" } }, L { n: "b" } }
    }

    tree Post(w: &mut World) {
        reactive_sequence {
            cond w.cond("g"),
            after(
                success = w.note("won"),
                failure = w.note("lost"),
                finished = w.note("done"),
                halted = w.note("halted"),
            ) { L { n: "a" } },
        }
    }

    tree PostInstant(w: &mut World) {
        after(failure = w.note("lost")) { cond w.cond("c") }
    }

    tree Every(w: &mut World, #[context] cx: &Cx) {
        select { every(2) { L { n: "a" } }, action w.act("idle") }
    }

    tree NoTimer(w: &mut World, #[context] cx: &Cx) {
        timeout(0) { L { n: "a" } }
    }
}

fn lines(expected: &[&str]) -> Vec<String> {
    expected.iter().map(|s| s.to_string()).collect()
}

/// Ticks at each time; one line per tick: the time, the status, the events.
fn timed(
    w: &mut World,
    times: &[f64],
    mut tick: impl FnMut(&mut World, &Cx) -> Status,
) -> Vec<String> {
    times
        .iter()
        .map(|&t| {
            let status = tick(w, &at(t));
            format!("{t} {}", w.take_line(status))
        })
        .collect()
}

#[test]
fn if_then_else_checks_its_condition_once_and_runs_the_picked_branch_to_the_end() {
    let mut w = World::new(&[("c", "SF"), ("a", "RS"), ("b", "F")]);
    let mut t = Ite::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        // The running branch resumes without the condition.
        lines(&["R: ?c=S +a=R", "S: .a=S", "F: ?c=F +b=F"])
    );
    assert!(!t.is_active());
}

#[test]
fn if_then_else_without_an_else_fails_with_its_condition() {
    let mut w = World::new(&[("c", "FS"), ("a", "S")]);
    let mut t = IteNoElse::default();
    assert_eq!(w.run(2, |w| t.tick(w)), lines(&["F: ?c=F", "S: ?c=S +a=S"]));
}

#[test]
fn if_then_else_waits_for_a_running_condition_and_reset_halts_the_branch() {
    let mut w = World::new(&[("c", "RSF"), ("a", "S"), ("b", "R")]);
    let mut t = IteRunningCondition::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: +c=R", "S: .c=S +a=S", "R: +c=F +b=R"])
    );
    t.reset(&mut w);
    assert_eq!(w.take_events(), "!b");
    assert!(w.open_leaves().is_empty());
}

#[test]
fn while_do_else_rechecks_every_tick_and_halts_the_branch_it_leaves() {
    let mut w = World::new(&[("c", "SSFFS"), ("a", "RRS"), ("b", "RS")]);
    let mut t = Wde::default();
    assert_eq!(
        w.run(5, |w| t.tick(w)),
        lines(&[
            "R: ?c=S +a=R",
            "R: ?c=S .a=R",
            "R: ?c=F !a +b=R",
            "S: ?c=F .b=S",
            "S: ?c=S +a=S",
        ])
    );
    assert!(w.open_leaves().is_empty());
}

#[test]
fn while_do_else_halts_the_running_branch_for_one_that_finishes_at_once() {
    // The `do` branch never runs, so it has no state of its own; the
    // running `else` branch is halted all the same, and starts afresh.
    let mut w = World::new(&[("c", "FSF"), ("d", "F"), ("b", "RR")]);
    let mut t = WdeInstantBranch::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: ?c=F +b=R", "F: ?c=S !b ?d=F", "R: ?c=F +b=R"])
    );
    t.reset(&mut w);
    assert!(w.open_leaves().is_empty());
}

#[test]
fn while_do_else_without_an_else_halts_and_fails_when_the_condition_fails() {
    let mut w = World::new(&[("c", "SF"), ("a", "R")]);
    let mut t = WdeNoElse::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["R: ?c=S +a=R", "F: ?c=F !a"])
    );
    assert!(w.open_leaves().is_empty() && !t.is_active());
}

#[test]
fn while_do_else_keeps_a_running_branch_while_its_condition_finishes() {
    // The condition is a stateful leaf: it runs on a fresh state each tick
    // while a branch runs, and only a condition that keeps running takes
    // the branch's place.
    let mut w = World::new(&[("c", "SSRS"), ("a", "RRS")]);
    let mut t = WdeRunningCondition::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: +c=S +a=R",
            "R: +c=S .a=R",
            // The condition runs: it takes the branch's place.
            "R: +c=R !a",
            "S: .c=S +a=S",
        ])
    );
}

#[test]
fn sequence_with_memory_resumes_at_the_child_that_failed() {
    let mut w = World::new(&[("a", "S"), ("b", "FS"), ("c", "RS")]);
    let mut t = SeqMem::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["F: +a=S +b=F", "R: +b=S +c=R", "S: .c=S"])
    );
    // After the whole sequence succeeded it starts from the first child.
    let mut w = World::new(&[("a", "S"), ("b", "S"), ("c", "S")]);
    assert_eq!(w.run(1, |w| t.tick(w)), lines(&["S: +a=S +b=S +c=S"]));
}

#[test]
fn sequence_with_memory_keeps_its_position_when_halted_until_reset() {
    let mut w = World::new(&[("g", "SFS"), ("a", "SS"), ("b", "RSS")]);
    let mut t = SeqMemHalted::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: ?g=S +a=S +b=R", "F: ?g=F !b", "S: ?g=S +b=S"])
    );
    // `reset` forgets the position; so does the success above, so check
    // reset after a failure.
    let mut w = World::new(&[("g", "SF"), ("a", "SS"), ("b", "RS")]);
    let mut t = SeqMemHalted::default();
    w.run(2, |w| t.tick(w));
    t.reset(&mut w);
    let mut w = World::new(&[("g", "S"), ("a", "S"), ("b", "S")]);
    assert_eq!(w.run(1, |w| t.tick(w)), lines(&["S: ?g=S +a=S +b=S"]));
}

#[test]
fn parallel_all_waits_for_every_child_and_counts_failures() {
    let mut w = World::new(&[("a", "FS"), ("b", "RFF"), ("c", "RSS")]);
    let mut t = ParAll::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&[
            // A failure halts nothing: the others go on.
            "R: +a=F +b=R +c=R",
            "F: .b=F .c=S",
            // One failure is below `max_failures = 2`.
            "S: +a=S +b=F +c=S",
        ])
    );
}

#[test]
fn parallel_all_of_instant_children_fails_on_one_failure_by_default() {
    let mut w = World::new(&[("c", "FS"), ("d", "SS")]);
    let mut t = ParAllInstant::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["F: ?c=F ?d=S", "S: ?c=S ?d=S"])
    );
    assert_eq!(<ParAllInstant as BehaviorTree>::STATE_SIZE, 0);
}

#[test]
fn a_negative_parallel_threshold_counts_from_the_number_of_children() {
    // success = -2 of three children: two successes.
    let mut w = World::new(&[("a", "S"), ("b", "RS"), ("c", "R")]);
    let mut t = ParAllButOne::default();
    assert_eq!(
        w.run(2, |w| t.tick(w)),
        lines(&["R: +a=S +b=R +c=R", "S: .b=S !c"])
    );
}

#[test]
fn repeat_forever_starts_at_most_one_run_per_tick() {
    let mut w = World::new(&[("a", "SRSF")]);
    let mut t = RepeatForever::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&[
            // A run that started and ended in this tick: Running.
            "R: +a=S",
            "R: +a=R",
            // A resumed run ended: the next one starts at once.
            "F: .a=S +a=F",
        ])
    );
    assert!(!t.is_active());
}

#[test]
fn retry_forever_tries_once_per_tick_until_success() {
    let mut w = World::new(&[("c", "FFS")]);
    let mut t = RetryForever::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: ?c=F", "R: ?c=F", "S: ?c=S"])
    );
}

#[test]
fn a_preempted_repeat_forever_halts_its_child() {
    let mut w = World::new(&[("g", "SSF"), ("a", "SR")]);
    let mut t = ForeverPreempted::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&["R: ?g=S +a=S", "R: ?g=S +a=R", "F: ?g=F !a"])
    );
    assert!(w.open_leaves().is_empty() && !t.is_active());
}

#[test]
fn run_once_then_skip_is_passed_over_by_its_parent() {
    let mut w = World::new(&[("a", "RF"), ("b", "SS")]);
    let mut t = OnceThenSkip::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        // The first run's status counts; afterwards the sequence passes on.
        lines(&["R: +a=R", "F: .a=F", "S: +b=S", "S: +b=S"])
    );
    let mut w = World::new(&[("a", "S"), ("b", "F")]);
    let mut t = OnceThenSkipInSelect::default();
    // In a select a skipped node counts as a failure: the next child runs.
    assert_eq!(w.run(2, |w| t.tick(w)), lines(&["S: +a=S", "F: +b=F"]));
}

#[test]
fn preconditions_are_checked_only_before_the_child_starts() {
    let mut w = World::new(&[
        ("s", "SF"),
        ("y", "FS"),
        ("f", "SF"),
        ("a", "S"),
        ("b", "RS"),
        ("c", "S"),
    ]);
    let mut t = Preconditions::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&[
            // skip_if true: passed over; success_if false: `b` runs.
            "R: ?s=S ?y=F +b=R",
            // `b` runs on without `y` being checked; failure_if true.
            "F: .b=S ?f=S",
            "S: ?s=F +a=S ?y=S ?f=F +c=S",
        ])
    );
}

// `try_catch`'s expected traces follow BehaviorTree.CPP 4.10's
// `TryCatchNode::tick` and `halt` (4.8.2, which the random trees are
// compared with, has no TryCatch).

#[test]
fn try_catch_runs_the_catch_child_in_the_tick_a_try_child_fails_then_fails() {
    let mut w = World::new(&[("a", "RSS"), ("b", "FS"), ("c", "RS")]);
    let mut t = TryCatch::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: +a=R",
            // `b` fails: the catch child starts in the same tick.
            "R: .a=S +b=F +c=R",
            // Whatever the catch child returns, the node fails.
            "F: .c=S",
            // It starts over at the first try child.
            "S: +a=S +b=S",
        ])
    );
    assert!(!t.is_active());
}

#[test]
fn try_catch_ticks_only_the_running_catch_child() {
    let mut w = World::new(&[("t", "FS"), ("x", "RRFS")]);
    let mut t = TryCatchAction::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&["R: ?t=F x=R", "R: x=R", "F: x=F", "S: ?t=S"])
    );
}

#[test]
fn try_catch_fails_with_a_catch_child_that_finishes_at_once() {
    let mut w = World::new(&[("a", "FS"), ("x", "S")]);
    let mut t = TryCatchInstant::default();
    assert_eq!(w.run(2, |w| t.tick(w)), lines(&["F: +a=F ?x=S", "S: +a=S"]));
}

#[test]
fn a_halted_try_catch_halts_the_running_child_without_running_the_catch() {
    // BT.CPP's `catch_on_halt` is false by default: a halt in the try
    // children does not run the catch child.
    let mut w = World::new(&[("g", "SFSSFS"), ("a", "RFS"), ("c", "RR")]);
    let mut t = TryCatchHalted::default();
    assert_eq!(
        w.run(6, |w| t.tick(w)),
        lines(&[
            "R: ?g=S +a=R",
            "F: ?g=F !a",
            "R: ?g=S +a=F +c=R",
            "R: ?g=S .c=R",
            // Halted in the catch child: it starts over at the try.
            "F: ?g=F !c",
            "S: ?g=S +a=S",
        ])
    );
    assert!(!t.is_active());
}

#[test]
fn a_wide_try_catch_resumes_at_its_try_children_and_its_catch() {
    // More try children than one chain of resume blocks takes.
    let mut w = World::new(&[("a", "RSS"), ("b", "RFR"), ("c", "RS")]);
    let mut t = TryCatchWide::default();
    assert_eq!(
        w.run(5, |w| t.tick(w)),
        lines(&[
            "R: +a=R",
            "R: .a=S +b=R",
            "R: .b=F +c=R",
            "F: .c=S",
            "R: +a=S +b=R"
        ])
    );
}

#[test]
fn switch_eq_runs_the_first_arm_whose_case_equals_the_value_and_halts_on_a_change() {
    let mut w = World::new(&[("h", "RRS"), ("w", "RS"), ("d", "FS")]);
    let mut t = SwitchEq::default();
    let mut at = |w: &mut World, name: &str, home: &str| {
        let status = t.tick(w, &name.to_string(), home);
        w.take_line(status)
    };
    // The cases are values of any type the value compares with (`String`
    // with `&str` here), read each tick: `home` is a run-time value.
    assert_eq!(at(&mut w, "base", "base"), "R: +h=R");
    assert_eq!(at(&mut w, "work", "base"), "R: !h +w=R");
    // The first equal case wins; no case equals: the `_` arm.
    assert_eq!(at(&mut w, "away", "base"), "F: !w ?d=F");
    assert_eq!(at(&mut w, "away", "away"), "R: +h=R");
    assert_eq!(at(&mut w, "away", "away"), "S: .h=S");
    assert_eq!(at(&mut w, "work", "base"), "S: +w=S");
    assert_eq!(at(&mut w, "else", "base"), "S: ?d=S");
}

// `for_each`'s expected traces follow BehaviorTree.CPP's `LoopNode::tick`
// (its `LoopInt` is also run beside it in bt-difftest's BT.CPP tests).

/// Ticks `tree` once with the queue; one line: the status and the events.
fn with_queue<T>(
    w: &mut World,
    q: &mut VecDeque<&'static str>,
    tree: &mut T,
    tick: impl Fn(&mut T, &mut World, &mut VecDeque<&'static str>) -> Status,
) -> String {
    let status = tick(tree, w, q);
    w.take_line(status)
}

#[test]
fn for_each_runs_the_child_once_per_item_and_returns_running_between_items() {
    let mut w = World::new(&[("a", "RS"), ("b", "S")]);
    let mut q = VecDeque::from(["a", "b"]);
    let mut t = ForEach::default();
    let mut lines = Vec::new();
    for _ in 0..5 {
        lines.push(with_queue(&mut w, &mut q, &mut t, |t, w, q| t.tick(w, q)));
        if lines.len() == 3 {
            assert!(t.is_active(), "between items the loop runs");
        }
    }
    assert_eq!(
        lines,
        [
            "R: +a=R",
            // The child succeeded: Running, and the next item next tick.
            "R: .a=S", "R: +b=S", // No item: `if_empty`, Success by default.
            "S:", "S:",
        ]
    );
    assert!(!t.is_active());
}

#[test]
fn for_each_fails_when_the_child_fails_and_goes_on_with_the_next_item_later() {
    let mut w = World::new(&[("a", "F"), ("b", "S")]);
    let mut q = VecDeque::from(["a", "b"]);
    let mut t = ForEach::default();
    let tick = |t: &mut ForEach, w: &mut World, q: &mut VecDeque<&'static str>| t.tick(w, q);
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "F: +a=F");
    assert!(!t.is_active());
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "R: +b=S");
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "S:");
}

#[test]
fn for_each_returns_if_empty_when_the_expression_gives_no_item() {
    let mut w = World::new(&[("a", "S")]);
    let mut q = VecDeque::new();
    let mut t = ForEachOrFail::default();
    let tick = |t: &mut ForEachOrFail, w: &mut World, q: &mut VecDeque<&'static str>| t.tick(w, q);
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "F:");
    // `if_empty = running` waits for items.
    let mut t = ForEachWaits::default();
    let tick = |t: &mut ForEachWaits, w: &mut World, q: &mut VecDeque<&'static str>| t.tick(w, q);
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "R:");
    assert!(t.is_active());
    q.push_back("a");
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "R: +a=S");
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "R:");
}

#[test]
fn a_halted_for_each_halts_its_child_and_drops_the_item() {
    let mut w = World::new(&[("g", "SFSS"), ("a", "R"), ("b", "S")]);
    let mut q = VecDeque::from(["a", "b"]);
    let mut t = ForEachHalted::default();
    let tick = |t: &mut ForEachHalted, w: &mut World, q: &mut VecDeque<&'static str>| t.tick(w, q);
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "R: ?g=S +a=R");
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "F: ?g=F !a");
    assert!(!t.is_active());
    // The item the child had is not taken again.
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "R: ?g=S +b=S");
    assert_eq!(with_queue(&mut w, &mut q, &mut t, tick), "S: ?g=S");
}

#[test]
fn async_sequence_returns_running_after_a_child_that_finished_in_the_tick_it_started() {
    let mut w = World::new(&[("c", "SS"), ("a", "RSS"), ("x", "SS"), ("d", "SF")]);
    let mut t = AsyncSeq::default();
    assert_eq!(
        w.run(8, |w| t.tick(w)),
        lines(&[
            // `c` succeeded in the tick it started: the tick ends there.
            "R: ?c=S",
            "R: +a=R",
            // `a` was running before this tick: no yield after it.
            "R: .a=S x=S",
            // The last child: the node finishes.
            "S: ?d=S",
            // It starts over.
            "R: ?c=S",
            "R: +a=S",
            "R: x=S",
            // A failure ends the node.
            "F: ?d=F",
        ])
    );
    assert!(!t.is_active());
}

#[test]
fn async_select_returns_running_after_a_child_that_failed_in_the_tick_it_started() {
    let mut w = World::new(&[("c", "FF"), ("d", "FS"), ("e", "S")]);
    let mut t = AsyncSel::default();
    assert_eq!(
        w.run(5, |w| t.tick(w)),
        lines(&["R: ?c=F", "R: ?d=F", "S: ?e=S", "R: ?c=F", "S: ?d=S"])
    );
    assert!(!t.is_active());
}

#[test]
fn a_wide_async_sequence_resumes_at_each_of_its_children() {
    // More children than one chain of resume blocks takes: it resumes
    // through the position of the next child.
    let mut w = World::new(&[("a", "RS")]);
    let mut t = AsyncWide::default();
    let trace = w.run(38, |w| t.tick(w));
    let mut expected = vec!["R:"; 35];
    expected.extend(["R: +a=R", "R: .a=S", "S:"]);
    assert_eq!(trace, lines(&expected));
}

#[test]
fn a_halted_async_sequence_starts_over() {
    let mut w = World::new(&[("g", "SSFS"), ("a", "SS"), ("b", "RS")]);
    let mut t = AsyncHalted::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: ?g=S +a=S",
            "R: ?g=S +b=R",
            // The reactive sequence halts it: `b` is halted and the
            // async sequence forgets where it was.
            "F: ?g=F !b",
            "R: ?g=S +a=S",
        ])
    );
}

#[test]
fn precondition_runs_the_child_only_when_its_condition_holds_at_the_start() {
    let mut w = World::new(&[
        ("p", "SSF"),
        ("a", "RSS"),
        ("q", "FS"),
        ("b", "S"),
        ("r", "FS"),
        ("c", "S"),
    ]);
    let mut t = Precondition::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        lines(&[
            // `p` holds: `a` runs.
            "R: ?p=S +a=R",
            // `a` runs on without `p` being checked again; `q` fails:
            // skipped in a sequence; `r` fails: `success` without `c`.
            "S: .a=S ?q=F ?r=F",
            // `p` holds again, `a` finishes at once; `q` and `r` hold.
            "S: ?p=S +a=S ?q=S +b=S ?r=S +c=S",
        ])
    );
    // The default `otherwise` is `failure`.
    let mut w = World::new(&[("p", "F")]);
    let mut t = Precondition::default();
    assert_eq!(w.run(1, |w| t.tick(w)), lines(&["F: ?p=F"]));
}

#[test]
fn precondition_otherwise_running_waits_and_checks_again_each_tick() {
    let mut w = World::new(&[("p", "FFS"), ("a", "S"), ("b", "S")]);
    let mut t = PreconditionWaits::default();
    assert_eq!(
        w.run(3, |w| t.tick(w)),
        // The select waits on the precondition; `b` never starts.
        lines(&["R: ?p=F", "R: ?p=F", "S: ?p=S +a=S"])
    );
    let mut w = World::new(&[("p", "F"), ("b", "S")]);
    let mut t = PreconditionSkipsInSelect::default();
    assert_eq!(w.run(1, |w| t.tick(w)), lines(&["S: ?p=F +b=S"]));
}

#[test]
fn run_while_halts_the_child_once_its_condition_fails() {
    let mut w = World::new(&[("w", "SSFF"), ("a", "RR"), ("b", "SS")]);
    let mut t = While::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "R: ?w=S +a=R",
            "R: ?w=S .a=R",
            // Skipped in a select: the next child runs.
            "S: ?w=F !a +b=S",
            "S: ?w=F +b=S",
        ])
    );
    assert!(w.open_leaves().is_empty());
}

#[test]
fn after_runs_the_hook_for_how_the_child_ended() {
    let mut w = World::new(&[("g", "SSSF"), ("a", "SFR")]);
    let mut t = Post::default();
    assert_eq!(
        w.run(4, |w| t.tick(w)),
        lines(&[
            "S: ?g=S +a=S won done",
            "F: ?g=S +a=F lost done",
            "R: ?g=S +a=R",
            // Halted while running: the child first, then the hook.
            "F: ?g=F !a halted",
        ])
    );
    let mut w = World::new(&[("c", "SF")]);
    let mut t = PostInstant::default();
    assert_eq!(w.run(2, |w| t.tick(w)), lines(&["S: ?c=S", "F: ?c=F lost"]));
}

#[test]
fn every_starts_its_child_at_most_once_per_period() {
    let mut w = World::new(&[("a", "RSFS"), ("idle", "SS")]);
    let mut t = Every::default();
    assert_eq!(
        timed(&mut w, &[0.0, 1.0, 2.0, 3.0, 4.0], |w, cx| t.tick(w, cx)),
        [
            "0 R: +a=R",
            // A running child is not cut short by the period.
            "1 S: .a=S",
            "2 S: +a=F idle=S",
            // Started at 2: not again before 4.
            "3 S: idle=S",
            "4 S: +a=S",
        ]
    );
}

#[test]
fn timeout_zero_is_no_timer() {
    let mut w = World::new(&[("a", "RRS")]);
    let mut t = NoTimer::default();
    assert_eq!(
        timed(&mut w, &[0.0, 100.0, 1000.0], |w, cx| t.tick(w, cx)),
        ["0 R: +a=R", "100 R: .a=R", "1000 S: .a=S"]
    );
}
