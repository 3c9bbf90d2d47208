//! Trace events as `tracing` events (feature `tracing`).

use crate::node::NodeInfo;
use crate::status::Status;
use crate::trace::{ENDINGS, Event, STATUSES, Trace, TraceEvent, Verdict};
use tracing::Level;

/// The `tracing` target of every event: filter trees with it
/// (`RUST_LOG=arbortick=debug` with `tracing-subscriber`'s `EnvFilter`).
pub const TRACING_TARGET: &str = "arbortick";

/// A trace hook that sends trace events to the [`tracing`] crate's current
/// subscriber, so that `tracing-subscriber`'s formatters, log files and
/// the tools built on `tracing` show trees (feature `tracing`).
///
/// Each event becomes one `tracing` event of target [`TRACING_TARGET`]: levels 1
/// and 2 (activations, endings, interrupts) at `DEBUG`, levels 3 to 6
/// (ticks, continues, guard verdicts, every node's status) at `TRACE`. Its
/// fields: `agent`, `now`, `event` (`activate`, `interrupt`, `end`,
/// `halted`, `none_accepted`, `redecide_limit`, `monitor_fired`,
/// `tick_start`, `tick_end`, `continue`, `guard`, `returned`,
/// `enter_subtree`, `reset`), the node (`tree`, `node` (its id), `kind`,
/// `label` when it has one), and where they apply `status`, `child` (a
/// child's label, or its kind and id), `by`, `accepted`, `score` and
/// `rejected_by` (a rejecting clause's text).
///
/// With [`with_tick_spans`](ToTracing::with_tick_spans) (and the `std`
/// feature), each traced tick is also a span, `tick`, with the agent, the
/// tree and the time: the tick's events are inside it, and an embedded
/// tree's tick is a span inside its parent's. Spans need level 3 or more
/// (a tick's start and end) and `TRACE` enabled; they cost more than the
/// events, so they are off by default.
///
/// The subscriber decides: once per tick the hook asks whether `DEBUG` and
/// `TRACE` events of its target are enabled, and a tree builds no event the
/// subscriber would drop. With no subscriber, or one that filters the
/// target out, a tick costs one check of `tracing`'s global level
/// (`BENCHMARKS-deciders.md`, row `bt-tracing-filtered-out`).
///
/// ```
/// use bt_runtime::trace::{ToTracing, STATUSES};
/// use bt_runtime::{Ctx, NoFlags};
/// // Every event up to every node's status, of agent 7 only.
/// let hook = ToTracing::new(STATUSES).only_agent(7);
/// let cx = Ctx::<NoFlags>::new(0.0, 0.1).agent(7).trace(hook);
/// # let _ = cx;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ToTracing {
    level: u8,
    agent: Option<u64>,
    /// Ticks as spans too ([`with_tick_spans`](ToTracing::with_tick_spans)).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    spans: bool,
}

impl ToTracing {
    /// Events up to trace level `level` (1 to 6, see
    /// [`trace`](crate::trace)), of every agent.
    pub const fn new(level: u8) -> ToTracing {
        ToTracing {
            level,
            agent: None,
            spans: false,
        }
    }

    /// Each traced tick is a `tick` span too (see [`ToTracing`]).
    #[cfg(feature = "std")]
    pub const fn with_tick_spans(mut self) -> ToTracing {
        self.spans = true;
        self
    }

    /// Only `agent`'s events.
    pub const fn only_agent(mut self, agent: u64) -> ToTracing {
        self.agent = Some(agent);
        self
    }

    /// The highest level the subscriber takes for `agent`. `tracing`'s
    /// global level first: one atomic load when it says no.
    #[inline(always)]
    fn wanted(&self, agent: u64) -> u8 {
        if !tracing::level_enabled!(Level::DEBUG)
            || self.agent.is_some_and(|only| only != agent)
            || !tracing::enabled!(target: TRACING_TARGET, Level::DEBUG)
        {
            0
        } else if tracing::enabled!(target: TRACING_TARGET, Level::TRACE) {
            self.level
        } else {
            self.level.min(ENDINGS)
        }
    }
}

impl Trace for ToTracing {
    #[inline]
    fn level(&self, agent: u64) -> u8 {
        self.wanted(agent)
    }

    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        self.wanted(agent) >= STATUSES
    }

    fn event(&self, e: &TraceEvent) {
        #[cfg(feature = "std")]
        if self.spans && matches!(e.what, Event::TickStart) {
            let span = tracing::trace_span!(
                target: TRACING_TARGET,
                "tick",
                agent = e.agent,
                tree = e.node.tree,
                now = e.now
            );
            TICKS.with_borrow_mut(|ticks| ticks.push(span.entered()));
        }
        self.emit(e);
        #[cfg(feature = "std")]
        if self.spans && matches!(e.what, Event::TickEnd(_)) {
            drop(TICKS.with_borrow_mut(|ticks| ticks.pop()));
        }
    }
}

#[cfg(feature = "std")]
std::thread_local! {
    /// The tick spans entered on this thread, innermost last: a tick
    /// starts and ends on one thread, an embedded tree's inside its
    /// parent's.
    static TICKS: core::cell::RefCell<std::vec::Vec<tracing::span::EnteredSpan>> =
        const { core::cell::RefCell::new(std::vec::Vec::new()) };
}

impl ToTracing {
    /// `e` as one `tracing` event.
    fn emit(&self, e: &TraceEvent) {
        let n = e.node;
        let (what, status, child, by): (&str, Option<Status>, Option<_>, Option<_>) = match e.what {
            Event::TickStart => ("tick_start", None, None, None),
            Event::TickEnd(s) => ("tick_end", Some(s), None, None),
            Event::Activate { child } => ("activate", None, Some(child), None),
            Event::Interrupt { child, by } => ("interrupt", None, Some(child), Some(by)),
            Event::Halted => ("halted", None, None, None),
            Event::End { child, status } => ("end", Some(status), Some(child), None),
            Event::NoneAccepted => ("none_accepted", None, None, None),
            Event::RedecideLimit => ("redecide_limit", None, None, None),
            Event::MonitorFired { monitor } => ("monitor_fired", None, Some(monitor), None),
            Event::Continue { child, .. } => ("continue", None, Some(child), None),
            Event::Returned(s) => ("returned", Some(s), None, None),
            Event::EnterSubtree => ("enter_subtree", None, None, None),
            Event::Reset => ("reset", None, None, None),
            Event::TreeVersion { .. } => ("tree_version", None, None, None),
            Event::Guard { child, .. } => ("guard", None, Some(child), None),
        };
        let (accepted, score, rejected_by) = match e.what {
            Event::Guard {
                verdict: Verdict::Accepted(score),
                ..
            } => (Some(true), Some(f64::from(score)), None),
            Event::Guard {
                verdict: Verdict::Rejected(clause),
                ..
            } => (Some(false), None, Some(clause)),
            _ => (None, None, None),
        };
        let status = status.map(|s| match s {
            Status::Running => "running",
            Status::Success => "success",
            Status::Failure => "failure",
        });
        let child = child.map(Named);
        let by = by.map(Named);
        macro_rules! emit {
            ($level:expr) => {
                tracing::event!(
                    target: TRACING_TARGET,
                    $level,
                    agent = e.agent,
                    now = e.now,
                    event = what,
                    tree = n.tree,
                    node = n.id,
                    kind = n.kind.keyword(),
                    label = n.label,
                    status,
                    child = child.as_ref().map(tracing::field::display),
                    by = by.as_ref().map(tracing::field::display),
                    accepted,
                    score,
                    rejected_by,
                    "{what}"
                )
            };
        }
        if e.level <= ENDINGS {
            emit!(Level::DEBUG);
        } else {
            emit!(Level::TRACE);
        }
    }
}

/// A node as a field: its label, or its kind and id.
struct Named(&'static NodeInfo);

impl core::fmt::Display for Named {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0.label {
            Some(label) => f.write_str(label),
            None => write!(f, "{}#{}", self.0.kind.keyword(), self.0.id),
        }
    }
}
