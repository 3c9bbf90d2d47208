//! Leveled trace output from generated trees, through a hook in the tick
//! context. With [`NoTrace`] (the default) every trace point compiles away.
//!
//! Levels follow Spore's five: 1 and 2 report transitions only (a decider
//! child activates; a child ends, is interrupted or a group redecides),
//! 3 to 5 report every tick (3: tick start and end; 4: each active child
//! continued; 5: every guard's verdict). Level 6 adds the status each node
//! returns, for recorders that follow every node.

use crate::node::NodeInfo;
use crate::status::Status;
#[cfg(feature = "tracing")]
pub use crate::to_tracing::{TRACING_TARGET, ToTracing};
use crate::view::TreeView;

/// A decider child was activated; a redecide hit its limit.
pub const ACTIVATIONS: u8 = 1;
/// A child ended, was interrupted or masked; a group found no child.
pub const ENDINGS: u8 = 2;
/// Start and end of every tick.
pub const TICKS: u8 = 3;
/// Every active decider child continued.
pub const CONTINUES: u8 = 4;
/// Every guard checked, with its verdict.
pub const GUARDS: u8 = 5;
/// The status every node returns, every tick (in the order nodes finish
/// their tick: children before parents), the entry into each embedded
/// subtree and `reset`: enough to follow every node's status
/// ([`Recorder`](crate::record::Recorder) listens at this level).
pub const STATUSES: u8 = 6;

/// Receives trace events from generated trees.
pub trait Trace {
    /// `false` makes every trace point disappear at compile time.
    const ENABLED: bool = true;

    /// Highest level wanted for `agent`; 0 turns tracing off for it.
    /// A generated tree asks once per tick (with [`statuses`](Self::statuses)),
    /// before its first trace point, and builds only the events wanted.
    fn level(&self, agent: u64) -> u8;

    /// Whether `agent`'s level-6 events ([`STATUSES`]) are wanted. By
    /// default, when [`level`](Self::level) is 6 or more; a hook that
    /// follows statuses without the per-tick events of levels 3 to 5 (a
    /// recorder) says `true` here with a low level.
    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        self.level(agent) >= STATUSES
    }

    /// One event at or below [`level`](Self::level).
    fn event(&self, event: &TraceEvent);

    /// `node` returned `status` in a tick of `agent` at time `now`: the
    /// level-6 event [`Event::Returned`], sent only when
    /// [`statuses`](Self::statuses) says so. Generated trees call this
    /// instead of [`event`](Self::event), so that a hook that follows
    /// statuses (a recorder) takes the commonest event without one being
    /// built; the default builds it and passes it to `event`.
    #[inline]
    fn returned(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        self.event(&TraceEvent {
            level: STATUSES,
            agent,
            now,
            node,
            what: Event::Returned(status),
        });
    }

    /// `true` lets a generated tick of a tree of at most 63 nodes gather
    /// the statuses its nodes return and send them together
    /// ([`gathered`](Self::gathered)) rather than one by one through
    /// [`returned`](Self::returned): in order, at the end of the tick,
    /// before each event of its own, before an embedded tree ticks, and
    /// every 16 statuses. Events that halting sends ([`Event::Halted`])
    /// and node hooks may come before statuses gathered ahead of them. A
    /// hook that follows statuses per tick (a recorder) takes a tick at
    /// once; `false`, the default, keeps [`returned`](Self::returned).
    ///
    /// Such a hook follows every tick of the agents it wants statuses of,
    /// so the generated tick (of a tree whose context is a `Ctx<.., impl
    /// Trace>`) inlines the traced code in its caller for it, beside the
    /// quiet code; for other hooks the traced code is a function of its
    /// own, so that agents they want nothing of do not pay for its frame.
    const GATHERS: bool = false;

    /// Statuses a tick of `agent` at time `now` gathered (see
    /// [`GATHERS`](Self::GATHERS)), of nodes of the table `nodes` (a tree's
    /// [`BehaviorTree::NODES`](crate::BehaviorTree::NODES)). The default
    /// sends each to [`returned`](Self::returned), oldest first.
    #[inline]
    fn gathered(&self, agent: u64, now: f64, nodes: &'static [NodeInfo], statuses: Gathered) {
        for (id, status) in statuses.iter() {
            if let Some(node) = nodes.get(id) {
                self.returned(agent, now, node, status);
            }
        }
    }

    /// `true` makes the generated tick call [`before`](Self::before) and
    /// [`after`](Self::after) around every node, for agents
    /// [`hooks`](Self::hooks) names. `false`, the default, makes every hook
    /// point disappear at compile time: a trace hook that does not change
    /// what nodes do costs nothing more.
    const HOOKS: bool = false;

    /// Whether this tick of `agent` calls the node hooks. Asked once per
    /// tick, with [`level`](Self::level); only when [`HOOKS`](Self::HOOKS)
    /// is `true`.
    #[inline]
    fn hooks(&self, agent: u64) -> bool {
        let _ = agent;
        Self::HOOKS
    }

    /// Called before `node` runs in a tick of `agent`. `None` lets it run;
    /// `Some(status)` replaces it: the node does not run, and its parent
    /// sees `status`. The `bt` crate's reference ("Node hooks", in
    /// `bt::reference::halting`) says what a replaced node's state becomes.
    #[inline]
    fn before(&self, agent: u64, node: &'static NodeInfo) -> Option<Status> {
        let _ = (agent, node);
        None
    }

    /// Called after `node` returned `status` in a tick of `agent` (not when
    /// [`before`](Self::before) replaced it): the status its parent sees.
    #[inline]
    fn after(&self, agent: u64, node: &'static NodeInfo, status: Status) -> Status {
        let _ = (agent, node);
        status
    }
}

/// The statuses nodes of one tree returned in a tick, gathered by the
/// generated code for a hook whose [`Trace::GATHERS`] is `true`: up to 16,
/// each a node's id (below 64) and its status, kept in one integer.
///
/// ```
/// use bt_runtime::{Status, trace::Gathered};
/// let mut gathered = Gathered::new();
/// assert!(!gathered.push(3, Status::Running));
/// assert!(!gathered.push(0, Status::Success));
/// assert_eq!(
///     gathered.iter().collect::<Vec<_>>(),
///     [(3, Status::Running), (0, Status::Success)]
/// );
/// // Full at 16: the generated code sends them then.
/// let full = (2..16).map(|id| gathered.push(id, Status::Failure)).last();
/// assert_eq!((full, gathered.len()), (Some(true), 16));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gathered {
    /// A byte per status, the newest lowest: the node's id, and the
    /// status's number (`Status as u8`) at bit 6.
    codes: u128,
    len: u8,
}

impl Gathered {
    /// How many statuses a `Gathered` holds.
    pub const CAPACITY: usize = 16;

    /// None yet.
    #[inline(always)]
    pub const fn new() -> Gathered {
        Gathered { codes: 0, len: 0 }
    }

    /// Adds node `id`'s `status` (the generated code gathers nodes of
    /// trees of at most 63 nodes, and sends them before 16 are held);
    /// returns whether it is full.
    #[inline(always)]
    pub fn push(&mut self, id: u8, status: Status) -> bool {
        self.codes = self.codes << 8 | u128::from(id & 63 | (status as u8) << 6);
        self.len += 1;
        usize::from(self.len) >= Self::CAPACITY
    }

    /// `len` statuses as [`codes`](Self::codes) holds them (at most
    /// [`CAPACITY`](Self::CAPACITY)).
    #[cfg(feature = "std")]
    pub(crate) fn from_codes(codes: u128, len: usize) -> Gathered {
        Gathered {
            codes,
            len: len.min(Self::CAPACITY) as u8,
        }
    }

    /// How many it holds.
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether it holds none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The statuses, a byte each, the newest lowest (see
    /// [`iter`](Self::iter)): the node's id, and the status at bit 6.
    #[inline]
    pub fn codes(&self) -> u128 {
        self.codes
    }

    /// Each node's id and status, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (usize, Status)> + use<> {
        let Gathered { codes, len } = *self;
        (0..len).rev().filter_map(move |k| {
            let byte = (codes >> (8 * u32::from(k))) as u8;
            let status = match byte >> 6 {
                0 => Status::Success,
                1 => Status::Failure,
                2 => Status::Running,
                _ => return None,
            };
            Some((usize::from(byte & 63), status))
        })
    }
}

/// No tracing. Every trace point compiles to nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoTrace;

impl Trace for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn level(&self, _: u64) -> u8 {
        0
    }
    #[inline(always)]
    fn statuses(&self, _: u64) -> bool {
        false
    }
    #[inline(always)]
    fn event(&self, _: &TraceEvent) {}
}

/// Sends events up to `level`, of every agent or of one, to a function.
///
/// ```
/// use bt_runtime::trace::Tracer;
/// // Level-1 transitions of agent 3, printed.
/// let tracer = Tracer::new(1, |e: &bt_runtime::TraceEvent| println!("{e}")).only_agent(3);
/// # let _ = tracer;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Tracer<F> {
    /// Highest level passed on.
    pub level: u8,
    /// Only this agent's events, if set.
    pub agent: Option<u64>,
    /// Where events go.
    pub sink: F,
}

impl<F: Fn(&TraceEvent)> Tracer<F> {
    /// Events of every agent up to `level`, sent to `sink`.
    pub fn new(level: u8, sink: F) -> Self {
        Tracer {
            level,
            agent: None,
            sink,
        }
    }

    /// Only `agent`'s events.
    pub fn only_agent(mut self, agent: u64) -> Self {
        self.agent = Some(agent);
        self
    }
}

impl<F: Fn(&TraceEvent)> Trace for Tracer<F> {
    #[inline]
    fn level(&self, agent: u64) -> u8 {
        match self.agent {
            Some(only) if only != agent => 0,
            _ => self.level,
        }
    }
    fn event(&self, event: &TraceEvent) {
        (self.sink)(event)
    }
}

impl<T: Trace + ?Sized> Trace for &T {
    const ENABLED: bool = T::ENABLED;
    const HOOKS: bool = T::HOOKS;
    const GATHERS: bool = T::GATHERS;
    #[inline]
    fn gathered(&self, agent: u64, now: f64, nodes: &'static [NodeInfo], statuses: Gathered) {
        (**self).gathered(agent, now, nodes, statuses)
    }
    #[inline]
    fn level(&self, agent: u64) -> u8 {
        (**self).level(agent)
    }
    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        (**self).statuses(agent)
    }
    fn event(&self, event: &TraceEvent) {
        (**self).event(event)
    }
    #[inline(always)]
    fn returned(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        (**self).returned(agent, now, node, status)
    }
    #[inline]
    fn hooks(&self, agent: u64) -> bool {
        (**self).hooks(agent)
    }
    #[inline]
    fn before(&self, agent: u64, node: &'static NodeInfo) -> Option<Status> {
        (**self).before(agent, node)
    }
    #[inline]
    fn after(&self, agent: u64, node: &'static NodeInfo, status: Status) -> Status {
        (**self).after(agent, node, status)
    }
}

/// Two hooks at once (a [`Tracer`] printing and a recorder recording,
/// say): each gets the events up to its own level. Of node hooks, the
/// first's [`before`](Trace::before) is asked first, and a node it replaces
/// is not shown to the second; [`after`](Trace::after) passes the status
/// through the first, then the second.
impl<A: Trace, B: Trace> Trace for (A, B) {
    const ENABLED: bool = A::ENABLED || B::ENABLED;
    const HOOKS: bool = A::HOOKS || B::HOOKS;
    #[inline]
    fn hooks(&self, agent: u64) -> bool {
        (A::HOOKS && self.0.hooks(agent)) || (B::HOOKS && self.1.hooks(agent))
    }
    #[inline]
    fn before(&self, agent: u64, node: &'static NodeInfo) -> Option<Status> {
        if A::HOOKS
            && self.0.hooks(agent)
            && let Some(status) = self.0.before(agent, node)
        {
            return Some(status);
        }
        if B::HOOKS && self.1.hooks(agent) {
            self.1.before(agent, node)
        } else {
            None
        }
    }
    #[inline]
    fn after(&self, agent: u64, node: &'static NodeInfo, status: Status) -> Status {
        let status = if A::HOOKS && self.0.hooks(agent) {
            self.0.after(agent, node, status)
        } else {
            status
        };
        if B::HOOKS && self.1.hooks(agent) {
            self.1.after(agent, node, status)
        } else {
            status
        }
    }
    #[inline]
    fn level(&self, agent: u64) -> u8 {
        self.0.level(agent).max(self.1.level(agent))
    }
    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        self.0.statuses(agent) || self.1.statuses(agent)
    }
    fn event(&self, event: &TraceEvent) {
        if A::ENABLED && wants(&self.0, event) {
            self.0.event(event);
        }
        if B::ENABLED && wants(&self.1, event) {
            self.1.event(event);
        }
    }
    fn returned(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        if A::ENABLED && self.0.statuses(agent) {
            self.0.returned(agent, now, node, status);
        }
        if B::ENABLED && self.1.statuses(agent) {
            self.1.returned(agent, now, node, status);
        }
    }
}

/// Whether `hook` wants `event`, by its level or, for level 6 and a
/// firing monitor, by [`Trace::statuses`].
fn wants(hook: &impl Trace, event: &TraceEvent) -> bool {
    if event.level >= STATUSES {
        hook.statuses(event.agent)
    } else {
        hook.level(event.agent) >= event.level
            || (matches!(event.what, Event::MonitorFired { .. }) && hook.statuses(event.agent))
    }
}

/// One trace event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceEvent {
    /// The event's level (1 to 5).
    pub level: u8,
    /// The agent ticked (from [`Context::agent`](crate::Context::agent)).
    pub agent: u64,
    /// The time of the tick.
    pub now: f64,
    /// The node the event happened in: the tree's root for tick events, the
    /// decider group otherwise.
    pub node: &'static NodeInfo,
    /// What happened.
    pub what: Event,
}

/// What a [`TraceEvent`] reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// A tick starts (level 3).
    TickStart,
    /// A tick ended with this status (level 3).
    TickEnd(Status),
    /// A decider child was chosen and activated (level 1).
    Activate {
        /// The child.
        child: &'static NodeInfo,
    },
    /// The active child was interrupted by a higher-priority one (level 2).
    Interrupt {
        /// The child halted.
        child: &'static NodeInfo,
        /// The child whose guard accepted.
        by: &'static NodeInfo,
    },
    /// A running stateful leaf was halted (level 2; `node` is the leaf):
    /// what an interrupt, a reactive node, a finished `parallel` or a
    /// reset abandoned.
    Halted,
    /// A decider child finished (level 2). On `Failure` the group redecides
    /// with the child masked.
    End {
        /// The child.
        child: &'static NodeInfo,
        /// How it ended.
        status: Status,
    },
    /// No child accepted: the group fails (level 2).
    NoneAccepted,
    /// The group hit its `redecides = N` bound this tick and fails (level 1).
    RedecideLimit,
    /// An armed `monitor` fired: the active path was halted and the tree
    /// restarts from the root in this tick (level 1, and sent to hooks
    /// that follow statuses at any level: every node's status changes).
    MonitorFired {
        /// The monitor.
        monitor: &'static NodeInfo,
    },
    /// The active child is ticked again (level 4).
    Continue {
        /// The child.
        child: &'static NodeInfo,
        /// Seconds since it was activated, in trees that record activation
        /// times (`#[bt(activation_times)]`); `None` in the others.
        active_for: Option<f64>,
    },
    /// The node returned this status for this tick (level 6). Every node
    /// of a tree with a context reports it, children before parents.
    Returned(Status),
    /// A subtree node is about to tick the tree it embeds (level 6): the
    /// events until this node's `Returned` come from that tree's nodes.
    EnterSubtree,
    /// The agent's tree was reset: every running node was halted (level 6;
    /// `node` is the root).
    Reset,
    /// The tick runs this version of the tree's source (level 6, first in
    /// each tick of an agent whose tree runs a reloaded version on the
    /// hot-reload engine; `node` is the version's root): version 1 is the
    /// tree as built, which sends no such event, and each reload adds one.
    /// A recorder lays the agent's history out by `view` from then on.
    TreeVersion {
        /// The version's number.
        version: u64,
        /// The tree as that version lays it out, over its own node tables.
        view: &'static TreeView<'static>,
    },
    /// A guard was checked (level 5).
    Guard {
        /// The child whose guard it is.
        child: &'static NodeInfo,
        /// The verdict.
        verdict: Verdict,
    },
}

/// The result of checking one guard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Every clause passed; the score (1.0 without a `score` clause).
    Accepted(f32),
    /// This clause rejected (its source text).
    Rejected(&'static str),
    /// Not checked: the child failed earlier in this tick.
    Masked,
}

impl core::fmt::Display for TraceEvent {
    /// `BT(1) agent 3 @ 12.500:   activating 'flee (n4 leaf Flee) in 'root`;
    /// two spaces of indent per depth of the group.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "BT({}) agent {} @ {:.3}: {:indent$}",
            self.level,
            self.agent,
            self.now,
            "",
            indent = 2 * self.node.depth
        )?;
        let group = Named(self.node);
        match self.what {
            Event::TickStart => write!(f, "tick {} starts", self.node.tree),
            Event::TickEnd(status) => write!(f, "tick {} ends: {status}", self.node.tree),
            Event::Activate { child } => write!(f, "activating {} in {group}", Named(child)),
            Event::Interrupt { child, by } => write!(
                f,
                "interrupting {} for {} in {group}",
                Named(child),
                Named(by)
            ),
            Event::End { child, status } => {
                write!(f, "{} ended: {status}, in {group}", Named(child))
            }
            Event::Halted => write!(f, "halting {group}"),
            Event::NoneAccepted => write!(f, "no child of {group} accepts: failing"),
            Event::RedecideLimit => write!(f, "redecide limit of {group} reached: failing"),
            Event::MonitorFired { monitor } => {
                write!(
                    f,
                    "{} fired: restarting {} from the root",
                    Named(monitor),
                    self.node.tree
                )
            }
            Event::Continue { child, active_for } => {
                write!(f, "continuing {} in {group}", Named(child))?;
                match active_for {
                    Some(seconds) => write!(f, ", active for {seconds:.3}s"),
                    None => Ok(()),
                }
            }
            Event::Returned(status) => write!(f, "{group} returned {status}"),
            Event::EnterSubtree => write!(f, "entering the subtree of {group}"),
            Event::Reset => write!(f, "{} reset", self.node.tree),
            Event::TreeVersion { version, .. } => {
                write!(f, "{} runs version {version}", self.node.tree)
            }
            Event::Guard { child, verdict } => match verdict {
                Verdict::Accepted(score) => {
                    write!(f, "guard of {} accepts (score {score})", Named(child))
                }
                Verdict::Rejected(clause) => {
                    write!(f, "guard of {} rejects at `{clause}`", Named(child))
                }
                Verdict::Masked => write!(f, "{} is masked (failed this tick)", Named(child)),
            },
        }
    }
}

/// `'label (n4 kind detail)` or `n4 kind detail`.
struct Named(&'static NodeInfo);

impl core::fmt::Display for Named {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let n = self.0;
        match n.label {
            Some(label) => write!(f, "'{label} (n{} {})", n.id, n.kind),
            None if n.detail == n.kind.keyword() => write!(f, "n{} {}", n.id, n.kind),
            None => write!(f, "n{} {} `{}`", n.id, n.kind, n.detail),
        }
    }
}
