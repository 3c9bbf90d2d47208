//! Hot reload's state migration, edit by edit: what each kind of edit does
//! to a running agent, with exact expectations.

use bt::Status;
use bt_compiler::interpret::{At, Host, Input, Interpreter, Program};
use std::collections::BTreeSet;

/// Conditions hold unless named in `false_`; leaves run until named in
/// `done`; every call is logged.
#[derive(Default)]
struct Script {
    false_: BTreeSet<String>,
    done: BTreeSet<String>,
    log: Vec<String>,
}

impl Script {
    /// `me.no()` is false.
    fn no() -> Script {
        Script {
            false_: ["me.no()".to_string()].into(),
            ..Script::default()
        }
    }
}

fn short(text: &str) -> String {
    text.replace(' ', "")
}

impl Host for Script {
    fn condition(&mut self, _: &At, expr: &str) -> bool {
        !self.false_.contains(&short(expr))
    }
    fn seconds(&mut self, _: &At, expr: &str) -> f64 {
        expr.trim().parse().expect("a number of seconds")
    }
    fn hook(&mut self, _: &At, expr: &str) -> bool {
        self.log.push(short(expr));
        true
    }
    fn start(&mut self, _: &At, leaf: &str) -> Status {
        self.log.push(format!("start {}", short(leaf)));
        Status::Running
    }
    fn tick(&mut self, _: &At, leaf: &str) -> Status {
        let leaf = short(leaf);
        self.log.push(format!("tick {leaf}"));
        if self.done.contains(&leaf) {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(&mut self, _: &At, leaf: &str) {
        self.log.push(format!("halt {}", short(leaf)));
    }
}

fn at(now: f64) -> Input {
    Input {
        now,
        ..Input::default()
    }
}

/// One agent ticked at times 0 and 1 on `before`, migrated at 1.5 to
/// `after`, then ticked at each of `later`: the log of each step.
fn run(before: &str, after: &str, later: &[f64], script: &mut Script) -> Vec<Vec<String>> {
    let old_program = Program::parse(before).expect("valid");
    let new_program = Program::parse(after).expect("valid");
    let old: Interpreter = old_program.interpreter("T").unwrap();
    let new: Interpreter = new_program.interpreter("T").unwrap();
    let shared = old.shared();
    let mut agent = old.agent();
    let mut steps = Vec::new();
    for t in [0.0, 1.0] {
        old.tick(&mut agent, &shared, script, at(t));
        steps.push(std::mem::take(&mut script.log));
    }
    let migration = new.migration(&old);
    let new_shared = new.migrate_shared(&migration, &old, &shared);
    let (mut agent, _) = new.migrate(&migration, &old, &mut agent, &shared, script, 1.5);
    steps.push(std::mem::take(&mut script.log));
    for &t in later {
        new.tick(&mut agent, &new_shared, script, at(t));
        steps.push(std::mem::take(&mut script.log));
    }
    steps
}

#[test]
fn a_running_leaf_wrapped_in_a_timeout_keeps_running_and_the_timeout_starts_at_the_edit() {
    let steps = run(
        "tree T(me: &mut M, cx: &Ctx) { sequence { cond me.ok(), Walk { } } }",
        "tree T(me: &mut M, cx: &Ctx) { sequence { cond me.ok(), timeout(2) { Walk { } } } }",
        &[2.0, 3.4, 3.5],
        &mut Script::default(),
    );
    assert_eq!(steps[0], ["start Walk{}"]);
    assert_eq!(steps[1], ["tick Walk{}"]);
    assert!(
        steps[2].is_empty(),
        "the migration halts nothing: {:?}",
        steps[2]
    );
    assert_eq!(steps[3], ["tick Walk{}"], "not started again");
    assert_eq!(steps[4], ["tick Walk{}"]);
    assert_eq!(steps[5], ["halt Walk{}"], "timed out 2 s after the edit");
}

#[test]
fn unwrapping_a_running_leaf_keeps_it_running() {
    let steps = run(
        "tree T(me: &mut M, cx: &Ctx) { sequence { cond me.ok(), force_success { timeout(9) { Walk { } } } } }",
        "tree T(me: &mut M, cx: &Ctx) { sequence { cond me.ok(), Walk { } } }",
        &[2.0],
        &mut Script::default(),
    );
    assert!(steps[2].is_empty(), "{:?}", steps[2]);
    assert_eq!(steps[3], ["tick Walk{}"]);
}

#[test]
fn a_timeout_whose_duration_changes_keeps_its_start_time() {
    let steps = run(
        "tree T(me: &mut M, cx: &Ctx) { timeout(3) { Walk { } } }",
        "tree T(me: &mut M, cx: &Ctx) { timeout(5) { Walk { } } }",
        &[4.0, 4.9, 5.0],
        &mut Script::default(),
    );
    assert!(steps[2].is_empty());
    assert_eq!(
        steps[3],
        ["tick Walk{}"],
        "past the old 3 s, within the new 5"
    );
    assert_eq!(steps[4], ["tick Walk{}"]);
    assert_eq!(steps[5], ["halt Walk{}"], "5 s after it started at 0");
}

#[test]
fn a_removed_running_leaf_is_halted_once_at_the_edit() {
    let steps = run(
        "tree T(me: &mut M) { select { cond me.no(), Walk { }, Rest { } } }",
        "tree T(me: &mut M) { select { cond me.no(), Rest { } } }",
        &[2.0],
        &mut Script::no(),
    );
    assert_eq!(steps[1], ["tick Walk{}"]);
    assert_eq!(steps[2], ["halt Walk{}"]);
    assert_eq!(steps[3], ["start Rest{}"]);
}

#[test]
fn reordered_children_keep_the_running_one() {
    let steps = run(
        "tree T(me: &mut M) { select { cond me.no(), Walk { }, Rest { } } }",
        "tree T(me: &mut M) { select { Rest { }, cond me.no(), Walk { } } }",
        &[2.0],
        &mut Script::no(),
    );
    assert!(steps[2].is_empty());
    // The select resumes at its running child: Rest, now first, is not
    // ticked while Walk runs.
    assert_eq!(steps[3], ["tick Walk{}"]);
}

#[test]
fn a_labelled_node_keeps_its_identity_when_moved() {
    let steps = run(
        "tree T(me: &mut M) { sequence { cond me.ok(), sequence { cond me.ok(), 'walk: Walk { } } } }",
        "tree T(me: &mut M) { sequence { cond me.ok(), 'walk: Walk { } } }",
        &[2.0],
        &mut Script::default(),
    );
    assert!(steps[2].is_empty(), "{:?}", steps[2]);
    assert_eq!(steps[3], ["tick Walk{}"]);
}

#[test]
fn a_node_whose_kind_changes_is_halted_and_its_replacement_starts() {
    let steps = run(
        "tree T(me: &mut M) { 'task: Walk { } }",
        "tree T(me: &mut M) { 'task: Rest { } }",
        &[2.0],
        &mut Script::default(),
    );
    assert_eq!(steps[2], ["halt Walk{}"]);
    assert_eq!(steps[3], ["start Rest{}"]);
}

#[test]
fn a_scope_with_an_enter_hook_put_around_a_running_leaf_enters_on_the_next_tick() {
    let steps = run(
        "tree T(me: &mut M) { sequence { cond me.ok(), Walk { } } }",
        "tree T(me: &mut M) { sequence { cond me.ok(), scope(enter = me.on(), exit = me.off()) { Walk { } } } }",
        &[2.0],
        &mut Script::default(),
    );
    assert_eq!(steps[2], ["halt Walk{}"], "entering would run a hook");
    assert_eq!(steps[3], ["me.on()", "start Walk{}"]);
}

#[test]
fn a_removed_scope_runs_its_exit_hook_once_and_its_child_keeps_running() {
    let steps = run(
        "tree T(me: &mut M) { sequence { cond me.ok(), scope(enter = me.on(), exit = me.off()) { Walk { } } } }",
        "tree T(me: &mut M) { sequence { cond me.ok(), Walk { } } }",
        &[2.0],
        &mut Script::default(),
    );
    assert_eq!(steps[0], ["me.on()", "start Walk{}"]);
    assert_eq!(steps[2], ["me.off()"]);
    assert_eq!(steps[3], ["tick Walk{}"]);
}

#[test]
fn a_decider_keeps_its_active_child_when_a_child_is_added() {
    let steps = run(
        "tree T(me: &mut M) { prioritized { 'a: when me.no() => Walk { }, 'b: else => Rest { } } }",
        "tree T(me: &mut M) { prioritized { 'a: when me.no() => Walk { }, 'c: when me.no() => Run { }, 'b: else => Rest { } } }",
        &[2.0],
        &mut Script::no(),
    );
    assert!(steps[2].is_empty());
    assert_eq!(steps[3], ["tick Rest{}"]);
}

#[test]
fn a_gate_keeps_its_permits_and_takes_a_new_size() {
    let before = "tree T(me: &mut M, sh: &TShared) { gate(1) { Walk { } } }";
    let after = "tree T(me: &mut M, sh: &TShared) { gate(2) { Walk { } } }";
    let (old_program, new_program) = (
        Program::parse(before).unwrap(),
        Program::parse(after).unwrap(),
    );
    let old = old_program.interpreter("T").unwrap();
    let new = new_program.interpreter("T").unwrap();
    let shared = old.shared();
    let mut script = Script::default();
    let mut agents = [old.agent(), old.agent()];
    let statuses: Vec<Status> = (agents.iter_mut())
        .map(|a| old.tick(a, &shared, &mut script, at(0.0)))
        .collect();
    assert_eq!(statuses, [Status::Running, Status::Failure], "one permit");
    assert_eq!(shared.held(), 1);
    let migration = new.migration(&old);
    let new_shared = new.migrate_shared(&migration, &old, &shared);
    assert_eq!(new_shared.held(), 1, "the permit is still held");
    let mut agents: Vec<_> = (agents.iter_mut())
        .map(|a| {
            new.migrate(&migration, &old, a, &shared, &mut script, 0.5)
                .0
        })
        .collect();
    script.log.clear();
    let statuses: Vec<Status> = (agents.iter_mut())
        .map(|a| new.tick(a, &new_shared, &mut script, at(1.0)))
        .collect();
    assert_eq!(
        statuses,
        [Status::Running, Status::Running],
        "two permits now"
    );
    assert_eq!(script.log, ["tick Walk{}", "start Walk{}"]);
    assert_eq!(new_shared.held(), 2);
    for a in &mut agents {
        new.reset(a, &new_shared, &mut script);
    }
    assert_eq!(new_shared.held(), 0);
}

#[test]
fn a_tree_migrated_to_its_own_text_keeps_every_field_of_its_state() {
    let text = "tree T(me: &mut M, cx: &Ctx) { prioritized { 'a: when me.no() => Walk { }, \
                'b: every(2) => sequence_with_memory { Rest { }, wait(3) }, else => run_once { Run { } } } }";
    let (a, b) = (Program::parse(text).unwrap(), Program::parse(text).unwrap());
    let (old, new) = (a.interpreter("T").unwrap(), b.interpreter("T").unwrap());
    let shared = old.shared();
    let mut script = Script {
        done: ["Rest{}".to_string()].into(),
        ..Script::no()
    };
    let mut agent = old.agent();
    for t in 0..3 {
        old.tick(&mut agent, &shared, &mut script, at(f64::from(t)));
    }
    let migration = new.migration(&old);
    assert_eq!(migration.kept(), new.places());
    script.log.clear();
    let (moved, _) = new.migrate(&migration, &old, &mut agent, &shared, &mut script, 2.5);
    assert!(script.log.is_empty());
    assert_eq!(format!("{moved:?}"), format!("{agent:?}"));
}
