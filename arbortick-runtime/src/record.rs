//! Recording, per agent, every status transition of every node, and
//! writing it as a BehaviorTree.CPP `.btlog` file or as JSON lines.
//!
//! A [`Recorder`] is a [`Trace`] hook: put it in the tick context
//! (`Ctx::new(now, dt).trace(&recorder)`, or your own [`Context`]) and the
//! tree reports the status each node returns (trace level
//! [`STATUSES`], through [`Trace::statuses`]).
//! With [`NoTrace`](crate::NoTrace) none of that code exists, so recording
//! costs nothing when it is not attached.
//!
//! # What is recorded
//!
//! Each node has a status: idle, running, success or failure, changing as
//! BehaviorTree.CPP's nodes change theirs, so a recording reads like (and is
//! compared in tests with) a BT.CPP log of the same run:
//! - a node with children becomes running when it ticks one of them (so a
//!   `run_once` that only repeats how it ended goes from idle straight to
//!   that status, as BT.CPP's `RunOnce` does), except a `precondition`,
//!   which changes only when it returns (after its child, as BT.CPP's
//!   `Precondition`); every node takes the status it returns;
//! - a node that finishes first returns its children to idle (in child
//!   order; a running one is halted, its own children first), then takes
//!   its status;
//! - a finished child goes back to idle at once under a node with one child
//!   (decorators, subtree nodes), and when the parent finishes under the
//!   others (a `sequence` keeps its succeeded children until it finishes;
//!   a `sequence_with_memory` that fails keeps them until it succeeds or
//!   is halted, since it resumes after them);
//! - a `reactive_sequence` or `reactive_select` whose child runs returns
//!   its other children to idle (halting a later one that was running);
//!   decider groups and `switch` do so when they enter another child, and
//!   `while_do_else` when it enters the other branch;
//! - the root goes back to idle right after it finishes; `reset` and a
//!   firing `monitor` return every node of the tree to idle.
//!
//! Transitions carry the tick's time ([`Context::now`]) and the node's uid
//! in the tree with its subtrees expanded (see [`view`](crate::view)): the
//! same numbers as [`BehaviorTree::BTCPP_INSTANCE_XML`]. A tree reports
//! through its tick context, so a tree without a context binding records
//! nothing, and the nodes inside an embedded tree are recorded when that
//! tree has a context binding too (pass it the same context).
//!
//! # Memory
//!
//! Each agent gets, when the recorder is built, a ring of `capacity`
//! transitions of 16 bytes each ([`Transition`]), one status byte per node,
//! a stack as deep as subtrees nest, a log of 256 four-byte codes and 64
//! bytes for the thread that ticks it (see below). Recording allocates
//! nothing after that; when the ring is full the oldest transitions are
//! dropped and counted ([`Recorder::dropped`]).
//! [`Recorder::bytes_per_agent`] says how much that is. On Linux the
//! agents' logs and headers are allocated asking the kernel for huge pages
//! (`madvise`, a hint: it applies where transparent huge pages are set to
//! `madvise` or `always`, to allocations of 2 MiB and more). A recorder of a
//! tree without subtrees and of at most 63 nodes also holds, for all its
//! agents, a table of 4,096 worked-out statuses (160 KiB), one of
//! 4,096 worked-out ticks (512 KiB; see below) and the last 4,096 times
//! agents were ticked at (32 KiB).
//!
//! # Cost
//!
//! Attached, each node a tick reaches reports its status, and nothing
//! else: the recorder asks for no events of levels 1 to 5 (a firing
//! `monitor` reaches it anyway). The thread ticking the agent writes into
//! the agent's log, without a lock; the statuses are worked out, by
//! BehaviorTree.CPP's rules, when the log is full (every few dozen to a
//! few hundred ticks) or when something reads the recording, under the
//! agent's lock (uncontended: an agent is ticked by one thread at a
//! time). Reading an agent's recording while another thread ticks it is
//! safe, and sees it as of the last tick logged. [`Recorder::drain`],
//! called from a thread of your own (once a frame, say), folds the logs
//! past half full there instead, so that the ticking threads only log.
//!
//! What a status that changes something makes of the statuses before it
//! (which nodes go back to idle, in what order) depends on nothing else,
//! and so does what a whole tick makes. A tree's agents meet the same few
//! situations again and again, so in a tree without subtrees and of at
//! most 63 nodes (whose statuses fit two words) they are worked out by the
//! rules once, kept in tables shared by every agent and thread (filled
//! without a lock, each entry once), and replayed from there after:
//! - the generated tick gathers its statuses in a local integer and sends
//!   them at its end ([`Trace::GATHERS`], [`Trace::gathered`]);
//! - the recorder finds the tick in its table by the statuses before it
//!   (which the ticking thread keeps) and logs one 4-byte code for it,
//!   the tick's time in it as a 12-bit number of the recorder's last
//!   times (agents are ticked at few times at once); a tick that changes
//!   nothing (the same node running on, say) is only counted, and a run
//!   of the same such ticks is one code, or, when at most 15 of them come
//!   just before a tick that changes something, a count in that tick's
//!   code;
//! - folding the log replays the transitions of each tick, and only sets
//!   the statuses of ticks whose transitions the ring would drop anyway.
//!
//! Otherwise (a larger tree, subtrees, a part of a tick of 16 statuses
//! that makes more than 64 transitions, a hook that takes statuses one by
//! one such as a pair of hooks, the hot-reload engine, the ticks after an
//! event other than a status), each status is logged as one 4-byte code
//! (the node, the status, and the tick's time before the first code of a
//! new time) and worked out when folded, a status that changes nothing (a
//! node running on under a parent that keeps it, a leaf that ends again
//! as it did) in a few compares.
//!
//! The newest codes are written beside the log's counters, 16 of them,
//! and move to the agent's ring 16 at a time: ticking many agents in turn
//! writes into memory read in order, not into a line of each agent's
//! ring.
//!
//! On the decider benchmark (`BENCHMARKS-deciders.md`, row `bt-recorder`),
//! where the senses change every tick so that children interrupt each
//! other and finish often, that is about 145 instructions per agent-tick
//! against 60 without it (`tick_count`, in `bt-bench`): timed in
//! alternation with the tree alone, 1.7 to 1.9 times the tree's time at
//! 1,000 agents and 1.9 to 2.15 times at 100,000 agents, where the agents'
//! logs no longer fit the caches (2.3 with 4 KiB pages: a block's move to
//! its ring is then mostly finding the page). It is measured in time
//! there, and on the reference trees in `BENCHMARKS.md`. With the logs
//! folded on another thread ([`Recorder::drain`], row
//! `bt-recorder-drained`), the ticking thread's time at 100,000 agents is
//! about 2 times the tree's, and the draining thread spends 4 to 6 ns per
//! agent-tick; at 1,000 agents, whose
//! recordings fit the ticking core's caches, draining costs the ticking
//! thread more than it saves (the lines a fold reads move between cores).

//! # Guards, values and the page
//!
//! [`Recorder::with_guards`] also keeps each decider child's guard check
//! (accepted, or the clause that rejected), and [`Recorder::with_notes`]
//! keeps short values attached with [`Recorder::note`]. [`Recorder::write_html`]
//! writes everything as one self-contained page to scrub through.
//!
//! The `bt` crate's reference has an example ("Views and recording").
//!
//! # Hot reload
//!
//! A tree running a reloaded version of its source on the hot-reload
//! engine (the `bt` crate's `hot` module) says so at the start of each
//! tick ([`Event::TreeVersion`]). When an agent moves to a version whose
//! nodes differ from those it is recorded in, the recorder lays its
//! history out by that version from then on: every node starts idle, the
//! transitions, guard checks and notes kept so far are dropped (their uids
//! are the old tree's), and its `.btlog` holds the new version's XML.
//! Agents recorded in different versions are written to separate files
//! ([`RecordError::Versions`]); [`Recorder::nodes_of`] gives the size of
//! the tree an agent runs. The events of a reloaded version always take
//! the agent's lock (they are not logged). Each reloaded version laid out
//! is kept for the process, as the engine keeps its views.
//!
//! [`Context`]: crate::Context
//! [`Context::now`]: crate::Context::now
//! [`BehaviorTree::BTCPP_INSTANCE_XML`]: crate::BehaviorTree::BTCPP_INSTANCE_XML

use crate::node::{ChildrenReset as Rule, NodeInfo, NodeKind};
use crate::status::Status;
use crate::trace::{Event, GUARDS, Gathered, STATUSES, Trace, TraceEvent, Verdict};
use crate::tree::BehaviorTree;
use crate::view::{Form, TreeView, expand};
use std::boxed::Box;
use std::io::{self, Write};
use std::string::String;
use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
    fence,
};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::vec::Vec;

/// A node's status in a recording, with BehaviorTree.CPP's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NodeStatus {
    /// Not started, or returned to idle by its parent.
    Idle = 0,
    /// Ticked and not finished.
    Running = 1,
    /// Finished with success.
    Success = 2,
    /// Finished with failure.
    Failure = 3,
}

impl NodeStatus {
    /// The name used in JSON lines: `idle`, `running`, `success`, `failure`.
    pub fn name(self) -> &'static str {
        match self {
            NodeStatus::Idle => "idle",
            NodeStatus::Running => "running",
            NodeStatus::Success => "success",
            NodeStatus::Failure => "failure",
        }
    }

    fn is_done(self) -> bool {
        matches!(self, NodeStatus::Success | NodeStatus::Failure)
    }
}

impl From<Status> for NodeStatus {
    fn from(status: Status) -> Self {
        match status {
            Status::Running => NodeStatus::Running,
            Status::Success => NodeStatus::Success,
            Status::Failure => NodeStatus::Failure,
        }
    }
}

/// One recorded transition: 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transition {
    /// The tick's time, in seconds ([`Context::now`](crate::Context::now)).
    pub time: f64,
    /// The agent's tick it happened in, counted from 0 (a `reset` between
    /// ticks counts toward the next one).
    pub tick: u32,
    /// The node's uid (see [`view`](crate::view)).
    pub uid: u16,
    /// The status it changed to.
    pub status: NodeStatus,
}

/// A decider child's guard, checked (recorded with
/// [`Recorder::with_guards`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardCheck {
    /// The agent's tick.
    pub tick: u32,
    /// The decider group.
    pub group: u16,
    /// The child whose guard it is.
    pub child: u16,
    /// `None` when the guard accepted; the source text of the clause that
    /// rejected otherwise.
    pub rejected_at: Option<&'static str>,
}

/// A short value attached to an agent or a node at a tick
/// ([`Recorder::note`]): at most [`Note::CAPACITY`] bytes of text, stored
/// inline.
#[derive(Clone, Copy)]
pub struct Note {
    /// The agent's tick.
    pub tick: u32,
    /// The node, or 0 for the agent itself.
    pub uid: u16,
    len: u8,
    text: [u8; Note::CAPACITY],
}

impl Note {
    /// Bytes of text a note keeps; longer values are cut (at a character
    /// boundary) and end with `…`.
    pub const CAPACITY: usize = 56;

    /// The text.
    pub fn text(&self) -> &str {
        core::str::from_utf8(&self.text[..self.len as usize]).unwrap_or("")
    }
}

impl core::fmt::Debug for Note {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Note")
            .field("tick", &self.tick)
            .field("uid", &self.uid)
            .field("text", &self.text())
            .finish()
    }
}

/// Writes into a note's fixed buffer, cutting what does not fit.
struct NoteWriter<'a> {
    buf: &'a mut [u8; Note::CAPACITY],
    len: usize,
    cut: bool,
}

impl core::fmt::Write for NoteWriter<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        // Room for `…` (3 bytes) is kept once text is cut.
        for c in s.chars() {
            let n = c.len_utf8();
            if self.cut || self.len + n > Note::CAPACITY - 3 {
                self.cut = true;
                return Ok(());
            }
            c.encode_utf8(&mut self.buf[self.len..]);
            self.len += n;
        }
        Ok(())
    }
}

/// A ring of fixed capacity: the newest items, the count of those dropped.
struct Ring<T> {
    items: Vec<T>,
    /// Index of the oldest item once full.
    head: usize,
    dropped: u64,
}

impl<T: Copy> Ring<T> {
    fn new(capacity: usize) -> Ring<T> {
        Ring {
            items: Vec::with_capacity(capacity),
            head: 0,
            dropped: 0,
        }
    }

    fn push(&mut self, item: T) {
        if self.items.len() < self.items.capacity() {
            self.items.push(item);
        } else if !self.items.is_empty() {
            self.items[self.head] = item;
            self.head += 1;
            if self.head == self.items.len() {
                self.head = 0;
            }
            self.dropped += 1;
        } else {
            self.dropped += 1;
        }
    }

    /// Oldest first.
    fn iter(&self) -> impl Iterator<Item = &T> {
        let (newer, older) = self.items.split_at(self.head);
        older.iter().chain(newer)
    }

    fn clear(&mut self) {
        self.items.clear();
        self.head = 0;
        self.dropped = 0;
    }

    fn bytes(&self) -> usize {
        self.items.capacity() * core::mem::size_of::<T>()
    }
}

/// How `kind`'s children go back to idle: a column of the kinds' list.
fn rule(kind: NodeKind) -> Rule {
    kind.children_reset()
}

/// Whether a node is `RUNNING` before its children tick, as BT.CPP's
/// nodes set themselves: all but BT.CPP's `Precondition`, whose status
/// changes only when it returns, after its child's.
fn runs_before_its_child(kind: NodeKind) -> bool {
    kind != NodeKind::Precondition
}

/// One node of the expanded tree.
struct Slot {
    info: &'static NodeInfo,
    /// How its children go back to idle ([`rule`] of its kind).
    rule: Rule,
    parent: u16,
    /// Range of `Layout::children`.
    children: (u32, u32),
}

/// The expanded tree, shared by every agent.
struct Layout {
    /// Indexed by uid; slot 0 is unused.
    slots: Vec<Slot>,
    children: Vec<u16>,
    view: &'static TreeView<'static>,
    instance_xml: &'static str,
    /// How deep subtrees nest, plus one.
    nesting: usize,
    /// The tree's view and the views of the trees it embeds, each once:
    /// where a node table met in events is looked up by its tree's name.
    views: Vec<&'static TreeView<'static>>,
    /// Per node of the tree's own view, by id: its uid, its parent (0 for
    /// the root), and when its status, returned again under its running
    /// parent, changes nothing ([`RUNS_ON`], [`ENDS_AGAIN`]).
    own: Vec<Own>,
}

/// A node of a tree's own view ([`Layout::own`]).
#[derive(Clone, Copy)]
struct Own {
    uid: u16,
    parent: u16,
    steady: u8,
}

/// [`Own::steady`]: running on under a running parent changes nothing:
/// the parent is not reactive (and the others of an exclusive parent's
/// children were returned to idle when it started running), and the node
/// is not a subtree node (which leaves an embedded tree's instance).
const RUNS_ON: u8 = 1;
/// [`Own::steady`]: a leaf that finished again as it did, under a running
/// parent that returns no child to idle when one finishes or is entered,
/// changes nothing.
const ENDS_AGAIN: u8 = 2;

impl Layout {
    fn new(view: &'static TreeView<'static>, instance_xml: &'static str) -> Layout {
        assert!(
            view.size < u16::MAX as usize,
            "a recorded tree has at most 65,534 nodes (uids are 16-bit, as in .btlog files)"
        );
        let mut placed = Vec::with_capacity(view.size);
        expand(view, &mut |p| placed.push(p));
        let mut kids: Vec<Vec<u16>> = (0..=placed.len()).map(|_| Vec::new()).collect();
        // Below 65,535 (checked above): every uid fits in 16 bits.
        for p in &placed {
            kids[p.parent].push(p.uid as u16);
        }
        let mut slots = Vec::with_capacity(placed.len() + 1);
        let mut children = Vec::with_capacity(placed.len());
        slots.push(Slot {
            info: placed[0].info,
            rule: rule(placed[0].info.kind),
            parent: 0,
            children: (0, 0),
        });
        for p in &placed {
            let start = children.len() as u32;
            children.extend_from_slice(&kids[p.uid]);
            slots.push(Slot {
                info: p.info,
                rule: rule(p.info.kind),
                parent: p.parent as u16,
                children: (start, children.len() as u32),
            });
        }
        fn nesting(view: &TreeView) -> usize {
            1 + view
                .subtrees
                .iter()
                .map(|s| nesting(s.view))
                .max()
                .unwrap_or(0)
        }
        fn gather(view: &'static TreeView<'static>, views: &mut Vec<&'static TreeView<'static>>) {
            if views.iter().all(|v| v.name != view.name) {
                views.push(view);
            }
            for s in view.subtrees {
                gather(s.view, views);
            }
        }
        let mut views = Vec::new();
        gather(view, &mut views);
        let own = (0..view.nodes.len())
            .map(|id| {
                let uid = 1 + view.offset(id) as u16;
                let slot = &slots[uid as usize];
                let parent_rule = slots[slot.parent as usize].rule;
                let mut steady = 0;
                if parent_rule != Rule::Reactive && slot.info.kind != NodeKind::Subtree {
                    steady |= RUNS_ON;
                }
                if slot.children.0 == slot.children.1
                    && slot.info.kind != NodeKind::Subtree
                    && matches!(parent_rule, Rule::Keep | Rule::Memory | Rule::Reactive)
                {
                    steady |= ENDS_AGAIN;
                }
                Own {
                    uid,
                    parent: slot.parent,
                    steady,
                }
            })
            .collect();
        Layout {
            slots,
            children,
            view,
            instance_xml,
            nesting: nesting(view),
            views,
            own,
        }
    }

    /// Whether every status fits [`Agent::packed`] (uids up to 63) and
    /// no uid stands for a node of an embedded tree: a [`Memo`] can hold
    /// what its statuses make.
    fn packs(&self) -> bool {
        self.slots.len() <= 64 && self.nesting == 1
    }

    fn children(&self, uid: u16) -> &[u16] {
        let (a, b) = self.slots[uid as usize].children;
        &self.children[a as usize..b as usize]
    }
}

/// The tree instance events come from: the root tree, or an embedded one.
#[derive(Clone, Copy)]
struct Instance {
    /// Uid of the instance's root.
    base: u16,
    view: &'static TreeView<'static>,
    /// The subtree node that entered it (`None` for the root tree).
    entered_by: Option<&'static NodeInfo>,
}

/// The address of the table `node` is in (its address less its id's
/// offset).
#[inline]
fn table_of(node: &'static NodeInfo) -> usize {
    (node as *const NodeInfo as usize)
        .wrapping_sub(node.id.wrapping_mul(core::mem::size_of::<NodeInfo>()))
}

/// One agent's recording.
struct Agent {
    status: Vec<NodeStatus>,
    ring: Ring<Transition>,
    guards: Ring<GuardCheck>,
    notes: Ring<Note>,
    stack: Vec<Instance>,
    now: f64,
    /// Ticks finished.
    ticks: u32,
    /// Between the first event of a tick and its root's status.
    in_tick: bool,
    /// Ticks that changed nothing the writer has counted and not yet
    /// logged, as of the last fold ([`RawLog::quiet`]).
    quiet: u32,
    /// The most ticks finished a reader was told ([`ticks`](Self::ticks)
    /// as of the last lock): a run of quiet ticks the writer is ending is,
    /// for a moment, neither counted in [`RawLog::quiet`] nor logged.
    counted: u32,
    /// The statuses of uids 1 to 63, two bits each ([`NodeStatus`]'s
    /// numbers), uids 0 to 31 in the first word: the key of [`Memo`].
    /// Kept only when `packs`.
    packed: [u64; 2],
    /// Whether the agent's layout is the recorder's own and has a
    /// [`Memo`] ([`Layout::packs`]).
    packs: bool,
    /// While [`Recorder::returned_memo`] works a status out: the
    /// transitions made (uid and status, a byte each, oldest lowest) and
    /// how many.
    capture: Option<([u8; SEG_MADE], u8)>,
    /// The node table and view last matched (see [`Agent::uid_seen`]).
    seen_table: (usize, usize),
    /// The layout of the version of the tree the agent runs, when a hot
    /// reload changed it ([`Event::TreeVersion`]); `None`: the tree as
    /// built, the recorder's own layout.
    reloaded: Option<&'static Layout>,
    /// Which layout: 0 for the tree as built, `k` for the recorder's
    /// `k`-th reloaded one.
    layout_id: u32,
    /// The address of the view of the last [`Event::TreeVersion`] (0
    /// before one).
    version_view: usize,
    /// The tick count when the agent last changed layouts.
    switched_at: Option<u32>,
}

impl Agent {
    fn new(layout: &Layout, capacity: usize) -> Agent {
        let mut stack = Vec::with_capacity(layout.nesting);
        stack.push(Instance {
            base: 1,
            view: layout.view,
            entered_by: None,
        });
        Agent {
            status: std::vec![NodeStatus::Idle; layout.slots.len()],
            ring: Ring::new(capacity),
            guards: Ring::new(0),
            notes: Ring::new(0),
            stack,
            now: 0.0,
            ticks: 0,
            in_tick: false,
            quiet: 0,
            counted: 0,
            packed: [0; 2],
            packs: layout.packs(),
            capture: None,
            seen_table: (0, 0),
            reloaded: None,
            layout_id: 0,
            version_view: 0,
            switched_at: None,
        }
    }

    /// Lays the agent out as `layout` (the tree as built when `reloaded`
    /// is `None`), as the `id`-th: every node idle, its transitions,
    /// guard checks and notes forgotten (their uids are another layout's).
    fn relayout(&mut self, layout: &Layout, reloaded: Option<&'static Layout>, id: u32) {
        self.reloaded = reloaded;
        self.layout_id = id;
        self.status = std::vec![NodeStatus::Idle; layout.slots.len()];
        self.packed = [0; 2];
        self.packs = reloaded.is_none() && layout.packs();
        self.stack = Vec::with_capacity(layout.nesting);
        self.stack.push(Instance {
            base: 1,
            view: layout.view,
            entered_by: None,
        });
        self.ring.clear();
        self.guards.clear();
        self.notes.clear();
        self.seen_table = (0, 0);
        self.switched_at = Some(self.ticks);
    }

    /// Ticks finished, those not yet logged included.
    fn ticks(&self) -> u32 {
        self.ticks.wrapping_add(self.quiet)
    }

    fn set(&mut self, uid: u16, status: NodeStatus) {
        let was = self.status[uid as usize];
        if was == status {
            return;
        }
        self.status[uid as usize] = status;
        if self.packs {
            let (word, at) = (usize::from(uid >> 5) & 1, 2 * u32::from(uid & 31));
            self.packed[word] = self.packed[word] & !(3 << at) | (status as u64) << at;
        }
        if let Some((made, n)) = &mut self.capture {
            if let Some(byte) = made.get_mut(usize::from(*n)) {
                *byte = uid as u8 | (status as u8) << 6;
            }
            *n = n.saturating_add(1);
        }
        self.ring.push(Transition {
            time: self.now,
            tick: self.ticks,
            uid,
            status,
        });
    }

    /// Makes the transitions `made` (a byte each: the uid, the status at
    /// bit 6, as [`MemoSlot::made`] and [`SegSlot::made`] keep them).
    #[inline]
    fn replay(&mut self, made: impl Iterator<Item = u8>) {
        for byte in made {
            self.set(u16::from(byte & 63), NODE_STATUS_OF[usize::from(byte >> 6)]);
        }
    }

    /// After the statuses of a [`SegSlot`] of `state` are applied: a tick
    /// ends if they end with the root's, else one is under way.
    #[inline]
    fn end_part(&mut self, state: u64) {
        let ends = state & SEG_ENDS != 0;
        self.ticks = self.ticks.wrapping_add(u32::from(ends));
        self.in_tick = !ends;
    }

    /// Sets every status to those `packed` holds ([`Agent::packed`]),
    /// recording nothing.
    fn set_packed(&mut self, packed: [u64; 2]) {
        self.packed = packed;
        for (uid, status) in self.status.iter_mut().enumerate().take(64) {
            *status = NODE_STATUS_OF[(packed[uid >> 5 & 1] >> (2 * (uid & 31)) & 3) as usize];
        }
    }

    /// Sets every status at once, recording nothing.
    fn set_all(&mut self, statuses: &[NodeStatus]) {
        self.status.copy_from_slice(statuses);
        if self.packs {
            self.packed = [0; 2];
            for (uid, &s) in statuses.iter().enumerate().take(64) {
                self.packed[uid >> 5] |= (s as u64) << (2 * (uid & 31));
            }
        }
    }

    /// Returns `uid` to idle: a running node is halted (its children
    /// first, deepest first), a finished one only goes back to idle itself.
    #[inline]
    fn reset(&mut self, layout: &Layout, uid: u16) {
        if self.status[uid as usize] != NodeStatus::Idle {
            self.halt(layout, uid);
        }
    }

    /// [`reset`](Self::reset) of a node that is not idle.
    fn halt(&mut self, layout: &Layout, uid: u16) {
        match self.status[uid as usize] {
            NodeStatus::Idle => return,
            NodeStatus::Running => self.reset_children(layout, uid),
            NodeStatus::Success | NodeStatus::Failure => {}
        }
        self.set(uid, NodeStatus::Idle);
    }

    /// Returns `uid` and every node under it to idle, deepest first.
    fn reset_all(&mut self, layout: &Layout, uid: u16) {
        for &child in layout.children(uid) {
            self.reset_all(layout, child);
        }
        self.set(uid, NodeStatus::Idle);
    }

    fn reset_children(&mut self, layout: &Layout, uid: u16) {
        for &child in layout.children(uid) {
            self.reset(layout, child);
        }
    }

    /// `uid`'s tick has started: its parent's has too, so the parent is
    /// running (unless it takes a status only when it returns), and the
    /// parent's rule may return siblings to idle.
    fn enter(&mut self, layout: &Layout, uid: u16) {
        let parent = layout.slots[uid as usize].parent;
        if parent != 0 {
            if self.status[parent as usize] != NodeStatus::Running {
                self.enter(layout, parent);
                if runs_before_its_child(layout.slots[parent as usize].info.kind) {
                    self.set(parent, NodeStatus::Running);
                }
            }
            let siblings = layout.children(parent);
            match layout.slots[parent as usize].rule {
                Rule::Exclusive => {
                    for &s in siblings {
                        if s != uid {
                            self.reset(layout, s);
                        }
                    }
                }
                Rule::Branches => {
                    if let Some(i) = siblings.iter().position(|&s| s == uid)
                        && i > 0
                    {
                        for (j, &s) in siblings.iter().enumerate() {
                            if j > 0 && j != i {
                                self.reset(layout, s);
                            }
                        }
                    }
                }
                Rule::Catch => {
                    if siblings.last() == Some(&uid) {
                        for &s in siblings {
                            if s != uid {
                                self.reset(layout, s);
                            }
                        }
                    }
                }
                Rule::Keep | Rule::Memory | Rule::One | Rule::Reactive => {}
            }
        }
    }

    fn returned(&mut self, layout: &Layout, uid: u16, status: NodeStatus) {
        self.enter(layout, uid);
        if layout.slots[uid as usize].rule == Rule::Memory && status == NodeStatus::Failure {
            for &child in layout.children(uid) {
                if self.status[child as usize] != NodeStatus::Success {
                    self.reset(layout, child);
                }
            }
        } else if status.is_done() {
            self.reset_children(layout, uid);
        }
        self.set(uid, status);
        let parent = layout.slots[uid as usize].parent;
        if parent == 0 {
            if status.is_done() {
                self.reset(layout, uid);
            }
            return;
        }
        match layout.slots[parent as usize].rule {
            Rule::One if status.is_done() => self.reset(layout, uid),
            Rule::Reactive if status == NodeStatus::Running => {
                for &s in layout.children(parent) {
                    if s != uid {
                        self.reset(layout, s);
                    }
                }
            }
            _ => {}
        }
    }

    /// The uid of `node` in the current instance, if it belongs to it.
    fn uid(&self, node: &'static NodeInfo) -> Option<(u16, Instance)> {
        let top = *self.stack.last()?;
        (node.tree == top.view.name && node.id < top.view.nodes.len())
            .then(|| (top.base + top.view.offset(node.id) as u16, top))
    }

    /// [`uid`](Self::uid), remembering the node table of the last node
    /// found by name (its address, from the node's address and id) with
    /// the instance's view, so that the other events of that table are
    /// found without comparing names.
    #[inline]
    fn uid_seen(&mut self, node: &'static NodeInfo) -> Option<(u16, Instance)> {
        let top = *self.stack.last()?;
        let table = table_of(node);
        let key = (table, top.view as *const TreeView<'static> as usize);
        if key == self.seen_table && node.id < top.view.nodes.len() {
            return Some((top.base + top.view.offset(node.id) as u16, top));
        }
        let found = self.uid(node);
        if found.is_some() {
            self.seen_table = key;
        }
        found
    }

    /// Whether `uid` returning `status` changes nothing: it was running
    /// and runs on, under a running parent whose other children are idle
    /// already (they were returned to idle when it started running), and it
    /// is not the root (whose status ends the tick).
    #[inline]
    fn runs_on(&self, layout: &Layout, uid: u16, status: NodeStatus) -> bool {
        let slot = &layout.slots[uid as usize];
        status == NodeStatus::Running
            && uid != 1
            && self.status[uid as usize] == NodeStatus::Running
            && self.status[slot.parent as usize] == NodeStatus::Running
            && layout.slots[slot.parent as usize].rule != Rule::Reactive
    }

    fn apply(&mut self, layout: &Layout, event: &TraceEvent) {
        self.now = event.now;
        // `reset` is called between ticks, and a tick's end comes after its
        // root's status; everything else is part of a tick.
        self.in_tick |= !matches!(event.what, Event::Reset | Event::TickEnd(_));
        match event.what {
            // A tick of the recorded tree itself (not of an embedded one)
            // starts outside every subtree.
            Event::TickStart if core::ptr::eq(event.node, &layout.view.nodes[0]) => {
                self.stack.truncate(1);
            }
            Event::Returned(status) => {
                if event.node.kind == NodeKind::Subtree
                    && self.stack.len() > 1
                    && self.stack.last().and_then(|i| i.entered_by) == Some(event.node)
                {
                    self.stack.pop();
                }
                if let Some((uid, _)) = self.uid_seen(event.node) {
                    let status = status.into();
                    if self.runs_on(layout, uid, status) {
                        return;
                    }
                    self.returned(layout, uid, status);
                    if uid == 1 {
                        self.ticks = self.ticks.wrapping_add(1);
                        self.in_tick = false;
                    }
                }
            }
            Event::Guard { child, verdict } => {
                let rejected_at = match verdict {
                    Verdict::Accepted(_) => None,
                    Verdict::Rejected(clause) => Some(clause),
                    Verdict::Masked => return,
                };
                if let (Some((group, _)), Some((child, _))) =
                    (self.uid(event.node), self.uid(child))
                {
                    self.guards.push(GuardCheck {
                        tick: self.ticks(),
                        group,
                        child,
                        rejected_at,
                    });
                }
            }
            Event::EnterSubtree => {
                if let Some((uid, top)) = self.uid(event.node) {
                    self.enter(layout, uid);
                    self.set(uid, NodeStatus::Running);
                    let embedded = top.view.subtrees.iter().find(|s| s.node == event.node.id);
                    if let Some(embedded) = embedded
                        && self.stack.len() < self.stack.capacity()
                    {
                        self.stack.push(Instance {
                            base: uid + 1,
                            view: embedded.view,
                            entered_by: Some(event.node),
                        });
                    }
                }
            }
            Event::MonitorFired { .. } => {
                if let Some(top) = self.stack.last() {
                    let base = top.base;
                    self.reset_all(layout, base);
                }
            }
            Event::Reset => {
                self.stack.truncate(1);
                self.reset_all(layout, 1);
            }
            // Taken by the recorder, which holds the layouts.
            Event::TreeVersion { .. } => {}
            Event::TickStart
            | Event::TickEnd(_)
            | Event::Activate { .. }
            | Event::Interrupt { .. }
            | Event::Halted
            | Event::End { .. }
            | Event::NoneAccepted
            | Event::RedecideLimit
            | Event::Continue { .. } => {}
        }
    }

    fn transitions(&self) -> impl Iterator<Item = &Transition> {
        self.ring.iter()
    }

    /// The tick a note made now belongs to: the one running, else the one
    /// that just finished.
    fn note_tick(&self) -> u32 {
        if self.in_tick {
            self.ticks()
        } else {
            self.ticks().saturating_sub(1)
        }
    }
}

/// A recorder was asked about something it does not record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The agent is not among `0..agents`, the agents the recorder was made
    /// for.
    NotRecorded {
        /// The agent asked about.
        agent: u64,
        /// How many agents it records.
        agents: usize,
    },
    /// No node of the recorded tree has this uid (uids run from 1 to
    /// `nodes`; 0 names the agent itself in a note).
    NoSuchNode {
        /// The uid given.
        uid: u16,
        /// Nodes of the tree with its subtrees expanded.
        nodes: usize,
    },
    /// Two agents written together run different versions of the tree
    /// (after a hot reload), whose nodes differ: write them separately.
    Versions {
        /// The agent whose version differs.
        agent: u64,
        /// The first agent written.
        first: u64,
    },
    /// Statuses to resume from are not one per uid.
    Statuses {
        /// How many were given.
        found: usize,
        /// One per uid, index 0 included.
        expected: usize,
    },
}

impl core::fmt::Display for RecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RecordError::NotRecorded { agent, agents } => write!(
                f,
                "agent {agent} is not recorded: the recorder records agents 0..{agents}"
            ),
            RecordError::NoSuchNode { uid, nodes } => write!(
                f,
                "no node has uid {uid}: the recorded tree's uids are 1..={nodes} (0 is the agent)"
            ),
            RecordError::Versions { agent, first } => write!(
                f,
                "agent {agent} runs another version of the tree than agent {first} (a hot \
                 reload changed it): write them separately"
            ),
            RecordError::Statuses { found, expected } => write!(
                f,
                "{found} statuses given where the tree has {expected} (one per uid, as \
                 `current_statuses` gives)"
            ),
        }
    }
}

impl std::error::Error for RecordError {}

impl From<RecordError> for io::Error {
    fn from(error: RecordError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, error)
    }
}

/// Codes an agent's [`RawLog`] holds.
const RAW: u32 = 256;
/// How many codes a log holds before [`Recorder::drain`] folds it.
const DRAIN: u32 = RAW / 2;

/// How far a [`RawLog`]'s `tail` is behind its `head` while its agent's
/// events take the lock.
const LOCKED: u32 = 1 << 31;

/// An agent's [`RawLog`] codes.
#[repr(C, align(128))]
struct Codes([AtomicU32; RAW as usize]);

impl core::ops::Deref for Codes {
    type Target = [AtomicU32; RAW as usize];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// An agent's events as the ticking thread writes them, without a lock:
/// one 4-byte code each ([`code`]), preceded by the time when it is not
/// the time of the code before (a [`TIME`] code and the time's two
/// halves). BehaviorTree.CPP's rules are applied to them later, under the
/// agent's lock, by [`Recorder::fold`]: when the log is full, before an
/// event that takes the lock, and before anything reads the recording.
///
/// A ring of [`RAW`] codes ([`Recorder::codes`]) with two counters, kept
/// apart from the codes so that the counters of many agents share cache
/// lines: the writer (the thread ticking the agent) moves `head`, the
/// folder (holding the agent's lock) `tail`. An agent whose events must
/// take the lock (it runs a reloaded version of the tree, whose nodes are
/// not in the tables) has its `tail` [`LOCKED`] behind its `head`: its log
/// reads as full. Two threads ticking one agent at once (a misuse) garble
/// its recording, nothing else.
///
/// The ticking thread also keeps here what it needs to log a tick its
/// generated code gathered ([`Trace::gathered`]) as one code (see
/// [`Segments`]): `mode` says whether it does ([`SEG_OFF`] while statuses
/// are logged one by one), and `packed` is what it takes the agent's
/// statuses to be once everything logged is applied ([`Agent::packed`]):
/// a hint, checked when the log is folded.
///
/// The newest codes are written here first, in `staged`, beside the
/// counters: a block of [`STAGED`] codes moves to the ring when the code
/// after them is written. Ticking many agents in turn then writes codes
/// into memory read in order (these headers), not into a line of each
/// agent's ring: at 100,000 agents, the line, and the page table entry
/// to find it, would come from far each time. The folder reads the
/// staged codes as a seqlock reader ([`RawLog::read`]).
#[repr(C, align(128))]
struct RawLog {
    head: AtomicU32,
    tail: AtomicU32,
    /// The time of the last code written (its bits).
    now: AtomicU64,
    /// 0, or [`SEG_OFF`].
    mode: AtomicU32,
    /// Ticks that changed nothing, not yet logged: 0, or the [`QUIET`]
    /// code that will log them.
    quiet: AtomicU32,
    packed: [AtomicU64; 2],
    /// While [`quiet`](Self::quiet) counts: the statuses of those ticks
    /// ([`Gathered::codes`], and their count at bit 56), if they are 7 or
    /// fewer; a tick that has the same is quiet too. Otherwise `u64::MAX`
    /// (no tick's): [`end_quiet`](Self::end_quiet) sets it so.
    last: AtomicU64,
    /// From the start of a tick ([`Trace::statuses`]) until its statuses
    /// gathered are taken: a note made meanwhile is the tick's.
    ticking: AtomicBool,
    /// Ticks to log one by one before taking ticks whole again, after a
    /// tick did not fit [`Segments`].
    backoff: AtomicU32,
    /// No [`SEGMENT`] code in the log is of an epoch before this one
    /// ([`Recorder::epoch`]): set when one is logged into an empty log.
    oldest: AtomicU32,
    /// The block `staged` holds: the position of its first code in the
    /// ring, divided by [`STAGED`].
    block: AtomicU32,
    /// The codes at positions of block `block`, each at its position
    /// modulo [`STAGED`], written before they move to the ring.
    staged: [AtomicU32; STAGED as usize],
}

/// An array of `N` values made by `make`, on the heap (without passing
/// through the stack): indexed by a value below `N`, it takes no bounds
/// check.
fn boxed_array<T, const N: usize>(make: impl FnMut() -> T) -> Box<[T; N]> {
    match huge_pages(N, make).into_boxed_slice().try_into() {
        Ok(array) => array,
        Err(_) => unreachable!("{N} made"),
    }
}

/// `n` values made by `make`, in one allocation that the kernel is asked
/// to back with huge pages before anything is written to it (on Linux,
/// when transparent huge pages are enabled for programs that ask, and the
/// allocation holds at least one, 2 MiB or more; an ordinary
/// allocation otherwise). A recorder's logs are written at 100,000 agents
/// in an order no cache follows: with 4 KiB pages, most of a block's move
/// to its ring is finding the page.
fn huge_pages<T>(n: usize, make: impl FnMut() -> T) -> Vec<T> {
    let mut all = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        let spare = all.spare_capacity_mut();
        let bytes = core::mem::size_of_val(spare);
        // Smaller ones stay unmarked: marking part of the heap splits it
        // for nothing.
        if bytes >= HUGE_PAGE {
            kevy_madvise::advise_hugepage(spare.as_ptr().cast(), bytes);
        }
    }
    all.extend(core::iter::repeat_with(make).take(n));
    all
}

/// The size of a huge page (x86-64 and AArch64 Linux): the smallest
/// allocation [`huge_pages`] asks them for.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// How many codes [`RawLog::staged`] holds (a power of two dividing
/// [`RAW`]): one cache line.
const STAGED: u32 = 16;

/// [`RawLog::backoff`] after a tick that did not fit [`Segments`].
const SEG_BACKOFF: u32 = 64;

/// Where a [`QUIET`] code keeps its count of ticks (the bits above).
const QUIET_COUNT: u32 = 16;
/// The most ticks a [`QUIET`] code counts.
const QUIET_MOST: u32 = (1 << (32 - QUIET_COUNT)) - 1;
/// The [`Segments`] slot a [`SEGMENT`] or [`QUIET`] code names: its bits 4
/// to 15.
#[inline]
fn seg_slot(code: u32) -> usize {
    (code >> 4 & 0xfff) as usize
}
/// How many ticks that changed nothing a [`SEGMENT`] code `code` counts
/// before its own ([`MERGED`]).
#[inline]
fn merged_count(code: u32) -> u32 {
    code >> MERGED
}
/// A [`SEGMENT`] code for [`Segments`] slot `slot`, of a tick of epoch
/// `epoch`, after ticks that changed nothing as `merged` says
/// ([`SegSlot::merged`]).
#[inline]
fn segment_code(slot: u32, epoch: u32, merged: u32) -> u32 {
    SEGMENT | slot << 4 | (epoch % EPOCHS) << 16 | merged
}
/// A [`RawLog::packed`] no agent's statuses are (uid 0, never ticked, is
/// not idle): set when the agent's statuses are set from outside its
/// ticks ([`Recorder::resume`]), so that the writer asks for them again.
const UNKNOWN: [u64; 2] = [3, 0];

/// [`RawLog::mode`] while statuses are logged one by one: until the
/// log is next folded after an event other than a status of the recorded
/// tree's own nodes, or when the tree has no [`Segments`].
const SEG_OFF: u32 = u32::MAX;

/// The kinds of [`RawLog`] codes (their low 4 bits). A node's status:
/// [`Status`] as `0..3` (`Success`, `Failure`, `Running`). A subtree node
/// enters the tree it embeds ([`Event::EnterSubtree`]).
const ENTER: u32 = 3;
/// A `monitor` fired ([`Event::MonitorFired`]; no node).
const MONITOR: u32 = 4;
/// The tree was reset ([`Event::Reset`]; no node).
const RESET: u32 = 5;
/// A tick starts ([`Event::TickStart`], with guards recorded).
const TICK_START: u32 = 6;
/// An event that only says a tick is under way (levels 1 to 5, with guards
/// recorded; no node).
const IN_TICK: u32 = 7;
/// The next two codes are a time's bits, low half first.
const TIME: u32 = 8;
/// A tick's statuses, worked out: the [`Segments`] slot in bits 4 to 15
/// ([`seg_slot`]), the tick's time as its epoch modulo [`EPOCHS`]
/// ([`Recorder::epoch`]) in bits 16 to 27, and in the bits from
/// [`MERGED`] how many ticks that changed nothing came just before it, of
/// the slot's [`SegSlot::quiet_before`] ([`SegSlot::merged`]): one code
/// where a [`QUIET`] code and this one would be.
const SEGMENT: u32 = 9;
/// Where a [`SEGMENT`] code keeps the count of ticks that changed nothing
/// before its own.
const MERGED: u32 = 28;
/// The most ticks that changed nothing a [`SEGMENT`] code counts; more
/// are logged as a [`QUIET`] code before it.
const MERGED_MOST: u32 = (1 << (32 - MERGED)) - 1;
/// Ticks that changed nothing, each with the statuses of the
/// [`Segments`] slot in bits 4 to 15, as many as the bits from
/// [`QUIET_COUNT`] say; their times are not kept.
const QUIET: u32 = 10;
/// The table slot of a code without a node.
const NO_TABLE: u32 = 31;
/// How many node tables codes can name (5 bits, less [`NO_TABLE`]).
const TABLES: usize = 31;
/// The most nodes a table of codes has (ids are 23 bits); the events of
/// larger ones take the lock.
const MAX_ID: usize = (1 << 23) - 1;

/// A node table events came from, by its address, with the view of the
/// tree it belongs to, whose nodes are the same.
struct Table {
    address: usize,
    view: &'static TreeView<'static>,
}

/// [`NodeStatus`] by its number.
const NODE_STATUS_OF: [NodeStatus; 4] = [
    NodeStatus::Idle,
    NodeStatus::Running,
    NodeStatus::Success,
    NodeStatus::Failure,
];

/// The status of a code of a status's kind.
const NODE_STATUS: [NodeStatus; 3] = [
    NodeStatus::Success,
    NodeStatus::Failure,
    NodeStatus::Running,
];

/// A code of `kind` for node `id` of table `slot` (see [`Recorder::slot`]).
#[inline]
fn code(kind: u32, slot: u32, id: usize) -> u32 {
    kind | slot << 4 | (id as u32) << 9
}

/// The statuses of a tick of `len` statuses `codes` ([`Gathered::codes`],
/// in two halves), oldest first: each node's id in the first table, and
/// its status.
fn segment_statuses(codes: [u64; 2], len: u32) -> impl Iterator<Item = (usize, Status)> {
    let codes = u128::from(codes[0]) | u128::from(codes[1]) << 64;
    Gathered::from_codes(codes, len as usize).iter()
}

impl RawLog {
    fn new() -> RawLog {
        RawLog {
            head: AtomicU32::new(0),
            tail: AtomicU32::new(0),
            now: AtomicU64::new(0f64.to_bits()),
            mode: AtomicU32::new(SEG_OFF),
            quiet: AtomicU32::new(0),
            last: AtomicU64::new(u64::MAX),
            ticking: AtomicBool::new(false),
            backoff: AtomicU32::new(0),
            oldest: AtomicU32::new(0),
            packed: [const { AtomicU64::new(0) }; 2],
            block: AtomicU32::new(0),
            staged: [const { AtomicU32::new(0) }; STAGED as usize],
        }
    }

    /// Writes `code` at position `at` of the ring (the writer's `head` or
    /// after it): into [`staged`](Self::staged), after moving the block
    /// before it to the ring if `at` starts a block.
    #[inline(always)]
    fn put(&self, codes: &Codes, at: u32, code: u32) {
        let k = at % STAGED;
        if k == 0 {
            self.move_staged(codes, at);
        }
        self.staged[k as usize].store(code, Relaxed);
    }

    /// Moves the staged block before position `at` (a block's first) to
    /// the ring, then names `at`'s block staged: a reader that reads the
    /// name finds the codes in the ring, and one that read codes staged
    /// after this was written reads the name (see [`read`](Self::read)).
    /// Slots of positions already folded may be written: no code that is
    /// not folded is in them.
    #[inline(never)]
    fn move_staged(&self, codes: &Codes, at: u32) {
        // A block's slots are in one piece: `RAW` is a multiple of `STAGED`.
        let from = (at.wrapping_sub(STAGED) % RAW) as usize;
        for (slot, code) in codes[from..from + STAGED as usize].iter().zip(&self.staged) {
            slot.store(code.load(Relaxed), Relaxed);
        }
        self.block.store(at / STAGED, Release);
        fence(Release);
    }

    /// The codes at positions `tail` to `head` (at most [`RAW`]) into
    /// `out`, from the start; returns how many. Those of the block of the
    /// last are read from [`staged`](Self::staged) unless the writer moved
    /// it to the ring meanwhile (then from the ring): read while the
    /// thread ticking the agent writes codes after `head`.
    fn read(&self, codes: &Codes, tail: u32, head: u32, out: &mut [u32; RAW as usize]) -> u32 {
        let n = head.wrapping_sub(tail).min(RAW);
        if n == 0 {
            return 0;
        }
        let first = tail.wrapping_add(n - 1) & !(STAGED - 1);
        let staged = match first.wrapping_sub(tail) {
            k if k < n => k,
            _ => 0,
        };
        // The ring's slots of codes `from..to`, in at most two pieces.
        let ring = |out: &mut [u32; RAW as usize], from: u32, to: u32| {
            let start = (tail.wrapping_add(from) % RAW) as usize;
            let len = (to - from) as usize;
            let first = len.min(RAW as usize - start);
            let (head, rest) = out[from as usize..to as usize].split_at_mut(first);
            for (out, code) in head.iter_mut().zip(&codes[start..]) {
                *out = code.load(Relaxed);
            }
            for (out, code) in rest.iter_mut().zip(codes.iter()) {
                *out = code.load(Relaxed);
            }
        };
        ring(out, 0, staged);
        for k in staged..n {
            out[k as usize] = self.staged[(tail.wrapping_add(k) % STAGED) as usize].load(Relaxed);
        }
        fence(Acquire);
        if self.block.load(Relaxed) != first / STAGED {
            fence(Acquire);
            ring(out, staged, n);
        }
        n
    }

    /// Appends `code` at time `now`; `false` (and nothing written) when
    /// the log has no room for it.
    #[inline(always)]
    fn push(&self, codes: &Codes, now: f64, code: u32) -> bool {
        let head = self.head.load(Relaxed);
        let used = head.wrapping_sub(self.tail.load(Acquire));
        let at = |k: u32, code: u32| self.put(codes, head.wrapping_add(k), code);
        let bits = now.to_bits();
        if self.now.load(Relaxed) == bits {
            if used >= RAW {
                return false;
            }
            at(0, code);
            self.head.store(head.wrapping_add(1), Release);
        } else {
            if used > RAW - 4 {
                return false;
            }
            at(0, TIME);
            at(1, bits as u32);
            at(2, (bits >> 32) as u32);
            at(3, code);
            self.now.store(bits, Relaxed);
            self.head.store(head.wrapping_add(4), Release);
        }
        true
    }

    /// Appends a [`SEGMENT`] code for [`Segments`] slot `slot` (`seg`),
    /// of a tick at time `now` of epoch `epoch`; `false` (and nothing
    /// written) when the log has no room for it.
    /// Ticks that changed nothing, not yet logged, are logged first, in
    /// the same code if it can count them ([`SegSlot::merged`]).
    #[inline]
    fn push_segment(
        &self,
        codes: &Codes,
        now: f64,
        epoch: u32,
        slot: usize,
        seg: &SegSlot,
    ) -> bool {
        let mut head = self.head.load(Relaxed);
        let quiet = self.quiet.load(Relaxed);
        // A run of no ticks yet (see `SegSlot::repeat`) ends unlogged.
        let pending = quiet >> QUIET_COUNT != 0;
        let used = head.wrapping_sub(self.tail.load(Acquire));
        if used > RAW - 1 - u32::from(pending) {
            return false;
        }
        if used == 0 {
            self.oldest.store(epoch, Relaxed);
        }
        let mut merged = 0;
        if quiet != 0 {
            let quiet = self.end_quiet();
            merged = seg.merged(quiet);
            if pending && merged == 0 {
                self.put(codes, head, quiet);
                head = head.wrapping_add(1);
            }
        }
        self.put(codes, head, segment_code(slot as u32, epoch, merged));
        self.now.store(now.to_bits(), Relaxed);
        self.head.store(head.wrapping_add(1), Release);
        true
    }

    /// Logs the ticks that changed nothing not yet logged; `false` when
    /// the log has no room for them.
    #[inline]
    fn push_quiet(&self, codes: &Codes) -> bool {
        let quiet = self.quiet.load(Relaxed);
        if quiet == 0 {
            return true;
        }
        if quiet >> QUIET_COUNT == 0 {
            // A run of no ticks (see `SegSlot::repeat`): nothing to log.
            self.end_quiet();
            return true;
        }
        let head = self.head.load(Relaxed);
        if head.wrapping_sub(self.tail.load(Acquire)) >= RAW {
            return false;
        }
        self.put(codes, head, self.end_quiet());
        self.head.store(head.wrapping_add(1), Release);
        true
    }

    /// Takes the [`QUIET`] code of the ticks that changed nothing not yet
    /// logged (0 if none), ending their run: a tick is no longer found
    /// quiet by [`last`](Self::last).
    ///
    /// Only the thread ticking the agent writes `quiet` (between ticks,
    /// or in them): a load and a store, not a locked swap, which would
    /// wait for the log's stores before it to reach the cache.
    #[inline]
    fn end_quiet(&self) -> u32 {
        self.last.store(u64::MAX, Relaxed);
        let quiet = self.quiet.load(Relaxed);
        self.quiet.store(0, Relaxed);
        quiet
    }
}

/// Records every node's status transitions for agents `0..agents`, each
/// into a ring of fixed capacity. See the [module docs](self).
///
/// A `Recorder` is `Sync`: agents ticked on several threads record into
/// their own logs, without locks; each agent's lock (uncontended: an agent
/// is ticked by one thread at a time) is taken when its log is full or
/// its recording is read.
pub struct Recorder {
    layout: Layout,
    /// Layouts of versions of the tree that hot reloads made, in the order
    /// agents first ran them (kept for the process: their views are).
    reloaded: Mutex<Vec<&'static Layout>>,
    agents: Vec<Mutex<Agent>>,
    /// Each agent's events not yet applied: the counters and the codes.
    raw: Box<[RawLog]>,
    codes: Box<[Codes]>,
    /// The node tables events came from: a code names a node by its
    /// table's slot here and its id. Filled as tables are met, under
    /// `register`.
    tables: [OnceLock<Table>; TABLES],
    /// The address of the first table (0 before there is one).
    first_table: AtomicUsize,
    register: Mutex<()>,
    /// The trace level asked for: 1, or 5 with guards recorded.
    level: u8,
    /// What statuses returned make of the statuses before them, once
    /// worked out ([`returned_memo`](Self::returned_memo)); `None` for a
    /// tree of more than 63 nodes or with subtrees.
    memo: Option<Memo>,
    /// What whole ticks make, once worked out (see [`Segments`]); `None`
    /// where `memo` is.
    segments: Option<Segments>,
    /// The address of the recorded tree's node table
    /// ([`BehaviorTree::NODES`]).
    own_nodes: usize,
    /// The times of the last [`EPOCHS`] epochs, by epoch modulo
    /// [`EPOCHS`] (see [`epoch`](Self::epoch)).
    times: Box<[AtomicU64; EPOCHS as usize]>,
    /// The newest epoch.
    epoch: AtomicU32,
    /// Held while an epoch is made.
    epoch_lock: Mutex<()>,
}

/// How many epochs' times a [`Recorder`] keeps (a power of two).
const EPOCHS: u32 = 4096;
/// Every this many epochs, the logs holding [`SEGMENT`] codes this many
/// epochs old or older are folded: no code is ever [`EPOCHS`] old.
const EPOCHS_SWEPT: u32 = EPOCHS / 4;

/// Slots of a [`Memo`] (a power of two).
const MEMO_SLOTS: usize = 4096;
/// Slots a [`Memo`] lookup tries.
const MEMO_PROBES: usize = 4;
/// A [`MemoSlot`]'s `state` while a thread fills it.
const MEMO_BUSY: u64 = 1;
/// A [`MemoSlot`]'s `state` once filled (with the event and the count).
const MEMO_READY: u64 = 1 << 63;

/// The transitions BehaviorTree.CPP's rules make when a node of the
/// recorded tree returns a status, by the statuses before it (the rules
/// read nothing else: `Agent::returned`), shared by every agent and
/// thread. A slot is filled once, by the first thread that works its
/// event out, and read without a lock after; when the slots an event
/// hashes to are taken, it is worked out each time.
struct Memo {
    slots: Box<[MemoSlot]>,
}

/// One [`Memo`] entry: 40 bytes.
#[derive(Default)]
struct MemoSlot {
    /// 0 (empty), [`MEMO_BUSY`], or [`MEMO_READY`] with the event (uid
    /// and status) at bit 8 and the count of transitions in the low byte.
    state: AtomicU64,
    /// [`Agent::packed`] before the status.
    key: [AtomicU64; 2],
    /// The transitions, a byte each (uid, status at bit 6), oldest lowest.
    made: [AtomicU64; 2],
}

impl Memo {
    /// For `layout`, if its statuses fit [`Agent::packed`] and no uid
    /// stands for the nodes of an embedded tree.
    fn of(layout: &Layout) -> Option<Memo> {
        layout.packs().then(|| Memo {
            slots: (0..MEMO_SLOTS).map(|_| MemoSlot::default()).collect(),
        })
    }

    /// The slots statuses `lo`, `hi` ([`Agent::packed`]) and `event` may
    /// be in.
    #[inline]
    fn slots(&self, lo: u64, hi: u64, event: u64) -> impl Iterator<Item = &MemoSlot> {
        let x = lo ^ hi.rotate_left(29) ^ event << 54;
        let at = (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize;
        (0..MEMO_PROBES).map(move |k| &self.slots[(at + k) % MEMO_SLOTS])
    }
}

/// A [`SegSlot`]'s `state` bit set when its statuses end with the
/// root's: they end a tick (else the tick goes on after them).
const SEG_ENDS: u64 = 1 << 16;

/// Slots of [`Segments`] (a power of two).
const SEG_SLOTS: usize = 4096;

/// What a whole tick's statuses make of the statuses before it, worked
/// out once and shared by every agent and thread, as [`Memo`] keeps it
/// per status: the generated tick gathers its statuses ([`Gathered`]),
/// the thread ticking the agent finds them here by the statuses before
/// them (its [`RawLog::packed`]) and logs one code for the tick
/// ([`SEGMENT`], or [`QUIET`] when it changes nothing) in place of one per
/// status; folding the log replays the transitions kept.
/// Only for the recorded tree's own nodes, in a tree a [`Memo`] is kept
/// for.
struct Segments {
    slots: Box<[SegSlot; SEG_SLOTS]>,
    /// An agent to work a tick out on ([`Recorder::work_out`]), with no
    /// ring.
    scratch: Mutex<Agent>,
}

/// A run of [`SEGMENT`]s at the start of a log, each worked out from the
/// statuses the one before leaves ([`Segments::chain`]).
struct Chain {
    /// The codes it spans.
    codes: u32,
    /// The end of its first codes whose transitions the others push out of
    /// the ring by themselves: folded by setting the statuses they leave.
    skip_to: u32,
    /// The ticks those stand for.
    ticks: u32,
    /// The transitions they make.
    dropped: u64,
    /// The statuses after them.
    packed: [u64; 2],
    /// The index of the last [`SEGMENT`] among them, which has the time.
    timed: Option<u32>,
    /// Whether a tick is under way after them.
    open: bool,
}

/// The most transitions a [`SegSlot`] keeps: what fills its second line
/// (a part of a tick that makes more is logged status by status).
const SEG_MADE: usize = 64;

// Two lines: the transitions take the second one's room, no more.
const _: () = assert!(core::mem::size_of::<SegSlot>() == 128);

/// One [`Segments`] entry: 128 bytes, of which what the end of a tick
/// reads ([`Recorder::end_segment`]: all but `made`) is one cache line.
#[derive(Default)]
#[repr(C, align(64))]
struct SegSlot {
    /// 0 (empty), [`MEMO_BUSY`], or [`MEMO_READY`] with the count of
    /// statuses at bit 8, of transitions in the low byte, and
    /// [`SEG_ENDS`].
    state: AtomicU64,
    /// [`Agent::packed`] before the tick.
    before: [AtomicU64; 2],
    /// The tick's statuses ([`Gathered::codes`], in two halves).
    codes: [AtomicU64; 2],
    /// [`Agent::packed`] after it.
    after: [AtomicU64; 2],
    /// For a tick that ends (the root's status last) and makes
    /// transitions: 0, or one more than the slot of the same statuses
    /// again from `after` when they make none (a node running on), found
    /// when this slot is worked out. Logging this slot's tick then starts
    /// a run of quiet ticks of that slot, of none yet, so that the tick
    /// after it, if the same, is found quiet at once ([`Recorder::gathered`]).
    repeat: AtomicU32,
    /// 0, or one more than the slot of ticks that changed nothing whose
    /// count [`SEGMENT`] codes of this slot keep ([`merged`](Self::merged)):
    /// the first such a writer met, set once.
    quiet_before: AtomicU32,
    /// The transitions, as [`MemoSlot::made`]: up to [`SEG_MADE`].
    made: [AtomicU64; SEG_MADE / 8],
}

impl SegSlot {
    /// The bits a [`SEGMENT`] code of this slot takes for the ticks that
    /// changed nothing just before its tick, not yet logged (`quiet`, a
    /// [`QUIET`] code, or one of no ticks): their count at [`MERGED`] if
    /// there are some, at most [`MERGED_MOST`], and their slot is this
    /// slot's [`quiet_before`](Self::quiet_before) (made so if it has
    /// none); else 0, and a [`QUIET`] code logs them if there are some.
    #[inline]
    fn merged(&self, quiet: u32) -> u32 {
        let count = quiet >> QUIET_COUNT;
        if count == 0 || count > MERGED_MOST {
            return 0;
        }
        let want = seg_slot(quiet) as u32 + 1;
        let mut have = self.quiet_before.load(Relaxed);
        if have == 0 {
            have = match self
                .quiet_before
                .compare_exchange(0, want, Relaxed, Relaxed)
            {
                Ok(_) => want,
                Err(other) => other,
            };
        }
        if have == want { count << MERGED } else { 0 }
    }

    /// The transitions of the slot of `state` (read), oldest first.
    #[inline]
    fn made(&self, state: u64) -> impl Iterator<Item = u8> {
        let words: [u64; SEG_MADE / 8] = core::array::from_fn(|k| self.made[k].load(Relaxed));
        words
            .into_iter()
            .flat_map(u64::to_le_bytes)
            .take((state & 0xff) as usize)
    }
}

impl Segments {
    fn of(layout: &Layout) -> Option<Segments> {
        layout.packs().then(|| Segments {
            slots: boxed_array(SegSlot::default),
            scratch: Mutex::new(Agent::new(layout, 0)),
        })
    }

    /// The run of [`SEGMENT`] and [`QUIET`] codes from the start of a log
    /// (`n` codes, read by `at`) each worked out from the statuses the one
    /// before leaves, the first from `packed`, for a ring of `capacity`
    /// transitions.
    fn chain(&self, at: &impl Fn(u32) -> u32, n: u32, packed: [u64; 2], capacity: u64) -> Chain {
        // The run, oldest first: how many codes, and the ticks and the
        // transitions of them all.
        let (mut k, mut ticks, mut made) = (0, 0u32, 0u64);
        while k < n {
            let code = at(k);
            let Some(slot) = self.slots.get(seg_slot(code)) else {
                break;
            };
            let state = slot.state.load(Acquire);
            if state & MEMO_READY == 0
                || k == 0
                    && (slot.before[0].load(Relaxed) != packed[0]
                        || slot.before[1].load(Relaxed) != packed[1])
            {
                break;
            }
            // The writer logs each from the statuses the one before leaves
            // (its hint), so after the first they follow on.
            match code & 15 {
                SEGMENT => {
                    ticks += merged_count(code) + u32::from(state & SEG_ENDS != 0);
                    made += u64::from(state as u8);
                }
                QUIET if state as u8 == 0 => ticks += code >> QUIET_COUNT,
                _ => break,
            }
            k += 1;
        }
        // From the newest back, those whose transitions fill the ring by
        // themselves: the codes before them (a first part) are skipped.
        let (mut skipped, mut later, mut later_ticks) = (k, 0u64, 0u32);
        while skipped > 0 && later < capacity {
            skipped -= 1;
            let code = at(skipped);
            let state = self.slots[seg_slot(code)].state.load(Relaxed);
            if code & 15 == SEGMENT {
                later += u64::from(state as u8);
                later_ticks += merged_count(code) + u32::from(state & SEG_ENDS != 0);
            } else {
                later_ticks += code >> QUIET_COUNT;
            }
        }
        if later < capacity || skipped == 0 {
            return Chain {
                codes: k,
                skip_to: 0,
                ticks: 0,
                dropped: 0,
                packed,
                timed: None,
                open: false,
            };
        }
        // The last code skipped, and the last `SEGMENT` up to it, whose
        // time the fold takes.
        let i = skipped - 1;
        let code = at(i);
        let slot = &self.slots[seg_slot(code)];
        let open = code & 15 == SEGMENT && slot.state.load(Relaxed) & SEG_ENDS == 0;
        Chain {
            codes: k,
            skip_to: skipped,
            ticks: ticks - later_ticks,
            dropped: made - later,
            packed: [slot.after[0].load(Relaxed), slot.after[1].load(Relaxed)],
            timed: (0..=i).rev().find(|&j| at(j) & 15 == SEGMENT),
            open,
        }
    }

    /// The slots a tick of `len` statuses `codes` from statuses `before`
    /// may be in, by index.
    #[inline]
    fn slots(&self, before: [u64; 2], codes: [u64; 2], len: u32) -> impl Iterator<Item = usize> {
        let at = self.first_slot(before, codes, len);
        (0..MEMO_PROBES).map(move |k| (at + k) % SEG_SLOTS)
    }

    /// The first of [`slots`](Self::slots).
    #[inline]
    fn first_slot(&self, before: [u64; 2], codes: [u64; 2], len: u32) -> usize {
        let x = before[0]
            ^ before[1].rotate_left(29)
            ^ codes[0].rotate_left(13)
            ^ codes[1].rotate_left(43)
            ^ u64::from(len) << 58;
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % SEG_SLOTS
    }
}

impl core::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Recorder")
            .field("tree", &self.layout.view.name)
            .field("nodes", &(self.layout.slots.len() - 1))
            .field("agents", &self.agents.len())
            .finish()
    }
}

impl Recorder {
    /// A recorder for agents `0..agents` (their [`Context::agent`] ids)
    /// of tree `T`, keeping the last `capacity` transitions of each.
    /// Everything it needs is allocated here.
    ///
    /// # Panics
    /// If `T` has more than 65,534 nodes with its subtrees expanded: uids
    /// are 16-bit, as in `.btlog` files.
    ///
    /// [`Context::agent`]: crate::Context::agent
    pub fn new<T: BehaviorTree>(agents: usize, capacity: usize) -> Recorder {
        let layout = Layout::new(T::VIEW, T::BTCPP_INSTANCE_XML);
        let memo = Memo::of(&layout);
        let segments = Segments::of(&layout);
        let raw = huge_pages(agents, RawLog::new).into_boxed_slice();
        let codes = huge_pages(agents, || {
            Codes([const { AtomicU32::new(0) }; RAW as usize])
        })
        .into_boxed_slice();
        let agents = huge_pages(agents, || Mutex::new(Agent::new(&layout, capacity)));
        Recorder {
            layout,
            reloaded: Mutex::new(Vec::new()),
            agents,
            raw,
            codes,
            tables: [const { OnceLock::new() }; TABLES],
            first_table: AtomicUsize::new(0),
            register: Mutex::new(()),
            level: 0,
            segments,
            memo,
            own_nodes: T::NODES.as_ptr() as usize,
            times: boxed_array(|| AtomicU64::new(0f64.to_bits())),
            epoch: AtomicU32::new(0),
            epoch_lock: Mutex::new(()),
        }
    }

    /// Also records, per agent, the last `capacity` guard checks of decider
    /// children (accepted, or the clause that rejected). This asks for
    /// trace level 5, so every per-tick event is built: slower.
    pub fn with_guards(mut self, capacity: usize) -> Recorder {
        for a in &mut self.agents {
            a.get_mut().unwrap_or_else(PoisonError::into_inner).guards = Ring::new(capacity);
        }
        self.level = GUARDS;
        self
    }

    /// Keeps, per agent, the last `capacity` notes made with
    /// [`note`](Self::note).
    pub fn with_notes(mut self, capacity: usize) -> Recorder {
        for a in &mut self.agents {
            a.get_mut().unwrap_or_else(PoisonError::into_inner).notes = Ring::new(capacity);
        }
        self
    }

    /// Attaches a short value to `agent` (`uid` 0) or one of its nodes at
    /// the tick running (or, between ticks, the one just finished): its
    /// `Debug` text, cut to [`Note::CAPACITY`] bytes. Needs
    /// [`with_notes`](Self::with_notes) (without, nothing is kept);
    /// allocates nothing. An agent not recorded or a uid of no node is an
    /// error, and nothing is kept.
    pub fn note(
        &self,
        agent: u64,
        uid: u16,
        value: &dyn core::fmt::Debug,
    ) -> Result<(), RecordError> {
        let mut a = self.agent(agent)?;
        let nodes = self.layout_of(&a).slots.len() - 1;
        if usize::from(uid) > nodes {
            return Err(RecordError::NoSuchNode { uid, nodes });
        }
        if a.notes.items.capacity() == 0 {
            return Ok(());
        }
        let mut text = [0u8; Note::CAPACITY];
        let mut w = NoteWriter {
            buf: &mut text,
            len: 0,
            cut: false,
        };
        let _ = core::fmt::Write::write_fmt(&mut w, format_args!("{value:?}"));
        let mut len = w.len;
        if w.cut {
            text[len..len + 3].copy_from_slice("…".as_bytes());
            len += 3;
        }
        // A tick under way (its statuses may not be logged yet).
        let ticking = usize::try_from(agent)
            .ok()
            .and_then(|i| self.raw.get(i))
            .is_some_and(|raw| raw.ticking.load(Relaxed));
        let tick = if ticking { a.ticks() } else { a.note_tick() };
        a.notes.push(Note {
            tick,
            uid,
            len: len as u8,
            text,
        });
        Ok(())
    }

    /// The uid of the first node labelled `label` (in pre-order, subtrees
    /// expanded), to attach notes to.
    pub fn uid_of(&self, label: &str) -> Option<u16> {
        (1..self.layout.slots.len())
            .find(|&uid| self.layout.slots[uid].info.label == Some(label))
            .map(|uid| uid as u16)
    }

    /// Ticks `agent` finished while recorded.
    pub fn ticks(&self, agent: u64) -> Result<u32, RecordError> {
        Ok(self.agent(agent)?.ticks())
    }

    /// `agent`'s guard checks kept, oldest first.
    pub fn guard_checks(&self, agent: u64) -> Result<Vec<GuardCheck>, RecordError> {
        Ok(self.agent(agent)?.guards.iter().copied().collect())
    }

    /// `agent`'s notes kept, oldest first.
    pub fn notes(&self, agent: u64) -> Result<Vec<Note>, RecordError> {
        Ok(self.agent(agent)?.notes.iter().copied().collect())
    }

    /// How many agents it records.
    pub fn agents(&self) -> usize {
        self.agents.len()
    }

    /// Nodes of the tree with its subtrees expanded (the highest uid), as
    /// built.
    pub fn nodes(&self) -> usize {
        self.layout.slots.len() - 1
    }

    /// Nodes of the version of the tree `agent` runs: [`nodes`](Self::nodes)
    /// until a hot reload changes the tree (see [`Event::TreeVersion`]).
    pub fn nodes_of(&self, agent: u64) -> Result<usize, RecordError> {
        let a = self.agent(agent)?;
        Ok(self.layout_of(&a).slots.len() - 1)
    }

    /// Bytes the recorder holds per agent: its ring, one status byte per
    /// node, its subtree stack, its log of events not yet applied and its
    /// bookkeeping (not counting the allocator's own overhead).
    pub fn bytes_per_agent(&self) -> usize {
        let Some(agent) = self.agents.first() else {
            return 0;
        };
        let a = agent.lock().unwrap_or_else(PoisonError::into_inner);
        core::mem::size_of::<Mutex<Agent>>()
            + core::mem::size_of::<RawLog>()
            + core::mem::size_of::<Codes>()
            + a.ring.bytes()
            + a.guards.bytes()
            + a.notes.bytes()
            + a.status.capacity()
            + a.stack.capacity() * core::mem::size_of::<Instance>()
    }

    /// The node with uid `uid`, if there is one.
    pub fn node(&self, uid: u16) -> Option<&'static NodeInfo> {
        (uid >= 1)
            .then(|| self.layout.slots.get(uid as usize))
            .flatten()
            .map(|s| s.info)
    }

    /// `agent`'s recording, locked, with every event logged applied.
    fn agent(&self, agent: u64) -> Result<std::sync::MutexGuard<'_, Agent>, RecordError> {
        let index = usize::try_from(agent)
            .ok()
            .filter(|&a| a < self.agents.len())
            .ok_or(RecordError::NotRecorded {
                agent,
                agents: self.agents.len(),
            })?;
        Ok(self.lock(index))
    }

    /// Folds, on the calling thread, the log of every agent holding at
    /// least half a log of codes (64) and not locked by another reader;
    /// returns how many it folded.
    ///
    /// An agent's log is otherwise folded by the thread that ticks it,
    /// when it is full (every few hundred ticks), or by whatever reads its
    /// recording. Called from another thread, once a frame say, `drain`
    /// takes that work off the ticking threads, which then only log (see
    /// the [module docs](self), "Cost", for what that saves them). The
    /// recording is the same either way. The folding costs the calling
    /// thread more than it saves the others (it reads what another core
    /// wrote), and draining pays only with many agents (ten thousand and
    /// more), whose recordings do not fit a core's own caches anyway: with
    /// a thousand, it slows the ticking thread down. It never waits: an
    /// agent whose recording is being read is left for the next call.
    ///
    /// The `bt` crate's reference ("Views and recording") has a thread
    /// draining once a frame.
    pub fn drain(&self) -> usize {
        self.drain_agents(0..self.agents.len() as u64)
    }

    /// [`drain`](Self::drain) of the agents in `agents` only (those the
    /// recorder has): to spread a sweep over several calls, since a log
    /// fills in a few hundred ticks.
    pub fn drain_agents(&self, agents: core::ops::Range<u64>) -> usize {
        let end =
            usize::try_from(agents.end).map_or(self.agents.len(), |e| e.min(self.agents.len()));
        let start = usize::try_from(agents.start).map_or(end, |s| s.min(end));
        let mut folded = 0;
        for index in start..end {
            let raw = &self.raw[index];
            if raw.head.load(Relaxed).wrapping_sub(raw.tail.load(Relaxed)) < DRAIN {
                continue;
            }
            let mut a = match self.agents[index].try_lock() {
                Ok(a) => a,
                Err(std::sync::TryLockError::Poisoned(a)) => a.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => continue,
            };
            self.fold(index, &mut a);
            folded += 1;
        }
        folded
    }

    fn lock(&self, index: usize) -> std::sync::MutexGuard<'_, Agent> {
        let mut a = self.agents[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.fold(index, &mut a);
        // Ticks finished never go back: if the writer ended a quiet run
        // (its count set to 0) and has not yet logged its code, the ticks
        // it counted are still those told before.
        let pending = self.raw[index].quiet.load(Relaxed) >> QUIET_COUNT;
        let behind = a.counted.wrapping_sub(a.ticks);
        a.quiet = if (behind as i32) > 0 {
            pending.max(behind)
        } else {
            pending
        };
        a.counted = a.ticks.wrapping_add(a.quiet);
        a
    }

    /// On the thread ticking agent `index`, its log folded into `a` (and
    /// an event applied): tells the writer the agent's statuses
    /// ([`RawLog::packed`]) and, if its log takes statuses one by one, has
    /// it gather them per tick again.
    fn resync(&self, index: usize, a: &Agent) {
        let raw = &self.raw[index];
        let own = self.tables[0]
            .get()
            .is_some_and(|t| core::ptr::eq(t.view, self.layout.view));
        if self.segments.is_none() || !own || !a.packs || a.reloaded.is_some() {
            return;
        }
        raw.packed[0].store(a.packed[0], Relaxed);
        raw.packed[1].store(a.packed[1], Relaxed);
        let _ = raw.mode.compare_exchange(SEG_OFF, 0, Relaxed, Relaxed);
    }

    /// The transitions kept for `agent`, oldest first.
    pub fn transitions(&self, agent: u64) -> Result<Vec<Transition>, RecordError> {
        Ok(self.agent(agent)?.transitions().copied().collect())
    }

    /// Takes the transitions kept for `agent`, oldest first, leaving its
    /// ring empty (the count of [`dropped`](Self::dropped) ones stays): how
    /// a client that polls a running program (a live view) reads each
    /// transition once.
    pub fn take_transitions(&self, agent: u64) -> Result<Vec<Transition>, RecordError> {
        let mut a = self.agent(agent)?;
        let taken = a.transitions().copied().collect();
        a.ring.items.clear();
        a.ring.head = 0;
        Ok(taken)
    }

    /// The uid `node` has in the tree instance `agent`'s tick is in now, if
    /// it belongs to that instance. Node hooks ([`Trace::before`],
    /// [`Trace::after`]) are given a node of the tree it belongs to; a tree
    /// embedded twice has each of its nodes at two uids, and this says which
    /// one the tick is at. Meaningful while the recorder follows `agent`'s
    /// statuses, from the start of a tick.
    pub fn uid_in_tick(&self, agent: u64, node: &'static NodeInfo) -> Option<u16> {
        self.agent(agent).ok()?.uid(node).map(|(uid, _)| uid)
    }

    /// How many of `agent`'s transitions were dropped because its ring was
    /// full.
    pub fn dropped(&self, agent: u64) -> Result<u64, RecordError> {
        Ok(self.agent(agent)?.ring.dropped)
    }

    /// Each node's current status for `agent`, indexed by uid (index 0 is
    /// unused and idle).
    pub fn current_statuses(&self, agent: u64) -> Result<Vec<NodeStatus>, RecordError> {
        Ok(self.agent(agent)?.status.clone())
    }

    /// Sets `agent`'s nodes to `statuses` (indexed by uid, as
    /// [`current_statuses`](Self::current_statuses) returns them) without
    /// recording transitions: how the recording of an agent loaded from a
    /// save (see [`save`](crate::save)) carries on from the statuses the
    /// recording made before the save left it in, so that its next
    /// transitions are the ones the first run recorded. Statuses that are
    /// not one per uid are an error, and change nothing.
    pub fn resume(&self, agent: u64, statuses: &[NodeStatus]) -> Result<(), RecordError> {
        let mut a = self.agent(agent)?;
        if statuses.len() != a.status.len() {
            return Err(RecordError::Statuses {
                found: statuses.len(),
                expected: a.status.len(),
            });
        }
        if let Some((index, raw)) = usize::try_from(agent)
            .ok()
            .and_then(|i| Some((i, self.raw.get(i)?)))
        {
            // Ticks that changed nothing before now, not yet logged, count
            // before the statuses change (called between the agent's ticks,
            // on the thread that ticks it, nothing else writes them).
            let quiet = raw.end_quiet();
            if quiet != 0 {
                self.fold_quiet(index, &mut a, quiet, false);
                a.quiet = 0;
            }
            // The thread ticking the agent asks for its statuses again.
            raw.packed[0].store(UNKNOWN[0], Relaxed);
            raw.packed[1].store(UNKNOWN[1], Relaxed);
        }
        a.set_all(statuses);
        Ok(())
    }

    /// Forgets `agent`'s transitions (its nodes keep their statuses).
    pub fn clear(&self, agent: u64) -> Result<(), RecordError> {
        let mut a = self.agent(agent)?;
        a.ring.clear();
        a.guards.clear();
        a.notes.clear();
        Ok(())
    }

    /// Writes `agent`'s recording as a BehaviorTree.CPP FileLogger2 file,
    /// which Groot2 replays:
    ///
    /// - `BTCPP4-FileLogger2` (ASCII) and the protocol byte 1;
    /// - the instance XML's length (`u32`, little-endian) and the XML
    ///   ([`BehaviorTree::BTCPP_INSTANCE_XML`]);
    /// - the start time in microseconds (`i64`): the time of the first
    ///   transition kept;
    /// - one 9-byte record per transition: microseconds since the start
    ///   (48 bits), the uid (`u16`) and the status (`u8`: 0 idle, 1
    ///   running, 2 success, 3 failure), all little-endian.
    ///
    /// Times never overflow: a time in microseconds is clamped to `i64`'s
    /// range (a time that is not a number counts as 0), and an offset from
    /// the start to `0..2⁴⁸` (about 8.9 years); a transition earlier than
    /// the start is written at offset 0.
    ///
    /// An agent that is not recorded is an error of kind `InvalidInput`
    /// wrapping a [`RecordError`], and nothing is written.
    pub fn write_btlog(&self, agent: u64, out: &mut impl Write) -> io::Result<()> {
        let a = self.agent(agent)?;
        let xml = self.layout_of(&a).instance_xml.as_bytes();
        out.write_all(b"BTCPP4-FileLogger2")?;
        out.write_all(&[1])?;
        out.write_all(&(xml.len() as u32).to_le_bytes())?;
        out.write_all(xml)?;
        // `as` saturates, and a NaN becomes 0.
        let micros = |t: f64| (t * 1e6).round() as i64;
        let start = a.transitions().next().map_or(0, |t| micros(t.time));
        out.write_all(&start.to_le_bytes())?;
        for t in a.transitions() {
            let offset = i128::from(micros(t.time)) - i128::from(start);
            let offset = offset.clamp(0, (1 << 48) - 1) as u64;
            let mut record = [0u8; 9];
            record[..6].copy_from_slice(&offset.to_le_bytes()[..6]);
            record[6..8].copy_from_slice(&t.uid.to_le_bytes());
            record[8] = t.status as u8;
            out.write_all(&record)?;
        }
        Ok(())
    }

    /// Writes the recording of `agents` as JSON lines: first the tree, then
    /// one line per transition, agent by agent.
    ///
    /// ```text
    /// {"format":"arbortick-trace","version":1,"tree":"Hello","nodes":[{"uid":1,"parent":0,"tree":"Hello","id":0,"kind":"sequence","label":null,"detail":"sequence","guard":null,"line":3,"column":9,"depth":0},..]}
    /// {"agent":0,"tick":0,"time":0,"uid":1,"status":"running"}
    /// ```
    ///
    /// Each node gives its uid and its parent's (0 for the root), the tree
    /// it belongs to and its id there, its kind (the DSL keyword), label,
    /// source text (`detail`), decider guard, source position and depth in
    /// the expanded tree. Ticks count from 0 per agent; times are seconds,
    /// and a time that is not a finite number (the tick context's `now` is
    /// the caller's) is written as `null`, so every line is JSON.
    ///
    /// An agent that is not recorded is an error of kind `InvalidInput`
    /// wrapping a [`RecordError`]; it is found before anything is written.
    pub fn write_jsonl(
        &self,
        agents: impl IntoIterator<Item = u64>,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let agents: Vec<u64> = agents.into_iter().collect();
        let layout = self.one_layout(&agents)?;
        let mut line = String::new();
        line.push_str("{\"format\":\"arbortick-trace\",\"version\":1,\"tree\":");
        json_str(&mut line, layout.view.name);
        line.push_str(",\"nodes\":");
        Self::nodes_json(layout, &mut line);
        line.push_str("}\n");
        out.write_all(line.as_bytes())?;
        for agent in agents {
            let a = self.agent(agent)?;
            for t in a.transitions() {
                writeln!(
                    out,
                    "{{\"agent\":{agent},\"tick\":{},\"time\":{},\"uid\":{},\"status\":\"{}\"}}",
                    t.tick,
                    JsonTime(t.time),
                    t.uid,
                    t.status.name()
                )?;
            }
        }
        Ok(())
    }
}

impl Recorder {
    /// The expanded tree as a JSON array: per node its uid and parent's
    /// uid, tree and id there, kind, label, source text, guard, source
    /// position and depth.
    fn nodes_json(layout: &Layout, out: &mut String) {
        out.push('[');
        let mut depth = std::vec![0usize; layout.slots.len()];
        for uid in 1..layout.slots.len() {
            let slot = &layout.slots[uid];
            let info = slot.info;
            if slot.parent != 0 {
                depth[uid] = depth[slot.parent as usize] + 1;
            }
            if uid > 1 {
                out.push(',');
            }
            out.push_str(&std::format!(
                "{{\"uid\":{uid},\"parent\":{},\"tree\":",
                slot.parent
            ));
            json_str(out, info.tree);
            out.push_str(&std::format!(",\"id\":{},\"kind\":", info.id));
            json_str(out, info.kind.keyword());
            out.push_str(",\"label\":");
            json_opt(out, info.label);
            out.push_str(",\"detail\":");
            json_str(out, info.detail);
            out.push_str(",\"guard\":");
            json_opt(out, info.guard);
            out.push_str(&std::format!(
                ",\"line\":{},\"column\":{},\"depth\":{}}}",
                info.line,
                info.column,
                depth[uid]
            ));
        }
        out.push(']');
    }

    /// Writes a self-contained HTML page that shows the recording of
    /// `agents`: the tree, each node coloured by its status at the tick a
    /// slider picks, the transitions, guard checks and notes of that tick,
    /// an agent picker, and per node how often it ran, succeeded and
    /// failed over the whole recording (nodes that never ran are marked).
    /// Every script and style is inline: the file opens from disk, with no
    /// network. `#agent=3&tick=40` in its URL opens it at that agent and
    /// tick.
    ///
    /// An agent that is not recorded is an error of kind `InvalidInput`
    /// wrapping a [`RecordError`], and nothing is written.
    pub fn write_html(
        &self,
        agents: impl IntoIterator<Item = u64>,
        title: &str,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let agents: Vec<u64> = agents.into_iter().collect();
        let layout = self.one_layout(&agents)?;
        let mut data = String::new();
        let mut total = 0u64;
        Self::page_head(layout, &mut data);
        for (i, agent) in agents.into_iter().enumerate() {
            let a = self.agent(agent)?;
            if i > 0 {
                data.push(',');
            }
            total += self.history(&a, agent, History::File, &mut data);
        }
        data.push_str(&std::format!("],\"transitions\":{total}}}"));
        out.write_all(page(title, &data).as_bytes())
    }

    /// Writes the same page as [`write_html`](Self::write_html) for a live
    /// server: the tree and the list of `agents`, without their histories.
    /// The page, served over HTTP, reads each agent's history and every
    /// tick after it from the server's `events?agent=N` stream (Server-Sent
    /// Events, one [`history_json`](Self::history_json) object per
    /// message), and sends its controls to `control` beside it. The
    /// `arbortick-live` crate is such a server.
    ///
    /// An agent that is not recorded is an error of kind `InvalidInput`
    /// wrapping a [`RecordError`], and nothing is written.
    pub fn write_live_html(
        &self,
        agents: impl IntoIterator<Item = u64>,
        title: &str,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let mut data = String::new();
        Self::page_head(&self.layout, &mut data);
        for (i, agent) in agents.into_iter().enumerate() {
            drop(self.agent(agent)?);
            if i > 0 {
                data.push(',');
            }
            data.push_str(&std::format!("{{\"agent\":{agent}}}"));
        }
        data.push_str("],\"transitions\":0,\"live\":true}");
        out.write_all(page(title, &data).as_bytes())
    }

    /// Appends `agent`'s history to `out` as the page's JSON object:
    /// `{"agent":A,"first":F,"ticks":T,"dropped":D,"log":"…","guards":[…],"notes":[…]}`,
    /// the ticks `F..F+T` of the agent's count of ticks (the one
    /// [`Transition::tick`] gives), every tick finished.
    ///
    /// With `since` `None`, or when transitions of tick `since` or later
    /// were dropped since (the ring was full), it is everything kept, from
    /// the oldest tick of a kept transition, with `"reset":true` and
    /// `"base"`: each node's status when tick `F` starts, as far as the
    /// recording knows (a node that changes later in the ring starts idle,
    /// since what it was before is dropped). Otherwise it is the ticks
    /// from `since` on. Returns the tick to pass as `since` next time.
    ///
    /// An agent that moved to another version of the tree since `since`
    /// (hot reload: [`Event::TreeVersion`]) gets everything kept too, which
    /// then starts at the move. Every such answer says which layout its
    /// uids are in, `"layout":K` (0 for the tree as built), and for a
    /// reloaded one also gives its `"tree"` and `"nodes"` (as
    /// [`write_jsonl`](Self::write_jsonl) writes them): the page draws that
    /// tree.
    ///
    /// `"log"` is base64 of, per tick, a varint count of transitions, then
    /// (when not 0) the tick's time as a little-endian `f32` and 3 bytes
    /// per transition: the uid (`u16`, little-endian) and the status.
    pub fn history_json(
        &self,
        agent: u64,
        since: Option<u32>,
        out: &mut String,
    ) -> Result<u32, RecordError> {
        let a = self.agent(agent)?;
        let end = a.ticks();
        let oldest = a.transitions().next().map(|t| t.tick);
        // A history from before a change of layout is another tree's.
        let lost = |s: u32| {
            (a.ring.dropped > 0 && oldest.is_some_and(|o| o >= s))
                || a.switched_at.is_some_and(|w| w >= s)
        };
        let from = match since {
            Some(s) if s <= end && !lost(s) => History::Since(s),
            _ => History::Reset,
        };
        self.history(&a, agent, from, out);
        Ok(end)
    }

    /// The layout every one of `agents` is recorded in (the tree as built
    /// for none): agents recorded in different versions of the tree are
    /// an error, as is an agent not recorded.
    fn one_layout(&self, agents: &[u64]) -> Result<&Layout, RecordError> {
        let mut found: Option<(u64, u32)> = None;
        let mut layout = &self.layout;
        for &agent in agents {
            let a = self.agent(agent)?;
            match found {
                None => {
                    found = Some((agent, a.layout_id));
                    layout = self.layout_of(&a);
                }
                Some((first, id)) if id != a.layout_id => {
                    return Err(RecordError::Versions { agent, first });
                }
                Some(_) => {}
            }
        }
        Ok(layout)
    }

    /// The page's data up to its list of agents: the tree and its nodes.
    fn page_head(layout: &Layout, data: &mut String) {
        data.push_str("{\"tree\":");
        json_str(data, layout.view.name);
        data.push_str(",\"nodes\":");
        Self::nodes_json(layout, data);
        data.push_str(",\"agents\":[");
    }

    /// Appends one agent's history as the page reads it (see
    /// [`history_json`](Self::history_json)); returns how many transitions
    /// it holds.
    fn history(&self, a: &Agent, agent: u64, from: History, data: &mut String) -> u64 {
        // A file has every tick from 0 (those before the oldest kept
        // transition are empty) and ends after the last transition kept; a
        // live server sends the ticks finished.
        let ticks = a.ticks();
        let (first, end) = match from {
            History::File => (
                0,
                a.transitions()
                    .last()
                    .map_or(ticks, |t| ticks.max(t.tick + 1)),
            ),
            History::Reset => (
                a.transitions().next().map_or(ticks, |t| t.tick.min(ticks)),
                ticks,
            ),
            History::Since(s) => (s, ticks),
        };
        let mut log = Vec::new();
        let mut total = 0u64;
        let mut kept = a.transitions().skip_while(|t| t.tick < first).peekable();
        let mut here = Vec::new();
        for tick in first..end {
            here.clear();
            while let Some(t) = kept.next_if(|t| t.tick == tick) {
                here.push(*t);
            }
            let mut n = here.len();
            loop {
                let byte = (n & 0x7f) as u8;
                n >>= 7;
                log.push(if n > 0 { byte | 0x80 } else { byte });
                if n == 0 {
                    break;
                }
            }
            if let Some(first) = here.first() {
                log.extend_from_slice(&(first.time as f32).to_le_bytes());
            }
            for t in &here {
                log.extend_from_slice(&t.uid.to_le_bytes());
                log.push(t.status as u8);
            }
            total += here.len() as u64;
        }
        data.push_str(&std::format!(
            "{{\"agent\":{agent},\"first\":{first},\"ticks\":{},\"dropped\":{}",
            end - first,
            a.ring.dropped
        ));
        if from == History::Reset {
            data.push_str(&std::format!(",\"layout\":{}", a.layout_id));
            if let Some(layout) = a.reloaded {
                data.push_str(",\"tree\":");
                json_str(data, layout.view.name);
                data.push_str(",\"nodes\":");
                Self::nodes_json(layout, data);
            }
            // What each node was when tick `first` started: its status now,
            // unless a kept transition changes it (then unknown: idle).
            let mut base = a.status.clone();
            for t in a.transitions() {
                base[t.uid as usize] = NodeStatus::Idle;
            }
            data.push_str(",\"reset\":true,\"base\":[");
            for (uid, status) in base.iter().enumerate() {
                if uid > 0 {
                    data.push(',');
                }
                data.push((b'0' + *status as u8) as char);
            }
            data.push(']');
        }
        data.push_str(",\"log\":\"");
        base64(&log, data);
        data.push_str("\",\"guards\":[");
        for (k, g) in a
            .guards
            .iter()
            .filter(|g| g.tick >= first && g.tick < end)
            .enumerate()
        {
            if k > 0 {
                data.push(',');
            }
            data.push_str(&std::format!("[{},{},{},", g.tick, g.group, g.child));
            json_opt(data, g.rejected_at);
            data.push(']');
        }
        data.push_str("],\"notes\":[");
        for (k, n) in a
            .notes
            .iter()
            .filter(|n| n.tick >= first && n.tick < end)
            .enumerate()
        {
            if k > 0 {
                data.push(',');
            }
            data.push_str(&std::format!("[{},{},", n.tick, n.uid));
            json_str(data, n.text());
            data.push(']');
        }
        data.push_str("]}");
        total
    }
}

/// Which ticks of an agent [`Recorder::history`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum History {
    /// A file's: every tick from 0 to the last transition kept.
    File,
    /// Everything kept, with the statuses it starts from.
    Reset,
    /// The ticks finished from this one on.
    Since(u32),
}

/// The page with its title and data (`<` escaped inside JSON strings, so
/// no text can close the script element).
fn page(title: &str, data: &str) -> String {
    let data = data.replace('<', "\\u003c");
    let mut escaped = String::with_capacity(title.len());
    crate::view::write_markup(&mut escaped, title, false).expect("writing to a String cannot fail");
    include_str!("debugger.html")
        .replace("/*BT-TITLE*/", &escaped)
        .replace("/*BT-DATA*/", &data)
}

/// Standard base64, with padding.
fn base64(bytes: &[u8], out: &mut String) {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&std::format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A time in a JSON document: the number, or `null` when it is not finite
/// (JSON has no `NaN` or infinities).
struct JsonTime(f64);

impl core::fmt::Display for JsonTime {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0.is_finite() {
            write!(f, "{}", self.0)
        } else {
            f.write_str("null")
        }
    }
}

fn json_opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => json_str(out, s),
        None => out.push_str("null"),
    }
}

impl Recorder {
    /// Logs `node`'s event of `kind` for agent `agent` at `now`, without a
    /// lock, if the node is in the first table ([`tables`](Self::tables));
    /// `false` (nothing logged) otherwise, or if the agent is not recorded,
    /// its events take the lock, or its log is full.
    #[inline(always)]
    fn log(&self, agent: u64, now: f64, node: &'static NodeInfo, kind: u32) -> bool {
        let Ok(index) = usize::try_from(agent) else {
            return false;
        };
        if let (Some(raw), Some(codes)) = (self.raw.get(index), self.codes.get(index))
            && table_of(node) == self.first_table.load(Relaxed)
        {
            // Only a tree of fewer than 64 nodes has its ticks logged whole.
            if node.id < 64 {
                self.spill(index, now);
            }
            raw.push(codes, now, code(kind, 0, node.id))
        } else {
            false
        }
    }

    /// [`log`](Self::log) for a node of any table, or none: looks the
    /// table up, adding it if it is new.
    fn log_any(&self, index: usize, now: f64, node: Option<&'static NodeInfo>, kind: u32) -> bool {
        let slot = match node {
            Some(node) => match self.slot(node) {
                Some(slot) => slot,
                None => return false,
            },
            None => NO_TABLE,
        };
        let id = node.map_or(0, |n| n.id);
        self.raw[index].push(&self.codes[index], now, code(kind, slot, id))
    }

    /// The slot of `node`'s table in [`tables`](Self::tables), found
    /// (or added) by the table's address.
    #[inline]
    fn slot(&self, node: &'static NodeInfo) -> Option<u32> {
        let table = table_of(node);
        if self.first_table.load(Relaxed) == table {
            Some(0)
        } else {
            self.slot_slow(node, table)
        }
    }

    /// [`slot`](Self::slot) past the first table: looks the others up, and
    /// adds `node`'s table if the view of `node`'s tree (by name) has the
    /// same node at that id. Tables beyond [`TABLES`] are not added.
    #[cold]
    #[inline(never)]
    fn slot_slow(&self, node: &'static NodeInfo, table: usize) -> Option<u32> {
        let find = || {
            self.tables
                .iter()
                .map_while(OnceLock::get)
                .position(|t| t.address == table)
        };
        if let Some(slot) = find() {
            return Some(slot as u32);
        }
        let _adding = self.register.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = find() {
            return Some(slot as u32);
        }
        let view = self.layout.views.iter().find(|v| v.name == node.tree)?;
        if view.nodes.get(node.id) != Some(node) || view.nodes.len() > MAX_ID {
            return None;
        }
        let slot = self.tables.iter().position(|t| t.get().is_none())?;
        self.tables[slot]
            .set(Table {
                address: table,
                view,
            })
            .ok()?;
        if slot == 0 {
            self.first_table.store(table, Relaxed);
        }
        Some(slot as u32)
    }

    /// Applies agent `index`'s logged events to its recording `a` (held
    /// locked), oldest first, emptying the log.
    fn fold(&self, index: usize, a: &mut Agent) {
        if a.reloaded.is_some() {
            // Nothing logged: see `LOCKED`.
            return;
        }
        let raw = &self.raw[index];
        let tail = raw.tail.load(Relaxed);
        let head = raw.head.load(Acquire);
        let mut codes = [0; RAW as usize];
        let n = raw.read(&self.codes[index], tail, head, &mut codes);
        let at = |k: u32| codes[(k % RAW) as usize];
        let layout = &self.layout;
        let root = &layout.view.nodes[0];
        // Whether the first table is the recorded tree's own, whose nodes'
        // uids at the root instance `Layout::own` has.
        let own = self.tables[0]
            .get()
            .is_some_and(|t| core::ptr::eq(t.view, layout.view));
        let mut at_root = own && a.stack.len() == 1 && a.reloaded.is_none();
        // The ticks logged whole from the start of the log that follow on
        // from the agent's statuses, each from the one before (how many
        // codes), and the transitions they make.
        let capacity = a.ring.items.capacity() as u64;
        // Only a recorder with a table of ticks logs them whole.
        let whole = self.segments.is_some();
        let mut k = 0;
        let mut chained = 0;
        if let Some(segments) = &self.segments
            && at_root
            && a.packs
        {
            let chain = segments.chain(&at, n, a.packed, capacity);
            chained = chain.codes;
            if chain.skip_to > 0 {
                k = chain.skip_to;
                if let Some(t) = chain.timed {
                    a.now = self.epoch_time(at(t));
                }
                a.set_packed(chain.packed);
                a.ring.dropped += chain.dropped;
                a.ticks = a.ticks.wrapping_add(chain.ticks);
                a.in_tick = chain.open;
            }
        }
        while k < n {
            // A tick logged whole, or ticks that changed nothing.
            let code = at(k);
            if whole && code & 15 >= SEGMENT {
                if code & 15 == QUIET {
                    self.fold_quiet(index, a, code, at_root && k < chained);
                    k += 1;
                } else {
                    let slot = seg_slot(code);
                    let merged = merged_count(code);
                    if merged > 0 {
                        // The ticks that changed nothing before it.
                        let quiet = self
                            .segments
                            .as_ref()
                            .map_or(0, |s| s.slots[slot].quiet_before.load(Relaxed));
                        let quiet = QUIET | quiet.wrapping_sub(1) << 4 | merged << QUIET_COUNT;
                        self.fold_quiet(index, a, quiet, at_root && k < chained);
                    }
                    a.now = self.epoch_time(code);
                    if k < chained {
                        self.fold_chained(a, slot);
                    } else {
                        self.fold_segment(index, a, slot, at_root);
                    }
                    k += 1;
                }
                continue;
            }
            if at_root {
                k = Self::fold_steady(layout, a, &codes, k, n);
                if k >= n {
                    break;
                }
            }
            let code = at(k);
            let kind = code & 15;
            if whole && kind >= SEGMENT {
                continue;
            }
            k += 1;
            if kind == TIME {
                a.now = f64::from_bits(u64::from(at(k)) | u64::from(at(k + 1)) << 32);
                k += 2;
                continue;
            }
            let id = (code >> 9) as usize;
            // A node of the recorded tree itself (the first table), at the
            // root instance: as `Agent::apply` takes it, by uid.
            if kind <= 2
                && code & 0x1f0 == 0
                && at_root
                && let Some(own) = layout.own.get(id)
                && layout.slots[own.uid as usize].info.kind != NodeKind::Subtree
            {
                a.in_tick = true;
                self.returned_memo(a, own.uid, NODE_STATUS[kind as usize]);
                if own.uid == 1 {
                    a.ticks = a.ticks.wrapping_add(1);
                    a.in_tick = false;
                }
                continue;
            }
            let slot = (code >> 4 & 31) as usize;
            let node = if slot == NO_TABLE as usize {
                Some(root)
            } else {
                self.tables
                    .get(slot)
                    .and_then(OnceLock::get)
                    .and_then(|t| t.view.nodes.get(id))
            };
            let what = match kind {
                0 => Event::Returned(Status::Success),
                1 => Event::Returned(Status::Failure),
                2 => Event::Returned(Status::Running),
                ENTER => Event::EnterSubtree,
                MONITOR => Event::MonitorFired { monitor: root },
                RESET => Event::Reset,
                TICK_START => Event::TickStart,
                IN_TICK => Event::Halted,
                _ => continue,
            };
            if let Some(node) = node {
                self.apply_logged(index, a, node, what);
                at_root = own && a.stack.len() == 1 && a.reloaded.is_none();
            }
        }
        raw.tail.store(head, Release);
    }

    /// Takes the codes of `a`'s log (`n` from `tail`) from the `k`-th on
    /// while they change no status (times, and nodes of the recorded tree
    /// itself returning again what they returned, at its root instance, as
    /// [`Own::steady`] says: what most ticks log), as
    /// [`Agent::apply`] takes them; returns the index of the first code it
    /// did not take. Kept small and apart from [`fold`](Self::fold), so
    /// that the loop most codes go through keeps its state in registers.
    #[inline(never)]
    fn fold_steady(
        layout: &Layout,
        a: &mut Agent,
        codes: &[u32; RAW as usize],
        mut k: u32,
        n: u32,
    ) -> u32 {
        let at = |k: u32| codes[(k % RAW) as usize];
        let running = |status: &[NodeStatus], uid: u16| {
            status.get(uid as usize) == Some(&NodeStatus::Running)
        };
        let (mut ticks, mut in_tick, mut now) = (a.ticks, a.in_tick, a.now);
        while k < n {
            let code = at(k);
            if code & 15 == TIME {
                now = f64::from_bits(u64::from(at(k + 1)) | u64::from(at(k + 2)) << 32);
                k += 3;
                continue;
            }
            // A status, first table.
            let kind = code & 0x1ff;
            if kind > 2 {
                break;
            }
            let status = NODE_STATUS[kind as usize];
            let Some(own) = layout.own.get((code >> 9) as usize) else {
                break;
            };
            if a.status.get(own.uid as usize) != Some(&status) {
                break;
            }
            let need = if status == NodeStatus::Running {
                RUNS_ON
            } else {
                ENDS_AGAIN
            };
            if own.parent == 0 && status == NodeStatus::Running {
                ticks = ticks.wrapping_add(1);
                in_tick = false;
            } else if own.parent != 0 && own.steady & need != 0 && running(&a.status, own.parent) {
                in_tick = true;
            } else {
                break;
            }
            k += 1;
        }
        (a.ticks, a.in_tick, a.now) = (ticks, in_tick, now);
        k
    }

    /// Applies the tick [`Segments`] slot `at` holds to `a`, whose
    /// statuses are those it was worked out from ([`Segments::chain`]).
    #[inline]
    fn fold_chained(&self, a: &mut Agent, at: usize) {
        let Some(slot) = self.segments.as_ref().and_then(|s| s.slots.get(at)) else {
            return;
        };
        let state = slot.state.load(Relaxed);
        a.replay(slot.made(state));
        a.end_part(state);
    }

    /// Applies the ticks a [`QUIET`] code `code` stands for to `a` (agent
    /// `index`'s recording): they only count, if `a`'s statuses are those
    /// they were worked out from (`chained`: known so), else each is
    /// applied as [`fold_segment`](Self::fold_segment) applies a tick.
    fn fold_quiet(&self, index: usize, a: &mut Agent, code: u32, chained: bool) {
        let at = seg_slot(code);
        let count = code >> QUIET_COUNT;
        if chained {
            a.ticks = a.ticks.wrapping_add(count);
            a.in_tick = false;
            return;
        }
        let own_root = a.stack.len() == 1
            && a.reloaded.is_none()
            && self.tables[0]
                .get()
                .is_some_and(|t| core::ptr::eq(t.view, self.layout.view));
        for _ in 0..count {
            self.fold_segment(index, a, at, own_root);
        }
    }

    /// Applies to `a` (agent `index`'s recording) event `what` of `node`,
    /// logged at the time `a` is at.
    fn apply_logged(&self, index: usize, a: &mut Agent, node: &'static NodeInfo, what: Event) {
        let layout = self.layout_of(a);
        a.apply(
            layout,
            &TraceEvent {
                level: STATUSES,
                agent: index as u64,
                now: a.now,
                node,
                what,
            },
        );
    }

    /// Applies the tick [`Segments`] slot `at` holds to `a` (agent
    /// `index`'s recording): its transitions, if `a`'s statuses are those
    /// the tick was worked out from and its nodes' uids are the tree's own
    /// (`own_root`), else each of its statuses, as logged one by one.
    fn fold_segment(&self, index: usize, a: &mut Agent, at: usize, own_root: bool) {
        let Some(slot) = self.segments.as_ref().and_then(|s| s.slots.get(at)) else {
            return;
        };
        let state = slot.state.load(Acquire);
        if state & MEMO_READY == 0 {
            return;
        }
        let before = [slot.before[0].load(Relaxed), slot.before[1].load(Relaxed)];
        if own_root && a.packs && a.packed == before {
            a.replay(slot.made(state));
            return a.end_part(state);
        }
        let codes = [slot.codes[0].load(Relaxed), slot.codes[1].load(Relaxed)];
        for (id, status) in segment_statuses(codes, (state >> 8) as u8 as u32) {
            if let Some(node) = self.tables[0].get().and_then(|t| t.view.nodes.get(id)) {
                self.apply_logged(index, a, node, Event::Returned(status));
            }
        }
    }

    /// `Agent::returned` of node `uid` of the recorded tree (as built, at
    /// its root instance) returning `status`, made by the transitions the
    /// [`Memo`] holds for the statuses before it, or worked out (and
    /// kept, when the memo has room).
    #[inline]
    fn returned_memo(&self, a: &mut Agent, uid: u16, status: NodeStatus) {
        let layout = &self.layout;
        let Some(memo) = self.memo.as_ref().filter(|_| a.packs) else {
            return a.returned(layout, uid, status);
        };
        let event = u64::from(uid) << 2 | status as u64;
        let [lo, hi] = a.packed;
        let mut free = None;
        for slot in memo.slots(lo, hi, event) {
            let state = slot.state.load(Acquire);
            if state == 0 {
                free = Some(slot);
                break;
            }
            if state & MEMO_READY != 0
                && (state >> 8) & 0x3ff == event
                && slot.key[0].load(Relaxed) == lo
                && slot.key[1].load(Relaxed) == hi
            {
                let made = [slot.made[0].load(Relaxed), slot.made[1].load(Relaxed)];
                let n = (state & 0xff) as usize;
                return a.replay(made.iter().flat_map(|w| w.to_le_bytes()).take(n));
            }
        }
        a.capture = Some(([0; SEG_MADE], 0));
        a.returned(layout, uid, status);
        let Some((made, n)) = a.capture.take() else {
            return;
        };
        if let Some(slot) = free
            && n <= 16
            && slot
                .state
                .compare_exchange(0, MEMO_BUSY, Acquire, Relaxed)
                .is_ok()
        {
            slot.key[0].store(lo, Relaxed);
            slot.key[1].store(hi, Relaxed);
            let word = |k: usize| u64::from_le_bytes(core::array::from_fn(|i| made[8 * k + i]));
            slot.made[0].store(word(0), Relaxed);
            slot.made[1].store(word(1), Relaxed);
            slot.state
                .store(MEMO_READY | event << 8 | u64::from(n), Release);
        }
    }

    /// [`Trace::gathered`] of statuses logged one by one: of a tick not
    /// logged whole, of another table, or not ending the tick. At the end
    /// of a tick logged so (the recorded tree's root returned), the
    /// agent's log takes ticks whole again from the next one, if the
    /// recorder asks for no events that come every tick.
    #[cold]
    #[inline(never)]
    fn gathered_one_by_one(
        &self,
        agent: u64,
        now: f64,
        nodes: &'static [NodeInfo],
        statuses: Gathered,
    ) {
        let mut root = false;
        for (id, status) in statuses.iter() {
            if let Some(node) = nodes.get(id) {
                self.returned(agent, now, node, status);
                root = id == 0;
            }
        }
        if let Ok(index) = usize::try_from(agent)
            && let Some(raw) = self.raw.get(index)
            && root
            && nodes.as_ptr() as usize == self.first_table.load(Relaxed)
        {
            raw.ticking.store(false, Relaxed);
            if self.level == 0 && self.segments.is_some() && raw.mode.load(Relaxed) == SEG_OFF {
                let wait = raw.backoff.load(Relaxed);
                if wait > 0 {
                    raw.backoff.store(wait - 1, Relaxed);
                } else {
                    let a = self.lock(index);
                    self.resync(index, &a);
                }
            }
        }
    }

    /// The recorded tree's root returned in a tick of `agent`: the tick is
    /// over.
    #[inline(never)]
    fn root_returned(&self, agent: u64) {
        if let Some(raw) = usize::try_from(agent).ok().and_then(|i| self.raw.get(i)) {
            raw.ticking.store(false, Relaxed);
        }
    }

    /// The end of a tick of agent `index` at `now` that is not the same
    /// as the quiet ticks before it, as most such ticks go: the tick ends
    /// and makes transitions, its slot in [`Segments`] is the first its
    /// statuses probe, it is at the newest epoch, and the log has room for
    /// its [`SEGMENT`] code (and the [`QUIET`] code of the ticks before
    /// it). What [`push_segment`](RawLog::push_segment) and
    /// [`end_segment_slow`](Self::end_segment_slow) do, with nothing kept
    /// live for their other cases, which go to the latter before anything
    /// is written.
    #[inline(never)]
    fn end_segment(
        &self,
        index: usize,
        raw: &RawLog,
        now: f64,
        nodes: &'static [NodeInfo],
        statuses: Gathered,
    ) {
        let len = statuses.len() as u32;
        let codes = [statuses.codes() as u64, (statuses.codes() >> 64) as u64];
        if let Some(segments) = &self.segments
            && codes[0] as u8 & 63 == 0
            && let Some(ring) = self.codes.get(index)
        {
            let before = [raw.packed[0].load(Relaxed), raw.packed[1].load(Relaxed)];
            let at = segments.first_slot(before, codes, len);
            let slot = &segments.slots[at];
            let state = slot.state.load(Acquire);
            let bits = now.to_bits();
            let epoch = self.epoch.load(Acquire);
            let mut head = raw.head.load(Relaxed);
            let quiet = raw.quiet.load(Relaxed);
            let pending = quiet >> QUIET_COUNT != 0;
            let used = head.wrapping_sub(raw.tail.load(Acquire));
            if state & (MEMO_READY | 0xff00) == MEMO_READY | u64::from(len) << 8
                && state as u8 != 0
                && slot.before[0].load(Relaxed) == before[0]
                && slot.before[1].load(Relaxed) == before[1]
                && slot.codes[0].load(Relaxed) == codes[0]
                && slot.codes[1].load(Relaxed) == codes[1]
                && self.times[(epoch % EPOCHS) as usize].load(Relaxed) == bits
                && used.wrapping_sub(1) < RAW - 2
            {
                raw.ticking.store(false, Relaxed);
                let mut merged = 0;
                if quiet != 0 {
                    let quiet = raw.end_quiet();
                    merged = slot.merged(quiet);
                    if pending && merged == 0 {
                        raw.put(ring, head, quiet);
                        head = head.wrapping_add(1);
                    }
                }
                raw.put(ring, head, segment_code(at as u32, epoch, merged));
                raw.now.store(bits, Relaxed);
                raw.head.store(head.wrapping_add(1), Release);
                let repeat = slot.repeat.load(Relaxed);
                if repeat != 0 && len < 8 {
                    raw.quiet.store(QUIET | (repeat - 1) << 4, Relaxed);
                    raw.last.store(codes[0] | u64::from(len) << 56, Relaxed);
                }
                raw.packed[0].store(slot.after[0].load(Relaxed), Relaxed);
                raw.packed[1].store(slot.after[1].load(Relaxed), Relaxed);
                return;
            }
        }
        self.end_segment_slow(index, raw, now, nodes, statuses);
    }

    /// The end of a tick of agent `index` at `now` that is not the same
    /// as the quiet ticks before it: its root returned, the last of the
    /// statuses gathered. Counts it among the ticks that changed nothing
    /// ([`RawLog::quiet`]), or logs one [`SEGMENT`] code for it, found in
    /// [`Segments`] or worked out there; if the table has no room, logs
    /// each status ([`spill`](Self::spill)).
    #[cold]
    #[inline(never)]
    fn end_segment_slow(
        &self,
        index: usize,
        raw: &RawLog,
        now: f64,
        nodes: &'static [NodeInfo],
        statuses: Gathered,
    ) {
        let ends = statuses.codes() as u8 & 63 == 0;
        if ends {
            raw.ticking.store(false, Relaxed);
        }
        let len = statuses.len() as u32;
        let codes = [statuses.codes() as u64, (statuses.codes() >> 64) as u64];
        let short = codes[0] | u64::from(len) << 56;
        let before = [raw.packed[0].load(Relaxed), raw.packed[1].load(Relaxed)];
        let Some(segments) = &self.segments else {
            return self.spill_gathered(index, now, nodes, statuses);
        };
        let found = match self.segment(segments, before, codes, len) {
            Ok(found) => Some(found),
            Err(free) => self.segment_slow(index, segments, free, before, codes, len),
        };
        let Some((slot, after, made)) = found else {
            raw.backoff.store(SEG_BACKOFF, Relaxed);
            return self.spill_gathered(index, now, nodes, statuses);
        };
        if made == 0 && ends {
            // Quiet: counted with the ticks before it if they are the
            // same, else they are logged and it starts a count.
            let quiet = raw.quiet.load(Relaxed);
            let same = seg_slot(quiet) == slot;
            if quiet != 0 && same && quiet >> QUIET_COUNT < QUIET_MOST {
                raw.quiet.store(quiet + (1 << QUIET_COUNT), Relaxed);
            } else {
                if quiet != 0 && !raw.push_quiet(&self.codes[index]) {
                    self.fold_here(index);
                    if !raw.push_quiet(&self.codes[index]) {
                        return self.spill_gathered(index, now, nodes, statuses);
                    }
                }
                raw.quiet
                    .store(QUIET | (slot as u32) << 4 | 1 << QUIET_COUNT, Relaxed);
                let short = if len < 8 { short } else { u64::MAX };
                raw.last.store(short, Relaxed);
            }
        } else {
            // No lock held here: a new epoch may fold other agents' logs.
            let epoch = self.epoch(now);
            if !raw.push_segment(&self.codes[index], now, epoch, slot, &segments.slots[slot]) {
                self.fold_here(index);
                if !raw.push_segment(&self.codes[index], now, epoch, slot, &segments.slots[slot]) {
                    return self.spill_gathered(index, now, nodes, statuses);
                }
            }
            // The same statuses again would change nothing: a run of
            // quiet ticks starts, of none yet.
            let repeat = segments.slots[slot].repeat.load(Relaxed);
            if repeat != 0 && ends && len < 8 {
                raw.quiet.store(QUIET | (repeat - 1) << 4, Relaxed);
                raw.last.store(short, Relaxed);
            }
        }
        raw.packed[0].store(after[0], Relaxed);
        raw.packed[1].store(after[1], Relaxed);
    }

    /// A tick of agent `index` gathered that is not logged whole: logged
    /// one by one, and the log takes statuses so until it is next folded.
    #[cold]
    #[inline(never)]
    fn spill_gathered(
        &self,
        index: usize,
        now: f64,
        nodes: &'static [NodeInfo],
        statuses: Gathered,
    ) {
        self.spill(index, now);
        self.gathered_one_by_one(index as u64, now, nodes, statuses);
    }

    /// The epoch of time `now`, for a [`SEGMENT`] code of a tick at `now`
    /// to keep in 12 bits in place of the time's 64.
    ///
    /// Epochs number the times ticks logged whole happen at, in the order
    /// they are first met (programs tick their agents at a few times at
    /// once), and the recorder keeps the last [`EPOCHS`] times. Codes are
    /// logged at the newest epoch or the one before, and every
    /// [`EPOCHS_SWEPT`] epochs the logs holding codes that many epochs
    /// old are folded (those of agents not ticked since, whose logs did
    /// not fill): no code outlives its time. Must be called without an
    /// agent's lock held.
    #[inline]
    fn epoch(&self, now: f64) -> u32 {
        let bits = now.to_bits();
        let epoch = self.epoch.load(Acquire);
        let time = |e: u32| self.times[(e % EPOCHS) as usize].load(Relaxed);
        if time(epoch) == bits {
            epoch
        } else if time(epoch.wrapping_sub(1)) == bits {
            // Two sets of agents ticked at two times, in turns.
            epoch.wrapping_sub(1)
        } else {
            self.new_epoch(bits)
        }
    }

    /// Makes the epoch of a time (its `bits`) that is neither of the last
    /// two, unless another thread just did.
    #[cold]
    #[inline(never)]
    fn new_epoch(&self, bits: u64) -> u32 {
        let _making = self
            .epoch_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let epoch = self.epoch.load(Relaxed);
        if self.times[(epoch % EPOCHS) as usize].load(Relaxed) == bits {
            return epoch;
        }
        let next = epoch.wrapping_add(1);
        if next.is_multiple_of(EPOCHS_SWEPT) {
            for (index, raw) in self.raw.iter().enumerate() {
                let used = raw.head.load(Acquire).wrapping_sub(raw.tail.load(Acquire));
                if (1..LOCKED).contains(&used)
                    && next.wrapping_sub(raw.oldest.load(Relaxed)) >= EPOCHS_SWEPT
                {
                    drop(self.lock(index));
                }
            }
        }
        self.times[(next % EPOCHS) as usize].store(bits, Relaxed);
        self.epoch.store(next, Release);
        next
    }

    /// The time of the tick a [`SEGMENT`] code `code` logs.
    #[inline]
    fn epoch_time(&self, code: u32) -> f64 {
        let newest = self.epoch.load(Acquire);
        let logged = code >> 16 & (EPOCHS - 1);
        let epoch = newest.wrapping_sub(newest.wrapping_sub(logged) % EPOCHS);
        f64::from_bits(self.times[(epoch % EPOCHS) as usize].load(Relaxed))
    }

    /// Folds agent `index`'s full log on the thread that ticks it (so
    /// nothing is logged meanwhile).
    #[cold]
    #[inline(never)]
    fn fold_here(&self, index: usize) {
        drop(self.lock(index));
    }

    /// The [`Segments`] slot of a tick of `len` statuses `codes` from
    /// statuses `before`, with the statuses after it and how many
    /// transitions it makes: found, or worked
    /// out and kept; `None` when its slots are taken or it makes more
    /// transitions than a slot keeps.
    #[inline(always)]
    fn segment(
        &self,
        segments: &Segments,
        before: [u64; 2],
        codes: [u64; 2],
        len: u32,
    ) -> Result<(usize, [u64; 2], u8), Option<usize>> {
        let mut free = None;
        for at in segments.slots(before, codes, len) {
            let slot = &segments.slots[at];
            let state = slot.state.load(Acquire);
            if state == 0 {
                free = Some(at);
                break;
            }
            if state & (MEMO_READY | 0xff00) == MEMO_READY | u64::from(len) << 8
                && slot.before[0].load(Relaxed) == before[0]
                && slot.before[1].load(Relaxed) == before[1]
                && slot.codes[0].load(Relaxed) == codes[0]
                && slot.codes[1].load(Relaxed) == codes[1]
            {
                let after = [slot.after[0].load(Relaxed), slot.after[1].load(Relaxed)];
                return Ok((at, after, state as u8));
            }
        }
        Err(free)
    }

    /// A tick of agent `index` from statuses `before` that
    /// [`segment`](Self::segment) did not find: from the agent's statuses
    /// if `before` is [`UNKNOWN`] (found there, or not), then worked out
    /// into the free slot and kept, if there is one; with its repeat
    /// ([`find_repeat`](Self::find_repeat)) if it ends and makes
    /// transitions.
    #[cold]
    #[inline(never)]
    fn segment_slow(
        &self,
        index: usize,
        segments: &Segments,
        free: Option<usize>,
        before: [u64; 2],
        codes: [u64; 2],
        len: u32,
    ) -> Option<(usize, [u64; 2], u8)> {
        let found = if before == UNKNOWN {
            let before = {
                let a = self.lock(index);
                self.resync(index, &a);
                a.packed
            };
            self.find_or_keep(segments, before, codes, len)?
        } else {
            self.keep(segments, free?, before, codes, len)?
        };
        if found.2 != 0 && len < 8 && codes[0] as u8 & 63 == 0 {
            self.find_repeat(segments, found, codes, len);
        }
        Some(found)
    }

    /// Finds or works out the slot of the statuses of slot `found` (a
    /// tick that ends and makes transitions) again, from the statuses
    /// after it; if they make none, names it `found`'s
    /// [`repeat`](SegSlot::repeat).
    #[cold]
    #[inline(never)]
    fn find_repeat(
        &self,
        segments: &Segments,
        found: (usize, [u64; 2], u8),
        codes: [u64; 2],
        len: u32,
    ) {
        let (at, after, _) = found;
        if let Some((repeat, _, 0)) = self.find_or_keep(segments, after, codes, len) {
            segments.slots[at].repeat.store(repeat as u32 + 1, Relaxed);
        }
    }

    /// The slot of a tick of `len` statuses `codes` from statuses
    /// `before`: found in [`Segments`], or worked out into a free slot and
    /// kept ([`keep`](Self::keep)).
    fn find_or_keep(
        &self,
        segments: &Segments,
        before: [u64; 2],
        codes: [u64; 2],
        len: u32,
    ) -> Option<(usize, [u64; 2], u8)> {
        match self.segment(segments, before, codes, len) {
            Ok(found) => Some(found),
            Err(free) => self.keep(segments, free?, before, codes, len),
        }
    }

    /// Works out a tick of `len` statuses `codes` from statuses `before`
    /// into the free slot `at` of [`Segments`] and keeps it there; `None`
    /// if another thread took the slot or the tick makes more transitions
    /// than a slot keeps.
    fn keep(
        &self,
        segments: &Segments,
        at: usize,
        before: [u64; 2],
        codes: [u64; 2],
        len: u32,
    ) -> Option<(usize, [u64; 2], u8)> {
        let (made, n, after) = self.work_out(segments, before, codes, len)?;
        let slot = &segments.slots[at];
        slot.state
            .compare_exchange(0, MEMO_BUSY, Acquire, Relaxed)
            .ok()?;
        let word = |k: usize| u64::from_le_bytes(core::array::from_fn(|i| made[8 * k + i]));
        for k in 0..2 {
            slot.before[k].store(before[k], Relaxed);
            slot.codes[k].store(codes[k], Relaxed);
            slot.after[k].store(after[k], Relaxed);
        }
        for (k, word_k) in slot.made.iter().enumerate() {
            word_k.store(word(k), Relaxed);
        }
        let ends = if codes[0] as u8 & 63 == 0 {
            SEG_ENDS
        } else {
            0
        };
        slot.state.store(
            MEMO_READY | ends | u64::from(len) << 8 | u64::from(n),
            Release,
        );
        Some((at, after, n))
    }

    /// What a tick of `len` statuses `codes` makes of statuses `before`,
    /// by BehaviorTree.CPP's rules ([`Agent::apply`]), on the scratch
    /// agent: the transitions, how many, and the statuses after; `None`
    /// if they are more than [`SEG_MADE`].
    #[cold]
    #[inline(never)]
    fn work_out(
        &self,
        segments: &Segments,
        before: [u64; 2],
        codes: [u64; 2],
        len: u32,
    ) -> Option<([u8; SEG_MADE], u8, [u64; 2])> {
        let layout = &self.layout;
        let mut s = segments
            .scratch
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        s.set_packed(before);
        s.capture = Some(([0; SEG_MADE], 0));
        for (id, status) in segment_statuses(codes, len) {
            let node = layout.view.nodes.get(id)?;
            s.apply(
                layout,
                &TraceEvent {
                    level: STATUSES,
                    agent: 0,
                    now: 0.0,
                    node,
                    what: Event::Returned(status),
                },
            );
        }
        let (made, n) = s.capture.take()?;
        (usize::from(n) <= SEG_MADE).then_some((made, n, s.packed))
    }

    /// Logs agent `index`'s ticks that changed nothing not yet logged, and
    /// has it log statuses one by one from now until its log is next
    /// folded on its thread: before an event that is not a tick of the
    /// recorded tree gathered whole, and when a tick does not fit
    /// [`Segments`].
    #[inline(always)]
    fn spill(&self, index: usize, now: f64) {
        let raw = &self.raw[index];
        if raw.mode.load(Relaxed) != SEG_OFF {
            self.spill_slow(index, now);
        }
    }

    #[cold]
    #[inline(never)]
    fn spill_slow(&self, index: usize, _now: f64) {
        let raw = &self.raw[index];
        raw.mode.store(SEG_OFF, Relaxed);
        if !raw.push_quiet(&self.codes[index]) {
            self.fold_here(index);
            if !raw.push_quiet(&self.codes[index]) {
                // Not logged (the log is shut): applied here.
                let mut a = self.lock(index);
                let quiet = raw.end_quiet();
                self.fold_quiet(index, &mut a, quiet, true);
            }
        }
    }

    /// [`Trace::returned`] of a node not in the first table, of an event
    /// that takes the lock, or of an agent not recorded.
    #[cold]
    #[inline(never)]
    fn returned_slow(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        let Ok(index) = usize::try_from(agent) else {
            return;
        };
        if index < self.agents.len() {
            self.spill(index, now);
        }
        if index < self.agents.len() && !self.log_any(index, now, Some(node), status as u32) {
            self.apply(
                index,
                &TraceEvent {
                    level: STATUSES,
                    agent,
                    now,
                    node,
                    what: Event::Returned(status),
                },
            );
        }
    }

    /// Takes `event` under agent `index`'s lock, after the events logged.
    #[cold]
    #[inline(never)]
    fn apply(&self, index: usize, event: &TraceEvent) {
        let mut a = self.lock(index);
        match event.what {
            Event::TreeVersion { view, .. } => self.follow(&mut a, view),
            _ => {
                let layout = self.layout_of(&a);
                a.apply(layout, event);
            }
        }
        self.resync(index, &a);
        // The log is empty (folded): open it, or keep it shut (`LOCKED`).
        let raw = &self.raw[index];
        let head = raw.head.load(Relaxed);
        raw.now.store(a.now.to_bits(), Relaxed);
        let shut = if a.reloaded.is_some() { LOCKED } else { 0 };
        raw.tail.store(head.wrapping_sub(shut), Release);
    }

    /// The layout of the version of the tree `a` runs.
    #[inline]
    fn layout_of<'s>(&'s self, a: &Agent) -> &'s Layout {
        a.reloaded.unwrap_or(&self.layout)
    }

    /// `a` runs the version of the tree `view` lays out: if its nodes are
    /// not those of the layout the agent is recorded in, the agent moves to
    /// that version's layout (the tree as built, if it is that again), and
    /// its history starts over.
    #[cold]
    #[inline(never)]
    fn follow(&self, a: &mut Agent, view: &'static TreeView<'static>) {
        let address = view as *const TreeView<'static> as usize;
        if a.version_view == address {
            return;
        }
        a.version_view = address;
        let current = self.layout_of(a).view;
        // A tree too large for 16-bit uids is not laid out (nor can it be
        // built): its events keep the layout they had.
        if core::ptr::eq(current, view) || *current == *view || view.size >= u16::MAX as usize {
            return;
        }
        if *self.layout.view == *view {
            a.relayout(&self.layout, None, 0);
            return;
        }
        let mut reloaded = self.reloaded.lock().unwrap_or_else(PoisonError::into_inner);
        let found = reloaded.iter().position(|l| core::ptr::eq(l.view, view));
        let index = found.unwrap_or_else(|| {
            let mut xml = std::vec![0; view.write_xml(Form::Instance, &mut [])];
            view.write_xml(Form::Instance, &mut xml);
            let xml = String::from_utf8(xml).unwrap_or_default();
            let layout = Layout::new(view, Box::leak(xml.into_boxed_str()));
            reloaded.push(Box::leak(Box::new(layout)));
            reloaded.len() - 1
        });
        let layout = reloaded[index];
        drop(reloaded);
        a.relayout(layout, Some(layout), index as u32 + 1);
    }
}

impl Trace for Recorder {
    /// 0: a recorder follows statuses (level 6, and a firing `monitor`,
    /// which hooks that follow statuses get too), and the events of levels
    /// 1 to 5 are not built for it, unless it records guards
    /// ([`with_guards`](Recorder::with_guards): level 5).
    #[inline]
    fn level(&self, agent: u64) -> u8 {
        if agent < self.agents.len() as u64 {
            self.level
        } else {
            0
        }
    }

    /// Also marks the start of the agent's tick.
    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        match usize::try_from(agent).ok().and_then(|i| self.raw.get(i)) {
            Some(raw) => {
                raw.ticking.store(true, Relaxed);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn event(&self, event: &TraceEvent) {
        let Ok(index) = usize::try_from(event.agent) else {
            return;
        };
        if index >= self.agents.len() {
            return;
        }
        let (kind, node) = match event.what {
            Event::Returned(status) => (status as u32, Some(event.node)),
            Event::EnterSubtree => (ENTER, Some(event.node)),
            Event::TickStart => (TICK_START, Some(event.node)),
            Event::MonitorFired { .. } => (MONITOR, None),
            Event::Activate { .. }
            | Event::Interrupt { .. }
            | Event::Halted
            | Event::End { .. }
            | Event::NoneAccepted
            | Event::RedecideLimit
            | Event::Continue { .. } => (IN_TICK, None),
            // Changes nothing.
            Event::TickEnd(_) => return,
            // Between ticks.
            Event::Reset => {
                self.raw[index].ticking.store(false, Relaxed);
                (RESET, None)
            }
            Event::Guard { .. } | Event::TreeVersion { .. } => {
                self.spill(index, event.now);
                return self.apply(index, event);
            }
        };
        self.spill(index, event.now);
        if !self.log_any(index, event.now, node, kind) {
            self.apply(index, event);
        }
    }

    #[inline(always)]
    fn returned(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        if !self.log(agent, now, node, status as u32) {
            self.returned_slow(agent, now, node, status);
        }
        if node.id == 0 && table_of(node) == self.own_nodes {
            self.root_returned(agent);
        }
    }

    /// A recorder takes a tick of the recorded tree (without subtrees, of
    /// at most 63 nodes) gathered whole (see the [module docs](self),
    /// "Cost").
    const GATHERS: bool = true;

    #[inline]
    fn gathered(&self, agent: u64, now: f64, nodes: &'static [NodeInfo], statuses: Gathered) {
        // A tick (or its part, when it ends without the root's status) of
        // the recorded tree, while the agent's log takes ticks whole.
        if let Ok(index) = usize::try_from(agent)
            && let Some(raw) = self.raw.get(index)
            && nodes.as_ptr() as usize == self.first_table.load(Relaxed)
        {
            // The same statuses as the quiet ticks before it, from the same
            // statuses (a quiet tick changes none): quiet too. `last` is
            // not a tick's statuses unless such ticks are being counted
            // (then the log takes ticks whole), and never those of 8 or
            // more (their count is in the bits compared).
            let short = statuses.codes() as u64 | (statuses.len() as u64) << 56;
            if short == raw.last.load(Relaxed)
                && let Some(quiet) = raw.quiet.load(Relaxed).checked_add(1 << QUIET_COUNT)
            {
                return raw.quiet.store(quiet, Relaxed);
            }
            if raw.mode.load(Relaxed) == 0 {
                return self.end_segment(index, raw, now, nodes, statuses);
            }
        }
        self.gathered_one_by_one(agent, now, nodes, statuses);
    }
}

#[cfg(test)]
mod tests {
    use super::{Codes, JsonTime, RAW, RawLog, json_str};
    use std::string::{String, ToString};
    use std::sync::atomic::{AtomicU32, Ordering::*};

    /// A folder reading an agent's log while its writer writes codes
    /// after them, and moves staged blocks to the ring under its feet,
    /// reads every code as written. The folder takes a few codes at a
    /// time, so that it reads staged codes at every offset of a block.
    #[test]
    fn codes_read_while_the_writer_moves_blocks_are_the_codes_written() {
        const TOTAL: u32 = 300_000;
        let code = |at: u32| at.wrapping_mul(0x9e37_79b9) | 1;
        let raw = RawLog::new();
        let codes = Codes([const { AtomicU32::new(0) }; RAW as usize]);
        // Set when the folder stops, even by failing: the writer stops.
        let stopped = std::sync::atomic::AtomicBool::new(false);
        struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Release);
            }
        }
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut head = 0;
                while head < TOTAL && !stopped.load(Acquire) {
                    if head.wrapping_sub(raw.tail.load(Acquire)) >= RAW {
                        std::thread::yield_now();
                        continue;
                    }
                    raw.put(&codes, head, code(head));
                    head += 1;
                    raw.head.store(head, Release);
                }
            });
            let _stop = Stop(&stopped);
            let (mut out, mut taken, mut reads) = ([0; RAW as usize], 0, 0u32);
            while taken < TOTAL {
                let head = raw.head.load(Acquire);
                let n = raw.read(&codes, taken, head, &mut out);
                for (k, read) in (0..n).zip(out) {
                    assert_eq!(read, code(taken + k), "position {}", taken + k);
                }
                reads += 1;
                taken += n.min(1 + reads % 7);
                raw.tail.store(taken, Release);
            }
        });
    }

    #[test]
    fn any_text_is_a_json_string_that_reads_back() {
        // Every character class an escaper can get wrong, in random order.
        let alphabet: std::vec::Vec<char> = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain([
                '\u{85}', '\u{a0}', '\u{2028}', '\u{2029}', '\u{fffe}', '\u{ffff}', 'é', '🦀',
            ])
            .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2_000 {
            let mut text = String::new();
            for _ in 0..seed % 12 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            let mut json = String::new();
            json_str(&mut json, &text);
            let back: String =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
            assert_eq!(back, text);
        }
    }

    #[test]
    fn times_that_are_not_finite_are_null() {
        for (t, text) in [
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (f64::NEG_INFINITY, "null"),
            (1.5, "1.5"),
        ] {
            assert_eq!(JsonTime(t).to_string(), text);
        }
    }
}
