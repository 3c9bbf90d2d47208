//! Differential testing of compiled trees against the reference
//! interpreter (`bt_compiler::interpret`).
//!
//! The build script generates random trees ([`generator`]) and compiles them
//! with `behavior_tree!`; the tests run each one, compiled and
//! interpreted, through the same [`Episode`] (several agents sharing one
//! shared state, random times, flags and resets) in a scripted world
//! ([`W`]) that logs every call a tree makes. The two logs must be equal,
//! line for line, and every stateful leaf that started must have ended
//! exactly once.

pub mod btcpp;
pub mod btcpp_gen;
pub mod edit;
pub mod generator;
pub mod xml_check;

use bt::trace::{Event, Verdict};
use bt::{Leaf, Outcome, Status, TraceEvent};
use bt_compiler::interpret::{self, At, Host, Input, Interpreter, Program};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

pub use bt::Ctx;

bt::bitflags::bitflags! {
    /// Decision and stimuli flags of the generated trees.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct F: u8 {
        /// Flag `A`.
        const A = 1;
        /// Flag `B`.
        const B = 2;
        /// Flag `C`.
        const C = 4;
    }
}

/// A compiled tree's runner, generated per tree.
pub type Runner = fn(&Episode) -> Vec<String>;

/// A compiled tree's runner in a given order, generated per tree.
pub type OrderedRunner = fn(&Episode, &Order) -> Driven;

/// The scripted world: every expression of a generated tree is a call on
/// it, numbered; each call's result is drawn from the seed, the number and
/// how many times that number was called, and logged.
pub struct W {
    seed: u64,
    calls: HashMap<u32, u32>,
    /// Calls and trace events, in order.
    events: Arc<Mutex<Vec<String>>>,
    /// Started and not yet ended stateful leaf runs: run id to leaf number.
    open: BTreeMap<u32, u32>,
    runs: u32,
    /// What `random` and `shuffle` groups draw from.
    pub rng: rand_pcg::Pcg32,
}

impl W {
    /// A world whose script is drawn from `seed`.
    pub fn new(seed: u64) -> W {
        W {
            seed,
            calls: HashMap::new(),
            events: Arc::default(),
            open: BTreeMap::new(),
            runs: 0,
            rng: rand_pcg::Pcg32::new(seed, 0x0a02_bdbf_7bb3_c0a7),
        }
    }

    fn draw(&mut self, k: u32) -> u64 {
        let n = self.calls.entry(k).or_default();
        *n += 1;
        generator::mix(self.seed ^ generator::mix(u64::from(k)) ^ (u64::from(*n) << 40))
    }

    fn status(&mut self, k: u32, running: u64) -> Status {
        match self.draw(k) % 100 {
            x if x < running => Status::Running,
            x if x < running + (100 - running) * 3 / 5 => Status::Success,
            _ => Status::Failure,
        }
    }

    fn log(&mut self, event: String) {
        lock(&self.events).push(event);
    }

    /// A condition.
    pub fn c(&mut self, k: u32) -> bool {
        let v = self.draw(k) % 10 < 6;
        self.log(format!("?{k}={}", u8::from(v)));
        v
    }

    /// An action.
    pub fn a(&mut self, k: u32) -> Status {
        let s = self.status(k, 30);
        self.log(format!("a{k}={s:?}"));
        s
    }

    /// An instant action.
    pub fn i(&mut self, k: u32) -> Outcome {
        let v = Outcome::from(self.draw(k) % 10 < 7);
        self.log(format!("i{k}={v:?}"));
        v
    }

    /// An action that reports the rendezvous role it runs with.
    pub fn r(&mut self, k: u32, role: usize) -> Status {
        self.log(format!("r{k}@{role}"));
        Status::Success
    }

    /// A `scope` hook that may refuse.
    pub fn e(&mut self, k: u32) -> bool {
        let v = self.draw(k) % 10 < 8;
        self.log(format!("e{k}={}", u8::from(v)));
        v
    }

    /// A hook with nothing to say.
    pub fn h(&mut self, k: u32) {
        self.log(format!("h{k}"));
    }

    /// A score: ties and non-positive values included.
    pub fn s(&mut self, k: u32) -> f32 {
        let v = [-1.0, 0.0, 0.5, 1.0, 1.0, 2.0][(self.draw(k) % 6) as usize];
        self.log(format!("s{k}={v}"));
        v
    }

    /// A value for `when let Some(_v)`.
    pub fn o(&mut self, k: u32) -> Option<u8> {
        let v = (!self.draw(k).is_multiple_of(3)).then_some(k as u8);
        self.log(format!("o{k}={v:?}"));
        v
    }

    /// A `switch` scrutinee.
    pub fn n(&mut self, k: u32) -> u8 {
        let v = (self.draw(k) % 3) as u8;
        self.log(format!("n{k}={v}"));
        v
    }

    /// A stateful leaf starts: its run id and status.
    pub fn start(&mut self, k: u32) -> (u32, Status) {
        self.runs += 1;
        let run = self.runs;
        let s = self.status(k, 45);
        self.log(format!("+L{k}#{run}={s:?}"));
        if s.is_running() {
            self.open.insert(run, k);
        }
        (run, s)
    }

    /// A running stateful leaf ticks again. Run 0 is a leaf a node hook
    /// held running before it started: its memory is new.
    pub fn tick(&mut self, k: u32, run: u32) -> Status {
        if run == 0 {
            let s = self.status(k, 45);
            self.log(format!(".L{k}#0={s:?}"));
            return s;
        }
        let k = *self
            .open
            .get(&run)
            .unwrap_or_else(|| panic!("leaf run #{run} ticked after it ended"));
        let s = self.status(k, 45);
        self.log(format!(".L{k}#{run}={s:?}"));
        if s.is_done() {
            self.open.remove(&run);
        }
        s
    }

    /// A running stateful leaf is halted.
    pub fn halt(&mut self, run: u32) {
        if run == 0 {
            self.log("!L#0".to_string());
            return;
        }
        let k = self
            .open
            .remove(&run)
            .unwrap_or_else(|| panic!("leaf run #{run} halted after it ended"));
        self.log(format!("!L{k}#{run}"));
    }

    /// A trace hook that writes into this world's log.
    pub fn recorder(&self) -> Recorder {
        Recorder {
            events: Arc::clone(&self.events),
            hooks: None,
        }
    }

    /// A trace hook that also acts as node hooks do in tick `t`: see
    /// [`hook`].
    pub fn hooked_recorder(&self, t: usize) -> Recorder {
        Recorder {
            events: Arc::clone(&self.events),
            hooks: Some((self.seed, t)),
        }
    }

    /// The events since the last call.
    pub fn take(&mut self) -> String {
        std::mem::take(&mut *lock(&self.events)).join(" ")
    }
}

/// Writes every trace event of compiled trees into a world's log, in the
/// words [`interpreted_event`] uses for the interpreter's.
pub struct Recorder {
    events: Arc<Mutex<Vec<String>>>,
    /// With node hooks: the world's seed and the tick.
    hooks: Option<(u64, usize)>,
}

/// Which hook acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the node runs.
    Before,
    /// After it returned this status.
    After(Status),
}

/// What a random node hook does to node `node` of tree `tree` in tick `t`
/// of the agent whose world has `seed`: a pure function of them, so the
/// compiled and the interpreted runs make the same choices. About one call
/// in 25 replaces or changes a status.
pub fn hook(seed: u64, t: usize, tree: &str, node: usize, phase: Phase) -> Option<Status> {
    let tree_hash = tree
        .bytes()
        .fold(0u64, |h, b| generator::mix(h ^ u64::from(b)));
    let phase = match phase {
        Phase::Before => 0,
        Phase::After(s) => 1 + s as u64,
    };
    let x = generator::mix(
        seed ^ generator::mix(t as u64 ^ (node as u64) << 20 ^ phase << 40) ^ tree_hash,
    );
    x.is_multiple_of(25)
        .then(|| [Status::Success, Status::Failure, Status::Running][(x >> 8) as usize % 3])
}

/// A hook's act, as both sides log it.
fn hook_event(tree: &str, node: usize, phase: Phase, status: Status) -> String {
    match phase {
        Phase::Before => format!("H {tree}.n{node} replaced by {status:?}"),
        Phase::After(s) => format!("H {tree}.n{node} {s:?} made {status:?}"),
    }
}

impl Recorder {
    fn hooked(&self, node: &'static bt::NodeInfo, phase: Phase) -> Option<Status> {
        let (seed, t) = self.hooks?;
        let status = hook(seed, t, node.tree, node.id, phase)?;
        lock(&self.events).push(hook_event(node.tree, node.id, phase, status));
        Some(status)
    }
}

impl bt::Trace for Recorder {
    const HOOKS: bool = true;

    fn level(&self, _: u64) -> u8 {
        bt::trace::STATUSES
    }

    fn hooks(&self, _: u64) -> bool {
        self.hooks.is_some()
    }

    fn before(&self, _: u64, node: &'static bt::NodeInfo) -> Option<Status> {
        self.hooked(node, Phase::Before)
    }

    fn after(&self, _: u64, node: &'static bt::NodeInfo, status: Status) -> Status {
        self.hooked(node, Phase::After(status)).unwrap_or(status)
    }

    fn event(&self, e: &TraceEvent) {
        let id = |n: &bt::NodeInfo| n.id;
        let what = match e.what {
            Event::TickStart => "start".to_string(),
            Event::TickEnd(s) => format!("end {s:?}"),
            Event::Activate { child } => format!("activate n{}", id(child)),
            Event::Interrupt { child, by } => format!("interrupt n{} by n{}", id(child), id(by)),
            Event::Halted => "halted".to_string(),
            Event::End { child, status } => format!("end n{} {status:?}", id(child)),
            Event::NoneAccepted => "none accepted".to_string(),
            Event::RedecideLimit => "redecide limit".to_string(),
            Event::MonitorFired { monitor } => format!("fired n{}", id(monitor)),
            Event::Returned(s) => format!("returned {s:?}"),
            Event::EnterSubtree => "enter".to_string(),
            Event::Reset => "reset".to_string(),
            Event::TreeVersion { version, .. } => format!("version {version}"),
            Event::Continue { child, active_for } => {
                format!("continue n{} {active_for:?}", id(child))
            }
            Event::Guard { child, verdict } => {
                let verdict = match verdict {
                    Verdict::Accepted(score) => format!("accepts {score:?}"),
                    Verdict::Rejected(clause) => format!("rejects `{clause}`"),
                    Verdict::Masked => "masked".to_string(),
                };
                format!("guard n{} {verdict}", id(child))
            }
        };
        lock(&self.events).push(format!(
            "T{} {}.n{} {what}",
            e.level, e.node.tree, e.node.id
        ));
    }
}

/// An interpreter trace event, in the words [`Recorder`] uses.
pub fn interpreted_event(at: &At, level: u8, event: interpret::Event) -> String {
    use interpret::Event as E;
    let what = match event {
        E::TickStart => "start".to_string(),
        E::TickEnd(s) => format!("end {s:?}"),
        E::Activate { child } => format!("activate n{child}"),
        E::Interrupt { child, by } => format!("interrupt n{child} by n{by}"),
        E::Halted => "halted".to_string(),
        E::End { child, status } => format!("end n{child} {status:?}"),
        E::NoneAccepted => "none accepted".to_string(),
        E::RedecideLimit => "redecide limit".to_string(),
        E::MonitorFired { monitor } => format!("fired n{monitor}"),
        E::Returned(s) => format!("returned {s:?}"),
        E::EnterSubtree => "enter".to_string(),
        E::Reset => "reset".to_string(),
        E::Continue { child, active_for } => format!("continue n{child} {active_for:?}"),
        E::Guard { child, verdict } => {
            let verdict = match verdict {
                interpret::Verdict::Accepted(score) => format!("accepts {score:?}"),
                interpret::Verdict::Rejected(clause) => format!("rejects `{clause}`"),
                interpret::Verdict::Masked => "masked".to_string(),
            };
            format!("guard n{child} {verdict}")
        }
    };
    format!("T{level} {}.n{} {what}", at.tree, at.node)
}

/// The tick context of the generated trees, tracing into a world's log.
pub type Cx<'a> = Ctx<F, F, &'a Recorder>;

/// The stateful leaf of the generated trees: `L { k: 7 }`. Its memory is
/// the run id, so halting and ticking name the run they end.
pub struct L {
    /// The leaf's number.
    pub k: u32,
}

impl Leaf<W> for L {
    type Memory = u32;

    fn start(&self, run: &mut u32, w: &mut W) -> Status {
        let (id, status) = w.start(self.k);
        *run = id;
        status
    }

    fn tick(&self, run: &mut u32, w: &mut W) -> Status {
        w.tick(self.k, *run)
    }

    fn halt(run: &mut u32, w: &mut W) {
        w.halt(*run);
    }
}

/// What happens to each agent in one tick.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// The agent is ticked with these decision and stimuli flags.
    Tick(u8, u8),
    /// The agent is reset.
    Reset,
}

/// A run of several agents of one tree over several ticks.
pub struct Episode {
    /// Seed of each agent's world.
    pub seeds: Vec<u64>,
    /// Random node hooks act (see [`hook`]).
    pub hooks: bool,
    /// Per tick: the time, and what happens to each agent.
    pub ticks: Vec<(f64, Vec<Step>)>,
}

impl Episode {
    /// `agents` agents over `ticks` ticks, drawn from `seed`.
    pub fn new(seed: u64, agents: usize, ticks: usize) -> Episode {
        let mut rng = generator::Rng(seed);
        let seeds = (0..agents).map(|_| rng.bits()).collect();
        let mut now = 0.0;
        let ticks = (0..ticks)
            .map(|_| {
                now += [0.1, 0.1, 0.2, 0.25, 0.5][rng.below(5)];
                let steps = (0..agents)
                    .map(|_| {
                        if rng.chance(4) {
                            Step::Reset
                        } else {
                            Step::Tick(rng.below(8) as u8, rng.below(8) as u8)
                        }
                    })
                    .collect();
                (now, steps)
            })
            .collect();
        Episode {
            seeds,
            hooks: false,
            ticks,
        }
    }

    /// The same episode with random node hooks.
    pub fn hooked(mut self) -> Episode {
        self.hooks = true;
        self
    }
}

/// A tick's outcome, as both sides report it: the status, or the node of a
/// decider past its `redecides` bound and the status returned anyway.
pub fn outcome(result: Result<Status, bt::TickError>) -> Result<Status, (usize, Status)> {
    result.map_err(|bt::TickError::RedecideLimit { node, status }| (node.id, status))
}

fn line_of(t: usize, agent: usize, what: String, events: String) -> String {
    format!("t{t} a{agent} {what}: {events}")
}

fn finish(agent: usize, w: &mut W, lines: &mut Vec<String>) {
    let events = w.take();
    lines.push(line_of(usize::MAX, agent, "reset".into(), events));
    if std::env::var("BT_DIFF_DEBUG").is_ok() && !w.open.is_empty() {
        for l in lines
            .iter()
            .filter(|l| l.split(' ').nth(1) == Some(&format!("a{agent}")))
        {
            eprintln!("{l}");
        }
    }
    assert!(
        w.open.is_empty(),
        "agent {agent}: leaf runs {:?} started and never ended",
        w.open
    );
}

/// The log lock: a test that failed while holding it already reported.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs a compiled tree (state type `S`) through `episode`, agents in index
/// order; one line per agent tick, then one per final reset.
pub fn drive<S: bt::BehaviorTree + Send>(
    episode: &Episode,
    make: fn() -> S,
    tick: impl Fn(&mut S, &mut W, &Cx) -> Result<Status, (usize, Status)> + Sync,
    reset: impl Fn(&mut S, &mut W, &Cx) + Sync,
) -> Vec<String> {
    drive_in(episode, &Order::Index, make, tick, reset).lines
}

/// In what order [`drive_in`] ticks each tick's agents.
#[derive(Clone, Debug)]
pub enum Order {
    /// Index order.
    Index,
    /// The order given for each tick (a permutation of the agents).
    Given(Vec<Vec<usize>>),
    /// By a [`bt::batch::Batch`] with these blocks and regrouping.
    Batch {
        /// Agents per block.
        block: usize,
        /// Calls between groupings.
        regroup_every: u32,
        /// Resume nodes a block must spread over to be grouped.
        min_groups: usize,
    },
    /// By a [`bt::batch::Batch`] on rayon's pool, with these blocks (the
    /// orders then say only which agents ticked).
    ParBatch {
        /// Agents per block.
        block: usize,
    },
}

/// What [`drive_in`] saw.
pub struct Driven {
    /// One line per agent tick, agents in index order within each tick,
    /// then one per final reset.
    pub lines: Vec<String>,
    /// Per tick, the agents in the order they ticked.
    pub orders: Vec<Vec<usize>>,
    /// Per tick, each agent's resume node before the tick
    /// ([`bt::batch::resume_node`]).
    pub resumed: Vec<Vec<Option<usize>>>,
}

/// One agent of [`drive_in`]: its world, its tree, and its line of the
/// current tick.
struct Driving<S> {
    w: W,
    state: S,
    line: String,
}

/// Runs a compiled tree (state type `S`) through `episode`, each tick's
/// agents in `order`: what [`drive`] does, in any order.
pub fn drive_in<S: bt::BehaviorTree + Send>(
    episode: &Episode,
    order: &Order,
    make: fn() -> S,
    tick: impl Fn(&mut S, &mut W, &Cx) -> Result<Status, (usize, Status)> + Sync,
    reset: impl Fn(&mut S, &mut W, &Cx) + Sync,
) -> Driven {
    let mut agents: Vec<Driving<S>> = episode
        .seeds
        .iter()
        .map(|&s| Driving {
            w: W::new(s),
            state: make(),
            line: String::new(),
        })
        .collect();
    let mut batch = match *order {
        Order::Batch {
            block,
            regroup_every,
            min_groups,
        } => bt::batch::Batch::new()
            .block(block)
            .regroup_every(regroup_every)
            .min_groups(min_groups),
        Order::ParBatch { block } => bt::batch::Batch::new().block(block),
        _ => bt::batch::Batch::new(),
    };
    let mut driven = Driven {
        lines: Vec::new(),
        orders: Vec::new(),
        resumed: Vec::new(),
    };
    for (t, (now, steps)) in episode.ticks.iter().enumerate() {
        let step = |i: usize, agent: &mut Driving<S>| {
            let Driving { w, state, line } = agent;
            let recorder = if episode.hooks {
                w.hooked_recorder(t)
            } else {
                w.recorder()
            };
            let what = match steps[i] {
                Step::Tick(d, s) => {
                    let cx = Ctx::new(*now, 0.1)
                        .flags(F::from_bits_truncate(d))
                        .stimuli(F::from_bits_truncate(s))
                        .agent(i as u64)
                        .trace(&recorder);
                    format!("{:?}", tick(state, w, &cx))
                }
                Step::Reset => {
                    reset(state, w, &Ctx::new(*now, 0.1).trace(&recorder));
                    "reset".into()
                }
            };
            *line = line_of(t, i, what, w.take());
        };
        driven.resumed.push(
            agents
                .iter()
                .map(|a| bt::batch::resume_node(&a.state))
                .collect(),
        );
        let ticked = Mutex::new(Vec::with_capacity(agents.len()));
        let ordered = |i: usize, agent: &mut Driving<S>| {
            lock(&ticked).push(i);
            step(i, agent);
        };
        match order {
            Order::Index => agents
                .iter_mut()
                .enumerate()
                .for_each(|(i, a)| ordered(i, a)),
            Order::Given(orders) => {
                for &i in &orders[t] {
                    ordered(i, &mut agents[i]);
                }
            }
            Order::Batch { .. } => batch.tick(&mut agents, |a| &a.state, &ordered),
            Order::ParBatch { .. } => batch.par_tick(&mut agents, |a| &a.state, ordered),
        }
        driven
            .orders
            .push(ticked.into_inner().unwrap_or_else(PoisonError::into_inner));
        driven
            .lines
            .extend(agents.iter_mut().map(|a| std::mem::take(&mut a.line)));
    }
    for (i, agent) in agents.iter_mut().enumerate() {
        let recorder = agent.w.recorder();
        reset(
            &mut agent.state,
            &mut agent.w,
            &Ctx::new(0.0, 0.1).trace(&recorder),
        );
        finish(i, &mut agent.w, &mut driven.lines);
    }
    driven
}

/// The interpreter's host: the same world, reached by parsing each
/// expression's text.
struct Interpreted<'a> {
    w: &'a mut W,
    /// Each running leaf's run id, by place.
    runs: HashMap<usize, u32>,
    /// With node hooks: the tick.
    hooks: Option<usize>,
}

impl Interpreted<'_> {
    fn hooked(&mut self, at: &At, phase: Phase) -> Option<Status> {
        let t = self.hooks?;
        let status = hook(self.w.seed, t, at.tree, at.node, phase)?;
        self.w.log(hook_event(at.tree, at.node, phase, status));
        Some(status)
    }
}

/// `w.c(17)` or `L { k: 17 }`: the number; `w.r(17, _role)` also names
/// the role.
fn number(expr: &str) -> u32 {
    let digits: String = expr
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number in `{expr}`"))
}

fn method(expr: &str) -> char {
    let compact: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .strip_prefix("w.")
        .and_then(|rest| rest.chars().next())
        .unwrap_or_else(|| panic!("not a call on the world: `{expr}`"))
}

impl Host for Interpreted<'_> {
    fn condition(&mut self, _: &At, expr: &str) -> bool {
        assert_eq!(method(expr), 'c', "{expr}");
        self.w.c(number(expr))
    }

    fn instant(&mut self, _: &At, expr: &str) -> Outcome {
        assert_eq!(method(expr), 'i', "{expr}");
        self.w.i(number(expr))
    }

    fn action(&mut self, at: &At, expr: &str) -> Status {
        match method(expr) {
            'a' => self.w.a(number(expr)),
            'r' => {
                let role = at
                    .roles
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == "_role")
                    .expect("a role in scope")
                    .1;
                self.w.r(number(expr), role)
            }
            _ => panic!("unknown action `{expr}`"),
        }
    }

    fn hook(&mut self, _: &At, expr: &str) -> bool {
        match method(expr) {
            'e' => self.w.e(number(expr)),
            'h' => {
                self.w.h(number(expr));
                true
            }
            _ => panic!("unknown hook `{expr}`"),
        }
    }

    fn seconds(&mut self, _: &At, expr: &str) -> f64 {
        expr.trim()
            .parse()
            .unwrap_or_else(|_| panic!("not a duration: `{expr}`"))
    }

    fn score(&mut self, _: &At, expr: &str) -> f32 {
        self.w.s(number(expr))
    }

    fn matches(&mut self, _: &At, expr: &str, _: &str) -> bool {
        self.w.o(number(expr)).is_some()
    }

    fn item(&mut self, _: &At, expr: &str) -> bool {
        self.w.o(number(expr)).is_some()
    }

    fn flags(&mut self, _: &At, expr: &str) -> u64 {
        expr.split('|')
            .map(|f| match f.trim().rsplit(':').next().map(str::trim) {
                Some("A") => 1,
                Some("B") => 2,
                Some("C") => 4,
                _ => panic!("unknown flag in `{expr}`"),
            })
            .fold(0, |a, b| a | b)
    }

    fn arm(&mut self, _: &At, expr: &str, patterns: &[String]) -> usize {
        let v = self.w.n(number(expr)).to_string();
        patterns
            .iter()
            .position(|p| p.trim() == v || p.trim() == "_")
            .expect("a `_` arm")
    }

    fn trace_level(&self) -> u8 {
        bt::trace::STATUSES
    }

    fn trace(&mut self, at: &At, level: u8, event: interpret::Event) {
        self.w.log(interpreted_event(at, level, event));
    }

    fn pick(&mut self, _: &At, _: &str, candidates: u128) -> Option<usize> {
        bt::__private::pick(&mut self.w.rng, candidates)
    }

    fn start(&mut self, at: &At, leaf: &str) -> Status {
        let (run, status) = self.w.start(number(leaf));
        if status.is_running() {
            self.runs.insert(at.place, run);
        }
        status
    }

    fn tick(&mut self, at: &At, leaf: &str) -> Status {
        // A leaf a hook held running before it started has no run: 0.
        let run = self.runs.get(&at.place).copied().unwrap_or(0);
        let status = self.w.tick(number(leaf), run);
        if status.is_done() {
            self.runs.remove(&at.place);
        }
        status
    }

    fn halt(&mut self, at: &At, _: &str) {
        let run = self.runs.remove(&at.place).unwrap_or(0);
        self.w.halt(run);
    }

    fn hooks(&self) -> bool {
        self.hooks.is_some()
    }

    fn before(&mut self, at: &At) -> Option<Status> {
        self.hooked(at, Phase::Before)
    }

    fn after(&mut self, at: &At, status: Status) -> Status {
        self.hooked(at, Phase::After(status)).unwrap_or(status)
    }
}

/// Runs tree `name` of `program` through `episode` in the interpreter;
/// lines as [`drive`] writes them.
pub fn interpret(program: &Program, name: &str, episode: &Episode) -> Vec<String> {
    interpret_edited(program, None, name, episode)
}

/// Like [`interpret()`], and before tick `at` of `edited`, the tree is
/// replaced by the same tree of the edited program: the shared state and
/// every agent migrate ([`Interpreter::migrate`]), and the line of the
/// migration (`t{at} a{i} migrate: ..`) shows what halting it did. After the
/// final resets, no gate permit or rendezvous place is held.
pub fn interpret_edited(
    program: &Program,
    edited: Option<(&Program, usize)>,
    name: &str,
    episode: &Episode,
) -> Vec<String> {
    let mut tree: Interpreter = program
        .interpreter(name)
        .expect("the tree is in the program");
    let mut shared = tree.shared();
    let mut agents: Vec<(W, HashMap<usize, u32>, _)> = episode
        .seeds
        .iter()
        .map(|&s| (W::new(s), HashMap::new(), tree.agent()))
        .collect();
    let mut lines = Vec::new();
    for (t, (now, steps)) in episode.ticks.iter().enumerate() {
        if let Some((new_program, at)) = edited
            && at == t
        {
            let new = new_program
                .interpreter(name)
                .expect("the edited program has the tree");
            let migration = new.migration(&tree);
            let new_shared = new.migrate_shared(&migration, &tree, &shared);
            for (i, (w, runs, state)) in agents.iter_mut().enumerate() {
                let mut host = Interpreted {
                    w,
                    runs: std::mem::take(runs),
                    hooks: None,
                };
                let (fresh, moved) =
                    new.migrate(&migration, &tree, state, &shared, &mut host, *now);
                *runs = moved
                    .iter()
                    .filter_map(|(o, q)| Some((*q, host.runs.remove(o)?)))
                    .collect();
                assert!(
                    host.runs.is_empty(),
                    "agent {i}: leaf runs {:?} neither moved nor halted",
                    host.runs
                );
                *state = fresh;
                let events = w.take();
                lines.push(line_of(t, i, "migrate".into(), events));
            }
            tree = new;
            shared = new_shared;
        }
        for (i, (step, (w, runs, state))) in steps.iter().zip(&mut agents).enumerate() {
            let mut host = Interpreted {
                w,
                runs: std::mem::take(runs),
                hooks: episode.hooks.then_some(t),
            };
            let what = match *step {
                Step::Tick(d, s) => {
                    let input = Input {
                        now: *now,
                        decision: u64::from(d),
                        stimuli: u64::from(s),
                    };
                    let result = tree
                        .try_tick(state, &shared, &mut host, input)
                        .map_err(|e| (e.node, e.status));
                    format!("{result:?}")
                }
                Step::Reset => {
                    tree.reset(state, &shared, &mut host);
                    "reset".into()
                }
            };
            *runs = host.runs;
            let events = w.take();
            lines.push(line_of(t, i, what, events));
        }
    }
    for (i, (w, runs, state)) in agents.iter_mut().enumerate() {
        let mut host = Interpreted {
            w,
            runs: std::mem::take(runs),
            hooks: None,
        };
        tree.reset(state, &shared, &mut host);
        finish(i, w, &mut lines);
    }
    assert_eq!(
        shared.held(),
        0,
        "permits or places held after every agent's reset"
    );
    lines
}
