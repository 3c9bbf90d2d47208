//! Hot reload, for development builds (feature `hot-reload`): a tree runs on
//! the compiler's interpreter with its expressions compiled, and is reloaded
//! from its source file while the program runs. A build without the feature
//! contains none of this: no compiler, no file watcher.
//!
//! In a build with the feature, every `behavior_tree!` also emits its
//! expressions as compiled code reached by index. Call [`start`] (or
//! [`start_with`]) once, before the first tick: from then on each agent's
//! first tick puts it on its tree's live engine, found from `file!()` and
//! `line!()`, which reloads the tree when that file changes. Nothing else
//! changes in the program: `tick`, `try_tick`, `reset`, the active path, trace
//! events and node hooks work as compiled. Each tree type also has `live()`
//! (its engine) and `compiled()` (an agent that stays compiled). See the
//! README's "Reloading a tree from its file" for what stays compiled.
//!
//! The engine is [`Live`] (from `bt_compiler::live`): [`Live::reload`]
//! rereads a file, and agents move to the new version at their next tick,
//! keeping the state of every node that stays. A [`Watcher`] calls it when
//! the file changes, and reports each outcome, one line to log.
//!
//! ```
//! use bt::hot::{Live, Program, Reload, Table, Watcher};
//! use std::sync::{Arc, mpsc};
//! use std::time::Duration;
//!
//! let dir = std::env::temp_dir().join(format!("bt-hot-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("brain.rs");
//! let source = "behavior_tree! { tree T(me: &mut M) { select { cond me.a(), cond me.b() } } }\n";
//! std::fs::write(&path, source).unwrap();
//!
//! let program = Program::parse_file(source, 1).unwrap();
//! let live = Arc::new(Live::new(&program, "T", Table::of(&program, "T").unwrap()).unwrap());
//! let (tx, rx) = mpsc::channel();
//! let watcher = Watcher::new(Arc::clone(&live), &path, 1, move |outcome| {
//!     let _ = tx.send(outcome.to_string());
//! })
//! .unwrap();
//!
//! // Saved as editors save: written beside the file, renamed over it.
//! let edited = source.replace("cond me.a(), cond me.b()", "cond me.b(), cond me.a()");
//! std::fs::write(dir.join("brain.rs.new"), edited).unwrap();
//! std::fs::rename(dir.join("brain.rs.new"), &path).unwrap();
//! let line = rx.recv_timeout(Duration::from_secs(20)).expect("the watcher saw the edit");
//! assert_eq!(line, "T: reloaded as version 2, 3 of 3 nodes kept their state");
//! drop(watcher);
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

pub use bt_compiler::interpret::{At, Diagnostic, Expression, Host, Input, Program, Use};
pub use bt_compiler::live::{Live, LiveAgent, Missing, Reload, Table, Version};

use notify::Watcher as _;
use std::boxed::Box;
use std::path::{Path, PathBuf};
use std::string::String;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

#[doc(hidden)]
#[path = "hot/private.rs"]
pub mod __private;

/// Where a line about a tree goes: [`start_with`]'s callback.
type Report = Box<dyn Fn(String) + Send + Sync>;

static STARTED: AtomicBool = AtomicBool::new(false);
static REPORT: OnceLock<Report> = OnceLock::new();

/// Turns hot reload on for this process, reporting to standard error: from
/// now on, each agent's first tick puts it on its tree's live engine,
/// which reloads the tree when its source file changes. See
/// [`start_with`].
pub fn start() {
    start_with(|line| std::eprintln!("{line}"));
}

/// Turns hot reload on for this process; `report` gets one line per event
/// (a tree put on the interpreter, each reload's outcome, a tree that stays
/// compiled and why). Call it once, before the first tick: an agent that
/// ticked before keeps running compiled code, and later calls change
/// nothing.
///
/// In a build with the `hot-reload` feature, every tree can run either
/// way: the compiled tick, or the [interpreter](Live) calling the tree's
/// compiled expressions by index. Nothing changes until this is called, so
/// tests and tools built with the feature run compiled code.
pub fn start_with(report: impl Fn(String) + Send + Sync + 'static) {
    let _ = REPORT.set(Box::new(report));
    STARTED.store(true, Ordering::Release);
}

/// Whether [`start`] or [`start_with`] was called.
pub fn started() -> bool {
    STARTED.load(Ordering::Acquire)
}

fn report(line: String) {
    if let Some(report) = REPORT.get() {
        report(line);
    }
}

/// What a build knows of one tree, as `behavior_tree!` generates it.
#[doc(hidden)]
#[derive(Debug)]
pub struct Build {
    /// The tree's name.
    pub tree: &'static str,
    /// The invocation's body, as tokens.
    pub source: &'static str,
    /// The expressions the build has code for, by index: use, text,
    /// pattern, scope and embedding ([`Table::entries`]).
    pub expressions: &'static [bt_compiler::live::Entry<'static>],
    /// `file!()` where the macro was called.
    pub file: &'static str,
    /// `line!()` of the macro's name.
    pub line: u32,
    /// `CARGO_MANIFEST_DIR` of the crate.
    pub manifest_dir: &'static str,
    /// Why the tree stays compiled, if it does.
    pub refused: Option<&'static str>,
}

/// Reloads a [`Live`] tree whenever its source file changes, on a thread
/// of its own, until it is dropped. A file written in place may be read
/// half-written, which reports errors until the next event reads it whole;
/// editors save by renaming a new file over the old, which it never sees
/// half-done.
pub struct Watcher {
    /// Kept for its thread: dropping it stops watching.
    _inner: Box<dyn notify::Watcher + Send>,
    polling: bool,
    trees: Trees,
}

impl core::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Watcher")
            .field("polling", &self.polling)
            .finish()
    }
}

/// A file could not be watched.
#[derive(Debug)]
pub struct WatchError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub source: notify::Error,
}

impl core::fmt::Display for WatchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "cannot watch `{}`: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for WatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// What a watcher does on each event: read the file, and reload it if its
/// text changed since the last read.
struct OnChange<F> {
    /// The trees the file holds, each with the line of its invocation.
    trees: Trees,
    path: PathBuf,
    last: Mutex<Option<String>>,
    report: F,
}

/// The trees a watcher reloads.
type Trees = Arc<Mutex<std::vec::Vec<(Arc<Live>, usize)>>>;

impl<F: Fn(Reload)> OnChange<F> {
    /// Reads the file once: one that cannot be read is an error now, not
    /// a watcher that never reports.
    fn new(live: Arc<Live>, path: &Path, line: usize, report: F) -> Result<Self, WatchError> {
        let text = std::fs::read_to_string(path).map_err(|e| WatchError {
            path: path.to_path_buf(),
            source: notify::Error::io(e),
        })?;
        Ok(OnChange {
            trees: Arc::new(Mutex::new(std::vec![(live, line)])),
            path: path.to_path_buf(),
            last: Mutex::new(Some(text)),
            report,
        })
    }

    fn changed(&self) {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            // Removed or being replaced: the next event reads it.
            return;
        };
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.as_deref() == Some(text.as_str()) {
            return;
        }
        *last = Some(text);
        let text = last.as_deref().unwrap_or_default();
        let trees = self.trees.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // Each invocation is parsed once, for all its trees.
        let mut parsed: std::vec::Vec<(usize, Result<Program, std::vec::Vec<Diagnostic>>)> =
            std::vec::Vec::new();
        for (live, line) in &trees {
            if !parsed.iter().any(|(l, _)| l == line) {
                parsed.push((*line, Program::parse_file(text, *line)));
            }
            let program = &parsed.iter().find(|(l, _)| l == line).expect("parsed").1;
            (self.report)(live.reload_parsed(program.as_ref().map_err(Clone::clone)));
        }
    }
}

impl Watcher {
    /// Watches `path`, the Rust file whose `behavior_tree!` (its macro name
    /// on `line`) holds `live`'s tree, and reloads the tree when the file
    /// changes; `report` gets each outcome (its `Display` is one line to
    /// log). Uses the system's file events, and polls the file twice a
    /// second where those cannot be had.
    pub fn new(
        live: Arc<Live>,
        path: impl AsRef<Path>,
        line: usize,
        report: impl Fn(Reload) + Send + Sync + 'static,
    ) -> Result<Watcher, WatchError> {
        let on = Arc::new(OnChange::new(live, path.as_ref(), line, report)?);
        let trees = Arc::clone(&on.trees);
        let events = Arc::clone(&on);
        let file = on.path.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && event.paths.iter().any(|p| same_file(p, &file))
            {
                events.changed();
            }
        };
        // Editors often replace a file rather than write it: watch its
        // directory for events that name it.
        let dir = match on.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Ok(mut watcher) = notify::recommended_watcher(handler.clone())
            && watcher
                .watch(&dir, notify::RecursiveMode::NonRecursive)
                .is_ok()
        {
            return Ok(Watcher {
                _inner: Box::new(watcher),
                polling: false,
                trees,
            });
        }
        Watcher::poll(on, handler, Duration::from_millis(500))
    }

    /// Like [`Watcher::new`], polling the file every `interval` instead of
    /// using the system's file events (for file systems without them).
    pub fn polling(
        live: Arc<Live>,
        path: impl AsRef<Path>,
        line: usize,
        interval: Duration,
        report: impl Fn(Reload) + Send + Sync + 'static,
    ) -> Result<Watcher, WatchError> {
        let on = Arc::new(OnChange::new(live, path.as_ref(), line, report)?);
        let events = Arc::clone(&on);
        let handler = move |event: notify::Result<notify::Event>| {
            if event.is_ok() {
                events.changed();
            }
        };
        Watcher::poll(on, handler, interval)
    }

    fn poll<F: Fn(Reload) + Send + Sync + 'static>(
        on: Arc<OnChange<F>>,
        handler: impl notify::EventHandler,
        interval: Duration,
    ) -> Result<Watcher, WatchError> {
        let error = |source| WatchError {
            path: on.path.clone(),
            source,
        };
        let config = notify::Config::default()
            .with_poll_interval(interval)
            .with_compare_contents(true);
        let mut watcher = notify::PollWatcher::new(handler, config).map_err(error)?;
        watcher
            .watch(&on.path, notify::RecursiveMode::NonRecursive)
            .map_err(error)?;
        Ok(Watcher {
            _inner: Box::new(watcher),
            polling: true,
            trees: Arc::clone(&on.trees),
        })
    }

    /// Also reloads `live`, whose `behavior_tree!` is on `line` of the same
    /// file: one watcher serves every tree of a file, and parses each
    /// invocation once per change.
    pub fn also(&self, live: Arc<Live>, line: usize) {
        (self.trees.lock().unwrap_or_else(|e| e.into_inner())).push((live, line));
    }

    /// Whether it polls the file rather than using the system's events.
    pub fn is_polling(&self) -> bool {
        self.polling
    }
}

/// Whether an event's path is the watched file (events may name it
/// absolutely or as given).
fn same_file(event: &Path, file: &Path) -> bool {
    event == file
        || match (event.canonicalize(), file.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => event.file_name() == file.file_name() && event.file_name().is_some(),
        }
}
