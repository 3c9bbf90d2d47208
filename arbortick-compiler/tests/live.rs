//! Hot reload's engine: a live tree reloaded from edited source while
//! agents run it, on one thread and on several.

use bt_compiler::interpret::{At, Host, Input, Program};
use bt_compiler::live::{Live, Reload, Table};
use bt_runtime::Status;
use std::collections::{BTreeMap, BTreeSet};

const FILE: &str = "// The tree, as a source file holds it.
use bt::behavior_tree;

behavior_tree! {
    tree T(me: &mut M, cx: &Ctx) {
        select {
            cond me.hungry(),
            timeout(3) { Walk { } },
            Rest { },
        }
    }
}
";

/// The line of `behavior_tree!` in [`FILE`].
const LINE: usize = 4;

fn live() -> Live {
    let program = Program::parse_file(FILE, LINE).expect("valid");
    let table = Table::of(&program, "T").expect("the tree");
    Live::new(&program, "T", table).unwrap_or_else(|e| panic!("{e}"))
}

/// Logs calls; leaves run until they have run `runs` ticks; runs are
/// counted by place so that a run can be checked to end exactly once.
#[derive(Default)]
struct Me {
    log: Vec<String>,
    open: BTreeMap<usize, u32>,
    moved: Vec<(usize, usize)>,
    runs: u32,
}

impl Host for Me {
    fn condition(&mut self, _: &At, _: &str) -> bool {
        false
    }
    fn seconds(&mut self, _: &At, expr: &str) -> f64 {
        panic!("a number is read without the host: `{expr}`")
    }
    fn start(&mut self, at: &At, leaf: &str) -> Status {
        assert!(at.index.is_some(), "resolved");
        self.log.push(format!("start {}", leaf.replace(' ', "")));
        self.open.insert(at.place, 1);
        Status::Running
    }
    fn tick(&mut self, at: &At, leaf: &str) -> Status {
        let n = self
            .open
            .get_mut(&at.place)
            .expect("a running leaf at this place");
        *n += 1;
        self.log.push(format!("tick {}", leaf.replace(' ', "")));
        if self.runs > 0 && *n >= self.runs {
            self.open.remove(&at.place);
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(&mut self, at: &At, leaf: &str) {
        self.open
            .remove(&at.place)
            .expect("halted once, while running");
        self.log.push(format!("halt {}", leaf.replace(' ', "")));
    }
    fn migrated(&mut self, moved: &[(usize, usize)], _: usize) {
        self.moved = moved.to_vec();
        let open = std::mem::take(&mut self.open);
        for (old, new) in moved {
            if let Some(n) = open.get(old) {
                self.open.insert(*new, *n);
            }
        }
    }
}

fn at(now: f64) -> Input {
    Input {
        now,
        ..Input::default()
    }
}

#[test]
fn a_reload_of_the_same_tree_changes_nothing_even_with_other_layout_and_comments() {
    let live = live();
    let same = FILE.replace("cond me.hungry(),", "cond me.hungry(), // still hungry?");
    let same = same.replace("Rest { },", "Rest {},\n");
    let outcome = live.reload(&same, LINE);
    assert!(matches!(outcome, Reload::Unchanged { .. }), "{outcome}");
    assert_eq!(outcome.to_string(), "T: unchanged");
    assert_eq!(live.version(), 1);
}

#[test]
fn an_edit_applies_at_each_agents_next_tick_and_keeps_the_running_leaf() {
    let live = live();
    let (mut me, mut agent) = (Me::default(), live.agent());
    live.tick(&mut agent, &mut me, at(0.0));
    assert_eq!(me.log, ["start Walk{}"]);
    // Reorder and a new duration: the build has every expression.
    let edited = FILE.replace(
        "cond me.hungry(),\n            timeout(3) { Walk { } },",
        "timeout(10) { Walk { } },\n            cond me.hungry(),",
    );
    let outcome = live.reload(&edited, LINE);
    assert_eq!(
        outcome.to_string(),
        "T: reloaded as version 2, 5 of 5 nodes kept their state"
    );
    assert_eq!(agent.version(), 1, "the agent moves at its next tick");
    me.log.clear();
    live.tick(&mut agent, &mut me, at(5.0));
    assert_eq!(agent.version(), 2);
    assert_eq!(
        me.log,
        ["tick Walk{}"],
        "not started again, and 5 s is within the new 10"
    );
    assert_eq!(me.moved.len(), 3, "select, timeout, leaf: {:?}", me.moved);
    me.log.clear();
    live.tick(&mut agent, &mut me, at(10.0));
    assert_eq!(
        me.log,
        ["halt Walk{}", "start Rest{}"],
        "timed out 10 s after it started at 0"
    );
}

#[test]
fn a_removed_running_leaf_is_halted_once_at_the_next_tick() {
    let live = live();
    let (mut me, mut agent) = (Me::default(), live.agent());
    live.tick(&mut agent, &mut me, at(0.0));
    let edited = FILE.replace("timeout(3) { Walk { } },", "");
    assert!(matches!(live.reload(&edited, LINE), Reload::Applied { .. }));
    me.log.clear();
    live.tick(&mut agent, &mut me, at(1.0));
    assert_eq!(me.log, ["halt Walk{}", "start Rest{}"]);
    assert!(
        me.moved.iter().all(|(old, _)| *old != 2),
        "the leaf's state did not move"
    );
}

#[test]
fn an_expression_the_build_lacks_is_refused_with_its_line_and_the_old_tree_runs_on() {
    let live = live();
    let (mut me, mut agent) = (Me::default(), live.agent());
    live.tick(&mut agent, &mut me, at(0.0));
    let edited = FILE
        .replace("cond me.hungry()", "cond me.thirsty()")
        .replace("Rest { }", "Dance { speed: 2 }");
    let outcome = live.reload(&edited, LINE);
    assert_eq!(
        outcome.to_string(),
        "T: not reloaded: rebuild to use `me . thirsty ()` (line 7), `Dance { speed : 2 }` (line 9)"
    );
    assert_eq!(live.version(), 1);
    me.log.clear();
    live.tick(&mut agent, &mut me, at(1.0));
    assert_eq!(me.log, ["tick Walk{}"]);
}

#[test]
fn a_source_with_errors_prints_the_compilers_diagnostics_in_file_lines_and_changes_nothing() {
    let live = live();
    let edited = FILE.replace("select {", "selekt {");
    let outcome = live.reload(&edited, LINE);
    let Reload::Invalid { errors, .. } = &outcome else {
        panic!("{outcome}")
    };
    assert_eq!(errors[0].line, 6, "{outcome}");
    assert!(
        outcome.to_string().starts_with("T: not reloaded, "),
        "{outcome}"
    );
    assert!(!outcome.to_string().contains('\n'), "one line: {outcome}");
    assert_eq!(live.version(), 1);
    let gone = live.reload(&FILE.replace("tree T(", "tree U("), LINE);
    assert_eq!(
        gone.to_string(),
        "T: not reloaded, 1 error(s): 1:1: the source has no tree `T`"
    );
}

#[test]
fn an_agent_that_missed_a_version_moves_straight_to_the_newest() {
    let live = live();
    let (mut me, mut agent) = (Me::default(), live.agent());
    live.tick(&mut agent, &mut me, at(0.0));
    let v2 = FILE.replace("Rest { },", "");
    let v3 = FILE.replace("cond me.hungry(),\n", "");
    assert!(matches!(
        live.reload(&v2, LINE),
        Reload::Applied { version: 2, .. }
    ));
    assert!(matches!(
        live.reload(&v3, LINE),
        Reload::Applied { version: 3, .. }
    ));
    me.log.clear();
    live.tick(&mut agent, &mut me, at(1.0));
    assert_eq!(agent.version(), 3);
    assert_eq!(me.log, ["tick Walk{}"]);
}

/// Several threads tick agents of one live tree while another reloads it
/// between versions; every leaf run ends exactly once (the host panics
/// otherwise), and nothing runs after the final resets.
#[test]
fn agents_on_several_threads_follow_reloads_from_another() {
    let live = live();
    let versions = [
        FILE.to_string(),
        FILE.replace("timeout(3) { Walk { } },", ""),
        FILE.replace("cond me.hungry(),\n", "")
            .replace("timeout(3)", "timeout(1)"),
        FILE.replace("Rest { },", "sequence { Rest { }, Walk { } },"),
    ];
    let seen: BTreeSet<u64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let live = &live;
                s.spawn(move || {
                    let mut agents: Vec<_> = (0..50)
                        .map(|_| {
                            (
                                Me {
                                    runs: 2 + w,
                                    ..Me::default()
                                },
                                live.agent(),
                            )
                        })
                        .collect();
                    let mut seen = BTreeSet::new();
                    for t in 0..200 {
                        for (me, agent) in &mut agents {
                            live.tick(agent, me, at(f64::from(t) * 0.25));
                            seen.insert(agent.version());
                        }
                    }
                    for (me, agent) in &mut agents {
                        live.catch_up(agent, me, 100.0);
                        live.reset(agent, me);
                        assert!(me.open.is_empty(), "runs never ended: {:?}", me.open);
                    }
                    seen
                })
            })
            .collect();
        for round in 0..40 {
            let outcome = live.reload(&versions[round % versions.len()], LINE);
            assert!(
                matches!(outcome, Reload::Applied { .. } | Reload::Unchanged { .. }),
                "{outcome}"
            );
            std::thread::yield_now();
        }
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(seen.len() >= 2, "agents ran several versions: {seen:?}");
    assert_eq!(live.current().shared().held(), 0);
}
