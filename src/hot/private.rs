//! What `behavior_tree!` generates in a build with `hot-reload`: each
//! tree's [`Engine`], an agent's [`Agent`] state, and the host through
//! which the interpreter calls the tree's compiled expressions by index.

use super::{Build, report};
use bt_compiler::interpret::{At, Host, Input, Program, invocation_source};
use bt_compiler::interpret::{Event as Laid, Verdict as LaidVerdict};
use bt_compiler::live::Version;
use bt_compiler::live::{Live, LiveAgent, Table};
use bt_runtime::trace::{Event, Verdict};
use bt_runtime::{NodeInfo, Outcome, Status};
use std::collections::HashMap;
use std::format;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::vec::Vec;

pub use bt_runtime::__private::flags::bits;

/// One tree's live engine: its [`Live`] tree and the watcher that reloads
/// it. Made once per process, at the first tick after
/// [`start`](super::start).
pub struct Engine {
    live: Arc<Live>,
}

/// A source file with live trees: its watcher, and each invocation as
/// first read.
#[derive(Default)]
struct File {
    watcher: Option<super::Watcher>,
    /// The file's text when first read.
    text: Option<String>,
    /// Each invocation's tokens as text, by line, when first read.
    invocations: Vec<(usize, Option<String>)>,
}

/// Every source file with live trees, watched once.
static FILES: LazyLock<Mutex<HashMap<PathBuf, File>>> = LazyLock::new(Default::default);

/// Where a tree keeps its engine: a `static` in the generated code.
pub struct Cell(OnceLock<Option<Engine>>);

impl Cell {
    /// No engine yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Cell {
        Cell(OnceLock::new())
    }

    /// The tree's engine, made at the first call: `None` when the tree
    /// stays compiled (its reason is reported once).
    pub fn get(&'static self, build: &Build) -> Option<&'static Engine> {
        self.0.get_or_init(|| Engine::start(build)).as_ref()
    }
}

impl Engine {
    fn start(build: &Build) -> Option<Engine> {
        let tree = build.tree;
        if let Some(reason) = build.refused {
            report(format!("{tree}: stays compiled: {reason}"));
            return None;
        }
        let line = build.line as usize;
        let path = locate(build);
        let mut files = FILES.lock().unwrap_or_else(|e| e.into_inner());
        // The file as first read, and its invocation's tokens: when they
        // are the build's, the tree is read from the file, so that its
        // texts (details, guard clauses) are written as there.
        let file = path.as_ref().map(|path| {
            let file = files.entry(path.clone()).or_default();
            if file.text.is_none() {
                file.text = std::fs::read_to_string(path).ok();
            }
            let text = file.text.clone().unwrap_or_default();
            if !file.invocations.iter().any(|(l, _)| *l == line) {
                let tokens = invocation_source(&text, line);
                file.invocations.push((line, tokens));
            }
            let found = file.invocations.iter().find(|(l, _)| *l == line);
            let tokens = found.and_then(|(_, t)| t.clone());
            (file, text, tokens)
        });
        let unchanged = (file.as_ref())
            .and_then(|(_, _, tokens)| tokens.as_deref())
            .is_some_and(|tokens| Some(tokens) == source_text(build.source).as_deref());
        let built = match (&file, unchanged) {
            (Some((_, text, _)), true) => built(build.source, || Program::parse_file(text, line)),
            _ => built(build.source, || Program::parse(build.source)),
        };
        let built = match built {
            Ok(program) => program,
            Err(errors) => {
                let first = errors.first().map(|e| e.message.as_str()).unwrap_or("");
                report(format!(
                    "{tree}: stays compiled: its source does not parse: {first}"
                ));
                return None;
            }
        };
        let table = Table::from_entries(build.expressions.iter().copied());
        let live = match Live::new(&built, tree, table) {
            Ok(live) => Arc::new(live),
            Err(outcome) => {
                report(format!("{tree}: stays compiled: {outcome}"));
                return None;
            }
        };
        let (Some(path), Some((file, text, _))) = (path, file) else {
            report(format!(
                "{tree}: runs on the interpreter; `{}` not found, so it will not reload",
                build.file
            ));
            return Some(Engine { live });
        };
        // Edited since the build: the edit applies now, or is refused.
        if !unchanged {
            report(live.reload(&text, line).to_string());
        }
        let watching = match &file.watcher {
            Some(watcher) => {
                watcher.also(Arc::clone(&live), line);
                Ok(())
            }
            None => super::Watcher::new(Arc::clone(&live), &path, line, |o| report(o.to_string()))
                .map(|watcher| file.watcher = Some(watcher)),
        };
        match watching {
            Ok(()) => report(format!(
                "{tree}: runs on the interpreter, reloaded when `{}` changes",
                path.display()
            )),
            Err(error) => report(format!("{tree}: runs on the interpreter; {error}")),
        }
        Some(Engine { live })
    }

    /// The live tree.
    pub fn live(&self) -> &Live {
        &self.live
    }

    /// One tick of `agent` through `host`, with the context's `tracing`.
    pub fn try_tick<M: Default, V: Default, F>(
        &self,
        agent: &mut LiveAgent,
        slots: &mut Slots<M, V>,
        input: Input,
        tracing: Tracing,
        mut host: F,
    ) -> Result<Status, (&'static NodeInfo, Status)>
    where
        F: FnMut(&mut Slots<M, V>, &At, Call<'_>) -> Reply,
    {
        // Moved to the current version first: events name its nodes.
        if agent.version() != self.live.version() {
            let mut moving = FnHost::new(slots, &mut host, Tracing::default(), None);
            self.live.catch_up(agent, &mut moving, input.now);
        }
        // Only events and hooks need the version's node tables.
        let version = (tracing.highest > 0 || tracing.hooks).then(|| Arc::clone(agent.running()));
        // A recorder lays the tick out by the version it runs; the version
        // as built sends what compiled code sends, nothing more.
        if tracing.wants(bt_runtime::trace::STATUSES)
            && let Some(version) = &version
            && version.number() > 1
            && let Some(view) = version.view()
            && let Some(root) = view.nodes.first()
        {
            let at = At {
                tree: view.name,
                node: 0,
                place: 0,
                roles: &[],
                index: None,
                bound: &[],
            };
            let what = Event::TreeVersion {
                version: version.number(),
                view,
            };
            let _ = host(
                slots,
                &at,
                Call::Trace(bt_runtime::trace::STATUSES, root, &what),
            );
        }
        let mut host = FnHost::new(slots, host, tracing, version);
        (self.live.try_tick(agent, &mut host, input)).map_err(|limit| {
            let version = agent.running();
            let nodes = version
                .nodes(version.interpreter().name())
                .unwrap_or_default();
            (
                &nodes[limit.node.min(nodes.len().saturating_sub(1))],
                limit.status,
            )
        })
    }

    /// Halts what `agent` runs, through `host`.
    pub fn reset<M: Default, V: Default, F>(
        &self,
        agent: &mut LiveAgent,
        slots: &mut Slots<M, V>,
        tracing: Tracing,
        host: F,
    ) where
        F: FnMut(&mut Slots<M, V>, &At, Call<'_>) -> Reply,
    {
        let version = Some(Arc::clone(agent.running()));
        let mut host = FnHost::new(slots, host, tracing, version);
        self.live.reset(agent, &mut host);
    }
}

/// What a tick's context wants traced, read once per tick as compiled code
/// reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tracing {
    level: u8,
    statuses: bool,
    hooks: bool,
    /// The highest level of an event wanted: the interpreter builds none
    /// above it.
    highest: u8,
}

impl Tracing {
    /// What `cx`'s tracer wants of its agent.
    #[inline]
    pub fn of<C: bt_runtime::Context>(cx: &C) -> Tracing {
        use bt_runtime::__private as rt;
        let (level, statuses) = (rt::trace_level(cx), rt::trace_statuses(cx));
        Tracing {
            level,
            statuses,
            hooks: rt::hooks_wanted(cx),
            highest: if statuses {
                bt_runtime::trace::STATUSES
            } else {
                level
            },
        }
    }

    fn wants(&self, level: u8) -> bool {
        if level >= bt_runtime::trace::STATUSES {
            self.statuses
        } else {
            level <= self.level
        }
    }
}

/// The program of a build's invocation, parsed once per thread for all
/// its trees (a `Program` holds syntax trees, which stay on their thread):
/// by `parse`, the first time `source` is asked for.
fn built(
    source: &'static str,
    parse: impl FnOnce() -> Result<Program, Vec<bt_compiler::interpret::Diagnostic>>,
) -> Result<std::rc::Rc<Program>, Vec<bt_compiler::interpret::Diagnostic>> {
    std::thread_local! {
        static BUILT: core::cell::RefCell<Vec<(usize, std::rc::Rc<Program>)>> =
            const { core::cell::RefCell::new(Vec::new()) };
    }
    let key = source.as_ptr() as usize;
    let cached = BUILT.with_borrow(|b| b.iter().find(|(k, _)| *k == key).map(|(_, p)| p.clone()));
    if let Some(program) = cached {
        return Ok(program);
    }
    let program = std::rc::Rc::new(parse()?);
    BUILT.with_borrow_mut(|b| b.push((key, program.clone())));
    Ok(program)
}

/// A build's source as tokens, as [`Program::source`] writes them.
fn source_text(source: &str) -> Option<String> {
    static TEXTS: LazyLock<Mutex<HashMap<usize, Option<String>>>> = LazyLock::new(Default::default);
    let mut texts = TEXTS.lock().unwrap_or_else(|e| e.into_inner());
    let text = (texts.entry(source.as_ptr() as usize))
        .or_insert_with(|| bt_compiler::interpret::tokens_text(source));
    text.clone()
}

/// The source file of a build: `file!()` is relative to the directory
/// cargo ran rustc in, the workspace root, which is the package's
/// directory or one above it.
fn locate(build: &Build) -> Option<PathBuf> {
    let file = Path::new(build.file);
    if file.is_absolute() {
        return file.is_file().then(|| file.to_path_buf());
    }
    (Path::new(build.manifest_dir).ancestors())
        .map(|dir| dir.join(file))
        .find(|path| path.is_file())
}

/// Per-place state of an agent that compiled code keeps for the
/// interpreter: running leaves' memories and the values `when let` and
/// `for_each` bind, each an enum of the tree's types.
#[derive(Clone, Debug, Default)]
pub struct Slots<M, V> {
    /// Each place's running leaf memory.
    pub memory: Vec<M>,
    /// Each place's bound value.
    pub values: Vec<V>,
}

impl<M: Default, V: Default> Slots<M, V> {
    fn resize(&mut self, places: usize) {
        self.memory.resize_with(places, M::default);
        self.values.resize_with(places, V::default);
    }
}

/// An agent's hot state, a field of the tree's state type: 16 bytes, the
/// live state boxed (a compiled agent of a hot build carries no more).
#[derive(Clone, Debug, Default)]
pub struct Agent<M, V> {
    mode: Mode<M, V>,
}

#[derive(Clone, Debug, Default)]
enum Mode<M, V> {
    /// Not ticked yet.
    #[default]
    Unset,
    /// Ticks compiled code: it ticked before [`start`](super::start), or
    /// its tree stays compiled.
    Compiled,
    /// Ticks on the interpreter.
    Live(std::boxed::Box<(LiveAgent, Slots<M, V>)>),
}

impl<M: Default, V: Default> Agent<M, V> {
    /// An agent that ticks compiled code.
    pub fn compiled() -> Self {
        Agent {
            mode: Mode::Compiled,
        }
    }

    /// The engine and state to tick with, or `None` to tick compiled code.
    /// Decided at the agent's first tick.
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn engaged(
        &mut self,
        engine: fn() -> Option<&'static Engine>,
    ) -> Option<(&'static Engine, &mut LiveAgent, &mut Slots<M, V>)> {
        if let Mode::Compiled = self.mode {
            return None;
        }
        if let Mode::Unset = self.mode {
            self.mode = match super::started().then(engine).flatten() {
                Some(engine) => Mode::Live(std::boxed::Box::new((
                    engine.live.agent(),
                    Slots::default(),
                ))),
                None => Mode::Compiled,
            };
        }
        self.running(engine)
    }

    /// The interpreter's state of a live agent.
    pub fn live(&self) -> Option<&LiveAgent> {
        match &self.mode {
            Mode::Live(live) => Some(&live.0),
            _ => None,
        }
    }

    /// Like [`engaged`](Self::engaged), without deciding: `None` for an
    /// agent that has not ticked.
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn running(
        &mut self,
        engine: fn() -> Option<&'static Engine>,
    ) -> Option<(&'static Engine, &mut LiveAgent, &mut Slots<M, V>)> {
        let Mode::Live(live) = &mut self.mode else {
            return None;
        };
        let engine = engine()?;
        let (agent, slots) = &mut **live;
        if slots.memory.len() < agent.places() {
            slots.resize(agent.places());
        }
        Some((engine, agent, slots))
    }
}

/// What the interpreter asks of an expression, or of the context.
#[derive(Clone, Copy, Debug)]
pub enum Call<'e> {
    /// A trace event for the context's tracer.
    Trace(u8, &'static NodeInfo, &'e Event),
    /// The node hook before a node runs.
    Before(&'static NodeInfo),
    /// The node hook after a node returned.
    After(&'static NodeInfo, Status),
    /// Its value (every use but leaves and picks).
    Value,
    /// A leaf's first tick.
    Start,
    /// A leaf's later ticks.
    Tick,
    /// A running leaf is halted.
    Halt,
    /// A `random` or `shuffle` draw among these candidates.
    Pick(u128),
}

/// An expression's answer.
#[derive(Clone, Copy, Debug)]
pub enum Reply {
    /// A condition, a `when let` or `for_each` that matched, a hook.
    Bool(bool),
    /// An action or a leaf.
    Status(Status),
    /// An instant.
    Outcome(Outcome),
    /// A duration.
    Seconds(f64),
    /// A score.
    Score(f32),
    /// Flags.
    Bits(u64),
    /// A switch's arm.
    Arm(usize),
    /// A draw.
    Pick(Option<usize>),
    /// A node hook's replacement.
    Hooked(Option<Status>),
    /// A halt or a trace event: nothing to say.
    Done,
    /// The build has no code for it here.
    Missing,
}

struct FnHost<'s, M, V, F> {
    slots: &'s mut Slots<M, V>,
    f: F,
    tracing: Tracing,
    /// The version the agent runs, when events or hooks are wanted: its
    /// node tables name their nodes.
    version: Option<Arc<Version>>,
}

impl<'s, M, V, F> FnHost<'s, M, V, F> {
    fn new(
        slots: &'s mut Slots<M, V>,
        f: F,
        tracing: Tracing,
        version: Option<Arc<Version>>,
    ) -> Self {
        FnHost {
            slots,
            f,
            tracing,
            version,
        }
    }

    fn node(&self, at: &At) -> Option<(&'static NodeInfo, &'static [NodeInfo])> {
        let nodes = self.version.as_ref()?.nodes(at.tree)?;
        Some((nodes.get(at.node)?, nodes))
    }
}

/// An interpreter event as compiled code sends it: node ids as entries of
/// `nodes`, a rejecting clause's text kept for the process.
fn event(laid: Laid, nodes: &'static [NodeInfo]) -> Option<Event> {
    let n = |id: usize| nodes.get(id);
    Some(match laid {
        Laid::TickStart => Event::TickStart,
        Laid::TickEnd(s) => Event::TickEnd(s),
        Laid::Activate { child } => Event::Activate { child: n(child)? },
        Laid::Interrupt { child, by } => Event::Interrupt {
            child: n(child)?,
            by: n(by)?,
        },
        Laid::Halted => Event::Halted,
        Laid::End { child, status } => Event::End {
            child: n(child)?,
            status,
        },
        Laid::NoneAccepted => Event::NoneAccepted,
        Laid::RedecideLimit => Event::RedecideLimit,
        Laid::MonitorFired { monitor } => Event::MonitorFired {
            monitor: n(monitor)?,
        },
        Laid::Returned(s) => Event::Returned(s),
        Laid::EnterSubtree => Event::EnterSubtree,
        Laid::Reset => Event::Reset,
        Laid::Continue { child, active_for } => Event::Continue {
            child: n(child)?,
            active_for,
        },
        Laid::Guard { child, verdict } => Event::Guard {
            child: n(child)?,
            verdict: match verdict {
                LaidVerdict::Accepted(score) => Verdict::Accepted(score),
                LaidVerdict::Rejected(clause) => Verdict::Rejected(kept(clause)),
                LaidVerdict::Masked => Verdict::Masked,
            },
        },
    })
}

/// `text` for the rest of the process, each distinct text leaked once.
fn kept(text: &str) -> &'static str {
    static KEPT: LazyLock<Mutex<std::collections::HashSet<&'static str>>> =
        LazyLock::new(Default::default);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    match kept.get(text) {
        Some(&text) => text,
        None => {
            let leaked: &'static str = std::boxed::Box::leak(text.into());
            kept.insert(leaked);
            leaked
        }
    }
}

/// An answer of the wrong kind: the build's table and the interpreter
/// disagree, which resolving expressions by index rules out.
#[cold]
fn mismatch(at: &At, expr: &str, reply: Reply) -> ! {
    panic!(
        "hot reload: expression `{expr}` (index {:?}, node {} of `{}`) answered {reply:?}",
        at.index, at.node, at.tree
    )
}

macro_rules! ask {
    ($self:ident, $at:ident, $expr:expr, $call:expr, $variant:ident) => {
        match ($self.f)($self.slots, $at, $call) {
            Reply::$variant(value) => value,
            reply => mismatch($at, $expr, reply),
        }
    };
}

impl<M: Default, V: Default, F> Host for FnHost<'_, M, V, F>
where
    F: FnMut(&mut Slots<M, V>, &At, Call<'_>) -> Reply,
{
    fn condition(&mut self, at: &At, expr: &str) -> bool {
        ask!(self, at, expr, Call::Value, Bool)
    }
    fn action(&mut self, at: &At, expr: &str) -> Status {
        ask!(self, at, expr, Call::Value, Status)
    }
    fn instant(&mut self, at: &At, expr: &str) -> Outcome {
        ask!(self, at, expr, Call::Value, Outcome)
    }
    fn hook(&mut self, at: &At, expr: &str) -> bool {
        ask!(self, at, expr, Call::Value, Bool)
    }
    fn seconds(&mut self, at: &At, expr: &str) -> f64 {
        ask!(self, at, expr, Call::Value, Seconds)
    }
    fn score(&mut self, at: &At, expr: &str) -> f32 {
        ask!(self, at, expr, Call::Value, Score)
    }
    fn matches(&mut self, at: &At, expr: &str, _: &str) -> bool {
        ask!(self, at, expr, Call::Value, Bool)
    }
    fn flags(&mut self, at: &At, expr: &str) -> u64 {
        ask!(self, at, expr, Call::Value, Bits)
    }
    fn arm(&mut self, at: &At, expr: &str, _: &[String]) -> usize {
        ask!(self, at, expr, Call::Value, Arm)
    }
    fn item(&mut self, at: &At, expr: &str) -> bool {
        ask!(self, at, expr, Call::Value, Bool)
    }
    fn pick(&mut self, at: &At, rng: &str, candidates: u128) -> Option<usize> {
        ask!(self, at, rng, Call::Pick(candidates), Pick)
    }
    fn start(&mut self, at: &At, leaf: &str) -> Status {
        ask!(self, at, leaf, Call::Start, Status)
    }
    fn tick(&mut self, at: &At, leaf: &str) -> Status {
        ask!(self, at, leaf, Call::Tick, Status)
    }
    fn halt(&mut self, at: &At, leaf: &str) {
        match (self.f)(self.slots, at, Call::Halt) {
            Reply::Done => {}
            reply => mismatch(at, leaf, reply),
        }
    }
    #[inline]
    fn trace_level(&self) -> u8 {
        self.tracing.highest
    }
    fn trace(&mut self, at: &At, level: u8, laid: Laid) {
        // A firing monitor changes every status: hooks that follow
        // statuses get it at any level, as from compiled code.
        let monitor = matches!(laid, Laid::MonitorFired { .. }) && self.tracing.statuses;
        if !self.tracing.wants(level) && !monitor {
            return;
        }
        if let Some((node, nodes)) = self.node(at)
            && let Some(what) = event(laid, nodes)
        {
            let _ = (self.f)(self.slots, at, Call::Trace(level, node, &what));
        }
    }
    fn hooks(&self) -> bool {
        self.tracing.hooks
    }
    fn before(&mut self, at: &At) -> Option<Status> {
        let (node, _) = self.node(at)?;
        match (self.f)(self.slots, at, Call::Before(node)) {
            Reply::Hooked(status) => status,
            _ => None,
        }
    }
    fn after(&mut self, at: &At, status: Status) -> Status {
        let Some((node, _)) = self.node(at) else {
            return status;
        };
        match (self.f)(self.slots, at, Call::After(node, status)) {
            Reply::Status(status) => status,
            _ => status,
        }
    }
    fn migrated(&mut self, moved: &[(usize, usize)], places: usize) {
        let mut fresh = Slots::default();
        fresh.resize(places);
        let old = core::mem::take(self.slots);
        let (mut memory, mut values) = (old.memory, old.values);
        for &(from, to) in moved {
            if let (Some(m), Some(v)) = (memory.get_mut(from), values.get_mut(from)) {
                fresh.memory[to] = core::mem::take(m);
                fresh.values[to] = core::mem::take(v);
            }
        }
        memory.clear();
        values.clear();
        *self.slots = fresh;
    }
}

/// A binding read where its value is not held: the interpreter and the
/// agent's slots disagree.
#[cold]
pub fn unbound() -> ! {
    panic!("hot reload: a `when let` value or `for_each` item in scope is not held")
}
