//! Testing trees: force nodes, stop at breakpoints, follow the trace, and
//! measure coverage.
//!
//! Everything here is a [`Trace`] hook, attached to the tick context the
//! test builds (`Ctx::new(now, dt).trace(&hook)`), so a tree under test is
//! the same compiled code as in the program: the hook points are there in
//! every tree whose context can trace (`Ctx<D, S, impl Trace>`), and cost
//! nothing when the attached hook's [`Trace::HOOKS`] is `false`. Hooks
//! combine as pairs: `cx.trace(&(&force, &log))`.
//!
//! - [`Force`]: make a node return a status instead of running, by label or
//!   id, once, for a number of runs, until cleared, or by a script.
//! - [`Breakpoints`]: block the ticking thread before or after a node until
//!   another thread releases it, with a timeout.
//! - [`Log`]: the trace as lines, compared with the lines a test expects by
//!   [`assert_lines`], which prints a diff.
//! - [`Coverage`]: the nodes a set of runs never ran, never saw succeed or
//!   never saw fail.
//!
//! The `bt` crate's reference ("Testing trees") shows them at work.

use crate::node::NodeInfo;
use crate::status::Status;
use crate::trace::{STATUSES, Trace, TraceEvent};
use crate::tree::BehaviorTree;
use std::collections::VecDeque;
use std::string::{String, ToString};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;
use std::vec::Vec;
use std::{format, vec};

/// A mistake in setting up a test hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestingError {
    /// No node of the tree has this label.
    UnknownLabel {
        /// The tree searched.
        tree: &'static str,
        /// The label asked for.
        label: String,
        /// The tree's labels.
        labels: Vec<&'static str>,
    },
    /// The tree has no node with this id.
    UnknownId {
        /// The tree searched.
        tree: &'static str,
        /// The id asked for.
        id: usize,
        /// How many nodes the tree has.
        nodes: usize,
    },
    /// The node belongs to another tree than the one the hook is for.
    OtherTree {
        /// The tree the hook is for.
        tree: &'static str,
        /// The node given.
        node: &'static NodeInfo,
    },
    /// `Running` for a node that can never run (a `cond`, an `instant`,
    /// a composite of such): its parent could not hold it running.
    CannotRun {
        /// The node.
        node: &'static NodeInfo,
    },
}

impl core::fmt::Display for TestingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TestingError::UnknownLabel {
                tree,
                label,
                labels,
            } => write!(
                f,
                "tree `{tree}` has no node labelled '{label}; its labels: {}",
                if labels.is_empty() {
                    "none".to_string()
                } else {
                    labels
                        .iter()
                        .map(|l| format!("'{l}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            TestingError::UnknownId { tree, id, nodes } => write!(
                f,
                "tree `{tree}` has no node {id}: its nodes are 0 to {}",
                nodes.saturating_sub(1)
            ),
            TestingError::OtherTree { tree, node } => write!(
                f,
                "node {} ({}) is a node of tree `{}`, not of `{tree}`",
                node.id,
                node.name(),
                node.tree
            ),
            TestingError::CannotRun { node } => write!(
                f,
                "node {} ({}) of `{}` can never run, so it cannot be made to return `Running`",
                node.id,
                node.name(),
                node.tree
            ),
        }
    }
}

impl std::error::Error for TestingError {}

/// A node of tree `T`, named the ways a test names one: its label (`"flee"`,
/// without the quote), its id in the node table, or its [`NodeInfo`].
pub trait NodeRef {
    /// The node of `T` this names.
    fn resolve<T: BehaviorTree>(&self) -> Result<&'static NodeInfo, TestingError>;
}

impl NodeRef for &str {
    fn resolve<T: BehaviorTree>(&self) -> Result<&'static NodeInfo, TestingError> {
        let label = self.trim_start_matches('\'');
        T::NODES
            .iter()
            .find(|n| n.label == Some(label))
            .ok_or_else(|| TestingError::UnknownLabel {
                tree: T::NAME,
                label: label.to_string(),
                labels: T::NODES.iter().filter_map(|n| n.label).collect(),
            })
    }
}

impl NodeRef for usize {
    fn resolve<T: BehaviorTree>(&self) -> Result<&'static NodeInfo, TestingError> {
        T::NODES.get(*self).ok_or(TestingError::UnknownId {
            tree: T::NAME,
            id: *self,
            nodes: T::NODES.len(),
        })
    }
}

impl NodeRef for &'static NodeInfo {
    fn resolve<T: BehaviorTree>(&self) -> Result<&'static NodeInfo, TestingError> {
        if T::NODES.iter().any(|n| same(n, self)) {
            Ok(self)
        } else {
            Err(TestingError::OtherTree {
                tree: T::NAME,
                node: self,
            })
        }
    }
}

/// Locks `m`; a test that panicked while holding it leaves what it held,
/// which is still what the hook knows.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `a` and `b` are the same node. (Not by address: a node table
/// is a constant, which may be copied where it is used.)
fn same(a: &NodeInfo, b: &NodeInfo) -> bool {
    a.id == b.id && a.tree == b.tree && a.line == b.line && a.column == b.column
}

/// What a forced node returns, run after run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forced {
    statuses: VecDeque<Status>,
    /// After the script: this status for every later run, or the node runs
    /// again.
    then: Option<Status>,
}

impl Forced {
    /// `status` every time the node is reached, until cleared.
    pub fn always(status: Status) -> Forced {
        Forced {
            statuses: VecDeque::new(),
            then: Some(status),
        }
    }

    /// `status` the next time the node is reached; then it runs again.
    pub fn once(status: Status) -> Forced {
        Forced::times(1, status)
    }

    /// `status` the next `runs` times the node is reached; then it runs
    /// again.
    pub fn times(runs: usize, status: Status) -> Forced {
        Forced {
            statuses: core::iter::repeat_n(status, runs).collect(),
            then: None,
        }
    }

    /// These statuses, one each time the node is reached, in order (a mock
    /// action: `[Running, Running, Success]`); then it runs again.
    pub fn script(statuses: impl IntoIterator<Item = Status>) -> Forced {
        Forced {
            statuses: statuses.into_iter().collect(),
            then: None,
        }
    }

    /// After the script, `status` every time, until cleared.
    pub fn then_always(mut self, status: Status) -> Forced {
        self.then = Some(status);
        self
    }

    fn any_running(&self) -> bool {
        self.statuses
            .iter()
            .chain(&self.then)
            .any(|s| s.is_running())
    }

    /// The status for this run, if the node is still forced.
    fn next(&mut self) -> Option<Status> {
        self.statuses.pop_front().or(self.then)
    }

    fn spent(&self) -> bool {
        self.statuses.is_empty() && self.then.is_none()
    }
}

/// Forces nodes of tree `T` (and of no other) to return statuses instead
/// of running: a node hook ([`Trace::before`]) that replaces them.
///
/// A forced node does not run; what its state becomes is the hook rule of
/// the reference ("Halting and resetting"): a node left finished is halted
/// if it was running, a node left `Running` is held. By default every
/// agent ticked with it is forced; [`only_agent`](Self::only_agent) narrows
/// it to one. Its statuses are used up run by run, a run being each time
/// the tree reaches the node. It is `Sync`: one `Force` serves agents
/// ticked on several threads. Nodes of a tree `T` embeds are forced by a
/// `Force` of that tree, attached beside this one as a pair.
#[derive(Debug)]
pub struct Force<T> {
    nodes: Mutex<Vec<(&'static NodeInfo, Forced)>>,
    agent: Option<u64>,
    tree: core::marker::PhantomData<fn() -> T>,
}

impl<T: BehaviorTree> Default for Force<T> {
    fn default() -> Self {
        Force::new()
    }
}

impl<T: BehaviorTree> Force<T> {
    /// Forces nothing yet.
    pub fn new() -> Force<T> {
        Force {
            nodes: Mutex::new(Vec::new()),
            agent: None,
            tree: core::marker::PhantomData,
        }
    }

    /// Forces only `agent`'s nodes.
    pub fn only_agent(mut self, agent: u64) -> Force<T> {
        self.agent = Some(agent);
        self
    }

    fn nodes(&self) -> MutexGuard<'_, Vec<(&'static NodeInfo, Forced)>> {
        lock(&self.nodes)
    }

    /// Forces `node`, replacing what it was forced to before. An error if
    /// `T` has no such node, or the statuses include `Running` for a node
    /// that can never run.
    pub fn set(&self, node: impl NodeRef, forced: Forced) -> Result<&Self, TestingError> {
        let node = node.resolve::<T>()?;
        if forced.any_running() && !node.can_run {
            return Err(TestingError::CannotRun { node });
        }
        let mut nodes = self.nodes();
        nodes.retain(|(n, _)| !same(n, node));
        nodes.push((node, forced));
        Ok(self)
    }

    /// Lets `node` run again.
    pub fn clear(&self, node: impl NodeRef) -> Result<&Self, TestingError> {
        let node = node.resolve::<T>()?;
        self.nodes().retain(|(n, _)| !same(n, node));
        Ok(self)
    }

    /// Lets every node run again.
    pub fn clear_all(&self) {
        self.nodes().clear();
    }

    /// Whether `node` is still forced (a script not used up).
    pub fn is_forced(&self, node: impl NodeRef) -> Result<bool, TestingError> {
        let node = node.resolve::<T>()?;
        Ok(self.nodes().iter().any(|(n, _)| same(n, node)))
    }
}

impl<T: BehaviorTree> Trace for Force<T> {
    const HOOKS: bool = true;

    fn level(&self, _: u64) -> u8 {
        0
    }

    fn event(&self, _: &TraceEvent) {}

    fn hooks(&self, agent: u64) -> bool {
        self.agent.is_none_or(|only| only == agent) && !self.nodes().is_empty()
    }

    fn before(&self, _: u64, node: &'static NodeInfo) -> Option<Status> {
        let mut nodes = self.nodes();
        let at = nodes.iter().position(|(n, _)| same(n, node))?;
        let status = nodes[at].1.next();
        if nodes[at].1.spent() {
            nodes.remove(at);
        }
        status
    }
}

/// When a breakpoint stops the tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum When {
    /// Before the node runs: nothing of it has started.
    Before,
    /// After it returned, before its parent sees the status.
    After,
}

/// A tick stopped at a breakpoint, as [`Breakpoints::wait_for_stop`]
/// reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stop {
    /// Number of this stop, to release it by.
    pub id: u64,
    /// The agent whose tick stopped.
    pub agent: u64,
    /// The node.
    pub node: &'static NodeInfo,
    /// Before or after it ran.
    pub when: When,
    /// After: the status it returned.
    pub status: Option<Status>,
}

/// A mistake in releasing a breakpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakpointError {
    /// This stop was released already.
    AlreadyReleased(u64),
    /// No tick stopped with this number.
    NoSuchStop(u64),
    /// The stop timed out: its tick went on without a release.
    TimedOut(u64),
}

impl core::fmt::Display for BreakpointError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BreakpointError::AlreadyReleased(id) => write!(f, "stop {id} was released already"),
            BreakpointError::NoSuchStop(id) => write!(f, "no tick stopped as stop {id}"),
            BreakpointError::TimedOut(id) => {
                write!(f, "stop {id} timed out: its tick went on unreleased")
            }
        }
    }
}

impl std::error::Error for BreakpointError {}

/// What became of a stop.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fate {
    /// Waiting for its release.
    Waiting,
    /// Released, with the status the node returns if one was given.
    Released(Option<Status>),
    /// Gone on by itself after the timeout.
    TimedOut,
}

/// A stop, what became of it, and whether `wait_for_stop` reported it.
type Listed = (Stop, Fate, bool);

#[derive(Debug, Default)]
struct Points {
    set: Vec<(&'static NodeInfo, When, Option<u64>)>,
    stops: Vec<Listed>,
    next: u64,
}

/// Breakpoints on nodes: a tick that reaches one blocks its thread until
/// another thread [`release`](Self::release)s it (as Groot2's breakpoints
/// stop BehaviorTree.CPP), or until the timeout given to
/// [`new`](Self::new) passes, after which the node runs as if no
/// breakpoint were set.
///
/// A stop before a node comes before anything of it started; a stop after
/// comes once the node and everything below it finished their tick, before
/// its parent sees its status. Releasing may give the status the node
/// returns instead (before: the node does not run; after: its status is
/// replaced).
#[derive(Debug)]
pub struct Breakpoints {
    points: Mutex<Points>,
    changed: Condvar,
    timeout: Duration,
}

impl Breakpoints {
    /// No breakpoints yet; a stopped tick waits at most `timeout` for its
    /// release.
    pub fn new(timeout: Duration) -> Breakpoints {
        Breakpoints {
            points: Mutex::new(Points::default()),
            changed: Condvar::new(),
            timeout,
        }
    }

    fn points(&self) -> MutexGuard<'_, Points> {
        lock(&self.points)
    }

    /// Stops every agent's tick at `node` (of tree `T`), `when`.
    pub fn add<T: BehaviorTree>(&self, node: impl NodeRef, when: When) -> Result<(), TestingError> {
        let node = node.resolve::<T>()?;
        self.points().set.push((node, when, None));
        Ok(())
    }

    /// Stops only `agent`'s tick at `node`, `when`.
    pub fn add_for_agent<T: BehaviorTree>(
        &self,
        node: impl NodeRef,
        when: When,
        agent: u64,
    ) -> Result<(), TestingError> {
        let node = node.resolve::<T>()?;
        self.points().set.push((node, when, Some(agent)));
        Ok(())
    }

    /// Removes every breakpoint (ticks stopped now still wait for their
    /// release).
    pub fn clear(&self) {
        self.points().set.clear();
    }

    /// Waits at most `timeout` for a tick to stop at a breakpoint, and
    /// reports the oldest stop not reported before (one that timed out
    /// meanwhile too).
    pub fn wait_for_stop(&self, timeout: Duration) -> Option<Stop> {
        let points = self.points();
        let (mut points, _) = self
            .changed
            .wait_timeout_while(points, timeout, |p| !p.stops.iter().any(|s| !s.2))
            .unwrap_or_else(|e| e.into_inner());
        let (stop, _, reported) = points.stops.iter_mut().find(|s| !s.2)?;
        *reported = true;
        Some(*stop)
    }

    /// Lets stop `id` go on: the node runs (before) or its status stands
    /// (after), or with `Some(status)`, the node returns `status` instead.
    pub fn release(&self, id: u64, status: Option<Status>) -> Result<(), BreakpointError> {
        let mut points = self.points();
        let (_, fate, _) = points
            .stops
            .iter_mut()
            .find(|s| s.0.id == id)
            .ok_or(BreakpointError::NoSuchStop(id))?;
        match *fate {
            Fate::Waiting => *fate = Fate::Released(status),
            Fate::Released(_) => return Err(BreakpointError::AlreadyReleased(id)),
            Fate::TimedOut => return Err(BreakpointError::TimedOut(id)),
        }
        drop(points);
        self.changed.notify_all();
        Ok(())
    }

    /// Blocks at `node` if a breakpoint says so; the status the release
    /// gave.
    fn stop(
        &self,
        agent: u64,
        node: &'static NodeInfo,
        when: When,
        status: Option<Status>,
    ) -> Option<Status> {
        let mut points = self.points();
        let hit = points
            .set
            .iter()
            .any(|&(n, w, a)| same(n, node) && w == when && a.is_none_or(|a| a == agent));
        if !hit {
            return None;
        }
        points.next += 1;
        let id = points.next;
        let stop = Stop {
            id,
            agent,
            node,
            when,
            status,
        };
        points.stops.push((stop, Fate::Waiting, false));
        self.changed.notify_all();
        let fate = |p: &Points| p.stops.iter().find(|s| s.0.id == id).map(|s| s.1);
        let (mut points, _) = self
            .changed
            .wait_timeout_while(points, self.timeout, |p| fate(p) == Some(Fate::Waiting))
            .unwrap_or_else(|e| e.into_inner());
        let entry = points
            .stops
            .iter_mut()
            .find(|s| s.0.id == id)
            .expect("a stop stays listed");
        match entry.1 {
            Fate::Released(status) => status,
            _ => {
                entry.1 = Fate::TimedOut;
                None
            }
        }
    }
}

impl Trace for Breakpoints {
    const HOOKS: bool = true;

    fn level(&self, _: u64) -> u8 {
        0
    }

    fn event(&self, _: &TraceEvent) {}

    fn hooks(&self, agent: u64) -> bool {
        self.points()
            .set
            .iter()
            .any(|&(_, _, a)| a.is_none_or(|a| a == agent))
    }

    fn before(&self, agent: u64, node: &'static NodeInfo) -> Option<Status> {
        self.stop(agent, node, When::Before, None)
    }

    fn after(&self, agent: u64, node: &'static NodeInfo, status: Status) -> Status {
        self.stop(agent, node, When::After, Some(status))
            .unwrap_or(status)
    }
}

/// The trace as lines a test can write down: one line per event up to a
/// level, `n3 'flee returned Success` (level 6), `n0 activate n2 'eat`
/// (level 1), ..., with the tick's time when [`with_time`](Self::with_time)
/// asks. [`assert_lines`] compares them with the expected ones.
#[derive(Debug)]
pub struct Log {
    level: u8,
    time: bool,
    lines: Mutex<Vec<String>>,
}

impl Log {
    /// Events up to `level` (1 to 6, see [`trace`](crate::trace)).
    pub fn new(level: u8) -> Log {
        Log {
            level,
            time: false,
            lines: Mutex::new(Vec::new()),
        }
    }

    /// Each line starts with the tick's time: `t=0.5 n3 ...`.
    pub fn with_time(mut self) -> Log {
        self.time = true;
        self
    }

    /// The lines since the last call.
    pub fn take(&self) -> Vec<String> {
        core::mem::take(&mut *lock(&self.lines))
    }
}

/// `n3 'flee`, or `n3 (cond me.hurt())` without a label.
fn name(node: &NodeInfo) -> String {
    match node.label {
        Some(label) => format!("n{} '{label}", node.id),
        None => format!("n{} ({})", node.id, node.detail),
    }
}

impl Trace for Log {
    fn level(&self, _: u64) -> u8 {
        self.level
    }

    fn event(&self, event: &TraceEvent) {
        use crate::trace::Event;
        let what = match event.what {
            Event::Returned(status) => format!("returned {status:?}"),
            Event::Activate { child } => format!("activate {}", name(child)),
            Event::Interrupt { child, by } => {
                format!("interrupt {} by {}", name(child), name(by))
            }
            Event::End { child, status } => format!("end {} {status:?}", name(child)),
            Event::TickStart => "tick starts".to_string(),
            Event::TickEnd(status) => format!("tick ends {status:?}"),
            other => format!("{other:?}"),
        };
        let at = name(event.node);
        let line = if self.time {
            format!("t={} {at} {what}", event.now)
        } else {
            format!("{at} {what}")
        };
        lock(&self.lines).push(line);
    }
}

/// The active path of `state` as lines for [`assert_lines`]: one per node
/// that holds a place to resume from, parents first, indented two spaces
/// per depth (`n0 'root`, `  n4 'patrol`); no lines when it is idle.
pub fn active_lines<T: BehaviorTree>(state: &T) -> Vec<String> {
    state
        .active_path()
        .iter()
        .map(|n| format!("{:indent$}{}", "", name(n.info), indent = 2 * n.depth))
        .collect()
}

/// Asserts that `actual` are the `expected` lines (each trimmed; blank
/// expected lines are skipped, so a raw string can be indented), and on a
/// difference panics with both, marked line by line: `-` expected but
/// missing, `+` there but not expected.
#[track_caller]
pub fn assert_lines<S: AsRef<str>>(actual: &[S], expected: &str) {
    let actual: Vec<&str> = actual.iter().map(|l| l.as_ref().trim()).collect();
    let expected: Vec<&str> = expected
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if actual == expected {
        return;
    }
    panic!(
        "the lines differ (- expected, + actual):\n{}",
        diff(&expected, &actual)
    );
}

/// A line diff of `a` to `b`, by their longest common subsequence.
fn diff(a: &[&str], b: &[&str]) -> String {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out += &format!("  {}\n", a[i]);
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out += &format!("- {}\n", a[i]);
            i += 1;
        } else {
            out += &format!("+ {}\n", b[j]);
            j += 1;
        }
    }
    out
}

/// Per node of tree `T`, how often it returned each status over a set of
/// runs: attach it to every tick of the runs (it follows statuses, trace
/// level 6), then ask which nodes never ran, never succeeded or never
/// failed.
#[derive(Debug)]
pub struct Coverage<T> {
    counts: Mutex<Vec<[u64; 3]>>,
    tree: core::marker::PhantomData<fn() -> T>,
}

impl<T: BehaviorTree> Default for Coverage<T> {
    fn default() -> Self {
        Coverage::new()
    }
}

impl<T: BehaviorTree> Coverage<T> {
    /// Nothing counted yet.
    pub fn new() -> Coverage<T> {
        Coverage {
            counts: Mutex::new(vec![[0; 3]; T::NODES.len()]),
            tree: core::marker::PhantomData,
        }
    }

    fn counts(&self) -> Vec<[u64; 3]> {
        lock(&self.counts).clone()
    }

    fn select(&self, keep: impl Fn(&[u64; 3]) -> bool) -> Vec<&'static NodeInfo> {
        T::NODES
            .iter()
            .zip(self.counts())
            .filter(|(_, c)| keep(c))
            .map(|(n, _)| n)
            .collect()
    }

    /// How many times `node` returned `status`.
    pub fn count(&self, node: impl NodeRef, status: Status) -> Result<u64, TestingError> {
        let node = node.resolve::<T>()?;
        Ok(self.counts()[node.id][status as usize])
    }

    /// The nodes that never returned a status.
    pub fn never_ran(&self) -> Vec<&'static NodeInfo> {
        self.select(|c| c.iter().all(|&n| n == 0))
    }

    /// The nodes that never returned `Success`.
    pub fn never_succeeded(&self) -> Vec<&'static NodeInfo> {
        self.select(|c| c[Status::Success as usize] == 0)
    }

    /// The nodes that never returned `Failure`.
    pub fn never_failed(&self) -> Vec<&'static NodeInfo> {
        self.select(|c| c[Status::Failure as usize] == 0)
    }

    /// Panics, naming them, if some nodes never ran.
    #[track_caller]
    pub fn assert_all_ran(&self) {
        let missed = self.never_ran();
        assert!(
            missed.is_empty(),
            "nodes of `{}` that never ran: {}",
            T::NAME,
            names(&missed)
        );
    }

    /// Panics, naming them, if some of `nodes` never succeeded or never
    /// failed.
    #[track_caller]
    pub fn assert_both_outcomes(&self, nodes: &[&str]) -> Result<(), TestingError> {
        let mut missed = Vec::new();
        for label in nodes {
            let node = label.resolve::<T>()?;
            let c = self.counts()[node.id];
            for (status, what) in [
                (Status::Success, "never succeeded"),
                (Status::Failure, "never failed"),
            ] {
                if c[status as usize] == 0 {
                    missed.push(format!("{} {what}", name(node)));
                }
            }
        }
        assert!(missed.is_empty(), "in `{}`: {}", T::NAME, missed.join(", "));
        Ok(())
    }
}

/// `n3 'flee (line 12), n5 (cond me.hurt()) (line 14)`.
fn names(nodes: &[&'static NodeInfo]) -> String {
    nodes
        .iter()
        .map(|n| format!("{} (line {})", name(n), n.line))
        .collect::<Vec<_>>()
        .join(", ")
}

impl<T: BehaviorTree> Trace for Coverage<T> {
    fn level(&self, _: u64) -> u8 {
        0
    }

    fn statuses(&self, _: u64) -> bool {
        true
    }

    fn event(&self, event: &TraceEvent) {
        if event.level != STATUSES {
            return;
        }
        if let crate::trace::Event::Returned(status) = event.what
            && event.node.tree == T::NAME
            && let Some(c) = lock(&self.counts).get_mut(event.node.id)
        {
            c[status as usize] += 1;
        }
    }
}
