//! Trees built with `hot-reload` run live after `bt::hot::start`: on the
//! interpreter, calling the build's compiled expressions by index. A live
//! agent does what a compiled agent does, call for call, and a reload
//! changes what live agents run while each node that stays keeps its
//! state.
//!
//! `bt::hot::start` is once per process: the tests share it, and make their
//! compiled agents with `compiled()`.

use bt::BehaviorTree;
use bt::prelude::*;
use std::sync::Mutex;

/// The lines hot reload reported, for every test.
static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Starts hot reload once for the process, its lines kept in [`LINES`].
fn start() {
    bt::hot::start_with(|line| LINES.lock().unwrap().push(line));
}

/// The world the tree acts on: every call is logged.
#[derive(Default)]
struct World {
    log: Vec<String>,
    hungry: bool,
    food: Option<u32>,
    queue: Vec<u8>,
    t: u32,
}

impl World {
    fn note(&mut self, what: impl Into<String>) {
        self.log.push(what.into());
    }
    fn act(&mut self, what: &str, status: Status) -> Status {
        self.note(what);
        status
    }
    fn cond(&mut self, what: &str, value: bool) -> bool {
        self.note(format!("{what}?{value}"));
        value
    }
}

/// A stateful leaf: walks `steps` steps.
#[derive(Debug)]
struct Walk {
    steps: u32,
}

impl Leaf<World> for Walk {
    type Memory = u32;
    fn start(&self, walked: &mut u32, w: &mut World) -> Status {
        w.note(format!("walk start {}", self.steps));
        self.tick(walked, w)
    }
    fn tick(&self, walked: &mut u32, w: &mut World) -> Status {
        *walked += 1;
        w.note(format!("walk {walked}/{}", self.steps));
        if *walked >= self.steps {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(walked: &mut u32, w: &mut World) {
        w.note(format!("walk halted at {walked}"));
    }
}

bt::behavior_tree! {
    tree Brain(me: &mut World, cx: &Ctx) {
        prioritized {
            'eat: when let Some(f): Option<u32> = me.food score *f as f32 => sequence {
                cond me.cond("big", *f > 2),
                action me.act("eat", Status::Success),
            },
            'hunt: when me.cond("hungry", me.hungry) => scope(enter = me.note("enter hunt"), exit = me.note("exit hunt")) {
                timeout(3) { 'walk: Walk { steps: 4 } }
            },
            'chores: when !me.queue.is_empty() => for_each(job: u8 = me.queue.pop()) {
                switch (*job % 3) {
                    0 => action me.act("sweep", Status::Success),
                    1 => after(success = me.note("washed")) { Walk { steps: 2 } },
                    _ => instant { me.note("skip"); Outcome::Success },
                }
            },
            'idle: else => sequence {
                wait(1),
                action me.act("idle", Status::Success),
            },
        }
    }
}

/// One scripted tick: what the world looks like before it.
fn script(t: u32, w: &mut World) {
    w.t = t;
    w.hungry = (t / 5) % 2 == 1;
    w.food = if t % 11 == 3 { Some(t % 4) } else { None };
    if t.is_multiple_of(13) {
        w.queue = vec![1, 2, 3, 4];
    }
}

/// Runs `brain` over `ticks` scripted ticks from tick `from`: each tick's
/// status and calls.
fn run(brain: &mut Brain, w: &mut World, from: u32, ticks: u32) -> Vec<String> {
    let mut out = Vec::new();
    for t in from..from + ticks {
        script(t, w);
        let cx = Ctx::new(f64::from(t) * 0.5, 0.5);
        let status = brain.tick(w, &cx);
        out.push(format!("t{t} {status:?}: {}", w.log.join(", ")));
        w.log.clear();
    }
    out
}

#[test]
fn live_trees_match_compiled_ones_and_reload_keeping_state() {
    start();

    // Call for call, a live agent is a compiled one.
    let (mut compiled, mut cw) = (Brain::compiled(), World::default());
    let (mut live, mut lw) = (Brain::default(), World::default());
    let expected = run(&mut compiled, &mut cw, 0, 60);
    let got = run(&mut live, &mut lw, 0, 60);
    assert_eq!(got, expected);
    let engine = Brain::live().expect("the tree runs live");
    assert_eq!(engine.version(), 1);
    // The live tree's views are the build's.
    let views = engine.current().views().cloned().expect("views");
    assert_eq!(views.btcpp_xml, Brain::BTCPP_XML);
    assert_eq!(views.btcpp_instance_xml, Brain::BTCPP_INSTANCE_XML);
    assert_eq!(views.mermaid, Brain::MERMAID);
    assert_eq!(views.dot, Brain::DOT);
    let build_nodes = engine.current().nodes("Brain").expect("node table");
    assert_eq!(build_nodes, Brain::NODES);
    // It announced where it reloads from.
    let announced = LINES.lock().unwrap().join("\n");
    assert!(
        announced.contains("Brain: runs on the interpreter"),
        "{announced}"
    );
    assert!(announced.contains("hot_mode.rs"), "{announced}");

    // Reloaded mid-walk: the hunt's walk keeps its memory (not started
    // again), and the new order and numbers apply.
    let file = include_str!("hot_mode.rs");
    let line = 1 + file
        .lines()
        .position(|l| l.starts_with("bt::behavior_tree! {"))
        .expect("the tree's invocation");
    let (mut brain, mut w) = (Brain::default(), World::default());
    let before = run(&mut brain, &mut w, 5, 2);
    assert!(before[1].contains("walk 2/4"), "{before:?}");
    let edited = file
        .replacen("timeout(3)", "timeout(30)", 1)
        .replacen("wait(1)", "wait(2)", 1);
    let outcome = engine.reload(&edited, line);
    assert_eq!(
        outcome.to_string(),
        format!(
            "Brain: reloaded as version 2, {0} of {0} nodes kept their state",
            16
        )
    );
    // The views follow the reload.
    let reloaded = engine.current().views().cloned().expect("views");
    assert_eq!(
        reloaded.mermaid,
        Brain::MERMAID
            .replace("timeout(3)", "timeout(30)")
            .replace("wait(1)", "wait(2)")
    );
    assert_ne!(reloaded.btcpp_xml, Brain::BTCPP_XML);
    let after = run(&mut brain, &mut w, 7, 2);
    // `prioritized` re-checks no guard while a child runs.
    assert_eq!(after[0], "t7 Running: walk 3/4", "{after:?}");
    assert_eq!(after[1], "t8 Success: walk 4/4, exit hunt");

    // An expression the build does not have is refused, naming it.
    let refused = engine.reload(
        &edited.replacen("me.act(\"idle\"", "me.act(\"dance\"", 1),
        line,
    );
    let line_of_idle = 1 + file
        .lines()
        .position(|l| l.contains("me.act(\"idle\""))
        .unwrap();
    assert_eq!(
        refused.to_string(),
        format!(
            "Brain: not reloaded: rebuild to use `me . act (\"dance\" , Status :: Success)` \
             (line {line_of_idle})"
        )
    );
    assert_eq!(engine.version(), 2);
}

/// Per agent: each leaf start, end and halt, counted.
#[derive(Default)]
struct Tally {
    starts: u32,
    ends: u32,
    halts: u32,
    ticks: u32,
}

impl Tally {
    fn ok(&mut self) -> bool {
        self.ticks += 1;
        !self.ticks.is_multiple_of(7)
    }
}

/// A leaf that runs `n` ticks.
struct Count {
    n: u32,
}

impl Leaf<Tally> for Count {
    type Memory = u32;
    fn start(&self, done: &mut u32, me: &mut Tally) -> Status {
        me.starts += 1;
        self.tick(done, me)
    }
    fn tick(&self, done: &mut u32, me: &mut Tally) -> Status {
        *done += 1;
        if *done >= self.n {
            me.ends += 1;
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(_: &mut u32, me: &mut Tally) {
        me.halts += 1;
    }
}

bt::behavior_tree! {
    tree Crowd(me: &mut Tally, cx: &Ctx) {
        sequence { cond me.ok(), timeout(5) { 'w: Count { n: 3 } }, wait(0.5) }
    }
}

#[test]
fn agents_on_threads_move_to_each_reload_and_no_leaf_run_leaks() {
    start();
    let file = include_str!("hot_mode.rs");
    let line = (file.lines().enumerate())
        .filter(|(_, l)| l.starts_with("bt::behavior_tree! {"))
        .map(|(i, _)| i + 1)
        .nth(1)
        .expect("the second invocation");
    let original = "sequence { cond me.ok(), timeout(5) { 'w: Count { n: 3 } }, wait(0.5) }";
    // Reordered, renumbered, wrapped and unwrapped: all from expressions
    // the build has.
    let edits = [
        "sequence { timeout(7) { 'w: Count { n: 3 } }, cond me.ok(), wait(0.5) }",
        "sequence { cond me.ok(), force_success { timeout(5) { 'w: Count { n: 3 } } }, wait(1) }",
        "select { timeout(2) { 'w: Count { n: 3 } }, cond me.ok() }",
        original,
    ];
    let mut agents: Vec<(Crowd, Tally)> = (0..200).map(|_| Default::default()).collect();
    let engine = {
        // The first tick makes the engine.
        let (brain, me) = &mut agents[0];
        brain.tick(me, &Ctx::new(0.0, 0.1));
        Crowd::live().expect("the tree runs live")
    };
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for chunk in agents.chunks_mut(50) {
            let done = &done;
            scope.spawn(move || {
                let mut t = 0u32;
                while !done.load(std::sync::atomic::Ordering::Acquire) || t < 100 {
                    t += 1;
                    let cx = Ctx::new(f64::from(t) * 0.1, 0.1);
                    for (brain, me) in chunk.iter_mut() {
                        brain.tick(me, &cx);
                    }
                }
            });
        }
        for (i, edit) in edits.iter().cycle().take(12).enumerate() {
            let outcome = engine.reload(&file.replacen(original, edit, 1), line);
            assert!(
                outcome
                    .to_string()
                    .contains(&format!("reloaded as version {}", i + 2)),
                "{outcome}"
            );
            std::thread::yield_now();
        }
        done.store(true, std::sync::atomic::Ordering::Release);
    });
    assert_eq!(engine.version(), 13);
    let mut started = 0;
    for (brain, me) in &mut agents {
        brain.reset(me);
        assert_eq!(
            me.starts,
            me.ends + me.halts,
            "every start ends exactly once"
        );
        started += me.starts;
    }
    assert!(started > 1000, "only {started} leaf runs");
}

/// One side of a pair: counts its steps.
#[derive(Default)]
struct Side {
    steps: u32,
    log: Vec<String>,
}

impl Side {
    fn step(&mut self, name: &str) -> Status {
        self.steps += 1;
        self.log.push(format!("{name} {}", self.steps));
        if self.steps.is_multiple_of(3) {
            Status::Success
        } else {
            Status::Running
        }
    }
}

/// Two sides, each run by the same embedded tree.
#[derive(Default)]
struct Pair {
    left: Side,
    right: Side,
}

bt::behavior_tree! {
    tree Half(side: &mut Side, cx: &Ctx, name: &str) {
        sequence { action side.step(name), wait(0.5) }
    }

    tree Both(me: &mut Pair, cx: &Ctx) {
        parallel_all {
            Half(&mut me.left, cx, "left"),
            Half(&mut me.right, cx, "right"),
        }
    }
}

#[test]
fn embedded_trees_run_live_with_their_arguments() {
    start();
    let (mut compiled, mut live) = (Both::compiled(), Both::default());
    let (mut a, mut b) = (Pair::default(), Pair::default());
    for t in 0..20 {
        let cx = Ctx::new(f64::from(t) * 0.25, 0.25);
        assert_eq!(
            live.tick(&mut b, &cx),
            compiled.tick(&mut a, &cx),
            "tick {t}"
        );
        assert_eq!(b.left.log, a.left.log, "tick {t}");
        assert_eq!(b.right.log, a.right.log, "tick {t}");
    }
    assert!(a.left.steps > 5 && a.right.steps > 5);
    assert!(Both::live().is_some(), "the tree with subtrees runs live");
}

/// A round of a watch: `walk` finishes, `look` runs on.
#[derive(Default)]
struct Watchman {
    log: Vec<String>,
}

impl Watchman {
    fn act(&mut self, what: &str, status: Status) -> Status {
        self.log.push(what.to_string());
        status
    }
}

bt::behavior_tree! {
    tree Rounds(me: &mut Watchman, cx: &Ctx<bt::NoFlags, bt::NoFlags, impl bt::Trace>) {
        'round: sequence {
            'walk: action me.act("walk", Status::Success),
            'look: action me.act("look", Status::Running),
        }
    }
}

/// Ticks `rounds` `ticks` times with `recorder` attached, from `t`.
fn record_rounds(
    rounds: &mut Rounds,
    me: &mut Watchman,
    recorder: &bt::record::Recorder,
    t: u32,
    ticks: u32,
) {
    for t in t..t + ticks {
        let cx = Ctx::new(f64::from(t), 1.0).trace(recorder);
        assert_eq!(rounds.tick(me, &cx), Status::Running);
    }
}

/// The labels of the nodes of `agent`'s transitions in ticks `from..`, as
/// `label:status`, from its JSON lines (whose nodes are the version the
/// agent runs).
fn recorded(recorder: &bt::record::Recorder, from: u32) -> Vec<String> {
    let mut out = Vec::new();
    recorder.write_jsonl([0], &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    let head: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let label = |uid: u64| {
        let node = &head["nodes"][uid as usize - 1];
        node["label"].as_str().map_or_else(
            || node["kind"].as_str().unwrap().to_string(),
            str::to_string,
        )
    };
    lines
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|t| t["tick"].as_u64().unwrap() >= u64::from(from))
        .map(|t| {
            format!(
                "{}:{}",
                label(t["uid"].as_u64().unwrap()),
                t["status"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_recorder_follows_a_reload_to_the_new_tree_and_back() {
    use bt::record::Recorder;
    start();
    // Agent 1 never ticks: it stays recorded in the tree as built.
    let recorder = Recorder::new::<Rounds>(2, 64);
    let (mut rounds, mut me) = (Rounds::default(), Watchman::default());
    record_rounds(&mut rounds, &mut me, &recorder, 0, 2);
    assert_eq!(
        recorded(&recorder, 0),
        ["round:running", "walk:success", "look:running"]
    );
    let mut page = String::new();
    let since = recorder.history_json(0, None, &mut page).unwrap();
    assert!(
        page.contains("\"layout\":0") && !page.contains("\"nodes\""),
        "{page}"
    );

    // Reloaded with one node more: the agent's history is laid out by the
    // new tree from its next tick, and starts over.
    let file = include_str!("hot_mode.rs");
    let line = file
        .lines()
        .position(|l| l.starts_with("    tree Rounds("))
        .expect("the tree's invocation");
    let engine = Rounds::live().expect("the tree runs live");
    let edited = file.replacen(
        "'look: action me.act(\"look\", Status::Running),\n        }",
        "'guarded: force_success { 'look: action me.act(\"look\", Status::Running) },\n        }",
        1,
    );
    assert_ne!(edited, file);
    let outcome = engine.reload(&edited, line);
    assert!(
        outcome
            .to_string()
            .starts_with("Rounds: reloaded as version 2"),
        "{outcome}"
    );
    assert_eq!(recorder.nodes_of(0), Ok(3));
    record_rounds(&mut rounds, &mut me, &recorder, 2, 2);
    assert_eq!(recorder.nodes(), 3, "the tree as built");
    assert_eq!(recorder.nodes_of(0), Ok(4));
    // The history starts over at the reload, every node idle: the round
    // resumes its look (their state was kept), so the walk, finished
    // before, does not show; the new node runs around the look.
    assert_eq!(
        recorded(&recorder, 0),
        ["round:running", "guarded:running", "look:running"]
    );
    let mut btlog = Vec::new();
    recorder.write_btlog(0, &mut btlog).unwrap();
    let btlog = String::from_utf8_lossy(&btlog);
    assert!(
        btlog.contains("<ForceSuccess _uid=\"3\" name=\"guarded\">"),
        "{btlog}"
    );

    // Agents recorded in two versions are not written together.
    let mixed = recorder.write_jsonl([0, 1], &mut Vec::new()).unwrap_err();
    assert_eq!(
        mixed.to_string(),
        "agent 1 runs another version of the tree than agent 0 (a hot reload changed it): \
         write them separately"
    );

    // A page that had the history before the reload gets it again, with
    // the new tree's nodes.
    let mut page = String::new();
    recorder.history_json(0, Some(since), &mut page).unwrap();
    assert!(page.contains("\"reset\":true"), "{page}");
    assert!(page.contains("\"layout\":1"), "{page}");
    assert!(page.contains("\"label\":\"guarded\""), "{page}");

    // Back to the source as built: the recorder's own layout again.
    assert!(
        engine
            .reload(file, line)
            .to_string()
            .starts_with("Rounds: reloaded as version 3")
    );
    record_rounds(&mut rounds, &mut me, &recorder, 4, 1);
    assert_eq!(recorder.nodes_of(0), Ok(3));
    let mut page = String::new();
    recorder.history_json(0, Some(since), &mut page).unwrap();
    assert!(
        page.contains("\"layout\":0") && !page.contains("\"nodes\""),
        "{page}"
    );
    // Started over again: the look, still running, and its round.
    assert_eq!(recorded(&recorder, 0), ["round:running", "look:running"]);
}
