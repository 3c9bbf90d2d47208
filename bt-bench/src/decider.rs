//! A Spore-style `prioritized` decider reading flags from the tick context,
//! generated and hand-written, and the cost of the trace hooks: with
//! [`NoTrace`](bt::NoTrace) they must cost nothing.

use bt::record::Recorder;
use bt::{Ctx, NoFlags, Status, Trace, TraceEvent, Tracer, behavior_tree};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};

bt::bitflags::bitflags! {
    /// Decision flags of the benchmark agents.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Mode: u8 {
        /// An enemy is around.
        const ENEMY = 1;
    }
}

/// An agent whose senses change each tick from a xorshift stream.
#[derive(Clone, Debug)]
pub struct Npc {
    bits: u64,
    danger: bool,
    near: bool,
    hungry: bool,
    enemy: bool,
    /// Order-sensitive hash of every action call.
    pub calls: u64,
}

impl Npc {
    /// Agent `i`, with its own stream.
    pub fn new(i: u64) -> Npc {
        Npc {
            bits: 0x9E37_79B9_7F4A_7C15 ^ (i + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
            danger: false,
            near: false,
            hungry: false,
            enemy: false,
            calls: 0,
        }
    }

    /// The world moves on one tick.
    #[inline]
    pub fn advance(&mut self) {
        let mut x = self.bits;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.bits = x;
        self.danger = x & 0x3f == 0;
        self.near = (x >> 8) & 3 == 0;
        self.enemy = (x >> 12) & 1 == 0;
        self.hungry = (x >> 16) & 7 == 0;
    }

    /// This tick's decision flags.
    #[inline]
    pub fn mode(&self) -> Mode {
        if self.enemy {
            Mode::ENEMY
        } else {
            Mode::empty()
        }
    }

    /// Action `k`: usually keeps running, finishes one time in eight.
    #[inline]
    pub fn act(&mut self, k: u32) -> Status {
        self.calls = self.calls.wrapping_mul(31).wrapping_add(u64::from(k) + 1);
        if (self.bits >> (24 + 3 * k)) & 7 == 0 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

behavior_tree! {
    /// Flee, fight, eat or idle; higher children interrupt lower ones.
    pub tree Decider(me: &mut Npc, cx: &Ctx<Mode, NoFlags, impl Trace>) {
        prioritized {
            'flee: when me.danger => action me.act(0),
            'fight: flags(any = Mode::ENEMY) when me.near => action me.act(1),
            'eat: when me.hungry => action me.act(2),
            'idle: else => action me.act(3),
        }
    }
}

behavior_tree! {
    /// The same decider without a tick context: the flag is read from the
    /// agent, so the macro emits no trace points and no activation times.
    pub tree DeciderPlain(me: &mut Npc) {
        prioritized {
            'flee: when me.danger => action me.act(0),
            'fight: when me.enemy && me.near => action me.act(1),
            'eat: when me.hungry => action me.act(2),
            'idle: else => action me.act(3),
        }
    }
}

/// The same decider written by hand: the active child's index (4 for
/// none); guards of children before it are checked each tick. Its actions
/// never fail here, so it needs no masked redecide.
#[derive(Clone, Debug)]
pub struct HandDecider {
    active: u8,
}

impl Default for HandDecider {
    fn default() -> Self {
        HandDecider { active: 4 }
    }
}

impl HandDecider {
    /// One tick.
    #[inline]
    pub fn tick(&mut self, me: &mut Npc, cx: &Ctx<Mode>) -> Status {
        let limit = self.active;
        let pick = if limit > 0 && me.danger {
            0
        } else if limit > 1 && cx.flags.intersects(Mode::ENEMY) && me.near {
            1
        } else if limit > 2 && me.hungry {
            2
        } else if limit > 3 {
            3
        } else {
            4
        };
        if pick != 4 {
            self.active = pick;
        }
        let r = me.act(u32::from(self.active));
        if r.is_done() {
            self.active = 4;
        }
        r
    }
}

/// How the generated decider is ticked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The hand-written decider.
    Hand,
    /// Generated without a tick context: no trace points at all.
    NoContext,
    /// Generated, with the default `NoTrace` context.
    NoTrace,
    /// Generated, with a `Tracer` attached whose level is 0.
    TracerOff,
    /// Generated, with a level-5 `Tracer` filtered to another agent.
    TracerOtherAgent,
    /// Generated, with a `Recorder` recording every agent (a ring of
    /// [`RING`] transitions each).
    Recorded,
    /// `Recorded`, its logs folded on another thread (a [`Drainer`]).
    RecordedDrained,
    /// Generated, with node hooks attached to every agent that let every
    /// node run and change nothing ([`NoopHooks`]).
    Hooked,
    /// Generated, with a Groot2 server (`bt_groot::Groot2`) attached to
    /// every agent's context, watching agent 0, no client connected.
    GrootAttached,
    /// Generated, each agent ticked with the server only when
    /// `Groot2::follows` it, else with `NoTrace`; no client connected.
    GrootDispatched,
    /// The same, with a client asking for the statuses 10 times a second:
    /// agent 0's statuses are recorded.
    GrootPolled,
    /// Generated, with the live page (`bt_live::LivePage`) attached to
    /// every agent's context: every agent recorded (a ring of [`RING`]
    /// transitions each), hooks asked for, no page open.
    LivePage,
    /// Generated, with `bt::trace::ToTracing` at level 6 attached to every
    /// agent's context, under a `tracing` subscriber that keeps `INFO`
    /// and above ([`InfoOnly`], installed by the benchmark): every event
    /// is filtered out.
    TracingFilteredOut,
}

/// A `tracing` subscriber that keeps `INFO` and above and drops it (what a
/// program logging at `INFO` has): the trees' `DEBUG` and `TRACE` events
/// are filtered out.
pub struct InfoOnly;

impl tracing::Subscriber for InfoOnly {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::INFO
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::INFO)
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// A Groot2 client on its own thread asking for the statuses every 100 ms
/// until dropped.
pub struct Poller {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Poller {
    /// Starts polling `server`.
    pub fn start(server: std::net::SocketAddr) -> Poller {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let timeout = std::time::Duration::from_secs(5);
        let mut req = bt_groot::zmtp::Req::connect(server, timeout).expect("the server answers");
        let ask = move |req: &mut bt_groot::zmtp::Req| {
            req.request(&[&[2, b'S', 0, 0, 0, 0]])
                .expect("a status reply")
        };
        // Connected before the herd ticks: its statuses are followed.
        ask(&mut req);
        let thread = std::thread::spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(std::time::Duration::from_millis(100))
            {
                ask(&mut req);
            }
        });
        Poller {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Node hooks that let every node run and change no status: what the hook
/// points cost by themselves.
pub struct NoopHooks;

impl bt::Trace for NoopHooks {
    const HOOKS: bool = true;
    fn level(&self, _: u64) -> u8 {
        0
    }
    fn event(&self, _: &TraceEvent) {}
    fn hooks(&self, _: u64) -> bool {
        true
    }
}

/// Transitions kept per agent by the `Recorded` variant's recorder.
pub const RING: usize = 16;

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 13] = [
        Variant::Hand,
        Variant::NoContext,
        Variant::NoTrace,
        Variant::TracerOff,
        Variant::TracerOtherAgent,
        Variant::Recorded,
        Variant::RecordedDrained,
        Variant::Hooked,
        Variant::GrootAttached,
        Variant::GrootDispatched,
        Variant::GrootPolled,
        Variant::LivePage,
        Variant::TracingFilteredOut,
    ];

    /// Benchmark name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Hand => "hand",
            Variant::NoContext => "bt-no-context",
            Variant::NoTrace => "bt-notrace",
            Variant::TracerOff => "bt-tracer-level-0",
            Variant::TracerOtherAgent => "bt-tracer-other-agent",
            Variant::Recorded => "bt-recorder",
            Variant::RecordedDrained => "bt-recorder-drained",
            Variant::Hooked => "bt-hooks-noop",
            Variant::GrootAttached => "bt-groot2-attached-no-client",
            Variant::GrootDispatched => "bt-groot2-no-client",
            Variant::GrootPolled => "bt-groot2-polled-10hz",
            Variant::LivePage => "bt-live-page-no-client",
            Variant::TracingFilteredOut => "bt-tracing-filtered-out",
        }
    }
}

/// The hook of the level-0 tracer: never called.
fn discard(_: &TraceEvent) {}

/// The hook of the tracer filtered to another agent: never called. A
/// function of its own, so that the two tracers are different types and
/// each variant's tick is compiled for its loop alone, as in a program
/// with one tracer.
fn discard_other(_: &TraceEvent) {}

/// Advances every agent and ticks it with `tick(index, agent, context)`,
/// folding the statuses into `statuses`.
#[inline(always)]
fn each(
    npcs: &mut [Npc],
    now: f64,
    statuses: &mut u64,
    mut tick: impl FnMut(usize, &mut Npc, &Ctx<Mode>) -> Status,
) {
    for (i, npc) in npcs.iter_mut().enumerate() {
        npc.advance();
        let cx = Ctx::new(now, 0.05).flags(npc.mode()).agent(i as u64);
        let status = tick(i, npc, &cx);
        *statuses = statuses.wrapping_mul(3).wrapping_add(status as u64);
    }
}

/// A thread folding a recorder's logs ([`Recorder::drain_agents`]), an
/// eighth of the agents each time a frame is ticked, until dropped: what a
/// program recording many agents would run beside its ticking.
pub struct Drainer {
    shared: Arc<DrainShared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Each frame, a [`Drainer`] sweeps this part of the agents. A log takes
/// a few hundred ticks to fill past half (at which the drain folds it), so
/// an agent seen every 8 frames is folded in time; sweeping them all each
/// frame measured the same on the ticking thread, and twice the drain's
/// time.
const DRAIN_PARTS: u64 = 8;

/// What a [`Drainer`]'s thread and the ticking thread share.
#[derive(Default)]
struct DrainShared {
    stop: AtomicBool,
    /// Frames ticked.
    frames: AtomicU64,
    /// Nanoseconds spent in [`Recorder::drain_agents`].
    busy: AtomicU64,
}

impl Drainer {
    /// Starts draining `recorder`: a part of a sweep each time a frame is
    /// ticked ([`ticked`](Self::ticked)), waiting between them.
    pub fn start(recorder: Arc<Recorder>) -> Drainer {
        let shared = Arc::new(DrainShared::default());
        let its = shared.clone();
        let thread = std::thread::spawn(move || {
            let mut seen = 0;
            while !its.stop.load(Relaxed) {
                let frame = its.frames.load(Acquire);
                if frame == seen {
                    std::thread::yield_now();
                    continue;
                }
                seen = frame;
                let start = std::time::Instant::now();
                let n = recorder.agents() as u64;
                let k = frame % DRAIN_PARTS;
                recorder.drain_agents(n * k / DRAIN_PARTS..n * (k + 1) / DRAIN_PARTS);
                its.busy
                    .fetch_add(start.elapsed().as_nanos() as u64, Relaxed);
            }
        });
        Drainer {
            shared,
            thread: Some(thread),
        }
    }

    /// A frame was ticked.
    pub fn ticked(&self) {
        self.shared.frames.fetch_add(1, Release);
    }

    /// Nanoseconds the thread has spent draining so far.
    pub fn busy_ns(&self) -> u64 {
        self.shared.busy.load(Relaxed)
    }
}

impl Drop for Drainer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `count` agents, each with its state in both forms.
pub struct Herd {
    variant: Variant,
    npcs: Vec<Npc>,
    ours: Vec<Decider>,
    plain: Vec<DeciderPlain>,
    hand: Vec<HandDecider>,
    recorder: Option<Arc<Recorder>>,
    /// Folding the recorder's logs, for `RecordedDrained`.
    drainer: Option<Drainer>,
    /// Dropped before the server: fields drop in order.
    _poller: Option<Poller>,
    groot: Option<bt_groot::Groot2>,
    live: Option<bt_live::LivePage>,
    now: f64,
    /// Hash of the statuses returned.
    pub statuses: u64,
}

impl Herd {
    /// A herd of `count` fresh agents.
    pub fn new(variant: Variant, count: usize) -> Herd {
        let groot = matches!(
            variant,
            Variant::GrootAttached | Variant::GrootDispatched | Variant::GrootPolled
        )
        .then(|| {
            bt_groot::Groot2::serve::<Decider>(bt_groot::Options::new().port(0))
                .expect("two free ports")
        });
        let recorder = matches!(variant, Variant::Recorded | Variant::RecordedDrained)
            .then(|| Arc::new(Recorder::new::<Decider>(count, RING)));
        let poller = (variant == Variant::GrootPolled)
            .then(|| Poller::start(groot.as_ref().expect("served").address()));
        Herd {
            variant,
            npcs: (0..count as u64).map(Npc::new).collect(),
            ours: vec![Decider::default(); count],
            plain: vec![DeciderPlain::default(); count],
            hand: vec![HandDecider::default(); count],
            recorder: recorder.clone(),
            drainer: (variant == Variant::RecordedDrained)
                .then(|| Drainer::start(recorder.clone().expect("made"))),
            _poller: poller,
            groot,
            live: (variant == Variant::LivePage).then(|| {
                bt_live::LivePage::serve::<Decider>(
                    count,
                    bt_live::Options::new().port(0).capacity(RING),
                )
                .expect("a free port")
            }),
            now: 0.0,
            statuses: 0,
        }
    }

    /// One tick of every agent. Never inlined, so that each variant's loop
    /// is compiled the same wherever the herd is stepped from, whatever
    /// the other variants' loops are.
    #[inline(never)]
    pub fn step(&mut self) {
        self.now += 0.05;
        // One loop per variant, each with its own call of `tick`, as in a
        // program that ticks its agents one way: a variant's tick is not
        // shared with another variant's loop.
        let Herd {
            npcs,
            ours,
            plain,
            hand,
            recorder,
            drainer,
            groot,
            live,
            now,
            statuses,
            ..
        } = self;
        let now = *now;
        match self.variant {
            Variant::Hand => each(npcs, now, statuses, |i, npc, cx| hand[i].tick(npc, cx)),
            Variant::NoContext => each(npcs, now, statuses, |i, npc, _| plain[i].tick(npc)),
            Variant::NoTrace => each(npcs, now, statuses, |i, npc, cx| ours[i].tick(npc, cx)),
            Variant::TracerOff => {
                let off = Tracer::new(0, discard);
                each(npcs, now, statuses, |i, npc, cx| {
                    ours[i].tick(npc, &cx.trace(&off))
                });
            }
            Variant::TracerOtherAgent => {
                let other = Tracer::new(5, discard_other).only_agent(u64::MAX);
                each(npcs, now, statuses, |i, npc, cx| {
                    ours[i].tick(npc, &cx.trace(&other))
                });
            }
            Variant::Recorded | Variant::RecordedDrained => {
                let recorder: &Recorder = recorder.as_ref().expect("the recorded herd has one");
                each(npcs, now, statuses, |i, npc, cx| {
                    ours[i].tick(npc, &cx.trace(recorder))
                });
                if let Some(drainer) = drainer {
                    drainer.ticked();
                }
            }
            Variant::Hooked => each(npcs, now, statuses, |i, npc, cx| {
                ours[i].tick(npc, &cx.trace(&NoopHooks))
            }),
            Variant::GrootAttached => {
                let groot = groot.as_ref().expect("the served herd has one");
                each(npcs, now, statuses, |i, npc, cx| {
                    ours[i].tick(npc, &cx.trace(groot))
                });
            }
            Variant::LivePage => {
                let live = live.as_ref().expect("the live herd has a page");
                let _frame = live.frame();
                each(npcs, now, statuses, |i, npc, cx| {
                    ours[i].tick(npc, &cx.trace(live))
                });
            }
            Variant::TracingFilteredOut => {
                let hook = bt::trace::ToTracing::new(bt::trace::STATUSES);
                each(npcs, now, statuses, |i, npc, cx| {
                    ours[i].tick(npc, &cx.trace(hook))
                });
            }
            Variant::GrootDispatched | Variant::GrootPolled => {
                let groot = groot.as_ref().expect("the served herd has one");
                each(npcs, now, statuses, |i, npc, cx| {
                    if groot.follows(i as u64) {
                        ours[i].tick(npc, &cx.trace(groot))
                    } else {
                        ours[i].tick(npc, cx)
                    }
                });
            }
        }
    }

    /// Stops (`false`) or starts again (`true`) the drain thread of a
    /// [`Variant::RecordedDrained`] herd, so that it does not run while
    /// other herds are timed. Other variants have none.
    pub fn set_draining(&mut self, on: bool) {
        if !on {
            self.drainer = None;
        } else if self.variant == Variant::RecordedDrained && self.drainer.is_none() {
            self.drainer = self.recorder.clone().map(Drainer::start);
        }
    }

    /// Nanoseconds the `RecordedDrained` herd's drain has spent so far.
    pub fn drain_busy_ns(&self) -> Option<u64> {
        self.drainer.as_ref().map(Drainer::busy_ns)
    }

    /// Hash of all agents' action calls.
    pub fn calls(&self) -> u64 {
        self.npcs.iter().fold(0u64, |h, n| {
            h.wrapping_mul(0x100_0000_01B3).wrapping_add(n.calls)
        })
    }
}

behavior_tree! {
    /// Each tick: enter a gate, run an action that finishes at once, leave.
    pub tree Gated(me: &mut Npc, shared: &GatedShared) {
        select { 'gate: gate(1_000_000) { action { me.act(0); Status::Success } }, failure }
    }

    /// The same without the gate.
    pub tree Ungated(me: &mut Npc) {
        select { action { me.act(0); Status::Success }, failure }
    }
}

/// Agents ticking [`Gated`] or [`Ungated`], for the cost of a gate.
pub struct GateHerd {
    gated: bool,
    npcs: Vec<Npc>,
    with: Vec<Gated>,
    without: Vec<Ungated>,
    /// The shared state of [`Gated`].
    pub shared: GatedShared,
    /// Hash of the statuses returned.
    pub statuses: u64,
}

impl GateHerd {
    /// `count` agents, ticking through a gate or not.
    pub fn new(gated: bool, count: usize) -> GateHerd {
        GateHerd {
            gated,
            npcs: (0..count as u64).map(Npc::new).collect(),
            with: vec![Gated::default(); count],
            without: vec![Ungated::default(); count],
            shared: GatedShared::new(),
            statuses: 0,
        }
    }

    /// One tick of every agent.
    #[inline]
    pub fn step(&mut self) {
        for (i, npc) in self.npcs.iter_mut().enumerate() {
            npc.advance();
            let status = if self.gated {
                self.with[i].tick(npc, &self.shared)
            } else {
                self.without[i].tick(npc)
            };
            self.statuses = self.statuses.wrapping_mul(3).wrapping_add(status as u64);
        }
    }
}
