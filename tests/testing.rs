//! `bt::testing` and the node hooks under it: forcing nodes, what a forced
//! node's state becomes, breakpoints across threads, trace lines and
//! coverage.

use bt::prelude::*;
use bt::testing::{
    BreakpointError, Breakpoints, Coverage, Force, Forced, Log, TestingError, When, active_lines,
    assert_lines,
};
use bt::{NoFlags, Trace};
use std::time::Duration;

/// The agent: what its leaves did, in order.
#[derive(Default)]
struct Bot {
    log: Vec<String>,
    hp: i32,
}

impl Bot {
    fn take(&mut self) -> String {
        std::mem::take(&mut self.log).join(" ")
    }
}

/// A stateful leaf that walks `steps` ticks; its memory counts them.
struct Walk {
    steps: u32,
}

impl Leaf<Bot> for Walk {
    type Memory = u32;
    fn start(&self, done: &mut u32, me: &mut Bot) -> Status {
        me.log.push("start".into());
        self.step(done, me)
    }
    fn tick(&self, done: &mut u32, me: &mut Bot) -> Status {
        me.log.push(format!("step{}", *done + 1));
        self.step(done, me)
    }
    fn halt(done: &mut u32, me: &mut Bot) {
        me.log.push(format!("halt@{done}"));
    }
}

impl Walk {
    fn step(&self, done: &mut u32, _: &mut Bot) -> Status {
        *done += 1;
        if *done >= self.steps {
            Status::Success
        } else {
            Status::Running
        }
    }
}

type Cx<'a, T> = Ctx<NoFlags, NoFlags, &'a T>;

behavior_tree! {
    /// Flee when hurt, else patrol.
    tree Guard(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: reactive_select {
            'hurt: sequence {
                'low: cond me.hp < 10,
                'flee: action { me.log.push("flee".into()); Status::Success },
            },
            'patrol: Walk { steps: 3 },
        }
    }
}

fn cx<T: Trace>(hook: &T) -> Cx<'_, T> {
    Ctx::new(0.0, 0.1).trace(hook)
}

fn bot(hp: i32) -> Bot {
    Bot {
        log: Vec::new(),
        hp,
    }
}

#[test]
fn a_node_forced_once_returns_the_status_then_runs_again() {
    let force = Force::<Guard>::new();
    force.set("low", Forced::once(Status::Success)).unwrap();
    let (mut me, mut guard) = (bot(50), Guard::default());
    // The condition is forced true: the agent flees though it is healthy.
    assert_eq!(guard.tick(&mut me, &cx(&force)), Status::Success);
    assert_eq!(me.take(), "flee");
    assert!(!force.is_forced("low").unwrap());
    // Used up: the condition runs again, and the agent patrols.
    assert_eq!(guard.tick(&mut me, &cx(&force)), Status::Running);
    assert_eq!(me.take(), "start");
}

#[test]
fn a_scripted_leaf_is_a_mock_that_never_runs() {
    let force = Force::<Guard>::new();
    force
        .set(
            "patrol",
            Forced::script([Status::Running, Status::Running, Status::Success]),
        )
        .unwrap();
    let (mut me, mut guard) = (bot(50), Guard::default());
    let statuses: Vec<Status> = (0..3).map(|_| guard.tick(&mut me, &cx(&force))).collect();
    assert_eq!(
        statuses,
        [Status::Running, Status::Running, Status::Success]
    );
    // The real leaf was never started nor ticked. Held running from its
    // first run, it counted as started with a new memory, so finishing it
    // halted it (with that memory) exactly once.
    assert_eq!(me.take(), "halt@0");
}

#[test]
fn forcing_a_running_leaf_to_finish_halts_it_exactly_once() {
    let force = Force::<Guard>::new();
    let (mut me, mut guard) = (bot(50), Guard::default());
    guard.tick(&mut me, &cx(&force));
    assert_eq!(me.take(), "start");
    force.set("patrol", Forced::once(Status::Failure)).unwrap();
    assert_eq!(guard.tick(&mut me, &cx(&force)), Status::Failure);
    // Halted (after one step), not ticked; and the tree is idle.
    assert_eq!(me.take(), "halt@1");
    assert!(!guard.is_active());
    guard.reset(&mut me, &cx(&force));
    assert_eq!(me.take(), "", "nothing is halted twice");
}

#[test]
fn a_running_leaf_forced_to_run_is_paused_with_its_memory() {
    let force = Force::<Guard>::new();
    let (mut me, mut guard) = (bot(50), Guard::default());
    guard.tick(&mut me, &cx(&force));
    force
        .set("patrol", Forced::times(2, Status::Running))
        .unwrap();
    for _ in 0..2 {
        assert_eq!(guard.tick(&mut me, &cx(&force)), Status::Running);
    }
    assert_eq!(me.take(), "start", "not ticked while paused");
    // Released: it goes on from its memory (1 step done).
    guard.tick(&mut me, &cx(&force));
    assert_eq!(me.take(), "step2");
}

#[test]
fn a_leaf_held_running_before_it_started_goes_on_with_a_new_memory() {
    let force = Force::<Guard>::new();
    force.set("patrol", Forced::once(Status::Running)).unwrap();
    let (mut me, mut guard) = (bot(50), Guard::default());
    assert_eq!(guard.tick(&mut me, &cx(&force)), Status::Running);
    assert!(guard.is_active(), "the parent holds the leaf running");
    // Its `start` is not called: it counts as started, memory new.
    guard.tick(&mut me, &cx(&force));
    assert_eq!(me.take(), "step1");
}

#[test]
fn a_composite_forced_to_finish_halts_what_runs_below_it() {
    let force = Force::<Guard>::new();
    let (mut me, mut guard) = (bot(50), Guard::default());
    guard.tick(&mut me, &cx(&force));
    me.take();
    force.set("root", Forced::once(Status::Success)).unwrap();
    assert_eq!(guard.tick(&mut me, &cx(&force)), Status::Success);
    assert_eq!(me.take(), "halt@1");
}

#[test]
fn force_acts_on_one_agent_among_many() {
    let force = Force::<Guard>::new().only_agent(2);
    force.set("low", Forced::always(Status::Success)).unwrap();
    let mut agents: Vec<(Bot, Guard)> = (0..4).map(|_| (bot(50), Guard::default())).collect();
    for (i, (me, guard)) in agents.iter_mut().enumerate() {
        guard.tick(me, &Ctx::new(0.0, 0.1).agent(i as u64).trace(&force));
    }
    let fled: Vec<bool> = agents.iter().map(|(me, _)| me.log == ["flee"]).collect();
    assert_eq!(fled, [false, false, true, false]);
    // `always` lasts until cleared.
    assert!(force.is_forced("low").unwrap());
    force.clear("low").unwrap();
    assert!(!force.is_forced("low").unwrap());
}

#[test]
fn nodes_are_named_by_label_id_or_table_entry_and_mistakes_are_typed() {
    let force = Force::<Guard>::new();
    assert_eq!(
        force
            .set("flea", Forced::once(Status::Success))
            .unwrap_err(),
        TestingError::UnknownLabel {
            tree: "Guard",
            label: "flea".into(),
            labels: vec!["root", "hurt", "low", "flee", "patrol"],
        }
    );
    let message = force
        .set("flea", Forced::once(Status::Success))
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "tree `Guard` has no node labelled 'flea; its labels: 'root, 'hurt, 'low, 'flee, 'patrol"
    );
    assert_eq!(
        force.set(9, Forced::once(Status::Success)).unwrap_err(),
        TestingError::UnknownId {
            tree: "Guard",
            id: 9,
            nodes: 5
        }
    );
    // An id and a table entry name the same node as the label, and so
    // does `bt::node!`, whose label rustc checks.
    force.set(2, Forced::always(Status::Success)).unwrap();
    assert!(force.is_forced("low").unwrap());
    assert!(force.is_forced(&Guard::NODES[2]).unwrap());
    assert!(force.is_forced(bt::node!(Guard, 'low)).unwrap());
    assert_eq!(bt::node!(Keywords, 'r#loop).id, 1);
    // A node of another tree.
    let other = &Other::NODES[0];
    assert_eq!(
        force.set(other, Forced::once(Status::Success)).unwrap_err(),
        TestingError::OtherTree {
            tree: "Guard",
            node: other
        }
    );
    // A condition cannot be held running.
    assert_eq!(
        force.set("low", Forced::once(Status::Running)).unwrap_err(),
        TestingError::CannotRun {
            node: &Guard::NODES[2]
        }
    );
}

behavior_tree! {
    tree Other(me: &mut Bot) { cond me.hp > 0 }

    tree Keywords(me: &mut Bot) { sequence { 'r#loop: cond me.hp > 0 } }
}

/// A hook that changes statuses after nodes ran: every `cond` that
/// succeeded fails.
struct Pessimist;

impl Trace for Pessimist {
    const HOOKS: bool = true;
    fn level(&self, _: u64) -> u8 {
        0
    }
    fn event(&self, _: &bt::TraceEvent) {}
    fn hooks(&self, _: u64) -> bool {
        true
    }
    fn after(&self, _: u64, node: &'static bt::NodeInfo, status: Status) -> Status {
        if node.kind == bt::NodeKind::Cond {
            status.invert()
        } else {
            status
        }
    }
}

#[test]
fn a_hook_may_change_the_status_a_node_returned() {
    let (mut me, mut guard) = (bot(5), Guard::default());
    // Hurt, but the condition's success is made a failure: patrol.
    assert_eq!(guard.tick(&mut me, &cx(&Pessimist)), Status::Running);
    assert_eq!(me.take(), "start");
}

#[test]
fn a_hook_that_runs_nothing_leaves_the_tree_as_it_was() {
    let (mut me, mut guard) = (bot(50), Guard::default());
    let (mut me2, mut plain) = (bot(50), Guard::default());
    let force = Force::<Guard>::new();
    for _ in 0..4 {
        let hooked = guard.tick(&mut me, &cx(&force));
        let unhooked = plain.tick(&mut me2, &Ctx::new(0.0, 0.1));
        assert_eq!(hooked, unhooked);
    }
    assert_eq!(me.log, me2.log);
}

#[test]
fn a_breakpoint_stops_the_ticking_thread_before_the_leaf_starts() {
    let breakpoints = Breakpoints::new(Duration::from_secs(30));
    breakpoints.add::<Guard>("patrol", When::Before).unwrap();
    let (mut me, mut guard) = (bot(50), Guard::default());
    std::thread::scope(|s| {
        let ticking = s.spawn(|| {
            let status = guard.tick(&mut me, &cx(&breakpoints));
            (status, me.take())
        });
        let stop = breakpoints
            .wait_for_stop(Duration::from_secs(30))
            .expect("the tick stops at the breakpoint");
        assert_eq!(
            (stop.node.label, stop.when, stop.agent),
            (Some("patrol"), When::Before, 0)
        );
        // Released with a status: the leaf does not run at all.
        breakpoints.release(stop.id, Some(Status::Failure)).unwrap();
        assert_eq!(
            breakpoints.release(stop.id, None),
            Err(BreakpointError::AlreadyReleased(stop.id))
        );
        let (status, log) = ticking.join().unwrap();
        assert_eq!((status, log.as_str()), (Status::Failure, ""));
    });
    assert_eq!(
        breakpoints.release(99, None),
        Err(BreakpointError::NoSuchStop(99))
    );
}

#[test]
fn a_breakpoint_after_a_node_sees_its_status_and_the_state_it_left() {
    let breakpoints = Breakpoints::new(Duration::from_secs(30));
    breakpoints
        .add_for_agent::<Guard>("patrol", When::After, 7)
        .unwrap();
    let (mut me, mut guard) = (bot(50), Guard::default());
    std::thread::scope(|s| {
        let ticking =
            s.spawn(|| guard.tick(&mut me, &Ctx::new(0.0, 0.1).agent(7).trace(&breakpoints)));
        let stop = breakpoints.wait_for_stop(Duration::from_secs(30)).unwrap();
        assert_eq!(stop.status, Some(Status::Running));
        breakpoints.release(stop.id, None).unwrap();
        assert_eq!(ticking.join().unwrap(), Status::Running);
    });
    // Agent 3 does not stop.
    let mut other = Guard::default();
    assert_eq!(
        other.tick(
            &mut bot(50),
            &Ctx::new(0.0, 0.1).agent(3).trace(&breakpoints)
        ),
        Status::Running
    );
}

#[test]
fn an_unreleased_breakpoint_times_out_and_its_late_release_is_an_error() {
    let breakpoints = Breakpoints::new(Duration::ZERO);
    breakpoints.add::<Guard>("low", When::Before).unwrap();
    let (mut me, mut guard) = (bot(5), Guard::default());
    // Nobody releases it: after the timeout the node runs as if unset.
    assert_eq!(guard.tick(&mut me, &cx(&breakpoints)), Status::Success);
    assert_eq!(me.take(), "flee");
    let stop = breakpoints.wait_for_stop(Duration::ZERO).unwrap();
    assert_eq!(
        breakpoints.release(stop.id, None),
        Err(BreakpointError::TimedOut(stop.id))
    );
}

#[test]
fn the_log_lists_the_trace_and_a_difference_is_shown_line_by_line() {
    let log = Log::new(6);
    let (mut me, mut guard) = (bot(50), Guard::default());
    guard.tick(&mut me, &cx(&log));
    assert_lines(
        &log.take(),
        "
        n0 'root tick starts
        n2 'low returned Failure
        n1 'hurt returned Failure
        n4 'patrol returned Running
        n0 'root returned Running
        n0 'root tick ends Running
        ",
    );
    // The active path, as lines too.
    assert_lines(&active_lines(&guard), "n0 'root\n  n4 'patrol");
    let wrong = std::panic::catch_unwind(|| {
        assert_lines(
            &["n2 'low returned Failure", "n0 'root returned Running"],
            "n2 'low returned Success\nn0 'root returned Running",
        )
    })
    .unwrap_err();
    let message = wrong.downcast_ref::<String>().unwrap();
    assert_eq!(
        message,
        "the lines differ (- expected, + actual):\n\
         - n2 'low returned Success\n\
         + n2 'low returned Failure\n\
         \x20 n0 'root returned Running\n"
    );
}

#[test]
fn coverage_names_the_nodes_runs_never_reached() {
    let coverage = Coverage::<Guard>::new();
    let (mut me, mut guard) = (bot(50), Guard::default());
    for _ in 0..3 {
        guard.tick(&mut me, &cx(&coverage));
    }
    let never = |nodes: Vec<&'static bt::NodeInfo>| -> Vec<&str> {
        nodes.iter().map(|n| n.name()).collect()
    };
    // Healthy all along: the agent never fled.
    assert_eq!(never(coverage.never_ran()), ["flee"]);
    assert_eq!(never(coverage.never_succeeded()), ["hurt", "low", "flee"]);
    assert_eq!(coverage.count("patrol", Status::Running).unwrap(), 2);
    let missed = std::panic::catch_unwind(|| coverage.assert_all_ran()).unwrap_err();
    assert_eq!(
        missed.downcast_ref::<String>().unwrap(),
        &format!(
            "nodes of `Guard` that never ran: n3 'flee (line {})",
            Guard::NODES[3].line
        )
    );
    // A hurt agent covers the rest.
    guard.tick(&mut bot(5), &cx(&coverage));
    coverage.assert_all_ran();
    coverage.assert_both_outcomes(&["low"]).unwrap();
}

#[test]
fn one_force_serves_thousands_of_agents_on_several_threads() {
    // Agent 1234 is forced to flee, every other agent patrols; four
    // threads tick 500 agents each through the same hook.
    let force = Force::<Guard>::new().only_agent(1234);
    force.set("low", Forced::always(Status::Success)).unwrap();
    let mut agents: Vec<(Bot, Guard)> = (0..2000).map(|_| (bot(50), Guard::default())).collect();
    std::thread::scope(|s| {
        for (chunk, agents) in agents.chunks_mut(500).enumerate() {
            let force = &force;
            s.spawn(move || {
                for (i, (me, guard)) in agents.iter_mut().enumerate() {
                    let agent = (chunk * 500 + i) as u64;
                    guard.tick(me, &Ctx::new(0.0, 0.1).agent(agent).trace(force));
                }
            });
        }
    });
    let fled: Vec<usize> = (agents.iter().enumerate())
        .filter(|(_, (me, _))| me.log == ["flee"])
        .map(|(i, _)| i)
        .collect();
    assert_eq!(fled, [1234]);
    assert!(
        agents
            .iter()
            .enumerate()
            .all(|(i, (me, _))| i == 1234 || me.log == ["start"])
    );
}
