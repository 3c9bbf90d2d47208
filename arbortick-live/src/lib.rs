//! The live debugger page for trees compiled by `bt::behavior_tree!`: a
//! running program serves the recording page (`Recorder::write_html`'s page)
//! over HTTP, and a browser follows any agent's tree tick by tick, pauses the
//! program, steps it one tick, forces a node's status and stops at
//! breakpoints.
//!
//! ```no_run
//! use bt::prelude::*;
//! use bt::{NoFlags, Trace};
//! use bt_live::{LivePage, Options};
//!
//! bt::behavior_tree! {
//!     tree Patrol(me: &mut f32, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//!         sequence { 'ready: cond *me > 0.0, 'walk: instant { *me -= 1.0; Outcome::Success } }
//!     }
//! }
//!
//! let mut agents = vec![(Patrol::default(), 10.0f32); 100];
//! // Localhost only, unless the options name another address.
//! let page = LivePage::serve::<Patrol>(agents.len(), Options::new().port(8765)).expect("port free");
//! println!("open {}", page.url());
//! for frame in 0..600u32 {
//!     // The two lines: ask the page whether to tick (`None` while paused),
//!     // and tick with it attached. The frame ends when `_frame` drops.
//!     if let Some(_frame) = page.frame() {
//!         let now = f64::from(frame) / 60.0;
//!         for (id, (state, me)) in agents.iter_mut().enumerate() {
//!             state.tick(me, &Ctx::new(now, 1.0 / 60.0).agent(id as u64).trace(&page));
//!         }
//!     }
//!     // …draw the frame, wait for the next one.
//! }
//! page.stop();
//! ```
//!
//! # The page
//!
//! `GET /` is the page [`Recorder::write_html`] writes, in its live mode:
//! the tree, the agent picker, the tick slider and per tick the transitions,
//! guard verdicts and values. It follows the newest tick of the agent it
//! shows (the slider still travels back over what the agent's ring holds;
//! **newest** follows again), and says when the program stops. Each agent
//! is recorded into a ring of [`Options::capacity`] transitions, so any
//! agent's recent history is there when the picker switches to it.
//!
//! # Controls
//!
//! The controls act on the *watched* agent, the one the page shows (the
//! last page to pick an agent sets it; [`LivePage::watch`] sets it from
//! the program):
//! - **pause** makes [`LivePage::frame`] answer `None` after the frame
//!   running; **step** lets exactly one more frame run; **resume** runs
//!   again;
//! - **force** makes a node of the watched agent return a status without
//!   running (a running node it replaces is halted once, as a replaced
//!   node is; see the `bt` crate's reference, "Node hooks"); **run it**
//!   removes the force;
//! - a **breakpoint** stops the watched agent's tick before the node, on
//!   the ticking thread, and the page shows where it stopped; **step**
//!   lets that frame finish and pauses, **resume** lets it finish and runs
//!   on.
//!
//! Forces and breakpoints act through [`Trace::before`], the tree's one
//! hook point. If every page closes while the program is paused or stopped
//! at a breakpoint, it resumes after [`Options::detach_after`] (5 s), so
//! a closed tab never leaves the program stuck.
//!
//! # Protocol
//!
//! | request | answer |
//! |---|---|
//! | `GET /` | the page |
//! | `GET /events?agent=N` | Server-Sent Events: per message `{"state":…,"history":…}`, the state below and the agent's ticks since the last message ([`Recorder::history_json`]; the first message holds everything kept); a message after each frame and each change of state; `event: stopped` when the server stops |
//! | `GET /state` | `{"version":V,"frame":F,"paused":b,"stopped":null or {"agent":A,"uid":U},"forced":[[U,"failure"],…],"breakpoints":[U,…],"watched":A,"at":ms}` |
//! | `POST /control` | a JSON object: `{"action":"pause"}`, `"resume"`, `"step"`, `{"action":"watch","agent":A}`, `{"action":"force","uid":U,"status":"success"/"failure"/"running"/null}`, `{"action":"break","uid":U,"on":true/false}`; answers the state |
//!
//! Uids are the recorder's ([`Recorder::uid_of`]): the tree with its
//! subtrees expanded, as in BehaviorTree.CPP's files. Bad requests get a
//! 4xx answer with a one-line reason: a malformed body (400), an unknown
//! agent or node (404), a body over 4 KiB (413), a wrong method (405); more
//! than [`Options::max_clients`] streams at once are refused (503).
//!
//! # Threads and slow clients
//!
//! The program's ticks never wait for the network: each recorded status
//! is logged without a lock (the agent's own lock is taken only when its
//! log is full, or a request reads it), and the end of a frame bumps
//! a counter and wakes the streams. Four threads answer requests, and each
//! stream has its own thread, which sends the newest state when its client
//! has taken the last: a slow page skips messages, it never slows the
//! program.
//!
//! # Cost
//!
//! Every agent ticks with the recorder attached, which takes each tick's
//! statuses gathered, as a `Recorder` does (see `bt::record`'s "Cost"),
//! plus, per tick, one comparison that says whether it is the watched
//! agent with hooks set; the other agents tick through code compiled
//! without the node hooks' points. `BENCHMARKS-deciders.md` has the
//! numbers.

use bt_runtime::record::{NodeStatus, Recorder};
use bt_runtime::trace::Gathered;
use bt_runtime::{BehaviorTree, NodeInfo, Status, Trace, TraceEvent};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Where and how a [`LivePage`] serves.
#[derive(Clone, Debug)]
pub struct Options {
    address: IpAddr,
    port: u16,
    capacity: usize,
    guards: usize,
    notes: usize,
    max_clients: usize,
    detach_after: Duration,
    title: String,
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

/// Threads answering requests other than streams.
const WORKERS: usize = 4;
/// The largest request body read.
const MAX_BODY: usize = 4096;
/// A comment line on an idle stream this often: a closed client is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

impl Options {
    /// Localhost, port 8765, 256 transitions per agent, no guard checks or
    /// notes, 8 streams at most, detached after 5 s without a page.
    pub fn new() -> Options {
        Options {
            address: Ipv4Addr::LOCALHOST.into(),
            port: 8765,
            capacity: 256,
            guards: 0,
            notes: 0,
            max_clients: 8,
            detach_after: Duration::from_secs(5),
            title: String::new(),
        }
    }

    /// Serves on `port`; 0 takes a free port ([`LivePage::address`] says
    /// which).
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

    /// Transitions kept per agent (16 bytes each): how far back the page
    /// can travel when it switches to an agent.
    pub fn capacity(mut self, transitions: usize) -> Options {
        self.capacity = transitions;
        self
    }

    /// Also keeps each agent's last `capacity` guard checks (see
    /// [`Recorder::with_guards`]: every agent's ticks build level-5 trace
    /// events, which costs more).
    pub fn guards(mut self, capacity: usize) -> Options {
        self.guards = capacity;
        self
    }

    /// Keeps each agent's last `capacity` notes, the values the page shows
    /// per tick ([`Recorder::note`], through [`LivePage::recorder`]).
    pub fn notes(mut self, capacity: usize) -> Options {
        self.notes = capacity;
        self
    }

    /// Streams served at once; more are refused (503).
    pub fn max_clients(mut self, clients: usize) -> Options {
        self.max_clients = clients;
        self
    }

    /// How long after the last page closes a paused program resumes and a
    /// stopped tick goes on.
    pub fn detach_after(mut self, delay: Duration) -> Options {
        self.detach_after = delay;
        self
    }

    /// The page's title (the tree's name by default).
    pub fn title(mut self, title: impl Into<String>) -> Options {
        self.title = title.into();
        self
    }
}

/// What the controls set, and where the program is.
#[derive(Debug, Default)]
struct Control {
    /// Bumped at every change, a frame's end included: streams send when it
    /// moves.
    version: u64,
    frames: u64,
    /// Unix time of the last frame's end, in milliseconds.
    at: u64,
    paused: bool,
    /// Frames allowed while paused.
    steps: u32,
    forced: BTreeMap<u16, Status>,
    breakpoints: BTreeSet<u16>,
    /// Where the watched agent's tick waits: (agent, uid).
    stopped: Option<(u64, u16)>,
    /// Bumped to let a stopped tick go on.
    releases: u64,
    /// Streams open.
    clients: usize,
    /// Since when no stream is open, once one was.
    alone_since: Option<Instant>,
}

impl Control {
    fn changed(&mut self) {
        self.version += 1;
    }

    /// Whether every page has been gone for `delay`.
    fn detached(&self, delay: Duration) -> bool {
        self.alone_since.is_some_and(|t| t.elapsed() >= delay)
    }

    /// Lets a stopped tick go on, and resumes, as when the pages detach.
    fn detach(&mut self) {
        self.paused = false;
        self.steps = 0;
        self.releases += 1;
        self.alone_since = None;
        self.changed();
    }

    fn json(&self, watched: u64) -> Value {
        serde_json::json!({
            "version": self.version,
            "frame": self.frames,
            "paused": self.paused,
            "stopped": self.stopped.map(|(agent, uid)| serde_json::json!({"agent": agent, "uid": uid})),
            "forced": self.forced.iter().map(|(uid, s)| serde_json::json!([uid, NodeStatus::from(*s).name()])).collect::<Vec<_>>(),
            "breakpoints": self.breakpoints.iter().collect::<Vec<_>>(),
            "watched": watched,
            "at": self.at,
        })
    }
}

struct Shared {
    recorder: Recorder,
    agents: u64,
    watched: AtomicU64,
    /// Whether any force or breakpoint is set: the watched agent's ticks
    /// call the hooks only then.
    hooked: AtomicBool,
    control: Mutex<Control>,
    /// Woken at every change of `control`.
    changed: Condvar,
    stopping: AtomicBool,
    streams: AtomicUsize,
    max_clients: usize,
    detach_after: Duration,
    page: Vec<u8>,
}

impl Shared {
    fn control(&self) -> MutexGuard<'_, Control> {
        self.control.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn state(&self) -> Value {
        self.control().json(self.watched.load(Ordering::Relaxed))
    }

    fn set_hooked(&self, c: &Control) {
        self.hooked.store(
            !c.forced.is_empty() || !c.breakpoints.is_empty(),
            Ordering::Release,
        );
    }
}

/// The live page's server, and the hook every agent ticks with. See the
/// [crate docs](crate).
pub struct LivePage {
    shared: Arc<Shared>,
    server: Arc<tiny_http::Server>,
    address: SocketAddr,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl core::fmt::Debug for LivePage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LivePage")
            .field("address", &self.address)
            .field("agents", &self.shared.agents)
            .finish()
    }
}

/// One frame of the program's loop, from [`LivePage::frame`]: when it
/// drops, the frame has ended and the pages are told.
#[must_use = "the frame ends when this drops: tick the agents while it lives"]
pub struct Frame<'a> {
    page: &'a LivePage,
}

impl Drop for Frame<'_> {
    fn drop(&mut self) {
        let shared = &self.page.shared;
        let mut c = shared.control();
        c.frames += 1;
        c.at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        c.changed();
        drop(c);
        shared.changed.notify_all();
    }
}

impl LivePage {
    /// Serves the page for agents `0..agents` of tree `T` (their
    /// [`Context::agent`](bt_runtime::Context::agent) ids), each recorded
    /// into its own ring; everything is allocated here. Agent 0 is watched.
    ///
    /// A port in use is an error naming the address.
    pub fn serve<T: BehaviorTree>(agents: usize, options: Options) -> io::Result<LivePage> {
        let mut recorder = Recorder::new::<T>(agents, options.capacity);
        if options.guards > 0 {
            recorder = recorder.with_guards(options.guards);
        }
        if options.notes > 0 {
            recorder = recorder.with_notes(options.notes);
        }
        let title = if options.title.is_empty() {
            T::VIEW.name.to_owned()
        } else {
            options.title.clone()
        };
        let mut page = Vec::new();
        recorder.write_live_html(0..agents as u64, &title, &mut page)?;
        let wanted = SocketAddr::new(options.address, options.port);
        let server = tiny_http::Server::http(wanted)
            .map_err(|e| io::Error::new(io::ErrorKind::AddrInUse, format!("{wanted}: {e}")))?;
        let address = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other("the server has no IP address"))?;
        let server = Arc::new(server);
        let shared = Arc::new(Shared {
            recorder,
            agents: agents as u64,
            watched: AtomicU64::new(0),
            hooked: AtomicBool::new(false),
            control: Mutex::new(Control::default()),
            changed: Condvar::new(),
            stopping: AtomicBool::new(false),
            streams: AtomicUsize::new(0),
            max_clients: options.max_clients,
            detach_after: options.detach_after,
            page,
        });
        let workers = (0..WORKERS)
            .map(|i| {
                let (server, shared) = (Arc::clone(&server), Arc::clone(&shared));
                std::thread::Builder::new()
                    .name(format!("bt-live-{i}"))
                    .spawn(move || serve(&server, &shared))
            })
            .collect::<io::Result<Vec<_>>>()?;
        Ok(LivePage {
            shared,
            server,
            address,
            workers: Mutex::new(workers),
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The page's address: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Whether to tick now: `None` while paused (unless a step is due);
    /// otherwise the frame, which ends when it drops. Never blocks.
    pub fn frame(&self) -> Option<Frame<'_>> {
        let mut c = self.shared.control();
        if c.paused && !self.shared.stopping.load(Ordering::Relaxed) {
            if c.steps > 0 {
                c.steps -= 1;
            } else if c.detached(self.shared.detach_after) {
                c.detach();
                drop(c);
                self.shared.changed.notify_all();
            } else {
                return None;
            }
        }
        Some(Frame { page: self })
    }

    /// Frames ended so far.
    pub fn frames(&self) -> u64 {
        self.shared.control().frames
    }

    /// Whether the program is paused.
    pub fn paused(&self) -> bool {
        self.shared.control().paused
    }

    /// Pauses after the frame running, as the page's **pause** does.
    pub fn pause(&self) {
        self.apply(&Command::Pause).expect("pausing cannot fail");
    }

    /// Runs again, as the page's **resume** does.
    pub fn resume(&self) {
        self.apply(&Command::Resume).expect("resuming cannot fail");
    }

    /// Lets one frame run, then pauses, as the page's **step** does.
    pub fn step(&self) {
        self.apply(&Command::Step).expect("stepping cannot fail");
    }

    /// Watches `agent`: the controls act on it.
    pub fn watch(&self, agent: u64) -> Result<(), bt_runtime::record::RecordError> {
        match self.apply(&Command::Watch(agent)) {
            Err(Refused::Agent(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// The agent the controls act on.
    pub fn watched(&self) -> u64 {
        self.shared.watched.load(Ordering::Relaxed)
    }

    /// Where the watched agent's tick is stopped, if it is: `(agent, uid)`.
    pub fn stopped_at(&self) -> Option<(u64, u16)> {
        self.shared.control().stopped
    }

    /// The recording of every agent: write it as a file, attach notes
    /// (the values the page shows), read transitions.
    pub fn recorder(&self) -> &Recorder {
        &self.shared.recorder
    }

    /// Stops serving: every stream is told (`event: stopped`), a stopped
    /// tick goes on, and the port is closed once the threads answering
    /// requests have ended. From then on [`frame`](Self::frame) always
    /// answers a frame. Also done on drop; stopping twice does nothing.
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Relaxed);
        self.shared.control().releases += 1;
        self.shared.changed.notify_all();
        let workers: Vec<_> = self
            .workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect();
        for _ in 0..workers.len() {
            self.server.unblock();
        }
        for worker in workers {
            let _ = worker.join();
        }
    }

    fn apply(&self, command: &Command) -> Result<Value, Refused> {
        apply(&self.shared, command)
    }
}

impl Drop for LivePage {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A control, as the page sends it.
#[derive(Debug, PartialEq)]
enum Command {
    Pause,
    Resume,
    Step,
    Watch(u64),
    Force(u16, Option<Status>),
    Break(u16, bool),
}

/// Why a request is refused: its answer's status and text.
#[derive(Debug)]
enum Refused {
    BadRequest(String),
    Agent(bt_runtime::record::RecordError),
    Node(u16),
    NotFound,
    Method,
    TooLarge,
    Busy,
}

impl Refused {
    fn status(&self) -> u16 {
        match self {
            Refused::BadRequest(_) => 400,
            Refused::Agent(_) | Refused::Node(_) | Refused::NotFound => 404,
            Refused::Method => 405,
            Refused::TooLarge => 413,
            Refused::Busy => 503,
        }
    }

    fn text(&self, nodes: usize) -> String {
        match self {
            Refused::BadRequest(why) => why.clone(),
            Refused::Agent(e) => e.to_string(),
            Refused::Node(uid) => format!("no node has uid {uid}: the uids are 1..={nodes}"),
            Refused::NotFound => {
                "no such page: / (the page), /events?agent=N, /state, /control".into()
            }
            Refused::Method => "wrong method: GET /, /events and /state; POST /control".into(),
            Refused::TooLarge => format!("a body is at most {MAX_BODY} bytes"),
            Refused::Busy => "too many pages are open: close one and reload".into(),
        }
    }
}

fn bad(why: impl Into<String>) -> Refused {
    Refused::BadRequest(why.into())
}

/// Reads a control from the page's JSON.
fn parse(body: &[u8], nodes: usize) -> Result<Command, Refused> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
    let object = value
        .as_object()
        .ok_or_else(|| bad("the body is a JSON object with an \"action\""))?;
    let action = object
        .get("action")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("\"action\" is missing or not a string"))?;
    let uid = || -> Result<u16, Refused> {
        let uid = object
            .get("uid")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad(format!("\"{action}\" takes a \"uid\": a node's number")))?;
        match u16::try_from(uid) {
            Ok(uid) if uid >= 1 && usize::from(uid) <= nodes => Ok(uid),
            _ => Err(Refused::Node(u16::try_from(uid).unwrap_or(u16::MAX))),
        }
    };
    Ok(match action {
        "pause" => Command::Pause,
        "resume" => Command::Resume,
        "step" => Command::Step,
        "watch" => Command::Watch(
            object
                .get("agent")
                .and_then(Value::as_u64)
                .ok_or_else(|| bad("\"watch\" takes an \"agent\": an agent's number"))?,
        ),
        "force" => {
            let uid = uid()?;
            let status = match object.get("status") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s == "success" => Some(Status::Success),
                Some(Value::String(s)) if s == "failure" => Some(Status::Failure),
                Some(Value::String(s)) if s == "running" => Some(Status::Running),
                Some(other) => {
                    return Err(bad(format!(
                        "\"status\" is \"success\", \"failure\", \"running\" or null, not {other}"
                    )));
                }
            };
            Command::Force(uid, status)
        }
        "break" => {
            let uid = uid()?;
            let on = object
                .get("on")
                .map_or(Some(true), Value::as_bool)
                .ok_or_else(|| bad("\"on\" is true or false"))?;
            Command::Break(uid, on)
        }
        other => {
            return Err(bad(format!(
                "unknown action {other:?}: pause, resume, step, watch, force, break"
            )));
        }
    })
}

fn apply(shared: &Shared, command: &Command) -> Result<Value, Refused> {
    let mut c = shared.control();
    match *command {
        Command::Pause => c.paused = true,
        Command::Resume => {
            c.paused = false;
            c.steps = 0;
            c.releases += 1;
        }
        Command::Step => {
            // At a breakpoint, the frame stopped in is the step.
            if c.stopped.is_some() {
                c.releases += 1;
            } else {
                c.steps += 1;
            }
            c.paused = true;
        }
        Command::Watch(agent) => {
            if agent >= shared.agents {
                return Err(Refused::Agent(
                    bt_runtime::record::RecordError::NotRecorded {
                        agent,
                        agents: shared.agents as usize,
                    },
                ));
            }
            if shared.watched.swap(agent, Ordering::Relaxed) != agent {
                // A tick stopped for the agent watched before goes on.
                c.releases += 1;
            }
        }
        Command::Force(uid, status) => {
            match status {
                Some(status) => c.forced.insert(uid, status),
                None => c.forced.remove(&uid),
            };
            shared.set_hooked(&c);
        }
        Command::Break(uid, on) => {
            if on {
                c.breakpoints.insert(uid);
            } else {
                c.breakpoints.remove(&uid);
                if c.stopped.is_some_and(|(_, at)| at == uid) {
                    c.releases += 1;
                }
            }
            shared.set_hooked(&c);
        }
    }
    c.changed();
    let state = c.json(shared.watched.load(Ordering::Relaxed));
    drop(c);
    shared.changed.notify_all();
    Ok(state)
}

impl Trace for LivePage {
    #[inline]
    fn level(&self, agent: u64) -> u8 {
        self.shared.recorder.level(agent)
    }

    #[inline]
    fn statuses(&self, agent: u64) -> bool {
        self.shared.recorder.statuses(agent)
    }

    #[inline]
    fn event(&self, event: &TraceEvent) {
        self.shared.recorder.event(event)
    }

    #[inline]
    fn returned(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        self.shared.recorder.returned(agent, now, node, status)
    }

    /// As the recorder it forwards to: a tick's statuses taken whole.
    const GATHERS: bool = <Recorder as Trace>::GATHERS;

    #[inline]
    fn gathered(&self, agent: u64, now: f64, nodes: &'static [NodeInfo], statuses: Gathered) {
        self.shared.recorder.gathered(agent, now, nodes, statuses)
    }

    const HOOKS: bool = true;

    #[inline]
    fn hooks(&self, agent: u64) -> bool {
        self.shared.hooked.load(Ordering::Relaxed)
            && agent == self.shared.watched.load(Ordering::Relaxed)
    }

    fn before(&self, agent: u64, node: &'static NodeInfo) -> Option<Status> {
        let shared = &self.shared;
        let uid = shared.recorder.uid_in_tick(agent, node)?;
        let mut c = shared.control();
        if let Some(&status) = c.forced.get(&uid) {
            return Some(status);
        }
        if !c.breakpoints.contains(&uid) || shared.stopping.load(Ordering::Relaxed) {
            return None;
        }
        // Stopped: the program waits here until a page lets it go on (or
        // every page has been gone for `detach_after`).
        let releases = c.releases;
        c.stopped = Some((agent, uid));
        c.paused = true;
        c.changed();
        shared.changed.notify_all();
        while c.releases == releases && !shared.stopping.load(Ordering::Relaxed) {
            c = match c.alone_since {
                Some(since) => {
                    let left = shared.detach_after.saturating_sub(since.elapsed());
                    if left.is_zero() {
                        c.detach();
                        break;
                    }
                    shared
                        .changed
                        .wait_timeout(c, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => shared
                    .changed
                    .wait(c)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
        c.stopped = None;
        c.changed();
        drop(c);
        shared.changed.notify_all();
        None
    }
}

/// A worker: answers requests until the server stops.
fn serve(server: &tiny_http::Server, shared: &Arc<Shared>) {
    while !shared.stopping.load(Ordering::Relaxed) {
        let Ok(request) = server.recv() else {
            continue;
        };
        answer(request, shared);
    }
}

fn answer(mut request: tiny_http::Request, shared: &Arc<Shared>) {
    // Uids are those of the tree the watched agent runs (a hot reload can
    // change it).
    let watched = shared.watched.load(Ordering::Relaxed);
    let nodes = (shared.recorder.nodes_of(watched)).unwrap_or_else(|_| shared.recorder.nodes());
    let url = request.url().to_owned();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let method = request.method().clone();
    let result: Result<(Vec<u8>, &str), Refused> = match (path, &method) {
        ("/", tiny_http::Method::Get) => Ok((shared.page.clone(), "text/html; charset=utf-8")),
        ("/state", tiny_http::Method::Get) => {
            Ok((shared.state().to_string().into_bytes(), "application/json"))
        }
        ("/events", tiny_http::Method::Get) => match stream_agent(query, shared) {
            Ok(agent) => {
                // Counted before the thread starts: no more than the limit.
                let open = shared.streams.fetch_add(1, Ordering::AcqRel);
                if open >= shared.max_clients {
                    shared.streams.fetch_sub(1, Ordering::AcqRel);
                    Err(Refused::Busy)
                } else {
                    let shared = Arc::clone(shared);
                    let spawned = std::thread::Builder::new()
                        .name("bt-live-stream".into())
                        .spawn({
                            let shared = Arc::clone(&shared);
                            move || stream(request, agent, &shared)
                        });
                    if spawned.is_err() {
                        shared.streams.fetch_sub(1, Ordering::AcqRel);
                    }
                    return;
                }
            }
            Err(refused) => Err(refused),
        },
        ("/control", tiny_http::Method::Post) => read_body(&mut request)
            .and_then(|body| parse(&body, nodes))
            .and_then(|command| apply(shared, &command))
            .map(|state| (state.to_string().into_bytes(), "application/json")),
        ("/" | "/state" | "/events" | "/control", _) => Err(Refused::Method),
        _ => Err(Refused::NotFound),
    };
    let (status, body, kind) = match result {
        Ok((body, kind)) => (200, body, kind),
        Err(refused) => (
            refused.status(),
            refused.text(nodes).into_bytes(),
            "text/plain; charset=utf-8",
        ),
    };
    let header = tiny_http::Header::from_bytes("Content-Type", kind).expect("a valid header");
    let _ = request.respond(
        tiny_http::Response::from_data(body)
            .with_status_code(status)
            .with_header(header),
    );
}

/// The agent of `/events?agent=N`.
fn stream_agent(query: &str, shared: &Shared) -> Result<u64, Refused> {
    let value = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("agent="))
        .ok_or_else(|| bad("/events takes ?agent=N"))?;
    let agent: u64 = value
        .parse()
        .map_err(|_| bad(format!("the agent is a number, not {value:?}")))?;
    if agent >= shared.agents {
        return Err(Refused::Agent(
            bt_runtime::record::RecordError::NotRecorded {
                agent,
                agents: shared.agents as usize,
            },
        ));
    }
    Ok(agent)
}

fn read_body(request: &mut tiny_http::Request) -> Result<Vec<u8>, Refused> {
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(Refused::TooLarge);
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| bad(format!("the body could not be read: {e}")))?;
    if body.len() > MAX_BODY {
        return Err(Refused::TooLarge);
    }
    Ok(body)
}

/// One page's stream: the agent's history, then a message per change.
fn stream(request: tiny_http::Request, agent: u64, shared: &Shared) {
    {
        let mut c = shared.control();
        c.clients += 1;
        c.alone_since = None;
    }
    let _ = send_events(request.into_writer(), agent, shared);
    let mut c = shared.control();
    c.clients -= 1;
    if c.clients == 0 {
        c.alone_since = Some(Instant::now());
    }
    drop(c);
    shared.streams.fetch_sub(1, Ordering::AcqRel);
    // A stopped tick waits on `changed` for the pages to detach.
    shared.changed.notify_all();
}

fn send_events(mut out: Box<dyn Write + Send>, agent: u64, shared: &Shared) -> io::Result<()> {
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
          Connection: close\r\nX-Accel-Buffering: no\r\n\r\nretry: 1000\n\n",
    )?;
    out.flush()?;
    let mut since = None;
    let mut seen = None;
    let mut message = String::new();
    loop {
        let c = shared.control();
        let mut c = shared
            .changed
            .wait_timeout_while(c, KEEP_ALIVE, |c| {
                Some(c.version) == seen && !shared.stopping.load(Ordering::Relaxed)
            })
            .unwrap_or_else(PoisonError::into_inner)
            .0;
        if shared.stopping.load(Ordering::Relaxed) {
            drop(c);
            out.write_all(b"event: stopped\ndata: {}\n\n")?;
            return out.flush();
        }
        if Some(c.version) == seen {
            drop(c);
            out.write_all(b": still here\n\n")?;
            out.flush()?;
            continue;
        }
        seen = Some(c.version);
        let state = c.json(shared.watched.load(Ordering::Relaxed));
        c.alone_since = None;
        drop(c);
        message.clear();
        message.push_str("data: {\"state\":");
        message.push_str(&state.to_string());
        message.push_str(",\"history\":");
        match shared.recorder.history_json(agent, since, &mut message) {
            Ok(next) => since = Some(next),
            Err(_) => message.push_str("null"),
        }
        message.push_str("}\n\n");
        out.write_all(message.as_bytes())?;
        out.flush()?;
    }
}
