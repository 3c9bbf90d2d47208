//! Groot2's live monitor for trees compiled by `bt::behavior_tree!`: a
//! running program serves the protocol of BehaviorTree.CPP's
//! `Groot2Publisher`, so Groot2 (or any client of that protocol) shows the
//! tree, each node's status, the values the program registers and the
//! recorded transitions, and sets breakpoints and replacements on nodes.
//!
//! ```no_run
//! use bt::prelude::*;
//! use bt::{NoFlags, Trace};
//! use bt_groot::{Groot2, Options};
//!
//! bt::behavior_tree! {
//!     tree Patrol(me: &mut f32, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//!         sequence { 'ready: cond *me > 0.0, 'walk: instant { *me -= 1.0; Outcome::Success } }
//!     }
//! }
//!
//! // Port 1667 for requests, 1668 for breakpoint notifications: Groot2's
//! // defaults. Localhost only, unless the options name another address.
//! let groot = Groot2::serve::<Patrol>(Options::new().port(1667)).expect("ports free");
//! groot.watch(7); // Groot2 shows agent 7
//! let mut agents = vec![(Patrol::default(), 10.0f32); 100];
//! for frame in 0..600u32 {
//!     let now = f64::from(frame) / 60.0;
//!     for (id, (state, me)) in agents.iter_mut().enumerate() {
//!         let cx = Ctx::new(now, 1.0 / 60.0).agent(id as u64);
//!         // The agent Groot2 follows ticks with the server attached; the
//!         // others as compiled without it.
//!         if groot.follows(id as u64) {
//!             state.tick(me, &cx.trace(&groot));
//!             groot.set_value("me", *me); // shown in Groot2's blackboard view
//!         } else {
//!             state.tick(me, &cx);
//!         }
//!     }
//! }
//! ```
//!
//! A tree whose context names the server's type (`Ctx<D, S, &Groot2>`)
//! ticks every agent with it, at a cost (see [Cost](#cost)). In Bevy,
//! `arbortick-bevy`'s `TreePlugin::traced` does the dispatch above.
//!
//! # What it serves
//!
//! The server is a [`Trace`] hook: attach it to the context of every tick
//! (`Ctx::new(..).trace(&groot)`, or paired with another hook as
//! `.trace(&(&groot, &recorder))`). It answers requests on its own thread.
//!
//! | request | reply |
//! |---|---|
//! | `T` full tree | [`BehaviorTree::BTCPP_INSTANCE_XML`]: the tree with its uids |
//! | `S` status | 3 bytes per node in uid order: uid (`u16`), status (0 idle, 1 running, 2 success, 3 failure, `10 + s` back to idle from `s`) |
//! | `B` blackboard | MessagePack `{name: {key: value}}`: under the tree's name, the values the program set ([`Groot2::set_value`]), `nil` when there are none; each embedded instance's full path, `nil` |
//! | `I` `R` `U` `D` `A` `X` | hooks: insert, remove, unlock a breakpoint, dump, remove all, disable all |
//! | `r` `t` | recording on (`start`, replying the time in µs) or off (`stop`); transitions since the last `t` (9 bytes each, at most 1,000 kept) |
//!
//! A hook in breakpoint mode blocks the watched agent's tick at its node
//! until a client unlocks it (and publishes the node's uid on the second
//! port); in replace mode the node returns the hook's status without
//! running. Hooks act through [`Trace::before`] and [`Trace::after`], the
//! tree's one hook point, so a replaced node follows the rule of the `bt`
//! crate's reference ("Node hooks"). After five seconds without a request
//! ([`Options::heartbeat`]) every hook is disabled and a waiting breakpoint
//! released, so a closed Groot2 never leaves the program stuck; they are
//! enabled again once the next request is answered.
//!
//! # Values
//!
//! Groot2's blackboard view shows, under the tree's name (the main tree's
//! blackboard; embedded instances have none), the values the
//! program sets with [`Groot2::set_value`] (any `serde_json::Value`: a
//! number, a string, an object), until set again or
//! [`cleared`](Groot2::clear_values). The tree's state holds no names for
//! the data its expressions read, so nothing shows by itself: set, after
//! each tick of the followed agent, what a person debugging it wants to
//! see (its position, its target, the value a running `when let` branch
//! was entered with, which the agent's own data holds).
//!
//! # One agent at a time
//!
//! Groot2 shows one tree instance. The server watches one agent,
//! [`watch`](Groot2::watch)ed by the program (agent 0 at first), and
//! follows no other: ticks of other agents ask it one comparison. Changing
//! the watched agent keeps the hooks (they name nodes, not agents),
//! releases a breakpoint the previous agent waits at (its node runs as if
//! no hook were set), and starts the statuses over from idle. One server
//! serves one tree type; serve several trees on several ports.
//!
//! # Cost
//!
//! With no client, the server follows nothing: a tick asks it whether its
//! agent is followed and whether it is hooked. Once a client has sent a
//! request, and until the heartbeat delay passes without one, the watched
//! agent's statuses are recorded (as [`Recorder`] records them), starting
//! from every node idle: a client sees the statuses of the ticks after its
//! first request (BehaviorTree.CPP's publisher follows the tree from its
//! start, at the cost of recording every tick). Call
//! [`watch`](Groot2::watch) between ticks.
//!
//! Attached to every tick's context, the server makes the tick the traced
//! one: on `bt-bench`'s decider (a five-node tree that ticks in about 13
//! ns), 85 instructions per agent-tick against 58 without it. Trees whose
//! context is `Ctx<D, S, impl Trace>` do better by ticking with the server
//! only the agent it [`follows`](Groot2::follows), and every other one as
//! compiled without tracing: 62 instructions (1.07x), one load and one
//! comparison per tick. Counted by cachegrind, `(120 ticks - 20 ticks) /
//! 100,000` agent-ticks of 1,000 agents:
//!
//! ```sh
//! cargo build --release -p bt-bench --bin tick_count
//! valgrind --tool=cachegrind --cache-sim=no target/release/tick_count decider bt-groot2-no-client 1000 120
//! ```
//!
//! `BENCHMARKS-deciders.md` has the times, with a client polling the
//! statuses 10 times a second too.
//!
//! # Differences from BehaviorTree.CPP's publisher
//!
//! The same client requests give the same replies (checked in CI against
//! BehaviorTree.CPP 4.8.2's own publisher, by one client driving both),
//! except where the publisher has no answer or a bug:
//! - A malformed hook (invalid JSON, a field missing or of the wrong type,
//!   a status that is no status) gets the error reply
//!   `["error", "invalid hook: …"]`; the publisher's thread throws and the
//!   program ends.
//! - A hook on a uid no node has gets `["error", "Node ID not found"]` (the
//!   publisher's reply when removing or unlocking one); the publisher
//!   replies as if it were set.
//! - An unlock with no breakpoint waiting at that node gets
//!   `["error", "no breakpoint waiting at node N"]`; the publisher replies
//!   with success and lets the node's next breakpoint pass without
//!   stopping.
//! - A hook at position 1 (post) runs after the node returned: a
//!   breakpoint there stops the tick once the node finished, and a
//!   replacement replaces its status. The publisher stores position-1 hooks
//!   as position-0 ones (the node does not run), and cannot remove them by
//!   position 1.
//! - A running node a hook replaces with success or failure is halted
//!   (exactly once, as a preemption halts it); the publisher leaves it
//!   unhalted.
//! - Transition times are the ticks' times ([`Context::now`]), counted from
//!   the first tick recorded; the publisher uses its clock at each change.
//! - Statuses are recorded from a client's first request on (see
//!   [Cost](#cost)); the publisher records them from the start.
//! - The blackboard reply has the values set under the tree's name, and
//!   `nil` for each embedded instance; the publisher has each instance's
//!   blackboard.
//!
//! [`Context::now`]: bt_runtime::Context::now

mod msgpack;
pub mod zmtp;

use bt_runtime::NodeInfo;
use bt_runtime::record::{NodeStatus, Recorder};
use bt_runtime::trace::{Trace, TraceEvent};
use bt_runtime::view::{Placed, TreeView, expand};
use bt_runtime::{BehaviorTree, Status};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The protocol's version byte.
pub const PROTOCOL: u8 = 2;

/// Transitions kept between two `t` requests, as BehaviorTree.CPP keeps.
pub const MAX_TRANSITIONS: usize = 1000;

/// Where and how a [`Groot2`] server listens.
#[derive(Clone, Debug)]
pub struct Options {
    address: IpAddr,
    port: u16,
    heartbeat: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

impl Options {
    /// Localhost, port 1667 (and 1668), a 5-second heartbeat.
    pub fn new() -> Options {
        Options {
            address: Ipv4Addr::LOCALHOST.into(),
            port: 1667,
            heartbeat: Duration::from_secs(5),
        }
    }

    /// Requests on `port`, breakpoint notifications on `port + 1`. Port 0
    /// takes two free ports the system chooses ([`Groot2::address`] and
    /// [`Groot2::notifications`] say which).
    pub fn port(mut self, port: u16) -> Options {
        self.port = port;
        self
    }

    /// Listens on `address` instead of localhost (`0.0.0.0` for every
    /// interface: anyone who reaches the port can pause the program).
    pub fn address(mut self, address: IpAddr) -> Options {
        self.address = address;
        self
    }

    /// How long without a request before the hooks are disabled.
    pub fn heartbeat(mut self, delay: Duration) -> Options {
        self.heartbeat = delay;
        self
    }
}

/// Where a hook acts: before its node runs, or after it returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Position {
    /// Before the node runs (Groot2's position 0).
    Pre,
    /// After the node returned, before its parent sees the status
    /// (position 1).
    Post,
}

/// A hook as a client set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The node's uid.
    pub uid: u16,
    /// Before or after the node.
    pub position: Position,
    /// `false`: the hook does nothing.
    pub enabled: bool,
    /// `true`: a breakpoint, which blocks the tick until unlocked;
    /// `false`: a replacement.
    pub breakpoint: bool,
    /// Removed once it acted.
    pub once: bool,
    /// The status the node returns: `SUCCESS` or `FAILURE` replace it,
    /// anything else (`SKIPPED`, `IDLE`, `RUNNING`) lets it run.
    pub desired: String,
}

impl Hook {
    fn json(&self) -> Value {
        serde_json::json!({
            "desired_status": self.desired,
            "enabled": self.enabled,
            "mode": if self.breakpoint { 0 } else { 1 },
            "once": self.once,
            "position": match self.position { Position::Pre => 0, Position::Post => 1 },
            "uid": self.uid,
        })
    }

    fn from_json(v: &Value) -> Result<Hook, String> {
        Ok(Hook {
            enabled: field(v, "enabled")?
                .as_bool()
                .ok_or("`enabled` is not a boolean")?,
            uid: uid(v)?,
            once: field(v, "once")?
                .as_bool()
                .ok_or("`once` is not a boolean")?,
            breakpoint: match field(v, "mode")?.as_i64() {
                Some(0) => true,
                Some(1) => false,
                _ => return Err("`mode` is not 0 or 1".into()),
            },
            position: position(v)?,
            desired: desired(v)?,
        })
    }

    /// The status the node returns instead of running, if any.
    fn status(&self) -> Option<Status> {
        status_of(&self.desired)
    }
}

fn field<'a>(v: &'a Value, name: &str) -> Result<&'a Value, String> {
    v.get(name).ok_or_else(|| format!("no `{name}`"))
}

fn uid(v: &Value) -> Result<u16, String> {
    field(v, "uid")?
        .as_u64()
        .and_then(|u| u16::try_from(u).ok())
        .ok_or_else(|| "`uid` is not a node uid".into())
}

fn position(v: &Value) -> Result<Position, String> {
    match field(v, "position")?.as_i64() {
        Some(0) => Ok(Position::Pre),
        Some(1) => Ok(Position::Post),
        _ => Err("`position` is not 0 or 1".into()),
    }
}

fn desired(v: &Value) -> Result<String, String> {
    let s = field(v, "desired_status")?
        .as_str()
        .ok_or("`desired_status` is not a string")?;
    match s {
        "IDLE" | "RUNNING" | "SUCCESS" | "FAILURE" | "SKIPPED" => Ok(s.to_owned()),
        other => Err(format!("`desired_status` {other:?} is no status")),
    }
}

fn status_of(desired: &str) -> Option<Status> {
    match desired {
        "SUCCESS" => Some(Status::Success),
        "FAILURE" => Some(Status::Failure),
        _ => None,
    }
}

/// A hook and its breakpoint's state.
struct Set {
    hook: Hook,
    /// A tick waits at it.
    waiting: bool,
    /// Unlocked: the waiting tick goes on.
    ready: bool,
    /// Released without a status (the watched agent changed): the node
    /// runs as if no hook were set.
    pass: bool,
}

/// What the server and the watched agent's ticks share.
struct State {
    hooks: Vec<Set>,
    /// Each uid's status byte as the `S` reply gives it.
    status: Vec<u8>,
    recording: bool,
    /// The tick time recording counts from, once the first transition came.
    origin: Option<f64>,
    transitions: VecDeque<(u64, u16, u8)>,
    values: BTreeMap<String, Value>,
    /// Whether a client sent a request within the heartbeat delay.
    connected: bool,
    last_request: Instant,
}

struct Inner {
    name: &'static str,
    xml: &'static str,
    uuid: [u8; 16],
    /// The uids in the order of the `S` reply.
    order: Vec<u16>,
    /// The names a `B` request may ask for: the tree's, then each embedded
    /// instance's full path.
    blackboards: Vec<String>,
    heartbeat: Duration,
    watched: AtomicU64,
    /// A client is connected: the watched agent's statuses are recorded.
    want: AtomicBool,
    /// Some enabled hook exists.
    hooked: AtomicBool,
    /// What ticks ask, one load each: the watched agent when it is
    /// followed (else [`NOBODY`]), and when its ticks call the hooks.
    followed: AtomicU64,
    hooked_agent: AtomicU64,
    /// Serializes [`Inner::refresh`].
    refreshing: Mutex<()>,
    recorder: Recorder,
    state: Mutex<State>,
    changed: Condvar,
    publisher: Mutex<Option<Arc<zmtp::Pub>>>,
    stopping: AtomicBool,
}

/// Serves Groot2's protocol for one tree type `T` of a running program:
/// see the [crate docs](crate). Dropping it stops the server (releasing a
/// waiting breakpoint) and closes its ports.
pub struct Groot2 {
    inner: Arc<Inner>,
    rep: SocketAddr,
    publish: SocketAddr,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl core::fmt::Debug for Groot2 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Groot2")
            .field("tree", &self.inner.name)
            .field("requests", &self.rep)
            .field("notifications", &self.publish)
            .field("watched", &self.watched())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A random version-4 UUID, made from the standard library's random hash
/// keys and the time.
fn uuid() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut out = [0u8; 16];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(i);
        h.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out[6] = (out[6] & 0x4f) | 0x40;
    out[8] = (out[8] & 0xbf) | 0x80;
    out
}

impl Groot2 {
    /// Binds the two ports of `options` and starts serving tree `T`.
    /// A port in use is an error, and nothing is left bound.
    pub fn serve<T: BehaviorTree>(options: Options) -> io::Result<Groot2> {
        let next = options.port.checked_add(1).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "port 65535 leaves no port for notifications",
            )
        })?;
        let at = |port| SocketAddr::new(options.address, port);
        let context = |port| {
            move |e: io::Error| {
                io::Error::new(e.kind(), format!("Groot2 server on {}: {e}", at(port)))
            }
        };
        let (rep, publisher) = if options.port == 0 {
            bind_any_pair(options.address)?
        } else {
            let rep = zmtp::Rep::bind(at(options.port), "groot2").map_err(context(options.port))?;
            let publisher = zmtp::Pub::bind(at(next), "groot2 pub").map_err(context(next))?;
            (rep, publisher)
        };
        let recorder = Recorder::new::<T>(1, 4096);
        let nodes = recorder.nodes();
        let order = status_order(T::VIEW);
        let inner = Arc::new(Inner {
            name: T::NAME,
            xml: T::BTCPP_INSTANCE_XML,
            uuid: uuid(),
            order,
            blackboards: blackboards(T::NAME, T::BTCPP_INSTANCE_XML),
            heartbeat: options.heartbeat,
            watched: AtomicU64::new(0),
            want: AtomicBool::new(false),
            hooked: AtomicBool::new(false),
            followed: AtomicU64::new(NOBODY),
            hooked_agent: AtomicU64::new(NOBODY),
            refreshing: Mutex::new(()),
            recorder,
            state: Mutex::new(State {
                hooks: Vec::new(),
                status: vec![0; nodes + 1],
                recording: false,
                origin: None,
                transitions: VecDeque::new(),
                values: BTreeMap::new(),
                connected: false,
                last_request: Instant::now(),
            }),
            changed: Condvar::new(),
            publisher: Mutex::new(None),
            stopping: AtomicBool::new(false),
        });
        let (rep_addr, pub_addr) = (rep.local_addr(), publisher.local_addr());
        *lock(&inner.publisher) = Some(Arc::new(publisher));
        let thread = {
            let inner = inner.clone();
            std::thread::Builder::new()
                .name("groot2 server".into())
                .spawn(move || serve(&inner, rep))?
        };
        Ok(Groot2 {
            inner,
            rep: rep_addr,
            publish: pub_addr,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The address requests go to.
    pub fn address(&self) -> SocketAddr {
        self.rep
    }

    /// The address breakpoint notifications are published on.
    pub fn notifications(&self) -> SocketAddr {
        self.publish
    }

    /// Shows `agent` (its [`Context::agent`](bt_runtime::Context::agent)
    /// id) from now on; see the [crate docs](crate#one-agent-at-a-time).
    /// `u64::MAX` watches no agent.
    pub fn watch(&self, agent: u64) {
        let inner = &self.inner;
        if inner.watched.swap(agent, Ordering::SeqCst) == agent {
            return;
        }
        inner.refresh();
        let mut state = lock(&inner.state);
        start_over(inner, &mut state);
        for set in &mut state.hooks {
            if set.waiting {
                set.ready = true;
                set.pass = true;
            }
        }
        drop(state);
        inner.changed.notify_all();
    }

    /// Whether a tick of `agent` needs the server now: `agent` is watched
    /// and a client is connected. Trees whose context is
    /// `Ctx<D, S, impl Trace>` can tick every other agent without it, as
    /// compiled without tracing, as the [crate example](crate) does: one
    /// load and one comparison per tick (see [Cost](crate#cost)).
    #[inline]
    pub fn follows(&self, agent: u64) -> bool {
        agent == self.inner.followed.load(Ordering::Relaxed)
    }

    /// The agent shown.
    pub fn watched(&self) -> u64 {
        self.inner.watched.load(Ordering::SeqCst)
    }

    /// Shows `value` as `key` in the tree's blackboard (Groot2's value
    /// view), until set again or [`clear_values`](Self::clear_values).
    /// Values are the program's to choose: set them after each tick of the
    /// watched agent (its position, its target, the `when let` value its
    /// running branch holds).
    pub fn set_value(&self, key: &str, value: impl Into<Value>) {
        lock(&self.inner.state)
            .values
            .insert(key.to_owned(), value.into());
    }

    /// Removes every value set.
    pub fn clear_values(&self) {
        lock(&self.inner.state).values.clear();
    }

    /// Whether a client sent a request within the heartbeat delay.
    pub fn connected(&self) -> bool {
        lock(&self.inner.state).connected
    }

    /// Subscribers connected to the notification port.
    pub fn subscribers(&self) -> usize {
        lock(&self.inner.publisher)
            .as_ref()
            .map_or(0, |p| p.subscribers())
    }

    /// Waits at most `timeout` for a subscriber on the notification port
    /// (a client's subscription arrives after its connection does); whether
    /// there is one.
    pub fn wait_for_subscriber(&self, timeout: Duration) -> bool {
        // Not holding the lock while waiting: ticks publish through it.
        let publisher = lock(&self.inner.publisher).clone();
        publisher.is_some_and(|p| p.wait_for_subscriber(timeout))
    }

    /// The hooks set, in uid order.
    pub fn hooks(&self) -> Vec<Hook> {
        let mut hooks: Vec<Hook> = lock(&self.inner.state)
            .hooks
            .iter()
            .map(|s| s.hook.clone())
            .collect();
        hooks.sort_by_key(|h| (h.uid, h.position));
        hooks
    }
}

impl Groot2 {
    /// Stops serving: closes both ports and every connection, and releases
    /// a tick waiting at a breakpoint (its node runs as if no hook were
    /// set). Ticks go on as without a client. Dropping the server stops it
    /// too.
    pub fn stop(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.want.store(false, Ordering::SeqCst);
        self.inner.refresh();
        disable_all(&self.inner);
        let publisher = lock(&self.inner.publisher).take();
        if let Some(publisher) = publisher {
            publisher.stop();
        }
        if let Some(thread) = lock(&self.thread).take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Groot2 {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Two free ports `p` and `p + 1` on `address`, the first chosen by the
/// system.
fn bind_any_pair(address: IpAddr) -> io::Result<(zmtp::Rep, zmtp::Pub)> {
    let mut last = None;
    for _ in 0..64 {
        let mut rep = zmtp::Rep::bind(SocketAddr::new(address, 0), "groot2")?;
        let port = rep.local_addr().port();
        if let Some(next) = port.checked_add(1) {
            match zmtp::Pub::bind(SocketAddr::new(address, next), "groot2 pub") {
                Ok(publisher) => return Ok((rep, publisher)),
                Err(e) => last = Some(e),
            }
        }
        rep.stop();
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::AddrInUse, "no two free ports")))
}

/// The blackboards of a tree as BehaviorTree.CPP names them: the tree's
/// ID, and the full path of each embedded instance (the `_fullpath` of the
/// instance XML's `<BehaviorTree>` elements).
fn blackboards(name: &str, instance_xml: &str) -> Vec<String> {
    let mut out = vec![name.to_owned()];
    for tag in instance_xml.split("<BehaviorTree ").skip(1) {
        let tag = tag.split('>').next().unwrap_or_default();
        let path = tag
            .split_once("_fullpath=\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(path, _)| unescape(path));
        if let Some(path) = path.filter(|p| !p.is_empty()) {
            out.push(path);
        }
    }
    out
}

/// An XML attribute value's text.
fn unescape(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The uids in BehaviorTree.CPP's order of its status buffer: tree
/// instance by tree instance (the main tree, then each embedded instance in
/// the order of its `SubTree` node), each instance's nodes in uid order.
fn status_order(view: &'static TreeView<'static>) -> Vec<u16> {
    // Each uid's instance: the uid of the `SubTree` node that embeds it,
    // 0 for the main tree.
    let mut instance = vec![0u16];
    let mut keyed = Vec::new();
    expand(view, &mut |p: Placed| {
        let parent_instance = instance[p.parent];
        let own = if p.info.parent.is_none() && p.parent != 0 {
            p.parent as u16
        } else {
            parent_instance
        };
        instance.push(own);
        keyed.push((own, p.uid as u16));
    });
    keyed.sort();
    keyed.into_iter().map(|(_, uid)| uid).collect()
}

/// Disables every hook and releases a waiting breakpoint.
fn disable_all(inner: &Inner) {
    let mut state = lock(&inner.state);
    for set in &mut state.hooks {
        set.hook.enabled = false;
    }
    inner.hooked.store(false, Ordering::SeqCst);
    inner.refresh();
    drop(state);
    inner.changed.notify_all();
}

fn update_hooked(inner: &Inner, state: &State) {
    inner
        .hooked
        .store(state.hooks.iter().any(|s| s.hook.enabled), Ordering::SeqCst);
    inner.refresh();
}

/// The server thread: requests, and the heartbeat between them.
fn serve(inner: &Inner, mut rep: zmtp::Rep) {
    while !inner.stopping.load(Ordering::SeqCst) {
        let request = rep.recv(Duration::from_millis(100));
        let mut regained = false;
        {
            let mut state = lock(&inner.state);
            let now = Instant::now();
            if request.is_some() {
                state.last_request = now;
                if !state.connected {
                    state.connected = true;
                    regained = true;
                    start_over(inner, &mut state);
                    inner.want.store(true, Ordering::SeqCst);
                    inner.refresh();
                }
            } else if state.connected && now - state.last_request > inner.heartbeat {
                state.connected = false;
                inner.want.store(false, Ordering::SeqCst);
                inner.refresh();
                drop(state);
                disable_all(inner);
            }
        }
        if let Some(request) = request {
            let reply = answer(inner, &request.body);
            let frames: Vec<&[u8]> = reply.iter().map(Vec::as_slice).collect();
            rep.reply(request, &frames);
        }
        if regained {
            // The hooks the heartbeat disabled are enabled again once the
            // first request after it is answered (the reference publisher
            // enables them within 10 ms of that request).
            let mut state = lock(&inner.state);
            for set in &mut state.hooks {
                set.hook.enabled = true;
            }
            update_hooked(inner, &state);
        }
    }
    rep.stop();
}

fn error(message: &str) -> Vec<Vec<u8>> {
    vec![b"error".to_vec(), message.as_bytes().to_vec()]
}

/// The reply to one request's frames.
fn answer(inner: &Inner, body: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let Some(header) = body.first().filter(|h| h.len() == 6) else {
        return error("wrong request header");
    };
    let mut head = header.clone();
    head[0] = PROTOCOL;
    head.extend_from_slice(&inner.uuid);
    let payload = body.get(1);
    let needs_payload = matches!(header[1], b'B' | b'I' | b'U' | b'R' | b'r');
    if needs_payload && body.len() != 2 {
        return error("must be 2 parts message");
    }
    let text = || payload.map(|p| String::from_utf8_lossy(p).into_owned());
    let json = || -> Result<Value, Vec<Vec<u8>>> {
        serde_json::from_slice(payload.map_or(&[][..], Vec::as_slice))
            .map_err(|e| error(&format!("invalid hook: {e}")))
    };
    match header[1] {
        b'T' => vec![head, inner.xml.as_bytes().to_vec()],
        b'S' => {
            let mut state = lock(&inner.state);
            catch_up(inner, &mut state);
            let mut out = Vec::with_capacity(3 * inner.order.len());
            for &uid in &inner.order {
                out.extend_from_slice(&uid.to_le_bytes());
                out.push(state.status[usize::from(uid)]);
            }
            vec![head, out]
        }
        b'B' => {
            // The blackboards asked for that exist, by name, in name order;
            // `nil` when none does, as BehaviorTree.CPP replies.
            let names = text().unwrap_or_default();
            let wanted: std::collections::BTreeSet<&str> = names
                .split(';')
                .filter(|n| inner.blackboards.iter().any(|b| b == n))
                .collect();
            let state = lock(&inner.state);
            let mut out = Vec::new();
            if wanted.is_empty() {
                out.push(0xc0);
            } else {
                msgpack::length(wanted.len(), 0x80, 0xde, 0xdf, &mut out);
            }
            for name in wanted {
                msgpack::str(name, &mut out);
                if name != inner.name || state.values.is_empty() {
                    out.push(0xc0);
                } else {
                    let map = state.values.clone().into_iter().collect();
                    msgpack::encode(&Value::Object(map), &mut out);
                }
            }
            vec![head, out]
        }
        b'I' => {
            let v = match json() {
                Ok(v) => v,
                Err(e) => return e,
            };
            let items = match &v {
                Value::Array(items) => items.clone(),
                one => vec![one.clone()],
            };
            let mut hooks = Vec::with_capacity(items.len());
            for item in &items {
                match Hook::from_json(item) {
                    Ok(hook)
                        if usize::from(hook.uid) == 0
                            || usize::from(hook.uid) > inner.recorder.nodes() =>
                    {
                        return error("Node ID not found");
                    }
                    Ok(hook) => hooks.push(hook),
                    Err(e) => return error(&format!("invalid hook: {e}")),
                }
            }
            let mut state = lock(&inner.state);
            for hook in hooks {
                match state
                    .hooks
                    .iter_mut()
                    .find(|s| s.hook.uid == hook.uid && s.hook.position == hook.position)
                {
                    Some(set) => {
                        // A breakpoint made a replacement lets its waiting
                        // tick go on.
                        if set.hook.breakpoint && !hook.breakpoint {
                            set.ready = true;
                        }
                        set.hook = hook;
                    }
                    None => state.hooks.push(Set {
                        hook,
                        waiting: false,
                        ready: false,
                        pass: false,
                    }),
                }
            }
            update_hooked(inner, &state);
            drop(state);
            inner.changed.notify_all();
            vec![head]
        }
        b'U' => {
            let v = match json() {
                Ok(v) => v,
                Err(e) => return e,
            };
            let parsed = (|| -> Result<_, String> {
                let remove = field(&v, "remove_when_done")?
                    .as_bool()
                    .ok_or("`remove_when_done` is not a boolean")?;
                Ok((uid(&v)?, position(&v)?, desired(&v)?, remove))
            })();
            let (uid, position, desired, remove) = match parsed {
                Ok(p) => p,
                Err(e) => return error(&format!("invalid hook: {e}")),
            };
            let mut state = lock(&inner.state);
            let Some(set) = state
                .hooks
                .iter_mut()
                .find(|s| s.hook.uid == uid && s.hook.position == position)
            else {
                return error("Node ID not found");
            };
            if !set.waiting || set.ready {
                return error(&format!("no breakpoint waiting at node {uid}"));
            }
            set.hook.desired = desired;
            set.hook.once |= remove;
            set.ready = true;
            drop(state);
            inner.changed.notify_all();
            vec![head]
        }
        b'R' => {
            let v = match json() {
                Ok(v) => v,
                Err(e) => return e,
            };
            let (uid, position) = match uid(&v).and_then(|u| Ok((u, position(&v)?))) {
                Ok(p) => p,
                Err(e) => return error(&format!("invalid hook: {e}")),
            };
            let mut state = lock(&inner.state);
            let before = state.hooks.len();
            state
                .hooks
                .retain(|s| !(s.hook.uid == uid && s.hook.position == position));
            if state.hooks.len() == before {
                return error("Node ID not found");
            }
            update_hooked(inner, &state);
            drop(state);
            inner.changed.notify_all();
            vec![head]
        }
        b'D' => {
            let mut hooks: Vec<Hook> = lock(&inner.state)
                .hooks
                .iter()
                .map(|s| s.hook.clone())
                .collect();
            hooks.sort_by_key(|h| (h.uid, h.position));
            let dump = Value::Array(hooks.iter().map(Hook::json).collect());
            vec![head, dump.to_string().into_bytes()]
        }
        b'A' => {
            lock(&inner.state).hooks.clear();
            inner.hooked.store(false, Ordering::SeqCst);
            inner.refresh();
            inner.changed.notify_all();
            vec![head]
        }
        b'X' => {
            disable_all(inner);
            vec![head]
        }
        b'r' => match text().as_deref() {
            Some("start") => {
                let mut state = lock(&inner.state);
                catch_up(inner, &mut state);
                state.recording = true;
                state.origin = None;
                state.transitions.clear();
                let micros = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_micros();
                vec![head, micros.to_string().into_bytes()]
            }
            Some("stop") => {
                lock(&inner.state).recording = false;
                vec![head]
            }
            _ => vec![head],
        },
        b't' => {
            let mut state = lock(&inner.state);
            catch_up(inner, &mut state);
            let mut out = Vec::with_capacity(9 * state.transitions.len());
            for (micros, uid, status) in state.transitions.drain(..) {
                out.extend_from_slice(&micros.to_le_bytes()[..6]);
                out.extend_from_slice(&uid.to_le_bytes());
                out.push(status);
            }
            vec![head, out]
        }
        _ => error("Request not recognized"),
    }
}

/// Forgets what was recorded: every node idle, as between two ticks of a
/// new agent.
fn start_over(inner: &Inner, state: &mut State) {
    let _ = inner.recorder.take_transitions(0);
    let idle = vec![NodeStatus::Idle; inner.recorder.nodes() + 1];
    let _ = inner.recorder.resume(0, &idle);
    state.status.fill(0);
    state.origin = None;
    state.transitions.clear();
}

/// Takes the transitions the watched agent's ticks recorded since the last
/// request into the status bytes and, when recording, the transitions.
fn catch_up(inner: &Inner, state: &mut State) {
    let Ok(taken) = inner.recorder.take_transitions(0) else {
        return;
    };
    for t in taken {
        let uid = usize::from(t.uid);
        let Some(byte) = state.status.get_mut(uid) else {
            continue;
        };
        let previous = if *byte >= 10 { 0 } else { *byte };
        *byte = match t.status {
            NodeStatus::Idle if previous != 0 => 10 + previous,
            NodeStatus::Idle => *byte,
            s => s as u8,
        };
        if state.recording {
            let origin = *state.origin.get_or_insert(t.time);
            let micros = ((t.time - origin) * 1e6)
                .round()
                .clamp(0.0, (1u64 << 48) as f64 - 1.0);
            state
                .transitions
                .push_back((micros as u64, t.uid, t.status as u8));
            while state.transitions.len() > MAX_TRANSITIONS {
                state.transitions.pop_front();
            }
        }
    }
}

/// No agent: what [`Inner::followed`] holds when none is followed.
const NOBODY: u64 = u64::MAX;

impl Inner {
    /// Sets what ticks ask from the watched agent, whether a client is
    /// connected and whether hooks are set.
    fn refresh(&self) {
        let _one = lock(&self.refreshing);
        let watched = self.watched.load(Ordering::SeqCst);
        let want = self.want.load(Ordering::SeqCst);
        let hooked = self.hooked.load(Ordering::SeqCst);
        let followed = if want { watched } else { NOBODY };
        self.followed.store(followed, Ordering::SeqCst);
        let hooked_agent = if hooked { followed } else { NOBODY };
        self.hooked_agent.store(hooked_agent, Ordering::SeqCst);
    }

    /// A hook at `uid`, `position` acts: publishes the notification, waits
    /// if it is a breakpoint; the status the node returns instead, if any.
    fn fire(&self, node: &'static NodeInfo, position: Position) -> Option<Status> {
        let uid = self.recorder.uid_in_tick(0, node)?;
        let mut state = lock(&self.state);
        let at = |s: &Set| s.hook.uid == uid && s.hook.position == position;
        let set = state.hooks.iter_mut().find(|s| at(s))?;
        if !set.hook.enabled {
            return None;
        }
        let breakpoint = set.hook.breakpoint;
        if breakpoint {
            set.waiting = true;
            set.ready = false;
        }
        drop(state);
        self.notify(uid);
        let mut state = lock(&self.state);
        if breakpoint {
            state = self
                .changed
                .wait_while(state, |st| {
                    st.hooks
                        .iter()
                        .find(|s| at(s))
                        .is_some_and(|s| s.hook.enabled && !s.ready)
                        && !self.stopping.load(Ordering::SeqCst)
                })
                .unwrap_or_else(PoisonError::into_inner);
        }
        let at_index = state.hooks.iter().position(at)?;
        let set = &mut state.hooks[at_index];
        set.waiting = false;
        set.ready = false;
        // Disabled, released by a change of the watched agent, or by the
        // server stopping: the node runs as if no hook were set.
        if !set.hook.enabled
            || std::mem::take(&mut set.pass)
            || self.stopping.load(Ordering::SeqCst)
        {
            return None;
        }
        let status = set.hook.status();
        if set.hook.once {
            state.hooks.remove(at_index);
            update_hooked(self, &state);
        }
        status
    }

    /// Publishes that a hook acted at `uid`: a header of type `N` and the
    /// uid in decimal.
    fn notify(&self, uid: u16) {
        let mut header = [PROTOCOL, b'N', 0, 0, 0, 0];
        header[2..].copy_from_slice(&(uuid()[0..4]));
        let publisher = lock(&self.publisher).clone();
        if let Some(publisher) = publisher {
            publisher.send(&[&header, uid.to_string().as_bytes()]);
        }
    }
}

impl Trace for Groot2 {
    const HOOKS: bool = true;

    #[inline]
    fn level(&self, agent: u64) -> u8 {
        if self.statuses(agent) {
            Trace::level(&self.inner.recorder, 0)
        } else {
            0
        }
    }

    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        self.follows(agent)
    }

    fn event(&self, event: &TraceEvent) {
        if self.statuses(event.agent) {
            let mut ours = *event;
            ours.agent = 0;
            self.inner.recorder.event(&ours);
        }
    }

    #[inline]
    fn hooks(&self, agent: u64) -> bool {
        agent == self.inner.hooked_agent.load(Ordering::Relaxed)
    }

    fn before(&self, agent: u64, node: &'static NodeInfo) -> Option<Status> {
        if !Trace::hooks(self, agent) {
            return None;
        }
        self.inner.fire(node, Position::Pre)
    }

    fn after(&self, agent: u64, node: &'static NodeInfo, status: Status) -> Status {
        if !Trace::hooks(self, agent) {
            return status;
        }
        self.inner.fire(node, Position::Post).unwrap_or(status)
    }
}
