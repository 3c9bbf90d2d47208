//! The recorder: what it keeps per agent, how it follows the tree, and its
//! ring, threads and JSON lines. (Its `.btlog` files are read back, and
//! compared with BehaviorTree.CPP's own, in the `bt-difftest` crate.)

use bt::record::{NodeStatus, Recorder, Transition};
use bt::{BehaviorTree, Ctx, Leaf, NoFlags, NodeKind, Status, Trace, Tracer};

/// An agent whose jobs run for a scripted number of ticks.
#[derive(Default)]
struct Bot {
    seed: u64,
    /// Jobs started and not yet finished or halted.
    running: i32,
    alarm: bool,
}

impl Bot {
    fn roll(&mut self, percent: u64) -> bool {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % 100 < percent
    }
}

struct Job;

impl Leaf<Bot> for Job {
    type Memory = ();
    fn start(&self, m: &mut (), bot: &mut Bot) -> Status {
        bot.running += 1;
        self.tick(m, bot)
    }
    fn tick(&self, _: &mut (), bot: &mut Bot) -> Status {
        let status = if bot.roll(60) {
            Status::Running
        } else {
            Status::from(bot.roll(70))
        };
        if status.is_done() {
            bot.running -= 1;
        }
        status
    }
    fn halt(_: &mut (), bot: &mut Bot) {
        bot.running -= 1;
    }
}

type Cx<'a> = Ctx<NoFlags, NoFlags, &'a Recorder>;

bt::behavior_tree! {
    tree Chores(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        sequence_with_memory { Job, 'sweep: Job, Job }
    }

    tree Life(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: prioritized {
            'alarm: when me.alarm => reactive_sequence { cond !me.roll(5), monitor(!me.roll(2)), Job },
            'busy: when me.roll(50) => parallel(success = 2, failure = 2) {
                Job,
                'chores: Chores(me, cx),
                retry(2) { select { cond me.roll(30), Job } },
            },
            'idle: else => while_do_else { cond me.roll(50), Chores(me, cx), timeout(0.5) { Job } },
        }
    }
}

bt::behavior_tree! {
    /// [`Life`] with its subtree written out: a tree whose statuses the
    /// recorder keeps in one word per agent, and what each status makes of
    /// them in a table shared by every agent and thread.
    tree Errands(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: prioritized {
            'alarm: when me.alarm => reactive_sequence { cond !me.roll(5), monitor(!me.roll(2)), Job },
            'busy: when me.roll(50) => parallel(success = 2, failure = 2) {
                Job,
                sequence_with_memory { Job, Job, Job },
                retry(2) { select { cond me.roll(30), Job } },
            },
            'idle: else => while_do_else {
                cond me.roll(50),
                sequence_with_memory { Job, Job, Job },
                timeout(0.5) { Job },
            },
        }
    }
}

/// Ticks `agents` agents `ticks` times, with the alarm on now and then, a
/// reset now and then; calls `check` after each agent's tick.
fn run(
    recorder: &Recorder,
    agents: std::ops::Range<u64>,
    ticks: u32,
    check: impl FnMut(u64, &Bot, &Life),
) {
    run_tree(
        recorder,
        agents,
        ticks,
        |life: &mut Life, bot, cx| life.tick(bot, cx),
        |life: &mut Life, bot, cx| life.reset(bot, cx),
        check,
    );
}

/// [`run`] for any tree `S` of [`Bot`]s, ticked by `tick` and reset by
/// `reset`.
fn run_tree<S: Default>(
    recorder: &Recorder,
    agents: std::ops::Range<u64>,
    ticks: u32,
    tick: impl Fn(&mut S, &mut Bot, &Cx<'_>) -> Status,
    reset: impl Fn(&mut S, &mut Bot, &Cx<'_>),
    mut check: impl FnMut(u64, &Bot, &S),
) {
    for agent in agents {
        let mut bot = Bot {
            seed: 0x9e37_79b9 ^ agent.wrapping_mul(0x2545_f491),
            ..Bot::default()
        };
        let mut state = S::default();
        for t in 0..ticks {
            let cx: Cx = Ctx::new(f64::from(t) * 0.1, 0.1)
                .agent(agent)
                .trace(recorder);
            bot.alarm = t % 40 < 10;
            tick(&mut state, &mut bot, &cx);
            if t % 97 == 96 {
                reset(&mut state, &mut bot, &cx);
            }
            check(agent, &bot, &state);
        }
    }
}

#[test]
fn statuses_follow_the_running_leaves_and_the_active_path() {
    let recorder = Recorder::new::<Life>(20, 1 << 16);
    assert_eq!(recorder.nodes(), Life::VIEW.size);
    assert_eq!(
        recorder.nodes(),
        Life::NODES.len() + 2 * Chores::NODES.len()
    );
    let mut parents = std::collections::HashMap::new();
    bt::view::expand(Life::VIEW, &mut |p| {
        parents.insert(p.uid, p.parent);
    });
    let (mut ticks, mut most) = (0, 0);
    run(&recorder, 0..20, 500, |agent, bot, life| {
        let statuses = recorder.current_statuses(agent).unwrap();
        let running = |uid: usize| statuses[uid] == NodeStatus::Running;
        // A running leaf is a job that started and has not ended.
        let leaves = (1..statuses.len())
            .filter(|&uid| running(uid))
            .filter(|&uid| recorder.node(uid as u16).unwrap().kind == NodeKind::Leaf)
            .count();
        assert_eq!(leaves as i32, bot.running, "agent {agent}");
        most = most.max(leaves);
        // Running nodes form paths from the root.
        for uid in (1..statuses.len()).filter(|&u| running(u)) {
            let parent = parents[&uid];
            assert!(
                parent == 0 || running(parent),
                "agent {agent}: uid {uid} runs under an idle node"
            );
        }
        // The tree is active exactly when its root runs.
        assert_eq!(running(1), life.is_active(), "agent {agent}");
        ticks += 1;
    });
    assert_eq!(ticks, 20 * 500);
    assert!(most >= 2, "parallel jobs ran at once");
    let all: Vec<Transition> = (0..20)
        .flat_map(|a| recorder.transitions(a).unwrap())
        .collect();
    // The embedded trees' nodes are recorded under both instances.
    let chores = Life::VIEW.subtrees.iter().map(|s| s.node);
    for node in chores {
        let uid = 1 + Life::VIEW.offset(node) as u16;
        for inner in 1..=Chores::NODES.len() as u16 {
            assert!(
                all.iter()
                    .any(|t| t.uid == uid + inner && t.status == NodeStatus::Success),
                "node {inner} of the instance at uid {uid} never succeeded"
            );
        }
    }
    for status in [
        NodeStatus::Idle,
        NodeStatus::Running,
        NodeStatus::Success,
        NodeStatus::Failure,
    ] {
        assert!(all.iter().any(|t| t.status == status));
    }
}

#[test]
fn reset_returns_every_node_to_idle() {
    let recorder = Recorder::new::<Life>(1, 1 << 12);
    let mut bot = Bot {
        seed: 7,
        ..Bot::default()
    };
    let mut life = Life::default();
    let mut resets = 0;
    for tick in 0..300 {
        let cx: Cx = Ctx::new(f64::from(tick) * 0.1, 0.1).trace(&recorder);
        life.tick(&mut bot, &cx);
        if life.is_active() && tick % 7 == 0 {
            assert!(
                recorder
                    .current_statuses(0)
                    .unwrap()
                    .contains(&NodeStatus::Running)
            );
            life.reset(&mut bot, &cx);
            resets += 1;
            let statuses = recorder.current_statuses(0).unwrap();
            assert!(
                statuses.iter().all(|&s| s == NodeStatus::Idle),
                "{statuses:?}"
            );
            // The reset's transitions carry its time, deepest node first.
            let last = recorder.transitions(0).unwrap();
            let tail: Vec<&Transition> =
                last.iter().rev().take_while(|t| t.time == cx.now).collect();
            assert_eq!(
                tail.first().map(|t| (t.uid, t.status)),
                Some((1, NodeStatus::Idle))
            );
        }
    }
    assert!(resets > 5);
}

#[test]
fn the_ring_keeps_the_newest_transitions() {
    let big = Recorder::new::<Life>(1, 1 << 16);
    let small = Recorder::new::<Life>(1, 10);
    for recorder in [&big, &small] {
        run(recorder, 0..1, 200, |_, _, _| {});
    }
    let all = big.transitions(0).unwrap();
    assert!(all.len() > 100);
    assert_eq!(small.transitions(0).unwrap(), all[all.len() - 10..]);
    assert_eq!(small.dropped(0).unwrap() as usize, all.len() - 10);
    assert_eq!(big.dropped(0).unwrap(), 0);
    small.clear(0).unwrap();
    assert!(small.transitions(0).unwrap().is_empty());
}

#[test]
fn agents_on_several_threads_record_as_they_would_alone() {
    let alone = Recorder::new::<Life>(16, 1 << 14);
    run(&alone, 0..16, 300, |_, _, _| {});
    let shared = Recorder::new::<Life>(16, 1 << 14);
    std::thread::scope(|s| {
        for thread in 0..4u64 {
            let shared = &shared;
            s.spawn(move || run(shared, thread * 4..thread * 4 + 4, 300, |_, _, _| {}));
        }
    });
    for agent in 0..16 {
        assert_eq!(
            shared.transitions(agent).unwrap(),
            alone.transitions(agent).unwrap(),
            "agent {agent}"
        );
        assert!(!alone.transitions(agent).unwrap().is_empty());
    }
}

/// The recorder logs each status without a lock and applies BehaviorTree.CPP's
/// rules later (when an agent's log is full, or its recording is read):
/// what it keeps must be what applying each event at once keeps.
#[test]
fn statuses_applied_later_are_the_statuses_applied_at_once() {
    let logged = Recorder::new::<Life>(6, 1 << 16);
    let events = std::cell::RefCell::new(Vec::new());
    // What a recorder is sent: level-6 events and firing monitors.
    let tracer = Tracer::new(6, |e: &bt::TraceEvent| {
        if e.level == 6 || matches!(e.what, bt::trace::Event::MonitorFired { .. }) {
            events.borrow_mut().push(*e);
        }
    });
    for agent in 0..6u64 {
        let mut bot = Bot {
            seed: 0x9e37_79b9 ^ agent.wrapping_mul(0x2545_f491),
            ..Bot::default()
        };
        let mut life = Life::default();
        for tick in 0..400u32 {
            let cx = Ctx::new(f64::from(tick) * 0.1, 0.1)
                .agent(agent)
                .trace((&logged, &tracer));
            bot.alarm = tick % 40 < 10;
            life.tick(&mut bot, &cx);
            if tick % 97 == 96 {
                life.reset(&mut bot, &cx);
            }
        }
    }
    // Many times what an agent's log holds: it filled and was applied
    // again and again, the embedded trees' nodes among the rest.
    let events = events.take();
    assert!(events.len() > 6 * 400 * 3, "{} events", events.len());
    assert!(
        events
            .iter()
            .any(|e| e.node.tree == "Chores" && matches!(e.what, bt::trace::Event::Returned(_)))
    );
    let at_once = Recorder::new::<Life>(6, 1 << 16);
    for e in &events {
        Trace::event(&at_once, e);
        // Reading applies what is logged: each event is applied now.
        at_once.ticks(e.agent).unwrap();
    }
    for agent in 0..6 {
        assert_eq!(
            logged.transitions(agent).unwrap(),
            at_once.transitions(agent).unwrap(),
            "agent {agent}"
        );
        assert_eq!(
            logged.current_statuses(agent).unwrap(),
            at_once.current_statuses(agent).unwrap()
        );
        assert_eq!(logged.ticks(agent).unwrap(), 400);
        assert_eq!(at_once.ticks(agent).unwrap(), 400);
        assert!(logged.transitions(agent).unwrap().len() > 500);
    }
}

/// A walker whose strides each last `legs` ticks.
struct Walker {
    legs: u32,
    awake: bool,
}

struct Stride;

impl Leaf<Walker> for Stride {
    type Memory = u32;
    fn start(&self, m: &mut u32, me: &mut Walker) -> Status {
        *m = 0;
        self.tick(m, me)
    }
    fn tick(&self, m: &mut u32, me: &mut Walker) -> Status {
        *m += 1;
        if *m >= me.legs {
            Status::Success
        } else {
            Status::Running
        }
    }
}

bt::behavior_tree! {
    tree Patrol(me: &mut Walker, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'patrol: sequence { cond me.awake, 'out: Stride, 'back: Stride }
    }
}

/// Passes everything on to `recorder`, and notes every 13th status `'out`
/// and `'back` return (on `'back`), as a leaf that notes what it does
/// would, in the middle of its tick. `at_once`: reads the recording after each event, so that each is
/// applied as it comes.
struct Noting<'r> {
    recorder: &'r Recorder,
    back: u16,
    at_once: bool,
    seen: std::cell::Cell<u32>,
}

impl Trace for Noting<'_> {
    fn level(&self, agent: u64) -> u8 {
        self.recorder.level(agent)
    }
    fn statuses(&self, agent: u64) -> bool {
        self.recorder.statuses(agent)
    }
    fn event(&self, event: &bt::TraceEvent) {
        self.recorder.event(event);
        if self.at_once {
            self.recorder.ticks(event.agent).unwrap();
        }
    }
    fn returned(&self, agent: u64, now: f64, node: &'static bt::NodeInfo, status: Status) {
        self.recorder.returned(agent, now, node, status);
        if self.at_once {
            self.recorder.ticks(agent).unwrap();
        }
        if node.label == Some("back") || node.label == Some("out") {
            // Now and then: a note applies what is logged.
            self.seen.set(self.seen.get() + 1);
            if self.seen.get().is_multiple_of(13) {
                self.recorder.note(agent, self.back, &status).unwrap();
            }
        }
    }
}

/// Most ticks of a walker change no status, for tens of ticks on end.
/// What a recorder keeps of them, its log applied later, is what applying
/// every status at once keeps: transitions with their ticks and times,
/// notes made in the middle of such ticks, tick counts read at any time,
/// and after `resume` (as when a save is loaded) the statuses that ticks
/// which changed nothing before change again.
#[test]
fn long_runs_of_ticks_that_change_nothing_are_kept_as_if_applied_at_once() {
    let logged = Recorder::new::<Patrol>(4, 1 << 12).with_notes(1 << 12);
    let at_once = Recorder::new::<Patrol>(4, 1 << 12).with_notes(1 << 12);
    let back = logged.uid_of("back").unwrap();
    let idle = std::vec![NodeStatus::Idle; logged.nodes() + 1];
    for agent in 0..4u64 {
        let mut me = Walker {
            legs: 10 + 30 * agent as u32,
            awake: true,
        };
        let mut patrol = Patrol::default();
        for tick in 0..600u32 {
            let trace = (
                Noting {
                    recorder: &logged,
                    back,
                    at_once: false,
                    seen: std::cell::Cell::new(tick),
                },
                Noting {
                    recorder: &at_once,
                    back,
                    at_once: true,
                    seen: std::cell::Cell::new(tick),
                },
            );
            let cx = Ctx::new(f64::from(tick) * 0.1, 0.1)
                .agent(agent)
                .trace(trace);
            me.awake = tick % 150 < 140;
            patrol.tick(&mut me, &cx);
            if tick % 100 == 77 {
                logged.resume(agent, &idle).unwrap();
                at_once.resume(agent, &idle).unwrap();
            }
            // Read now and then: the ticks counted so far are all there.
            if tick % 41 == 40 {
                assert_eq!(logged.ticks(agent).unwrap(), tick + 1);
            }
        }
    }
    for agent in 0..4 {
        let (a, b) = (
            logged.transitions(agent).unwrap(),
            at_once.transitions(agent).unwrap(),
        );
        assert_eq!(a, b, "agent {agent}");
        // Strides start and end: fewer transitions than ticks.
        assert!((20..600).contains(&a.len()), "{} transitions", a.len());
        let notes = |r: &Recorder| -> Vec<(u32, u16, String)> {
            let notes = r.notes(agent).unwrap();
            notes
                .iter()
                .map(|n| (n.tick, n.uid, n.text().to_owned()))
                .collect()
        };
        assert_eq!(notes(&logged), notes(&at_once), "agent {agent}");
        assert!(notes(&logged).len() > 20);
        assert_eq!(logged.ticks(agent).unwrap(), 600);
        assert_eq!(at_once.ticks(agent).unwrap(), 600);
        assert_eq!(
            logged.current_statuses(agent).unwrap(),
            at_once.current_statuses(agent).unwrap()
        );
    }
}

/// Reading agents' recordings while other threads tick them applies their
/// logs under the ticking threads' feet; what is kept stays what ticking
/// them alone keeps, and the tick counts read never go back.
#[test]
fn reading_recordings_while_agents_tick_changes_nothing_recorded() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let alone = Recorder::new::<Life>(8, 1 << 14);
    run(&alone, 0..8, 400, |_, _, _| {});
    let shared = Recorder::new::<Life>(8, 1 << 14);
    let done = AtomicBool::new(false);
    let reads = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut last = [0u32; 8];
            let mut reads = 0u64;
            while !done.load(Ordering::Acquire) {
                for (agent, last) in last.iter_mut().enumerate() {
                    let ticks = shared.ticks(agent as u64).unwrap();
                    assert!(ticks >= *last, "agent {agent}: {ticks} ticks after {last}");
                    *last = ticks;
                    let statuses = shared.current_statuses(agent as u64).unwrap();
                    assert_eq!(statuses.len(), shared.nodes() + 1);
                    reads += 1;
                }
            }
            reads
        });
        let tickers: Vec<_> = (0..2u64)
            .map(|thread| {
                let shared = &shared;
                s.spawn(move || run(shared, thread * 4..thread * 4 + 4, 400, |_, _, _| {}))
            })
            .collect();
        for t in tickers {
            t.join().unwrap();
        }
        done.store(true, Ordering::Release);
        reader.join().unwrap()
    });
    assert!(reads > 0);
    for agent in 0..8 {
        assert_eq!(
            shared.transitions(agent).unwrap(),
            alone.transitions(agent).unwrap(),
            "agent {agent}"
        );
        assert_eq!(shared.ticks(agent).unwrap(), 400);
    }
}

/// Logs folded by another thread ([`Recorder::drain`], looping while
/// two threads tick the agents and a third reads them) record what logs
/// folded by the ticking threads record: the same transitions, drops,
/// statuses, tick counts and `.btlog` bytes, with rings that keep
/// everything and rings that drop.
#[test]
fn logs_drained_on_another_thread_record_what_they_record_undrained() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    const AGENTS: u64 = 64;
    const FRAMES: u32 = 900;
    /// Stops the drain when dropped, even by a failing assertion.
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    for capacity in [1 << 12, 16] {
        let drained = Recorder::new::<Errands>(AGENTS as usize, capacity);
        let alone = Recorder::new::<Errands>(AGENTS as usize, capacity);
        let (done, sweeps, folded) = (
            AtomicBool::new(false),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(Ordering::Acquire) {
                    let n = drained.drain();
                    folded.fetch_add(n, Ordering::Relaxed);
                    sweeps.fetch_add(1, Ordering::Release);
                    if n == 0 {
                        std::thread::yield_now();
                    }
                }
            });
            // A reader taking agents' locks meanwhile: the drain skips
            // those it finds locked.
            s.spawn(|| {
                let mut last = [0u32; AGENTS as usize];
                let mut agent = 0;
                while !done.load(Ordering::Acquire) {
                    let ticks = drained.ticks(agent).unwrap();
                    let last = &mut last[agent as usize];
                    assert!(ticks >= *last, "agent {agent}: {ticks} ticks after {last}");
                    *last = ticks;
                    agent = (agent + 7) % AGENTS;
                }
            });
            let _stop = Stop(&done);
            // Two ticking threads, each with half the agents.
            let tickers: Vec<_> = [0..AGENTS / 2, AGENTS / 2..AGENTS]
                .map(|agents| {
                    let (drained, alone, sweeps) = (&drained, &alone, &sweeps);
                    s.spawn(move || {
                        let mut bots: Vec<[Bot; 2]> = agents
                            .clone()
                            .map(|agent| twin_bots(0x9e37_79b9 ^ agent.wrapping_mul(0x2545_f491)))
                            .collect();
                        let mut trees = vec![[Errands::default(), Errands::default()]; bots.len()];
                        for t in 0..FRAMES {
                            let now = f64::from(t) * 0.1;
                            for (agent, ([a, b], [ta, tb])) in
                                agents.clone().zip(bots.iter_mut().zip(&mut trees))
                            {
                                a.alarm = (t + agent as u32) % 40 < 10;
                                b.alarm = a.alarm;
                                ta.tick(a, &Ctx::new(now, 0.1).agent(agent).trace(drained));
                                tb.tick(b, &Ctx::new(now, 0.1).agent(agent).trace(alone));
                                if (t + agent as u32) % 97 == 96 {
                                    ta.reset(a, &Ctx::new(now, 0.1).agent(agent).trace(drained));
                                    tb.reset(b, &Ctx::new(now, 0.1).agent(agent).trace(alone));
                                }
                            }
                            // Now and then, a whole sweep between two
                            // frames: the drain surely meets logs it folds.
                            if t % 150 == 149 {
                                let from = sweeps.load(Ordering::Acquire);
                                while sweeps.load(Ordering::Acquire) < from + 2 {
                                    std::thread::yield_now();
                                }
                            }
                        }
                    })
                })
                .into();
            for ticker in tickers {
                ticker.join().unwrap();
            }
        });
        assert!(
            folded.load(Ordering::Relaxed) > 0,
            "capacity {capacity}: nothing drained"
        );
        for agent in 0..AGENTS {
            let what = format!("capacity {capacity}, agent {agent}");
            same_transitions(
                &drained.transitions(agent).unwrap(),
                &alone.transitions(agent).unwrap(),
                &what,
            );
            assert_eq!(drained.dropped(agent), alone.dropped(agent), "{what}");
            assert_eq!(drained.ticks(agent).unwrap(), FRAMES, "{what}");
            assert_eq!(
                drained.current_statuses(agent).unwrap(),
                alone.current_statuses(agent).unwrap(),
                "{what}"
            );
            let mut logs = (Vec::new(), Vec::new());
            drained.write_btlog(agent, &mut logs.0).unwrap();
            alone.write_btlog(agent, &mut logs.1).unwrap();
            assert!(logs.0 == logs.1, "{what}");
        }
    }
}

/// `drain_agents` folds exactly the agents of its range that `drain`
/// would fold, and nothing for ranges outside the recorder; a log drained
/// is not drained again until it fills past half once more.
#[test]
fn drain_folds_the_agents_asked_for_and_only_logs_past_half() {
    let [all, each] = [(); 2].map(|_| Recorder::new::<Errands>(16, 64));
    for recorder in [&all, &each] {
        run_tree(
            recorder,
            0..16,
            700,
            |s: &mut Errands, bot, cx| s.tick(bot, cx),
            |s: &mut Errands, bot, cx| s.reset(bot, cx),
            |_, _, _| {},
        );
    }
    let (from, to) = (9, 3);
    assert_eq!(each.drain_agents(from..to), 0);
    assert_eq!(each.drain_agents(16..u64::MAX), 0);
    assert_eq!(each.drain_agents(u64::MAX - 1..u64::MAX), 0);
    let one_by_one: Vec<usize> = (0..16).map(|a| each.drain_agents(a..a + 1)).collect();
    assert!(one_by_one.iter().all(|&n| n <= 1), "{one_by_one:?}");
    let folded = all.drain();
    assert!(folded > 0, "700 ticks fill some logs past half");
    assert_eq!(folded, one_by_one.iter().sum::<usize>());
    assert_eq!(all.drain(), 0);
    assert_eq!(each.drain_agents(0..100), 0);
    for agent in 0..16 {
        assert_eq!(
            all.transitions(agent).unwrap(),
            each.transitions(agent).unwrap()
        );
    }
}

/// What a status makes of the statuses before it is worked out once and
/// shared by every agent and thread (a tree without subtrees, of up to 63
/// nodes): agents ticked on four threads at once, each thread filling the
/// shared table as it goes, record what each records ticked alone, and
/// what they record reads as the status each node returned last.
#[test]
fn agents_on_threads_record_what_each_records_alone() {
    const AGENTS: u64 = 16;
    let errands = |recorder: &Recorder, agents: std::ops::Range<u64>| {
        run_tree(
            recorder,
            agents,
            500,
            |s: &mut Errands, bot, cx| s.tick(bot, cx),
            |s: &mut Errands, bot, cx| s.reset(bot, cx),
            |_, _, _| {},
        );
    };
    let shared = Recorder::new::<Errands>(AGENTS as usize, 1 << 14);
    std::thread::scope(|s| {
        for thread in 0..4 {
            let shared = &shared;
            s.spawn(move || errands(shared, thread * 4..thread * 4 + 4));
        }
    });
    for agent in 0..AGENTS {
        // Alone, on a recorder of its own: the table fills in its order.
        let alone = Recorder::new::<Errands>(AGENTS as usize, 1 << 14);
        errands(&alone, agent..agent + 1);
        let transitions = shared.transitions(agent).unwrap();
        assert_eq!(
            transitions,
            alone.transitions(agent).unwrap(),
            "agent {agent}"
        );
        assert!(
            transitions.len() > 1_000,
            "{} transitions",
            transitions.len()
        );
        assert_eq!(
            shared.current_statuses(agent).unwrap(),
            alone.current_statuses(agent).unwrap()
        );
        // Replayed by hand, the transitions end in the statuses kept.
        let mut statuses = vec![NodeStatus::Idle; shared.nodes() + 1];
        for t in &transitions {
            statuses[usize::from(t.uid)] = t.status;
        }
        assert_eq!(statuses, shared.current_statuses(agent).unwrap());
    }
}

/// Fails with the first transition where `a` and `b` differ, and a few
/// around it.
fn same_transitions(a: &[Transition], b: &[Transition], what: &str) {
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        let around = |t: &[Transition]| t[i.saturating_sub(3)..(i + 3).min(t.len())].to_vec();
        panic!(
            "{what}: transition {i} of {} and {} differs:\n{:?}\n{:?}",
            a.len(),
            b.len(),
            around(a),
            around(b)
        );
    }
}

/// Two bots that roll the same, one per recorder compared.
fn twin_bots(seed: u64) -> [Bot; 2] {
    [(); 2].map(|_| Bot {
        seed,
        ..Bot::default()
    })
}

/// A recorder's hook as a tree reaches it, but sending each status as its
/// own event ([`Trace::event`]) rather than through [`Trace::returned`]:
/// the recorder logs each alone, never a tick's statuses at once.
struct OneByOne<'a>(&'a Recorder);

impl Trace for OneByOne<'_> {
    fn level(&self, agent: u64) -> u8 {
        self.0.level(agent)
    }
    fn statuses(&self, agent: u64) -> bool {
        self.0.statuses(agent)
    }
    fn event(&self, event: &bt::TraceEvent) {
        self.0.event(event)
    }
}

#[test]
fn ticks_logged_whole_record_what_statuses_logged_one_by_one_record() {
    const AGENTS: u64 = 6;
    // Rings that drop nothing, and rings that keep less than a tick makes.
    for capacity in [1 << 14, 100, 16, 3, 1, 0] {
        let whole = Recorder::new::<Errands>(AGENTS as usize, capacity);
        let alone = Recorder::new::<Errands>(AGENTS as usize, capacity);
        for agent in 0..AGENTS {
            let mut bots = twin_bots(0x9e37_79b9 ^ agent.wrapping_mul(0x2545_f491));
            let mut trees = [Errands::default(), Errands::default()];
            for t in 0..900u32 {
                let now = f64::from(t) * 0.1;
                for bot in &mut bots {
                    bot.alarm = t % 300 < 10;
                }
                let [a, b] = &mut bots;
                let [ta, tb] = &mut trees;
                let cx = Ctx::new(now, 0.1).agent(agent).trace(&whole);
                ta.tick(a, &cx);
                let cx = Ctx::new(now, 0.1).agent(agent).trace(OneByOne(&alone));
                tb.tick(b, &cx);
                if t % 250 == 249 {
                    ta.reset(a, &Ctx::new(now, 0.1).agent(agent).trace(&whole));
                    tb.reset(b, &Ctx::new(now, 0.1).agent(agent).trace(OneByOne(&alone)));
                }
                // Statuses set from outside (as when resuming from a
                // save): the ticks logged whole after them were worked out
                // from other statuses, and are applied status by status.
                if t % 300 == 150 {
                    let mut statuses = vec![NodeStatus::Idle; whole.nodes() + 1];
                    statuses[1] = NodeStatus::Running;
                    statuses[2 + t as usize % 5] = NodeStatus::Success;
                    whole.resume(agent, &statuses).unwrap();
                    alone.resume(agent, &statuses).unwrap();
                }
                // Read now and then, between ticks: the logs are folded
                // where they are.
                if t % 131 == 7 || t % 173 == 0 {
                    same_transitions(
                        &whole.transitions(agent).unwrap(),
                        &alone.transitions(agent).unwrap(),
                        &format!("capacity {capacity}, agent {agent}, tick {t}"),
                    );
                    assert_eq!(
                        whole.dropped(agent),
                        alone.dropped(agent),
                        "capacity {capacity}, agent {agent}, tick {t}"
                    );
                }
            }
            let transitions = whole.transitions(agent).unwrap();
            assert_eq!(transitions, alone.transitions(agent).unwrap());
            assert_eq!(transitions.len(), capacity.min(transitions.len()));
            assert_eq!(
                whole.dropped(agent),
                alone.dropped(agent),
                "capacity {capacity}, agent {agent}"
            );
            assert_eq!(whole.ticks(agent), alone.ticks(agent));
            assert_eq!(whole.ticks(agent).unwrap(), 900);
            assert_eq!(
                whole.current_statuses(agent).unwrap(),
                alone.current_statuses(agent).unwrap()
            );
            let mut logs = (Vec::new(), Vec::new());
            whole.write_btlog(agent, &mut logs.0).unwrap();
            alone.write_btlog(agent, &mut logs.1).unwrap();
            assert!(logs.0 == logs.1, "capacity {capacity}, agent {agent}");
        }
        if capacity == 1 << 14 {
            // Nothing dropped: every tick's transitions are kept, and
            // replayed by hand end in the statuses kept.
            for agent in 0..AGENTS {
                assert_eq!(whole.dropped(agent).unwrap(), 0);
                let transitions = whole.transitions(agent).unwrap();
                assert!(transitions.len() > 2_000, "{}", transitions.len());
                let mut statuses = vec![NodeStatus::Idle; whole.nodes() + 1];
                for t in &transitions {
                    statuses[usize::from(t.uid)] = t.status;
                }
                assert_eq!(statuses, whole.current_statuses(agent).unwrap());
            }
        }
    }
}

bt::behavior_tree! {
    /// More statuses a tick than a generated tick gathers before sending
    /// them (16), and a note made in the middle of each tick.
    tree Wide(me: &mut Bot, rec: &Recorder, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: reactive_select {
            sequence {
                cond me.roll(80), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond rec.note(bt::Context::agent(cx), 1, &"mid-tick").is_ok(),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), Job,
            },
            parallel(success = 3, failure = 2) { Job, Job, Job, Job },
        }
    }
}

#[test]
fn ticks_of_more_statuses_than_gathered_at_once_record_as_one_by_one() {
    // A ring that keeps everything, and one that keeps less than a tick.
    for capacity in [1 << 14, 5] {
        more_statuses_than_gathered_at_once(capacity);
    }
}

fn more_statuses_than_gathered_at_once(capacity: usize) {
    let whole = Recorder::new::<Wide>(3, capacity).with_notes(1 << 12);
    let alone = Recorder::new::<Wide>(3, capacity).with_notes(1 << 12);
    for agent in 0..3u64 {
        let mut bots = twin_bots(0x2545_f491 ^ agent.wrapping_mul(0x9e37_79b9));
        let mut trees = [Wide::default(), Wide::default()];
        for t in 0..600u32 {
            let now = f64::from(t) * 0.1;
            let [a, b] = &mut bots;
            let [ta, tb] = &mut trees;
            ta.tick(a, &whole, &Ctx::new(now, 0.1).agent(agent).trace(&whole));
            let cx = Ctx::new(now, 0.1).agent(agent).trace(OneByOne(&alone));
            tb.tick(b, &alone, &cx);
        }
        let transitions = whole.transitions(agent).unwrap();
        same_transitions(
            &transitions,
            &alone.transitions(agent).unwrap(),
            &format!("agent {agent}"),
        );
        assert_eq!(whole.dropped(agent), alone.dropped(agent));
        assert_eq!(whole.ticks(agent).unwrap(), 600);
        assert_eq!(
            whole.current_statuses(agent).unwrap(),
            alone.current_statuses(agent).unwrap()
        );
        if capacity < 16 {
            continue;
        }
        // Ticks of more than 16 statuses were recorded.
        let most = transitions
            .chunk_by(|a, b| a.tick == b.tick)
            .map(<[_]>::len)
            .max();
        assert!(most > Some(20), "{most:?}");
        // A note made in the middle of a tick is that tick's.
        let notes = whole.notes(agent).unwrap();
        assert!(notes.len() > 100, "{}", notes.len());
        let ticks: Vec<u32> = notes.iter().map(|n| n.tick).collect();
        assert_eq!(
            ticks,
            alone
                .notes(agent)
                .unwrap()
                .iter()
                .map(|n| n.tick)
                .collect::<Vec<_>>()
        );
        for note in &notes {
            // The note's tick ran its sequence that far: its fifth `cond`
            // (uid 7) succeeded then.
            assert!(
                transitions
                    .iter()
                    .any(|t| t.tick == note.tick && t.uid == 7 && t.status == NodeStatus::Success),
                "note at tick {}",
                note.tick
            );
        }
    }
}

// The two trees repeat their sequence rather than embed it: a tree with
// subtrees has its statuses logged one by one, never its ticks whole.
bt::behavior_tree! {
    /// A tick whose twelve `cond`s all succeed halts the parallel, whose
    /// 24 jobs have run or finished: one part of 14 statuses making 33 to
    /// 64 transitions (the conditions', their return to idle, the halts).
    tree Halts24(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: reactive_select {
            sequence {
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
            },
            parallel(success = 24, failure = 24) {
                Job, Job, Job, Job, Job, Job, Job, Job,
                Job, Job, Job, Job, Job, Job, Job, Job,
                Job, Job, Job, Job, Job, Job, Job, Job,
            },
        }
    }

    /// The same with 40 jobs: such a tick makes more than 64 transitions.
    tree Halts40(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: reactive_select {
            sequence {
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
                cond me.roll(90), cond me.roll(90), cond me.roll(90), cond me.roll(90),
            },
            parallel(success = 40, failure = 40) {
                Job, Job, Job, Job, Job, Job, Job, Job,
                Job, Job, Job, Job, Job, Job, Job, Job,
                Job, Job, Job, Job, Job, Job, Job, Job,
                Job, Job, Job, Job, Job, Job, Job, Job,
                Job, Job, Job, Job, Job, Job, Job, Job,
            },
        }
    }
}

/// Ticks 4 agents of tree `$tree` 600 times into two recorders of
/// `capacity` transitions, one taking ticks whole, one status by status,
/// checks that both record the same, and returns the most transitions
/// a tick that halts the parallel made.
macro_rules! whole_against_one_by_one {
    ($tree:ty, $capacity:expr) => {{
        let capacity: usize = $capacity;
        let whole = Recorder::new::<$tree>(4, capacity);
        let alone = Recorder::new::<$tree>(4, capacity);
        let mut most = 0;
        for agent in 0..4u64 {
            let mut bots = twin_bots(0x51_7cc1 ^ agent.wrapping_mul(0x9e37_79b9));
            let mut trees = [<$tree>::default(), <$tree>::default()];
            for t in 0..600u32 {
                let now = f64::from(t) * 0.1;
                let [a, b] = &mut bots;
                let [ta, tb] = &mut trees;
                ta.tick(a, &Ctx::new(now, 0.1).agent(agent).trace(&whole));
                tb.tick(b, &Ctx::new(now, 0.1).agent(agent).trace(OneByOne(&alone)));
                if t % 97 == 13 {
                    same_transitions(
                        &whole.transitions(agent).unwrap(),
                        &alone.transitions(agent).unwrap(),
                        &format!("capacity {capacity}, agent {agent}, tick {t}"),
                    );
                }
            }
            let transitions = whole.transitions(agent).unwrap();
            same_transitions(
                &transitions,
                &alone.transitions(agent).unwrap(),
                &format!("capacity {capacity}, agent {agent}"),
            );
            assert_eq!(whole.dropped(agent), alone.dropped(agent));
            assert_eq!(whole.ticks(agent).unwrap(), 600);
            assert_eq!(
                whole.current_statuses(agent).unwrap(),
                alone.current_statuses(agent).unwrap()
            );
            let mut logs = (Vec::new(), Vec::new());
            whole.write_btlog(agent, &mut logs.0).unwrap();
            alone.write_btlog(agent, &mut logs.1).unwrap();
            assert!(logs.0 == logs.1, "capacity {capacity}, agent {agent}");
            // Ticks in which the sequence (uid 2) succeeds: 14 statuses,
            // one part.
            let halting = transitions
                .chunk_by(|a, b| a.tick == b.tick)
                .filter(|tick| {
                    tick.iter()
                        .any(|t| t.uid == 2 && t.status == NodeStatus::Success)
                })
                .map(<[_]>::len);
            most = most.max(halting.max().unwrap_or(0));
        }
        most
    }};
}

#[test]
fn ticks_of_many_transitions_record_what_statuses_logged_one_by_one_record() {
    // The whole ticks' table keeps up to 64 transitions a part; a part
    // that makes more is logged status by status.
    for capacity in [1 << 14, 40, 16, 1] {
        let most = whole_against_one_by_one!(Halts24, capacity);
        if capacity == 1 << 14 {
            assert!((33..=64).contains(&most), "{most}");
        }
        let most = whole_against_one_by_one!(Halts40, capacity);
        if capacity == 1 << 14 {
            assert!(most > 64, "{most}");
        }
    }
}

/// Ticks agent `agent` of both recorders once at `now`, whole and one by
/// one.
fn tick_twins(
    recorders: [&Recorder; 2],
    agent: u64,
    now: f64,
    bots: &mut [Bot; 2],
    trees: &mut [Errands; 2],
) {
    let [a, b] = bots;
    let [ta, tb] = trees;
    ta.tick(a, &Ctx::new(now, 0.1).agent(agent).trace(recorders[0]));
    tb.tick(
        b,
        &Ctx::new(now, 0.1)
            .agent(agent)
            .trace(OneByOne(recorders[1])),
    );
}

#[test]
fn ticks_logged_whole_keep_their_times_while_other_agents_tick_at_many_others() {
    // A tick logged whole keeps its time as an epoch of the recorder's
    // (the last 4,096 times): agent 0 logs ticks and is left alone while
    // agent 1 ticks at 20,000 other times, then read; agents 2 and 3 tick
    // in turns at two clocks (two worlds), far apart.
    let whole = Recorder::new::<Errands>(4, 1 << 12);
    let alone = Recorder::new::<Errands>(4, 1 << 12);
    let recorders = [&whole, &alone];
    let mut bots: Vec<[Bot; 2]> = (0..4)
        .map(|k| twin_bots(0x5eed ^ (k * 0x9e37_79b9)))
        .collect();
    let mut trees: Vec<[Errands; 2]> = (0..4).map(|_| Default::default()).collect();
    let mut tick = |agent: u64, now: f64| {
        let k = agent as usize;
        tick_twins(recorders, agent, now, &mut bots[k], &mut trees[k]);
    };
    for round in 0..3u32 {
        // Fewer ticks than fill agent 0's log: nothing folds them.
        for t in 0..12u32 {
            tick(0, f64::from(round * 100 + t) * 0.25);
        }
        for t in 0..20_000u32 {
            tick(1, 1e6 + f64::from(round * 20_000 + t) * 0.5);
            if t % 2_000 == 0 {
                for k in 0..6u32 {
                    let t = f64::from(round * 10_000 + t + k);
                    tick(2, t);
                    tick(3, -t);
                }
            }
        }
        for agent in 0..4 {
            same_transitions(
                &whole.transitions(agent).unwrap(),
                &alone.transitions(agent).unwrap(),
                &format!("round {round}, agent {agent}"),
            );
            assert_eq!(whole.ticks(agent), alone.ticks(agent));
        }
    }
    // Agent 0's ticks, left in its log over 60,000 newer times, kept theirs.
    let times: std::collections::BTreeSet<u64> = whole
        .transitions(0)
        .unwrap()
        .iter()
        .map(|t| t.time.to_bits())
        .collect();
    assert!(times.len() > 20, "{}", times.len());
    assert!(times.iter().all(|&t| f64::from_bits(t) < 60.0));
}

#[test]
fn agents_outside_the_recorder_are_not_recorded() {
    let recorder = Recorder::new::<Life>(2, 64);
    // Statuses only (firing monitors come with them): no per-tick events.
    assert!(Trace::statuses(&recorder, 1) && !Trace::statuses(&recorder, 2));
    assert_eq!((recorder.level(1), recorder.level(2)), (0, 0));
    run(&recorder, 5..6, 50, |_, _, _| {});
    assert!(
        recorder.transitions(0).unwrap().is_empty() && recorder.transitions(1).unwrap().is_empty()
    );
}

#[test]
fn a_tracer_and_a_recorder_listen_together() {
    bt::behavior_tree! {
        tree Two(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
            'root: prioritized { 'go: when me.alarm => Job, 'rest: else => wait(1) }
        }
    }
    let recorder = Recorder::new::<Two>(1, 64);
    let lines = std::cell::RefCell::new(Vec::new());
    let tracer = Tracer::new(1, |e: &bt::TraceEvent| {
        lines.borrow_mut().push(e.to_string())
    });
    let mut bot = Bot::default();
    let mut two = Two::default();
    two.tick(&mut bot, &Ctx::new(0.0, 0.1).trace((&tracer, &recorder)));
    assert_eq!(
        lines.take(),
        ["BT(1) agent 0 @ 0.000: activating 'rest (n2 wait) in 'root (n0 prioritized)"]
    );
    let log: Vec<(u16, NodeStatus)> = recorder
        .transitions(0)
        .unwrap()
        .iter()
        .map(|t| (t.uid, t.status))
        .collect();
    assert_eq!(log, [(1, NodeStatus::Running), (3, NodeStatus::Running)]);
}

#[test]
fn json_lines_describe_the_tree_then_each_transition() {
    let recorder = Recorder::new::<Life>(3, 1 << 12);
    run(&recorder, 0..3, 100, |_, _, _| {});
    let mut out = Vec::new();
    recorder.write_jsonl([0, 2], &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    assert!(head.starts_with(
        "{\"format\":\"arbortick-trace\",\"version\":1,\"tree\":\"Life\",\"nodes\":[\
         {\"uid\":1,\"parent\":0,\"tree\":\"Life\",\"id\":0,\"kind\":\"prioritized\",\"label\":\"root\","
    ));
    assert_eq!(head.matches("{\"uid\":").count(), recorder.nodes());
    assert!(head.contains(
        "\"tree\":\"Chores\",\"id\":2,\"kind\":\"leaf\",\"label\":\"sweep\",\"detail\":\"Job\""
    ));
    assert!(head.contains("\"guard\":\"when me.alarm\""));
    let rest: Vec<&str> = lines.collect();
    let expected: Vec<String> = [0u64, 2]
        .iter()
        .flat_map(|&a| {
            recorder.transitions(a).unwrap().into_iter().map(move |t| {
                format!(
                    "{{\"agent\":{a},\"tick\":{},\"time\":{},\"uid\":{},\"status\":\"{}\"}}",
                    t.tick,
                    t.time,
                    t.uid,
                    t.status.name()
                )
            })
        })
        .collect();
    assert!(expected.len() > 100);
    assert_eq!(rest, expected);
}

bt::behavior_tree! {
    /// Labels and literals an export must escape (`<`, `&`, quotes, `]]>`,
    /// escapes), under times that are not numbers.
    tree Odd(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
        'quote_and_angle: sequence {
            cond "<&\"'>]]>\u{1}\t\\".len() > 2,
            'r#loop: wait(1),
            action { me.alarm = !me.alarm; Status::Success },
        }
    }
}

/// What the recorder's exports of `recorder`'s agents hold, read back by
/// real parsers: JSON lines, the page's data, the `.btlog`'s records.
fn exported(recorder: &Recorder) -> (Vec<serde_json::Value>, serde_json::Value, Vec<(u64, u16)>) {
    let mut jsonl = Vec::new();
    recorder.write_jsonl([0, 1], &mut jsonl).unwrap();
    let lines = String::from_utf8(jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let mut html = Vec::new();
    recorder
        .write_html([0, 1], "Odd <times> & \"titles\"", &mut html)
        .unwrap();
    let html = String::from_utf8(html).unwrap();
    let data = html
        .split("<script id=\"bt-data\" type=\"application/json\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap();
    let data = serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}"));
    let mut btlog = Vec::new();
    recorder.write_btlog(0, &mut btlog).unwrap();
    let xml_len = u32::from_le_bytes(btlog[19..23].try_into().unwrap()) as usize;
    let records = &btlog[23 + xml_len + 8..];
    assert_eq!(records.len() % 9, 0);
    let records = records
        .chunks(9)
        .map(|r| {
            let mut offset = [0u8; 8];
            offset[..6].copy_from_slice(&r[..6]);
            (u64::from_le_bytes(offset), u16::from_le_bytes([r[6], r[7]]))
        })
        .collect();
    (lines, data, records)
}

#[test]
fn exports_are_valid_json_and_btlog_whatever_the_times_and_texts() {
    let recorder = Recorder::new::<Odd>(2, 256).with_notes(8);
    let mut agents = [
        (Bot::default(), Odd::default()),
        (Bot::default(), Odd::default()),
    ];
    let times = [
        f64::NAN,
        0.0,
        f64::INFINITY,
        1e300,
        -1e300,
        f64::NEG_INFINITY,
        2.0,
        4.0,
    ];
    for (a, (me, tree)) in agents.iter_mut().enumerate() {
        for &now in &times {
            tree.tick(me, &Ctx::new(now, 1.0).agent(a as u64).trace(&recorder));
            recorder
                .note(a as u64, 1, &"a note <&> \"quoted\"\u{1}")
                .unwrap();
        }
    }
    let (lines, data, records) = exported(&recorder);
    // The head, then transitions whose times are numbers or null.
    assert_eq!(lines[0]["tree"], "Odd");
    let details: Vec<&str> = lines[0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["detail"].as_str().unwrap())
        .collect();
    assert!(
        details.iter().any(|d| d.contains("<&\\\"'>]]>")),
        "{details:?}"
    );
    let times: Vec<&serde_json::Value> = lines[1..].iter().map(|l| &l["time"]).collect();
    assert!(times.iter().any(|t| t.is_null()), "{times:?}");
    assert!(
        times
            .iter()
            .all(|t| t.is_null() || t.is_f64() || t.is_i64()),
        "{times:?}"
    );
    // The page's data names the same nodes, with the notes.
    assert_eq!(
        data["nodes"].as_array().unwrap().len(),
        lines[0]["nodes"].as_array().unwrap().len()
    );
    // A note is its value's `Debug` text.
    let note = format!("{:?}", "a note <&> \"quoted\"\u{1}");
    assert_eq!(data["agents"][1]["notes"][0][2], note.as_str());
    // `.btlog` offsets stay within their 48 bits; every uid is a node.
    assert!(!records.is_empty());
    for (offset, uid) in records {
        assert!(offset < 1 << 48 && (1..=4).contains(&uid), "{offset} {uid}");
    }
}

#[test]
fn agents_and_nodes_a_recorder_does_not_have_are_typed_errors() {
    use bt::record::RecordError;
    let recorder = Recorder::new::<Odd>(2, 16).with_notes(4);
    let missing = RecordError::NotRecorded {
        agent: 2,
        agents: 2,
    };
    assert_eq!(recorder.ticks(2), Err(missing));
    assert_eq!(recorder.transitions(2), Err(missing));
    assert_eq!(recorder.note(2, 0, &1), Err(missing));
    assert_eq!(
        recorder.note(0, 5, &1),
        Err(RecordError::NoSuchNode { uid: 5, nodes: 4 })
    );
    assert_eq!(recorder.note(0, 4, &1), Ok(()));
    assert_eq!(
        recorder.resume(0, &[NodeStatus::Idle]),
        Err(RecordError::Statuses {
            found: 1,
            expected: 5
        })
    );
    // The writers: `InvalidInput`, carrying the error, and nothing written.
    let mut out = Vec::new();
    for result in [
        recorder.write_btlog(7, &mut out),
        recorder.write_jsonl([0, 7], &mut out),
        recorder.write_html([0, 7], "t", &mut out),
    ] {
        let error = result.unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
        let inner = error
            .get_ref()
            .and_then(|e| e.downcast_ref::<RecordError>());
        assert_eq!(
            inner,
            Some(&RecordError::NotRecorded {
                agent: 7,
                agents: 2
            })
        );
    }
    assert!(out.is_empty());
}

bt::behavior_tree! {
    tree Careful(_me: &mut (), cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        try_catch { 'first: running, 'second: running, 'catch: running }
    }
}

#[test]
fn try_catch_returns_its_try_children_to_idle_when_the_catch_starts() {
    use NodeStatus::{Failure, Idle, Running, Success};
    use Status as S;
    use bt::testing::{Force, Forced};
    let recorder = Recorder::new::<Careful>(1, 1 << 10);
    // Each child's statuses, one per tick it is reached.
    let force = Force::<Careful>::new();
    for (child, statuses) in [
        ("first", &[S::Running, S::Success][..]),
        ("second", &[S::Failure]),
        ("catch", &[S::Running, S::Success]),
    ] {
        force
            .set(child, Forced::script(statuses.iter().copied()))
            .unwrap();
    }
    let mut tree = Careful::default();
    // uid 1 is the try_catch, 2 to 4 its children.
    let mut tick = |t: u32| {
        let status = tree.tick(
            &mut (),
            &Ctx::new(f64::from(t), 1.0).trace((&force, &recorder)),
        );
        (status, recorder.current_statuses(0).unwrap()[1..].to_vec())
    };
    assert_eq!(tick(0), (S::Running, vec![Running, Running, Idle, Idle]));
    // The second try child fails: BT.CPP resets the try children, then
    // ticks the catch child.
    assert_eq!(tick(1), (S::Running, vec![Running, Idle, Idle, Running]));
    // The catch child finished: the node fails, and everything is idle.
    assert_eq!(tick(2), (S::Failure, vec![Idle, Idle, Idle, Idle]));
    let statuses: Vec<(u16, NodeStatus)> = recorder
        .transitions(0)
        .unwrap()
        .iter()
        .filter(|t| t.time == 1.0)
        .map(|t| (t.uid, t.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (2, Success),
            (3, Failure),
            (2, Idle),
            (3, Idle),
            (4, Running)
        ]
    );
}

/// The ticks of a history object (`Recorder::history_json`): per tick, its
/// transitions as (uid, status byte).
fn decode_history(history: &serde_json::Value) -> Vec<Vec<(u16, u8)>> {
    let text = history["log"].as_str().unwrap();
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let mut bytes = Vec::new();
    for chunk in text.as_bytes().chunks(4) {
        let kept: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').collect();
        let n = kept.iter().enumerate().fold(0u32, |n, (i, &c)| {
            n | (u32::from(sextet(c)) << (18 - 6 * i))
        });
        for i in 0..kept.len() - 1 {
            bytes.push((n >> (16 - 8 * i)) as u8);
        }
    }
    let mut ticks = Vec::new();
    let mut p = 0;
    for _ in 0..history["ticks"].as_u64().unwrap() {
        let (mut count, mut shift) = (0usize, 0);
        loop {
            let b = bytes[p];
            p += 1;
            count |= usize::from(b & 127) << shift;
            shift += 7;
            if b & 128 == 0 {
                break;
            }
        }
        if count > 0 {
            p += 4; // the tick's time
        }
        let mut tick = Vec::new();
        for _ in 0..count {
            tick.push((u16::from_le_bytes([bytes[p], bytes[p + 1]]), bytes[p + 2]));
            p += 3;
        }
        ticks.push(tick);
    }
    assert_eq!(p, bytes.len(), "the log holds exactly its ticks");
    ticks
}

/// `recorder`'s transitions of `agent` in ticks `from..to`, grouped by tick.
fn kept(recorder: &Recorder, agent: u64, from: u32, to: u32) -> Vec<Vec<(u16, u8)>> {
    let all = recorder.transitions(agent).unwrap();
    (from..to)
        .map(|tick| {
            all.iter()
                .filter(|t| t.tick == tick)
                .map(|t| (t.uid, t.status as u8))
                .collect()
        })
        .collect()
}

#[test]
fn histories_for_a_live_page_start_whole_then_carry_on_tick_by_tick() {
    let history = |recorder: &Recorder, since| {
        let mut out = String::new();
        let next = recorder.history_json(0, since, &mut out).unwrap();
        (
            next,
            serde_json::from_str::<serde_json::Value>(&out).unwrap(),
        )
    };
    let big = Recorder::new::<Life>(1, 1 << 16);
    let small = Recorder::new::<Life>(1, 12);
    let mut bot = Bot {
        seed: 0x9e37_79b9,
        ..Bot::default()
    };
    let mut life = [Life::default(), Life::default()];
    let mut lives = [bot.seed, bot.seed];
    let mut tick_both = |from: u32, to: u32| {
        for (i, recorder) in [&big, &small].into_iter().enumerate() {
            bot.seed = lives[i];
            for tick in from..to {
                let cx: Cx = Ctx::new(f64::from(tick) * 0.1, 0.1).trace(recorder);
                bot.alarm = tick % 40 < 10;
                life[i].tick(&mut bot, &cx);
            }
            lives[i] = bot.seed;
        }
    };
    tick_both(0, 30);

    // First, everything kept: from tick 0, every node idle before it.
    let (next, first) = history(&big, None);
    assert_eq!(next, 30);
    assert_eq!(
        (first["first"].as_u64(), first["ticks"].as_u64()),
        (Some(0), Some(30))
    );
    assert_eq!(first["reset"], true);
    let base = first["base"].as_array().unwrap();
    assert_eq!(base.len(), big.nodes() + 1);
    assert!(base.iter().all(|s| s == 0));
    assert_eq!(decode_history(&first), kept(&big, 0, 0, 30));

    // Then the ticks since: nothing twice, nothing missed.
    let (again, none) = history(&big, Some(next));
    assert_eq!((again, none["ticks"].as_u64()), (30, Some(0)));
    assert!(none.get("reset").is_none());
    tick_both(30, 50);
    let (next, more) = history(&big, Some(next));
    assert_eq!(next, 50);
    assert_eq!(
        (more["first"].as_u64(), more["ticks"].as_u64()),
        (Some(30), Some(20))
    );
    assert_eq!(decode_history(&more), kept(&big, 0, 30, 50));

    // A ring that dropped transitions not yet sent starts over, from its
    // oldest kept tick, with each node's status as far as it knows: its
    // current one, unless a kept transition changes it (then idle).
    let (next, _) = history(&small, None);
    tick_both(50, 80);
    assert!(small.dropped(0).unwrap() > 0);
    let (end, over) = history(&small, Some(next));
    assert_eq!(end, 80);
    assert_eq!(over["reset"], true);
    let kept_small = small.transitions(0).unwrap();
    let oldest = kept_small[0].tick;
    assert_eq!(over["first"].as_u64(), Some(u64::from(oldest)));
    assert_eq!(decode_history(&over), kept(&small, 0, oldest, 80));
    let now = small.current_statuses(0).unwrap();
    for (uid, status) in over["base"].as_array().unwrap().iter().enumerate() {
        let changed = kept_small.iter().any(|t| usize::from(t.uid) == uid);
        let expected = if changed { 0 } else { now[uid] as u8 };
        assert_eq!(status, expected, "uid {uid}");
    }

    // An agent not recorded is an error, and nothing is written.
    let mut out = String::new();
    assert!(big.history_json(1, None, &mut out).is_err());
    assert!(out.is_empty());
}

/// Runs until halted.
struct Hold;

impl Leaf<Bot> for Hold {
    type Memory = ();
    fn start(&self, _: &mut (), bot: &mut Bot) -> Status {
        bot.running += 1;
        Status::Running
    }
    fn tick(&self, _: &mut (), _: &mut Bot) -> Status {
        Status::Running
    }
    fn halt(_: &mut (), bot: &mut Bot) {
        bot.running -= 1;
    }
}

bt::behavior_tree! {
    tree Alert(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: select {
            'watch: sequence { monitor(me.alarm), 'panic: Hold },
            'work: Hold,
        }
    }
}

#[test]
fn a_firing_monitor_returns_the_path_it_halts_to_idle() {
    // The recorder asks for no per-tick events; a firing monitor reaches it
    // all the same, since it changes statuses.
    let recorder = Recorder::new::<Alert>(1, 64);
    assert_eq!(recorder.level(0), 0);
    let (work, panic) = (
        recorder.uid_of("work").unwrap(),
        recorder.uid_of("panic").unwrap(),
    );
    let (mut alert, mut bot) = (Alert::default(), Bot::default());
    for (tick, alarm) in [false, false, true].into_iter().enumerate() {
        bot.alarm = alarm;
        let cx: Cx = Ctx::new(tick as f64, 1.0).trace(&recorder);
        assert_eq!(alert.tick(&mut bot, &cx), Status::Running);
    }
    // The monitor fired on the third tick: the work was halted, the panic
    // runs, and the recording shows the same.
    assert_eq!(bot.running, 1);
    let statuses = recorder.current_statuses(0).unwrap();
    assert_eq!(statuses[work as usize], NodeStatus::Idle);
    assert_eq!(statuses[panic as usize], NodeStatus::Running);
    let third: Vec<(u16, NodeStatus)> = recorder
        .transitions(0)
        .unwrap()
        .iter()
        .filter(|t| t.tick == 2)
        .map(|t| (t.uid, t.status))
        .collect();
    assert!(third.contains(&(work, NodeStatus::Idle)), "{third:?}");
    assert!(third.contains(&(panic, NodeStatus::Running)), "{third:?}");
}
