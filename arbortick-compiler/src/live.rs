//! A tree that can be edited while agents run it: hot reload's engine.
//!
//! A [`Live`] tree runs on the [interpreter](crate::interpret) with every
//! expression reached by index in a [`Table`] (the expressions a build has
//! compiled code for). [`Live::reload`] reparses the tree's source with the
//! compiler's own parse, check and lower, and makes it the current version
//! when every expression it needs is in the table; otherwise nothing
//! changes, and the outcome says why in one line. Agents move to the new
//! version at their next tick ([`Live::tick`]): the nodes that stay keep
//! their state, and what vanished is halted exactly once
//! ([`crate::interpret::Migration`]).
//!
//! ```
//! use bt_compiler::interpret::{At, Host, Input, Program};
//! use bt_compiler::live::{Live, Reload, Table};
//! use bt_runtime::Status;
//!
//! let file = "behavior_tree! {\n\
//!     tree T(me: &mut M) { select { cond me.hungry(), action me.play() } }\n\
//! }\n";
//! let program = Program::parse_file(file, 1).unwrap();
//! let table = Table::of(&program, "T").unwrap();
//! let live = Live::new(&program, "T", table).unwrap();
//!
//! /// Compiled code by index: what the macro generates.
//! struct Me { played: u32 }
//! impl Host for Me {
//!     fn condition(&mut self, _: &At, _: &str) -> bool { false }
//!     fn action(&mut self, _: &At, _: &str) -> Status { self.played += 1; Status::Success }
//! }
//! let mut me = Me { played: 0 };
//! let mut agent = live.agent();
//! live.tick(&mut agent, &mut me, Input::default());
//!
//! // Reordered: the build has both expressions.
//! let edited = file.replace("cond me.hungry(), action me.play()", "action me.play(), cond me.hungry()");
//! assert!(matches!(live.reload(&edited, 1), Reload::Applied { .. }));
//! // A new expression needs a rebuild; the tree stays as it was.
//! let refused = live.reload(&file.replace("me.play()", "me.dance()"), 1);
//! assert_eq!(refused.to_string(), "T: not reloaded: rebuild to use `me . dance ()` (line 2)");
//! assert_eq!(live.version(), 2, "the reordered version still runs");
//! ```

use crate::interpret::{
    Agent, Diagnostic, Expression, Host, Input, Interpreter, Migration, Program, RedecideLimit,
    Shared, Use, Views,
};
use bt_runtime::view::TreeView;
use bt_runtime::{NodeInfo, Status};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// The expressions a build has compiled code for, each with its index: an
/// expression is its use, its source text and the bindings it sees
/// ([`Expression::scope`]).
#[derive(Clone, Debug, Default)]
pub struct Table {
    entries: HashMap<Key, u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    used: Use,
    text: String,
    pattern: String,
    scope: Vec<String>,
    embedded: Vec<String>,
}

impl Key {
    fn of(e: &Expression) -> Key {
        Key {
            used: e.used,
            text: e.text.to_string(),
            pattern: e.pattern.to_string(),
            scope: e.scope.iter().map(|s| s.to_string()).collect(),
            embedded: e.embedded.iter().map(|s| s.to_string()).collect(),
        }
    }
}

impl Table {
    /// The expressions of tree `name` of `program` (and of the trees it
    /// embeds), numbered in the order the layout meets them, each once:
    /// what a build compiles. `None` when the program has no such tree.
    pub fn of(program: &Program, name: &str) -> Option<Table> {
        let mut interpreter = program.interpreter(name)?;
        let mut table = Table::default();
        let resolved = interpreter.resolve(|e: &Expression| -> Result<u32, ()> {
            let next = table.entries.len() as u32;
            Ok(*table.entries.entry(Key::of(e)).or_insert(next))
        });
        resolved.ok()?;
        Some(table)
    }

    /// A table from what a build compiled, in index order: each
    /// expression's use, text, pattern, scope and embedding, as
    /// [`entries`](Self::entries) gives them.
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = Entry<'a>>) -> Table {
        let entries = (entries.into_iter().enumerate())
            .map(|(i, (used, text, pattern, scope, embedded))| {
                let key = Key {
                    used,
                    text: text.to_string(),
                    pattern: pattern.to_string(),
                    scope: scope.iter().map(|s| s.to_string()).collect(),
                    embedded: embedded.iter().map(|s| s.to_string()).collect(),
                };
                (key, i as u32)
            })
            .collect();
        Table { entries }
    }

    /// How many expressions it has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each expression's index, with its use, text, `when let` pattern,
    /// scope and embedding: what generated code matches on.
    pub fn entries(&self) -> impl Iterator<Item = (u32, Use, &str, &str, &[String], &[String])> {
        (self.entries.iter()).map(|(k, &i)| {
            let (text, pattern) = (k.text.as_str(), k.pattern.as_str());
            (i, k.used, text, pattern, &k.scope[..], &k.embedded[..])
        })
    }
}

/// One expression of a build's table: its use, text, `when let` pattern,
/// the bindings in scope ([`Expression::scope`]) and the `subtree` nodes
/// that embed it ([`Expression::embedded`]).
pub type Entry<'a> = (Use, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);

/// An expression an edit needs that the build has no code for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Its source text.
    pub text: String,
    /// 1-based line of its node.
    pub line: usize,
}

/// One version of a live tree: laid out, its expressions resolved, with its
/// shared state.
pub struct Version {
    number: u64,
    interpreter: Interpreter,
    shared: Shared,
    /// The program's source as tokens ([`Program::source`]): a reload that
    /// reads the same changes nothing.
    source: String,
    /// The version before, and how its nodes map to this one's.
    previous: Option<(Arc<Version>, Migration)>,
    /// The node table of each tree laid out ([`Program::node_table`]).
    nodes: Vec<&'static [NodeInfo]>,
    /// Its views ([`Program::views`]).
    views: Option<Views>,
    /// The tree's view, over `nodes`.
    view: Option<&'static TreeView<'static>>,
}

impl Version {
    /// Its number: 1 for the tree as built, one more for each reload.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The laid-out tree.
    pub fn interpreter(&self) -> &Interpreter {
        &self.interpreter
    }

    /// The node table of tree `tree` (the tree itself or one it embeds) in
    /// this version: what compiled code has as `BehaviorTree::NODES`, for
    /// trace events and tools; ids are [`At::node`](crate::interpret::At).
    pub fn nodes(&self, tree: &str) -> Option<&'static [NodeInfo]> {
        self.nodes
            .iter()
            .copied()
            .find(|n| n.first().is_some_and(|n| n.tree == tree))
    }

    /// Its views: BehaviorTree.CPP's XML, Mermaid and DOT, as compiled code
    /// has them in `BehaviorTree`'s constants, for this version.
    pub fn views(&self) -> Option<&Views> {
        self.views.as_ref()
    }

    /// The tree's view, as compiled code has it as `BehaviorTree::VIEW`
    /// (with the trees it embeds), over this version's node tables
    /// ([`nodes`](Self::nodes)): what a recorder lays a version out with.
    pub fn view(&self) -> Option<&'static TreeView<'static>> {
        self.view
    }

    /// Its source, as tokens ([`Program::source`]).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The state every agent of this version shares.
    pub fn shared(&self) -> &Shared {
        &self.shared
    }
}

/// What [`Live::reload`] did; its `Display` is the one line to log.
#[derive(Debug)]
pub enum Reload {
    /// The tree is now this version.
    Applied {
        /// The tree's name.
        tree: String,
        /// The new version's number.
        version: u64,
        /// Nodes of the new version that are nodes of the old.
        kept: usize,
        /// Nodes of the new version.
        nodes: usize,
    },
    /// The source reads as the current version: nothing changed.
    Unchanged {
        /// The tree's name.
        tree: String,
    },
    /// The edit needs expressions the build has no code for; nothing
    /// changed.
    Refused {
        /// The tree's name.
        tree: String,
        /// What is missing, in source order.
        missing: Vec<Missing>,
    },
    /// The source does not compile (or the tree is gone); nothing changed.
    Invalid {
        /// The tree's name.
        tree: String,
        /// The compiler's diagnostics.
        errors: Vec<Diagnostic>,
    },
}

impl core::fmt::Display for Reload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Reload::Applied {
                tree,
                version,
                kept,
                nodes,
            } => write!(
                f,
                "{tree}: reloaded as version {version}, {kept} of {nodes} nodes kept their state"
            ),
            Reload::Unchanged { tree } => write!(f, "{tree}: unchanged"),
            Reload::Refused { tree, missing } => {
                write!(f, "{tree}: not reloaded: rebuild to use ")?;
                for (i, m) in missing.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}`{}` (line {})", m.text, m.line)?;
                }
                Ok(())
            }
            Reload::Invalid { tree, errors } => {
                write!(f, "{tree}: not reloaded, {} error(s): ", errors.len())?;
                for (i, e) in errors.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "; " };
                    write!(f, "{sep}{e}")?;
                }
                Ok(())
            }
        }
    }
}

/// A tree that can be reloaded while agents run it. `Send` and `Sync`:
/// agents on any thread tick it while another thread reloads it.
pub struct Live {
    name: String,
    table: Table,
    current: RwLock<Arc<Version>>,
    /// The current version's number, read without the lock.
    number: AtomicU64,
}

/// One agent's state of a [`Live`] tree: the version it last ran and its
/// state there.
#[derive(Clone)]
pub struct LiveAgent {
    version: Arc<Version>,
    agent: Agent,
}

impl LiveAgent {
    /// The version this agent last ran.
    pub fn version(&self) -> u64 {
        self.version.number
    }

    /// That version.
    pub fn running(&self) -> &Arc<Version> {
        &self.version
    }

    /// Whether a node runs (the tree is mid-way).
    pub fn is_active(&self) -> bool {
        !self
            .version
            .interpreter
            .active_places(&self.agent)
            .is_empty()
    }

    /// Calls `visit` with each node of the active path, in pre-order, as
    /// `BehaviorTree::visit_active` does for compiled code (`depth` added
    /// to each node's; no node reports `since`).
    pub fn visit_active(&self, depth: usize, visit: &mut impl FnMut(bt_runtime::ActiveNode)) {
        let interpreter = &self.version.interpreter;
        for p in interpreter.active(&self.agent) {
            let (tree, node) = interpreter.node_at(p);
            if let Some(info) = self.version.nodes(tree).and_then(|n| n.get(node)) {
                visit(bt_runtime::ActiveNode {
                    info,
                    depth: depth + interpreter.depth_of(p),
                    since: None,
                });
            }
        }
    }

    /// How many places that version has ([`Interpreter::places`]).
    pub fn places(&self) -> usize {
        self.version.interpreter.places()
    }
}

impl core::fmt::Debug for LiveAgent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LiveAgent")
            .field("version", &self.version.number)
            .field("agent", &self.agent)
            .finish()
    }
}

impl Live {
    /// Tree `name` of `program` as built, with the build's `table`; `Err`
    /// lists what the table lacks.
    pub fn new(program: &Program, name: &str, table: Table) -> Result<Live, Reload> {
        let version = Live::version_of(name, &table, program, 1, None)?;
        Ok(Live {
            name: name.to_string(),
            table,
            number: AtomicU64::new(1),
            current: RwLock::new(Arc::new(version)),
        })
    }

    fn version_of(
        name: &str,
        table: &Table,
        program: &Program,
        number: u64,
        previous: Option<&Arc<Version>>,
    ) -> Result<Version, Reload> {
        let Some(mut interpreter) = program.interpreter(name) else {
            return Err(Reload::Invalid {
                tree: name.to_string(),
                errors: vec![Diagnostic {
                    message: format!("the source has no tree `{name}`"),
                    line: 1,
                    column: 1,
                }],
            });
        };
        let resolved = interpreter.resolve(|e: &Expression| match table.entries.get(&Key::of(e)) {
            Some(&i) => Ok(i),
            None => Err(Missing {
                text: e.text.to_string(),
                line: e.line,
            }),
        });
        if let Err(mut missing) = resolved {
            missing.dedup();
            return Err(Reload::Refused {
                tree: name.to_string(),
                missing,
            });
        }
        let (shared, previous) = match previous {
            Some(old) => {
                let migration = interpreter.migration(&old.interpreter);
                let shared = interpreter.migrate_shared(&migration, &old.interpreter, &old.shared);
                (shared, Some((Arc::clone(old), migration)))
            }
            None => (interpreter.shared(), None),
        };
        let nodes: Vec<&'static [NodeInfo]> = (interpreter.trees_laid_out().into_iter())
            .filter_map(|tree| program.node_table(tree))
            .collect();
        let table = |tree: &str| {
            (nodes.iter().copied()).find(|n| n.first().is_some_and(|n| n.tree == tree))
        };
        let view = program.tree_view(name, &table);
        let views = view.and_then(|view| program.views_of(name, view));
        Ok(Version {
            number,
            interpreter,
            shared,
            source: program.source().to_string(),
            previous,
            nodes,
            views,
            view,
        })
    }

    /// The tree's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The current version's number.
    pub fn version(&self) -> u64 {
        self.number.load(Ordering::Acquire)
    }

    /// The current version.
    pub fn current(&self) -> Arc<Version> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Reads the tree again from `source`, a Rust file whose
    /// `behavior_tree!` is on `line`, and makes it the current version if
    /// it compiles and the table has every expression it needs. Agents
    /// move to it at their next tick.
    pub fn reload(&self, source: &str, line: usize) -> Reload {
        self.reload_parsed(
            Program::parse_file(source, line)
                .as_ref()
                .map_err(Clone::clone),
        )
    }

    /// Like [`reload`](Self::reload), from the invocation already parsed
    /// (as [`Program::parse_file`] gives it): a file holding several trees
    /// is parsed once for all of them.
    pub fn reload_parsed(&self, parsed: Result<&Program, Vec<Diagnostic>>) -> Reload {
        let tree = self.name.clone();
        let program = match parsed {
            Ok(program) => program,
            Err(errors) => return Reload::Invalid { tree, errors },
        };
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        if current.source == program.source() {
            return Reload::Unchanged { tree };
        }
        let number = current.number + 1;
        match Live::version_of(&self.name, &self.table, program, number, Some(&current)) {
            Ok(version) => {
                let kept = version.previous.as_ref().map_or(0, |(_, m)| m.kept());
                let nodes = version.interpreter.places();
                *current = Arc::new(version);
                self.number.store(number, Ordering::Release);
                Reload::Applied {
                    tree,
                    version: number,
                    kept,
                    nodes,
                }
            }
            Err(outcome) => outcome,
        }
    }

    /// A new agent of the current version.
    pub fn agent(&self) -> LiveAgent {
        let version = self.current();
        LiveAgent {
            agent: version.interpreter.agent(),
            version,
        }
    }

    /// Moves `agent` to the current version if it runs an older one (see
    /// [`Interpreter::migrate`]; `host` is called for what that halts, and
    /// told which places' state moved through [`Host::migrated`]). Returns
    /// whether it moved.
    pub fn catch_up(&self, agent: &mut LiveAgent, host: &mut impl Host, now: f64) -> bool {
        if agent.version.number == self.version() {
            return false;
        }
        let current = self.current();
        let cached = current
            .previous
            .as_ref()
            .filter(|(old, _)| Arc::ptr_eq(old, &agent.version))
            .map(|(_, m)| m);
        let computed;
        let migration = match cached {
            Some(m) => m,
            None => {
                computed = current.interpreter.migration(&agent.version.interpreter);
                &computed
            }
        };
        let old = &agent.version;
        let (fresh, moved) = current.interpreter.migrate(
            migration,
            &old.interpreter,
            &mut agent.agent,
            &old.shared,
            host,
            now,
        );
        host.migrated(&moved, current.interpreter.places());
        agent.agent = fresh;
        agent.version = current;
        true
    }

    /// Ticks `agent` once, after moving it to the current version.
    pub fn tick(&self, agent: &mut LiveAgent, host: &mut impl Host, input: Input) -> Status {
        self.try_tick(agent, host, input)
            .unwrap_or_else(|limit| limit.status)
    }

    /// Like [`tick`](Self::tick), and reports a decider group that went
    /// past its `redecides` bound (as [`Interpreter::try_tick`]).
    pub fn try_tick(
        &self,
        agent: &mut LiveAgent,
        host: &mut impl Host,
        input: Input,
    ) -> Result<Status, RedecideLimit> {
        self.catch_up(agent, host, input.now);
        let version = &agent.version;
        version
            .interpreter
            .try_tick(&mut agent.agent, &version.shared, host, input)
    }

    /// Halts whatever `agent` runs and forgets what it remembers, in the
    /// version it runs.
    pub fn reset(&self, agent: &mut LiveAgent, host: &mut impl Host) {
        let version = &agent.version;
        version
            .interpreter
            .reset(&mut agent.agent, &version.shared, host);
    }
}
