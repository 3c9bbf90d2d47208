//! A reference interpreter: runs trees from their source text, with the
//! documented semantics of every node kind, without generating code.
//!
//! The compiler's own pipeline (parse, check, lower) turns a
//! `behavior_tree!` body into a [`Program`]; an [`Interpreter`] lays out one
//! tree (subtrees expanded in place) and ticks agents' [`Agent`] states with
//! it. What Rust code would compute (conditions, actions, hooks, durations,
//! scores, stateful leaves, random picks) is asked of a [`Host`], by the
//! source text of the expression and the node it stands in, so a host can
//! script it, bind it to closures, or evaluate it some other way.
//!
//! It is written for clarity first: each node's state is a plain record,
//! ticking recurses, and halting walks the subtree. It serves as the
//! executable specification that the generated code is checked against
//! (the differential tests compare both, call for call, on random trees),
//! and as the base of tools that run trees without rebuilding. A tick does
//! no string work and allocates nothing (a tree with rendezvous allocates
//! the stack of roles once per tick): expressions' texts are worked out
//! when the tree is laid out, and [`Interpreter::resolve`] gives each an
//! index that [`At::index`] carries, so a host with compiled code for each
//! expression reaches it through a table.
//!
//! A tree whose source changed can take over running agents: a
//! [`Migration`] says which nodes of the new version are the same as nodes
//! of the old, and [`Interpreter::migrate`] moves each agent's state,
//! halting exactly once what vanished.
//!
//! ```
//! use bt_compiler::interpret::{At, Host, Input, Program};
//! use bt_runtime::Status;
//!
//! let program = Program::parse(r#"
//!     tree Guard(me: &mut Bot) {
//!         select { sequence { cond me.sees_enemy(), action me.attack() }, action me.patrol() }
//!     }
//! "#).unwrap();
//!
//! /// Sees an enemy on every other call; records what ran.
//! struct Bot { calls: u32, log: Vec<String> }
//! impl Host for Bot {
//!     fn condition(&mut self, _: &At, _: &str) -> bool {
//!         self.calls += 1;
//!         self.calls % 2 == 0
//!     }
//!     fn action(&mut self, _: &At, expr: &str) -> Status {
//!         self.log.push(expr.replace(' ', ""));
//!         Status::Success
//!     }
//! }
//!
//! let guard = program.interpreter("Guard").unwrap();
//! let (mut bot, mut state) = (Bot { calls: 0, log: vec![] }, guard.agent());
//! let shared = guard.shared();
//! for t in 0..2 {
//!     let input = Input { now: f64::from(t), ..Input::default() };
//!     assert_eq!(guard.tick(&mut state, &shared, &mut bot, input), Status::Success);
//! }
//! assert_eq!(bot.log, ["me.patrol()", "me.attack()"]);
//! ```
//!
//! Differences from compiled trees, all about what Rust would do:
//! - A subtree's arguments are not evaluated: the host sees every node of
//!   the embedded tree as its own, by [`At::tree`].
//! - A `when let` guard's value is not kept: the host answers whether it
//!   matches ([`Host::matches`]), and expressions in the child that use
//!   the binding are the host's to resolve. [`At::bound`] names the places
//!   whose bindings are in scope (decider children whose `when let`
//!   matched, `for_each` nodes), so a host can keep each value by place;
//!   [`Expression::scope`] says which bindings an expression sees.
//! - Shared nodes (gates, global cooldowns, rendezvous) are one per node
//!   of each tree in the program, as when every embedding of a subtree is
//!   passed the same shared object.
//! - Trace events are not emitted.

use crate::errors::Errors;
use crate::ir::{self, ClauseKind, Kind};
pub use crate::ir::{FlagMode, Policy};
use crate::kinds::{self, Row as _};
use bt_runtime::__private as rt;
use bt_runtime::shared::{Gate, GlobalCooldown, Rendezvous};
use bt_runtime::{Outcome, Status};
use quote::ToTokens;

mod migrate;
pub use migrate::Migration;

/// Every tree of one `behavior_tree!` body, checked and lowered.
pub struct Program {
    trees: Vec<Tree>,
    /// The body's tokens, as text.
    source: String,
    /// The body as its tokens display, spaced as written where the tokens
    /// know it: what parses back to a program whose texts (details, guard
    /// clauses) read as the source does.
    written: String,
}

/// A tree's views, as compiled code has them in `BehaviorTree`'s
/// constants: see [`Program::views`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Views {
    /// BehaviorTree.CPP's XML, one `<BehaviorTree>` per tree (`BTCPP_XML`).
    pub btcpp_xml: String,
    /// The XML with every node's `_uid` (`BTCPP_INSTANCE_XML`).
    pub btcpp_instance_xml: String,
    /// A Mermaid flowchart (`MERMAID`).
    pub mermaid: String,
    /// A Graphviz digraph (`DOT`).
    pub dot: String,
}

/// A problem that keeps source text from being interpreted: what the
/// compiler would report as a compile error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The message, as the compile error would say it.
    pub message: String,
    /// 1-based line of the token it points at.
    pub line: usize,
    /// 1-based column of that token.
    pub column: usize,
}

impl core::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// One tree of a [`Program`], lowered: the compiler's node table, which
/// the interpreter runs as it is.
pub struct Tree {
    /// The tree's name.
    pub name: String,
    /// `#[bt(activation_times)]` on a tree with a tick context: `Continue`
    /// events carry how long the child has been active.
    pub activation_times: bool,
    ir: ir::Tree,
}

impl Tree {
    /// The lowered tree.
    pub(crate) fn ir(&self) -> &ir::Tree {
        &self.ir
    }

    /// The row of the node-kind table of each node, in pre-order: the order
    /// of the compiled tree's node table.
    pub fn kinds(&self) -> impl Iterator<Item = kinds::Kind> + '_ {
        self.ir.nodes.iter().map(|node| node.row)
    }

    /// The names of the header bindings the compiled tree's `reset` takes,
    /// in header order: those halting uses.
    pub fn reset_bindings(&self) -> Vec<String> {
        crate::generate::reset_bindings(&self.ir)
    }
}

/// Source text of an expression, a pattern or a path: what the host is
/// asked about. Written the same whether the tokens come from rustc (a
/// proc macro) or from a file parsed at run time, so that a build's
/// expressions and a reloaded file's compare equal: tokens apart, puncts
/// written joint joined, groups as `(..)`, `[..]` and `{ .. }`.
pub fn text(tokens: impl ToTokens) -> String {
    let mut out = String::new();
    write_tokens(&mut out, tokens.to_token_stream());
    out
}

fn write_tokens(out: &mut String, tokens: proc_macro2::TokenStream) {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    use std::fmt::Write as _;
    let mut joint = false;
    for (i, token) in tokens.into_iter().enumerate() {
        if i != 0 && !joint {
            out.push(' ');
        }
        joint = false;
        match token {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{ ", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                let inner = group.stream();
                let empty = inner.is_empty();
                write_tokens(out, inner);
                if group.delimiter() == Delimiter::Brace && !empty {
                    out.push(' ');
                }
                out.push_str(close);
            }
            TokenTree::Punct(punct) => {
                joint = punct.spacing() == Spacing::Joint;
                out.push(punct.as_char());
            }
            TokenTree::Ident(ident) => {
                let _ = write!(out, "{ident}");
            }
            // A string as its value: a doc comment is `r" text"` from rustc
            // and `" text"` from a parsed file.
            TokenTree::Literal(literal) => {
                match syn::parse2::<syn::LitStr>(literal.to_token_stream()) {
                    Ok(string) => {
                        let _ = write!(out, "{:?}", string.value());
                    }
                    Err(_) => {
                        let _ = write!(out, "{literal}");
                    }
                }
            }
        }
    }
}

/// The body of the `behavior_tree!` invocation in `tokens` (at any depth)
/// whose macro name is on `line`.
fn invocation(tokens: proc_macro2::TokenStream, line: usize) -> Option<proc_macro2::TokenStream> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match (token, tokens.get(i + 1), tokens.get(i + 2)) {
            (
                TokenTree::Ident(name),
                Some(TokenTree::Punct(bang)),
                Some(TokenTree::Group(body)),
            ) if name == "behavior_tree"
                && bang.as_char() == '!'
                && name.span().start().line == line =>
            {
                return Some(body.stream());
            }
            (TokenTree::Group(group), _, _) => {
                if let Some(body) = invocation(group.stream(), line) {
                    return Some(body);
                }
            }
            _ => {}
        }
    }
    None
}

/// The tokens of the body of the `behavior_tree!` invocation of a Rust
/// source file whose macro name is on `line`, as text ([`Program::source`]
/// of it, without parsing the trees): whether a file's trees changed.
pub fn invocation_source(source: &str, line: usize) -> Option<String> {
    let tokens: proc_macro2::TokenStream = source.parse().ok()?;
    invocation(tokens, line).map(|body| text(&body))
}

/// Source text as tokens, written as [`Program::source`] writes them:
/// equal for two texts that differ only in layout and (non-doc) comments.
pub fn tokens_text(source: &str) -> Option<String> {
    let tokens: proc_macro2::TokenStream = source.parse().ok()?;
    Some(text(&tokens))
}

/// The name of the tree a subtree node embeds: the last segment of its path.
fn embedded(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// Source text as tokens; a lexing error as a diagnostic at its place.
fn lex(source: &str) -> Result<proc_macro2::TokenStream, Vec<Diagnostic>> {
    source.parse().map_err(|e: proc_macro2::LexError| {
        let start = e.span().start();
        vec![Diagnostic {
            message: e.to_string(),
            line: start.line,
            column: start.column + 1,
        }]
    })
}

impl Program {
    /// Parses, checks and lowers the body of a `behavior_tree!` invocation
    /// given as source text.
    pub fn parse(source: &str) -> Result<Program, Vec<Diagnostic>> {
        let tokens = lex(source)?;
        Program::from_tokens(tokens)
    }

    /// Parses, checks and lowers the `behavior_tree!` invocation of a Rust
    /// source file whose macro name is on `line` (1-based; what `line!()`
    /// gives where the macro is called): what a running program reloads
    /// when the file holding its trees changes. Diagnostics give lines and
    /// columns in the file.
    ///
    /// ```
    /// use bt_compiler::interpret::Program;
    /// let file = "use bt::behavior_tree;\n\
    ///             behavior_tree! {\n\
    ///                 tree A(me: &mut M) { action me.a() }\n\
    ///             }\n\
    ///             bt::behavior_tree! { tree B(me: &mut M) { sequnce { cond me.b() } } }\n";
    /// let program = Program::parse_file(file, 2).unwrap();
    /// assert!(program.tree("A").is_some());
    /// let errors = Program::parse_file(file, 5).err().unwrap();
    /// assert_eq!(errors[0].line, 5);
    /// assert_eq!(Program::parse_file(file, 3).err().unwrap()[0].message,
    ///            "no `behavior_tree!` invocation on line 3");
    /// ```
    pub fn parse_file(source: &str, line: usize) -> Result<Program, Vec<Diagnostic>> {
        let tokens = lex(source)?;
        match invocation(tokens, line) {
            Some(body) => Program::from_tokens(body),
            None => Err(vec![Diagnostic {
                message: format!("no `behavior_tree!` invocation on line {line}"),
                line,
                column: 1,
            }]),
        }
    }

    /// Like [`Program::parse`], from tokens.
    pub fn from_tokens(tokens: proc_macro2::TokenStream) -> Result<Program, Vec<Diagnostic>> {
        let source = text(&tokens);
        let written = tokens.to_string();
        let mut errors = Errors::default();
        let input = crate::parse::parse(tokens, &mut errors);
        // What derives need is rustc's to check: the interpreter derives
        // nothing.
        crate::check::check_with(&input, true, true, &mut errors);
        if !errors.is_empty() {
            return Err(errors.diagnostics());
        }
        let lowered: Vec<ir::Tree> = match input
            .trees
            .iter()
            .map(|tree| crate::lower::lower(tree, &mut errors))
            .collect()
        {
            Ok(trees) => trees,
            Err(crate::errors::Reported { .. }) => return Err(errors.diagnostics()),
        };
        let names: Vec<String> = lowered.iter().map(|t| t.name.to_string()).collect();
        let mut problems = Vec::new();
        for node in lowered.iter().flat_map(|tree| &tree.nodes) {
            let at = |message: String| Diagnostic {
                message,
                line: node.line as usize,
                column: node.column as usize,
            };
            if let Kind::Request { .. } = node.kind {
                problems.push(at(
                    "the interpreter does not run `request` nodes: their answers \
                                  come from systems outside the tree"
                        .to_string(),
                ));
            }
            if let Some(count) = node.kind.named_count() {
                problems.push(at(format!(
                    "the interpreter needs the number of a count, not the constant `{count}`: \
                     only rustc knows its value"
                )));
            }
            if let Kind::Subtree { path, .. } = &node.kind
                && !names.contains(&embedded(path))
            {
                problems.push(at(format!(
                    "subtree `{}` is not a tree of this program: the interpreter runs only \
                     trees it has the source of",
                    embedded(path)
                )));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let trees = lowered
            .into_iter()
            .map(|ir| Tree {
                name: ir.name.to_string(),
                activation_times: ir.activation_times,
                ir,
            })
            .collect();
        Ok(Program {
            trees,
            source,
            written,
        })
    }

    /// The body's tokens as text: the same for two sources that differ
    /// only in layout and (non-doc) comments.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The body, spaced as written where its tokens know it: parsed again,
    /// it gives this program, its texts read as the source does.
    pub fn written(&self) -> &str {
        &self.written
    }

    /// The trees, in source order.
    pub fn trees(&self) -> &[Tree] {
        &self.trees
    }

    /// The tree named `name`.
    pub fn tree(&self, name: &str) -> Option<&Tree> {
        self.trees.iter().find(|t| t.name == name)
    }

    /// The node table of tree `name`, as compiled code has it
    /// (`BehaviorTree::NODES`): for tools that show a tree read at run
    /// time. Its strings are leaked, once per call.
    pub fn node_table(&self, name: &str) -> Option<&'static [bt_runtime::NodeInfo]> {
        let tree = self.tree(name)?;
        let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
        let tree_name = leak(name);
        let nodes: Vec<bt_runtime::NodeInfo> = (tree.ir.nodes.iter())
            .map(|node| bt_runtime::NodeInfo {
                tree: tree_name,
                id: node.id,
                kind: node.row,
                label: node.label.as_deref().map(leak),
                parent: node.parent,
                depth: node.depth,
                line: node.line,
                column: node.column,
                detail: leak(&node.detail),
                guard: node.guard.as_ref().map(|g| leak(&g.text)),
                can_run: node.can_run,
            })
            .collect();
        Some(Box::leak(nodes.into_boxed_slice()))
    }

    /// The views of tree `name` that compiled code has as constants
    /// (`BehaviorTree::BTCPP_XML`, `BTCPP_INSTANCE_XML`, `MERMAID`, `DOT`),
    /// written from this program: for tools that show a tree read at run
    /// time. Leaks the node tables and XML pieces, once per call.
    pub fn views(&self, name: &str) -> Option<Views> {
        self.views_of(name, self.tree_view(name, &|tree| self.node_table(tree))?)
    }

    /// Tree `name` as compiled code has it as `BehaviorTree::VIEW`, with
    /// the trees it embeds; each tree's node table is the one `tables`
    /// gives for its name (a [`node_table`](Self::node_table) of this
    /// program). Leaks its strings and XML pieces, once per call.
    pub fn tree_view(
        &self,
        name: &str,
        tables: &dyn Fn(&str) -> Option<&'static [bt_runtime::NodeInfo]>,
    ) -> Option<&'static bt_runtime::view::TreeView<'static>> {
        crate::generate::leaked_view(self, name, tables)
    }

    /// [`views`](Self::views), written from `view`, this program's view of
    /// tree `name`.
    pub fn views_of(&self, name: &str, view: &bt_runtime::view::TreeView<'_>) -> Option<Views> {
        use bt_runtime::view::Form;
        let xml = |form| {
            let mut buf = vec![0; view.write_xml(form, &mut [])];
            view.write_xml(form, &mut buf);
            String::from_utf8(buf).unwrap_or_default()
        };
        let (mermaid, dot) = crate::generate::diagrams(self, name)?;
        Some(Views {
            btcpp_xml: xml(Form::Definition),
            btcpp_instance_xml: xml(Form::Instance),
            mermaid,
            dot,
        })
    }

    /// An interpreter for the tree named `name`, its subtrees laid out in
    /// place.
    pub fn interpreter(&self, name: &str) -> Option<Interpreter> {
        Interpreter::new(self, name)
    }
}

impl Errors {
    /// The errors as diagnostics, in source order.
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.sorted()
            .into_iter()
            .map(|e| {
                let start = e.span().start();
                Diagnostic {
                    message: e.to_string(),
                    line: start.line,
                    column: start.column + 1,
                }
            })
            .collect()
    }
}

/// Where an expression is evaluated: the node, in its tree and in the
/// laid-out tree.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// The name of the tree the node belongs to (a subtree's own name for
    /// its nodes).
    pub tree: &'a str,
    /// The node's id in that tree.
    pub node: usize,
    /// The node's place in the laid-out tree: unique per agent even when a
    /// subtree is embedded several times (pre-order, subtrees expanded).
    pub place: usize,
    /// The roles bound by the enclosing rendezvous nodes, innermost last.
    pub roles: &'a [(&'a str, usize)],
    /// The index [`Interpreter::resolve`] gave the expression being
    /// evaluated; `None` when it gave none, or for calls about the node
    /// itself (trace events, node hooks).
    pub index: Option<u32>,
    /// The places whose bindings are in scope, outermost first: decider
    /// children whose `when let` matched (the value their
    /// [`Host::matches`] saw) and `for_each` nodes (the item their
    /// [`Host::item`] gave). A host that keeps those values by place finds
    /// them here.
    pub bound: &'a [usize],
}

/// What the interpreter asks of the world: the values of the tree's Rust
/// expressions. Every method has a default that panics naming the
/// expression, so a host implements only what its trees use.
#[allow(unused_variables)]
pub trait Host {
    /// A `bool` expression: `cond`, `monitor`, a precondition, a `when`
    /// clause.
    fn condition(&mut self, at: &At, expr: &str) -> bool {
        unimplemented!("condition `{expr}`")
    }
    /// An `action`'s status.
    fn action(&mut self, at: &At, expr: &str) -> Status {
        unimplemented!("action `{expr}`")
    }
    /// An `instant`'s outcome.
    fn instant(&mut self, at: &At, expr: &str) -> Outcome {
        unimplemented!("instant `{expr}`")
    }
    /// A hook of `scope` or `after`. For `scope`'s `enter` and `tick`,
    /// whether to go on (as [`HookResult::proceed`](bt_runtime::HookResult));
    /// ignored for the others.
    fn hook(&mut self, at: &At, expr: &str) -> bool {
        unimplemented!("hook `{expr}`")
    }
    /// A duration, in seconds.
    fn seconds(&mut self, at: &At, expr: &str) -> f64 {
        unimplemented!("duration `{expr}`")
    }
    /// A `score` clause.
    fn score(&mut self, at: &At, expr: &str) -> f32 {
        unimplemented!("score `{expr}`")
    }
    /// A `when let`: whether the value of `expr` matches `pattern`.
    fn matches(&mut self, at: &At, expr: &str, pattern: &str) -> bool {
        unimplemented!("when let `{pattern}` = `{expr}`")
    }
    /// A flags expression of a `flags`/`stimuli` clause, as bits.
    fn flags(&mut self, at: &At, expr: &str) -> u64 {
        unimplemented!("flags `{expr}`")
    }
    /// A `switch`: the index of the first of `patterns` that the value of
    /// `expr` matches; a `switch_eq`: the first of its cases (expressions,
    /// and `_` last) that the value equals.
    fn arm(&mut self, at: &At, expr: &str, patterns: &[String]) -> usize {
        unimplemented!("switch `{expr}`")
    }
    /// A `for_each`'s expression, evaluated when its child is not running:
    /// whether it gave an item (`Some`).
    fn item(&mut self, at: &At, expr: &str) -> bool {
        unimplemented!("for_each item from `{expr}`")
    }
    /// A `random` or `shuffle` group's draw: one of the set bits of
    /// `candidates`, from the generator `rng`, as the runtime's
    /// `__private::pick` draws it; `None` when no bit is set.
    fn pick(&mut self, at: &At, rng: &str, candidates: u128) -> Option<usize> {
        unimplemented!("random pick from `{rng}`")
    }
    /// A stateful leaf's first tick ([`Leaf::start`](bt_runtime::Leaf)).
    fn start(&mut self, at: &At, leaf: &str) -> Status {
        unimplemented!("leaf `{leaf}`")
    }
    /// A stateful leaf's later ticks.
    fn tick(&mut self, at: &At, leaf: &str) -> Status {
        unimplemented!("leaf `{leaf}`")
    }
    /// A running stateful leaf is abandoned.
    fn halt(&mut self, at: &At, leaf: &str) {
        unimplemented!("leaf `{leaf}`")
    }
    /// The highest trace level wanted (see [`bt_runtime::trace`]); 0, the
    /// default, builds no events.
    fn trace_level(&self) -> u8 {
        0
    }
    /// A trace event at `level`, in the node `at` (a decider group, or a
    /// tree's root for tick events and monitors), as compiled code sends it
    /// to the context's [`Trace`](bt_runtime::Trace) hook.
    fn trace(&mut self, at: &At, level: u8, event: Event) {}
    /// Whether this tick calls the node hooks ([`before`](Self::before),
    /// [`after`](Self::after)); asked once per tick, as compiled code asks
    /// its tracer's [`Trace::hooks`](bt_runtime::Trace::hooks). `false`,
    /// the default, runs no hook.
    fn hooks(&self) -> bool {
        false
    }
    /// Before the node `at` runs: `Some(status)` replaces it, as
    /// [`Trace::before`](bt_runtime::Trace::before).
    fn before(&mut self, at: &At) -> Option<Status> {
        None
    }
    /// After it returned `status`: the status its parent sees, as
    /// [`Trace::after`](bt_runtime::Trace::after).
    fn after(&mut self, at: &At, status: Status) -> Status {
        status
    }
    /// The agent moved to another version of the tree
    /// ([`Interpreter::migrate`]), which has `places` places: the running
    /// state of each old place of `moved` is now at its new place. A host
    /// that keeps state by place (a leaf's memory, a `when let` value)
    /// moves it; what was not moved was halted.
    fn migrated(&mut self, moved: &[(usize, usize)], places: usize) {}
}

/// A trace event: what compiled code reports through
/// [`bt_runtime::trace::Event`], with node ids of the event's tree in place
/// of node table entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// A tick of a tree (the root, or an embedded subtree) starts (level 3).
    TickStart,
    /// It ended with this status (level 3).
    TickEnd(Status),
    /// A decider child was activated (level 1).
    Activate {
        /// The child.
        child: usize,
    },
    /// The active child was interrupted by a higher-priority one (level 2).
    Interrupt {
        /// The child halted.
        child: usize,
        /// The child whose guard accepted.
        by: usize,
    },
    /// A running stateful leaf was halted (level 2, in the leaf).
    Halted,
    /// A decider child finished (level 2).
    End {
        /// The child.
        child: usize,
        /// How it ended.
        status: Status,
    },
    /// No child accepted: the group fails (level 2).
    NoneAccepted,
    /// The group went past its `redecides` bound (level 1).
    RedecideLimit,
    /// An armed monitor fired: the tree restarts from its root (level 1).
    MonitorFired {
        /// The monitor.
        monitor: usize,
    },
    /// The node returned this status (level 6), children before parents.
    Returned(Status),
    /// A subtree node is about to tick the tree it embeds (level 6).
    EnterSubtree,
    /// The agent was reset (level 6, in the root).
    Reset,
    /// The active child is ticked again (level 4).
    Continue {
        /// The child.
        child: usize,
        /// Seconds since it was activated, if the tree records activation
        /// times.
        active_for: Option<f64>,
    },
    /// A guard was checked (level 5).
    Guard {
        /// The child whose guard it is.
        child: usize,
        /// The verdict.
        verdict: Verdict<'a>,
    },
}

/// The result of checking one guard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict<'a> {
    /// Every clause passed; the score (1.0 without a `score` clause).
    Accepted(f32),
    /// This clause rejected (its source text).
    Rejected(&'a str),
    /// Not checked: the child failed earlier in this tick.
    Masked,
}

/// What the tick context would give compiled code.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Input {
    /// The time, in seconds.
    pub now: f64,
    /// Decision flags, as bits.
    pub decision: u64,
    /// Stimuli flags, as bits.
    pub stimuli: u64,
}

/// A decider group went past its `redecides = N` bound in a tick (the
/// interpreter's [`TickError::RedecideLimit`](bt_runtime::TickError)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedecideLimit {
    /// The group's node id in the ticked tree.
    pub node: usize,
    /// The status the tree returned anyway.
    pub status: Status,
}

/// One tree laid out for interpretation: every node of it and of the
/// trees it embeds, at its place.
pub struct Interpreter {
    /// Every tree of the program, as the interpreter runs it.
    trees: Vec<Laid>,
    places: Vec<Place>,
    /// The children's places of every place, one run per place.
    kids: Vec<usize>,
    /// The binding places in scope at every place, one run per place.
    binders: Vec<usize>,
    /// Each place's parent place.
    parent: Vec<Option<usize>>,
    /// The expressions of each place, as `places`.
    sites: Vec<Sites>,
    /// The monitors' places of each tree instance, in node order.
    monitors: Vec<Vec<usize>>,
    /// How deep rendezvous nest: the roles a tick binds at most.
    nesting: usize,
    instances: usize,
    /// Per tree instance: the instance it is embedded in and the text of
    /// the `subtree` node that embeds it (none for the root's).
    embedding: Vec<Option<(usize, String)>>,
    /// Index of each tree's first node among all nodes of the program.
    offsets: Vec<usize>,
    shared_len: usize,
}

// An interpreter holds no syntax trees: it and the shared state can be sent
// to other threads and shared by them.
const _: () = {
    const fn both<T: Send + Sync>() {}
    both::<Interpreter>();
    both::<Shared>();
};

/// A tree of the program, as the interpreter runs it: what it needs of
/// the compiler's nodes, with no syntax trees (which stay on the thread
/// that parsed them), so that an interpreter can be sent and shared.
struct Laid {
    name: String,
    activation_times: bool,
    nodes: Vec<Node>,
}

/// A node, as the interpreter runs it: the compiler's node with its
/// numbers read, its expressions left to its place's [`Sites`].
struct Node {
    step: Step,
    row: kinds::Kind,
    label: Option<String>,
    line: u32,
    parent: Option<usize>,
    can_run: bool,
    has_state: bool,
    /// The stateful leaf whose memory the node is ([`ir::Shape::LeafOf`]).
    leaf_of: Option<usize>,
    /// It holds the memory of its one running child
    /// ([`ir::MemoryOf::OnlyRunningChild`]).
    holds_running_child: bool,
    /// Its guard's clauses, for a decider child.
    guard: Vec<Clause>,
    refusals: Vec<ir::Refusal>,
    /// What it evaluates, when that names it: a condition's, action's,
    /// instant's or monitor's text, a leaf's type, an embedded tree's name
    /// (part of its identity, [`Migration`]).
    what: String,
    /// The shared object it uses, if any.
    shared: Option<kinds::Shared>,
}

/// A guard clause: what it tests, and its text for trace events.
struct Clause {
    test: Test,
    text: String,
}

/// What a guard clause tests (its expression is in [`Sites::clauses`]).
enum Test {
    Room(ir::Refusal),
    When,
    WhenLet,
    Score,
    Every,
    Flags { stimuli: bool, mode: FlagMode },
}

/// A node's kind as the interpreter runs it: [`Kind`] with its numbers
/// read and its expressions left out.
#[derive(Clone, Copy, Debug)]
enum Step {
    Sequence,
    SequenceWithMemory,
    Select,
    AsyncSequence,
    AsyncSelect,
    TryCatch,
    ReactiveSequence,
    ReactiveSelect,
    IfThenElse,
    WhileDoElse,
    Parallel {
        success: u32,
        failure: u32,
    },
    ParallelAll {
        max_failures: u32,
    },
    Invert,
    ForceSuccess,
    ForceFailure,
    KeepRunningUntilFailure,
    Repeat(Option<u32>),
    Retry(Option<u32>),
    ForEach {
        then: Status,
    },
    Decider {
        policy: Policy,
        redecides: Option<u32>,
    },
    Wait,
    Cooldown,
    RunOnce {
        skip: Option<Status>,
    },
    /// The decorators that latch ([`Latch`]).
    Latch(Latch),
    Rendezvous {
        n: u32,
    },
    Sync,
    Monitor {
        index: usize,
    },
    Switch,
    Cond,
    Action,
    Instant,
    Constant(Status),
    Leaf,
    Subtree,
}

impl Node {
    fn of(node: &ir::Node) -> Node {
        let step = match &node.kind {
            Kind::Sequence => Step::Sequence,
            Kind::SequenceWithMemory => Step::SequenceWithMemory,
            Kind::Select => Step::Select,
            Kind::AsyncSequence => Step::AsyncSequence,
            Kind::AsyncSelect => Step::AsyncSelect,
            Kind::TryCatch => Step::TryCatch,
            Kind::ReactiveSequence => Step::ReactiveSequence,
            Kind::ReactiveSelect => Step::ReactiveSelect,
            Kind::IfThenElse => Step::IfThenElse,
            Kind::WhileDoElse => Step::WhileDoElse,
            Kind::Parallel { success, failure } => Step::Parallel {
                success: number(success),
                failure: number(failure),
            },
            Kind::ParallelAll { max_failures } => Step::ParallelAll {
                max_failures: number(max_failures),
            },
            Kind::Invert => Step::Invert,
            Kind::ForceSuccess => Step::ForceSuccess,
            Kind::ForceFailure => Step::ForceFailure,
            Kind::KeepRunningUntilFailure => Step::KeepRunningUntilFailure,
            Kind::Repeat(n) => Step::Repeat(n.as_ref().map(number)),
            Kind::Retry(n) => Step::Retry(n.as_ref().map(number)),
            Kind::ForEach { then, .. } => Step::ForEach { then: *then },
            Kind::Decider {
                policy, redecides, ..
            } => Step::Decider {
                policy: *policy,
                redecides: redecides.as_ref().map(number),
            },
            Kind::Wait(_) => Step::Wait,
            Kind::Cooldown(_) => Step::Cooldown,
            Kind::RunOnce { skip } => Step::RunOnce { skip: *skip },
            Kind::Rendezvous { n, .. } => Step::Rendezvous { n: number(n) },
            Kind::Sync { .. } => Step::Sync,
            Kind::Monitor { index, .. } => Step::Monitor { index: *index },
            Kind::Switch(_) => Step::Switch,
            Kind::Cond(_) => Step::Cond,
            Kind::Action(_) => Step::Action,
            Kind::Instant(_) => Step::Instant,
            Kind::Constant(status) => Step::Constant(*status),
            Kind::Leaf { .. } => Step::Leaf,
            Kind::Subtree { .. } => Step::Subtree,
            Kind::Request { .. } => unreachable!("a program with a request is refused"),
            Kind::Scope { .. }
            | Kind::Timeout(_)
            | Kind::Delay(_)
            | Kind::Every(_)
            | Kind::After { .. }
            | Kind::Precondition { .. }
            | Kind::RunWhile { .. }
            | Kind::Gate(_)
            | Kind::GlobalCooldown(_) => {
                Step::Latch(Latch::of(&node.kind).expect("a latched kind"))
            }
        };
        let clauses = node.guard.as_ref().map_or(&[][..], |g| &g.clauses);
        let guard = (clauses.iter())
            .map(|clause| Clause {
                test: match &clause.kind {
                    ClauseKind::Room(refusal) => Test::Room(refusal.clone()),
                    ClauseKind::When(_) => Test::When,
                    ClauseKind::WhenLet { .. } => Test::WhenLet,
                    ClauseKind::Score(_) => Test::Score,
                    ClauseKind::Every(_) => Test::Every,
                    ClauseKind::Flags { stimuli, mode, .. } => Test::Flags {
                        stimuli: *stimuli,
                        mode: *mode,
                    },
                },
                text: clause.text.clone(),
            })
            .collect();
        let what = match &node.kind {
            Kind::Cond(e) | Kind::Action(e) | Kind::Instant(e) => text(e),
            Kind::Monitor { expr, .. } => text(expr),
            Kind::Leaf { path, .. } => text(path),
            Kind::Subtree { path, .. } => embedded(path),
            Kind::Constant(status) => format!("{status:?}"),
            _ => String::new(),
        };
        let leaf_of = match &node.shape {
            ir::Shape::LeafOf(leaf) => Some(*leaf),
            _ => None,
        };
        Node {
            step,
            row: node.row,
            label: node.label.clone(),
            line: node.line,
            parent: node.parent,
            can_run: node.can_run,
            has_state: node.has_state,
            leaf_of,
            holds_running_child: node.kind.memory_of() == ir::MemoryOf::OnlyRunningChild,
            guard,
            refusals: node.refusals.clone(),
            what,
            shared: node.row.info().shared,
        }
    }
}

/// A node at its place.
struct Place {
    tree: usize,
    node: usize,
    /// The node's step, kept here for the tick to read in one place.
    step: Step,
    /// Where its children's places are in [`Interpreter::kids`].
    children: core::ops::Range<usize>,
    /// The tree instance (root tree 0, then each embedded subtree) whose
    /// monitors this node arms.
    instance: usize,
    /// The place of the enclosing rendezvous, for a `sync`.
    rendezvous: Option<usize>,
    /// The role a `rendezvous` binds, as source text.
    role: String,
    /// The places whose bindings are in scope here, as a run of
    /// [`Interpreter::binders`] (see [`At::bound`]).
    bound: core::ops::Range<usize>,
    /// What the node binds (`PATTERN: Type`, `name: Type`), if anything.
    binds: String,
}

/// One agent's state for an [`Interpreter`]: what runs, and what outlives
/// activity.
#[derive(Clone, Debug)]
pub struct Agent {
    slots: Vec<Slot>,
    /// Armed monitors, one mask per tree instance.
    armed: Vec<u128>,
}

/// The state of one node at its place. Fields that outlive activity are
/// kept apart in [`Keep`].
#[derive(Clone, Debug, Default)]
struct Slot {
    /// Entered and not yet left (latches, leaves, loops, subtrees).
    active: bool,
    /// The running child's position (composites, branches, switch, deciders).
    child: Option<usize>,
    /// `async_sequence`, `async_select`: the child to start on the next
    /// tick, after a yield (0 when none).
    start: usize,
    /// When it was entered or started.
    since: f64,
    /// `wait`: when it started.
    started: Option<f64>,
    passed: bool,
    running: bool,
    count: u32,
    succeeded: u128,
    failed: u128,
    member: rt::Member,
    arrived: bool,
    keep: Keep,
}

/// What outlives activity; cleared only by `reset`.
#[derive(Clone, Debug)]
struct Keep {
    ready: f64,
    once: Option<Status>,
    next: usize,
    used: u128,
    every: f64,
    period: f64,
}

impl Default for Keep {
    fn default() -> Keep {
        Keep {
            ready: f64::NEG_INFINITY,
            once: None,
            next: 0,
            used: 0,
            every: f64::NEG_INFINITY,
            period: f64::NEG_INFINITY,
        }
    }
}

/// The state every agent of one tree shares: gates, global cooldowns and
/// rendezvous (the compiled tree's `<Tree>Shared`).
pub struct Shared {
    /// One per node of each tree of the program; several versions of a
    /// tree share the nodes that are the same ([`Interpreter::migrate_shared`]).
    nodes: Vec<std::sync::Arc<SharedNode>>,
}

impl Shared {
    /// Gate permits and rendezvous places held now, by every agent: 0 once
    /// every agent is reset.
    pub fn held(&self) -> u32 {
        (self.nodes.iter())
            .map(|node| match &**node {
                SharedNode::Gate(gate) => gate.inside(),
                SharedNode::Rendezvous(r) => r.members(),
                SharedNode::Cooldown(_) | SharedNode::None => 0,
            })
            .sum()
    }
}

enum SharedNode {
    None,
    Gate(Gate),
    Cooldown(GlobalCooldown),
    Rendezvous(Rendezvous),
}

/// Which [`Host`] method evaluates an expression: what it is to the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Use {
    /// [`Host::condition`].
    #[default]
    Condition,
    /// [`Host::action`].
    Action,
    /// [`Host::instant`].
    Instant,
    /// [`Host::hook`].
    Hook,
    /// [`Host::seconds`].
    Seconds,
    /// [`Host::score`].
    Score,
    /// [`Host::matches`].
    Matches,
    /// [`Host::flags`].
    Flags,
    /// [`Host::arm`].
    Arm,
    /// [`Host::item`].
    Item,
    /// [`Host::pick`]: the generator.
    Pick,
    /// [`Host::start`], [`Host::tick`] and [`Host::halt`]: the leaf.
    Leaf,
}

/// One expression of a laid-out tree, as [`Interpreter::resolve`] shows it.
#[derive(Clone, Debug)]
pub struct Expression<'a> {
    /// What the tree does with it.
    pub used: Use,
    /// Its source text, as [`Host`] methods receive it.
    pub text: &'a str,
    /// A `when let`'s pattern (empty otherwise).
    pub pattern: &'a str,
    /// Where it is.
    pub at: At<'a>,
    /// 1-based line of its node.
    pub line: usize,
    /// The bindings in scope, outermost first, one per place of
    /// [`At::bound`]: `PATTERN: Type` of a `when let`, `name: Type` of a
    /// `for_each` item. The same text under other bindings is another
    /// expression.
    pub scope: Vec<&'a str>,
    /// For an expression of an embedded tree: the `subtree` nodes that
    /// embed it, outermost first (`Patrol (me , cx)`), each in the tree
    /// the one before embeds. The same text embedded otherwise is another
    /// expression.
    pub embedded: Vec<&'a str>,
}

/// An expression where a place evaluates it: its source text, and the
/// index [`Interpreter::resolve`] gave it.
#[derive(Clone, Debug, Default)]
struct Site {
    used: Use,
    text: String,
    /// A `when let`'s pattern.
    pattern: String,
    index: Option<u32>,
    /// The bindings in scope, as a run of [`Interpreter::binders`]: its
    /// place's ([`Place::bound`]), or fewer.
    bound: core::ops::Range<usize>,
    /// A number written as a duration or score: not asked of the host.
    number: Option<f64>,
}

/// The expressions of one place, worked out once when the tree is laid
/// out, so that a tick does no string work.
#[derive(Clone, Debug, Default)]
struct Sites {
    /// The node's own: a condition, an action, an instant, a leaf, a
    /// duration, a switch's or a `for_each`'s value, a monitor's,
    /// precondition's or `run_while`'s condition, a decider's generator.
    main: Site,
    /// `scope`'s `enter`, `tick`, `exit`; `after`'s `success`, `failure`,
    /// `finished`, `halted`.
    hooks: [Site; 4],
    /// One per guard clause of a decider child (a `room` clause's is
    /// empty).
    clauses: Vec<Site>,
    /// A switch's arms: each child's pattern or case, `_` for the last
    /// catch-all.
    arms: Vec<String>,
}

/// Which expression of a place: see [`Sites`].
#[derive(Clone, Copy)]
enum Which {
    Main,
    Hook(usize),
    Clause(usize),
}

impl Site {
    fn new(used: Use, expr: impl ToTokens) -> Site {
        let text = text(expr);
        // A duration or score written as a number is that number: the
        // tree reads it without asking the host.
        let number = matches!(used, Use::Seconds | Use::Score)
            .then(|| text.replace(' ', "").parse::<f64>().ok())
            .flatten();
        Site {
            used,
            text,
            number,
            ..Site::default()
        }
    }
}

impl Sites {
    /// The expressions of `node`.
    fn of(node: &ir::Node, children: &[&ir::Node]) -> Sites {
        let mut sites = Sites::default();
        let hooks = |list: [&Option<syn::Expr>; 4]| {
            list.map(|e| {
                e.as_ref()
                    .map(|e| Site::new(Use::Hook, e))
                    .unwrap_or_default()
            })
        };
        sites.main = match &node.kind {
            Kind::Cond(e)
            | Kind::Monitor { expr: e, .. }
            | Kind::Precondition { expr: e, .. }
            | Kind::RunWhile { expr: e, .. } => Site::new(Use::Condition, e),
            Kind::Action(e) => Site::new(Use::Action, e),
            Kind::Instant(e) => Site::new(Use::Instant, e),
            Kind::Leaf { literal, .. } => Site::new(Use::Leaf, literal),
            Kind::Wait(d)
            | Kind::Cooldown(d)
            | Kind::Timeout(d)
            | Kind::Delay(d)
            | Kind::Every(d)
            | Kind::GlobalCooldown(d) => Site::new(Use::Seconds, d),
            Kind::Switch(e) => Site::new(Use::Arm, e),
            Kind::ForEach { item, .. } => Site::new(Use::Item, &item.expr),
            Kind::Decider { rng: Some(rng), .. } => Site::new(Use::Pick, rng),
            _ => Site::default(),
        };
        match &node.kind {
            Kind::Scope { enter, tick, exit } => sites.hooks = hooks([enter, tick, exit, &None]),
            Kind::After {
                success,
                failure,
                finished,
                halted,
            } => sites.hooks = hooks([success, failure, finished, halted]),
            Kind::Switch(_) => {
                sites.arms = (children.iter())
                    .map(|c| c.arm.as_ref().map_or_else(|| "_".to_string(), text))
                    .collect();
                // The arms are part of the expression: compiled code matches
                // them, and `switch_eq` compares where `switch` matches.
                let cases = (children.iter()).map(|c| match &c.arm {
                    Some(crate::ast::Arm::Equals(e)) => format!("== {}", text(e)),
                    Some(arm) => text(arm),
                    None => "_".to_string(),
                });
                sites.main.pattern = cases.collect::<Vec<_>>().join(" , ");
            }
            _ => {}
        }
        let clauses = node.guard.as_ref().map_or(&[][..], |g| &g.clauses);
        sites.clauses = (clauses.iter())
            .map(|clause| match &clause.kind {
                ClauseKind::When(e) => Site::new(Use::Condition, e),
                ClauseKind::WhenLet { pat, expr, .. } => Site {
                    pattern: text(pat),
                    ..Site::new(Use::Matches, expr)
                },
                ClauseKind::Score(e) => Site::new(Use::Score, e),
                ClauseKind::Every(d) => Site::new(Use::Seconds, d),
                ClauseKind::Flags { expr, .. } => Site::new(Use::Flags, expr),
                ClauseKind::Room(_) => Site::default(),
            })
            .collect();
        sites
    }

    /// Every expression the host is asked about.
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Site> {
        let asked = |s: &&mut Site| !s.text.is_empty() && s.number.is_none();
        let main = Some(&mut self.main).filter(asked);
        let hooks = self.hooks.iter_mut().filter(asked);
        let clauses = self.clauses.iter_mut().filter(asked);
        main.into_iter().chain(hooks).chain(clauses)
    }
}

impl Interpreter {
    fn new(program: &Program, name: &str) -> Option<Interpreter> {
        let root = program.trees.iter().position(|t| t.name == name)?;
        let mut offsets = Vec::with_capacity(program.trees.len());
        let mut total = 0;
        for tree in &program.trees {
            offsets.push(total);
            total += tree.ir.nodes.len();
        }
        let trees = (program.trees.iter())
            .map(|tree| Laid {
                name: tree.name.clone(),
                activation_times: tree.activation_times,
                nodes: (tree.ir.nodes.iter()).map(Node::of).collect(),
            })
            .collect();
        let mut layout = Interpreter {
            trees,
            places: Vec::new(),
            kids: Vec::new(),
            binders: Vec::new(),
            parent: Vec::new(),
            sites: Vec::new(),
            monitors: Vec::new(),
            nesting: 0,
            instances: 1,
            embedding: vec![None],
            offsets,
            shared_len: total,
        };
        layout.lay_out(program, root, 0, 0, None, &[]);
        layout.parent = vec![None; layout.places.len()];
        for (p, place) in layout.places.iter().enumerate() {
            for &c in &layout.kids[place.children.clone()] {
                layout.parent[c] = Some(p);
            }
        }
        layout.monitors = (0..layout.instances)
            .map(|instance| {
                (0..layout.places.len())
                    .filter(|&q| {
                        let place = &layout.places[q];
                        place.instance == instance
                            && matches!(
                                layout.trees[place.tree].nodes[place.node].step,
                                Step::Monitor { .. }
                            )
                    })
                    .collect()
            })
            .collect();
        layout.nesting = (0..layout.places.len())
            .map(|q| {
                let mut depth = 0;
                let mut r = Some(q);
                while let Some(at) = r {
                    r = layout.places[at].rendezvous;
                    depth += usize::from(r.is_some());
                }
                depth
            })
            .max()
            .unwrap_or(0);
        Some(layout)
    }

    /// Gives each expression of the laid-out tree an index, which [`At::index`]
    /// carries when the host is asked about it: a host that has compiled
    /// code for each expression finds it by index, with no string work. `index`
    /// is asked once per expression at each place; every error it returns is
    /// collected, and with any, no index is kept.
    pub fn resolve<E>(
        &mut self,
        mut index: impl FnMut(&Expression) -> Result<u32, E>,
    ) -> Result<(), Vec<E>> {
        let mut errors = Vec::new();
        let mut sites = core::mem::take(&mut self.sites);
        for (p, place_sites) in sites.iter_mut().enumerate() {
            let place = &self.places[p];
            let tree = &self.trees[place.tree];
            let node = &tree.nodes[place.node];
            for site in place_sites.iter_mut() {
                let bound = &self.binders[site.bound.clone()];
                let expression = Expression {
                    used: site.used,
                    text: &site.text,
                    pattern: &site.pattern,
                    at: At {
                        tree: &tree.name,
                        node: place.node,
                        place: p,
                        roles: &[],
                        index: None,
                        bound,
                    },
                    line: node.line as usize,
                    scope: bound
                        .iter()
                        .map(|&b| self.places[b].binds.as_str())
                        .collect(),
                    embedded: self.embedded(place.instance),
                };
                match index(&expression) {
                    Ok(i) => site.index = Some(i),
                    Err(e) => errors.push(e),
                }
            }
        }
        if !errors.is_empty() {
            for site in sites.iter_mut().flat_map(Sites::iter_mut) {
                site.index = None;
            }
        }
        self.sites = sites;
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
    /// Appends node `node` of tree `tree` and everything below it, in
    /// pre-order; returns its place.
    fn lay_out(
        &mut self,
        program: &Program,
        tree: usize,
        node: usize,
        instance: usize,
        rendezvous: Option<usize>,
        outer: &[usize],
    ) -> usize {
        let place = self.places.len();
        let n = &program.trees[tree].ir.nodes[node];
        let child_nodes: Vec<&ir::Node> = (n.children.iter())
            .map(|&c| &program.trees[tree].ir.nodes[c])
            .collect();
        let mut sites = Sites::of(n, &child_nodes);
        // What this node binds: a `when let` for itself (its clauses after
        // it and the node), a `for_each` item for its child.
        let when_let = (n.guard.iter())
            .flat_map(|g| g.clauses.iter().enumerate())
            .find_map(|(i, c)| match &c.kind {
                ClauseKind::WhenLet { pat, ty, .. } => {
                    Some((i, format!("{}: {}", text(pat), text(ty))))
                }
                _ => None,
            });
        let item = match &n.kind {
            Kind::ForEach { item, .. } => Some(format!("{}: {}", item.name, text(&item.ty))),
            _ => None,
        };
        let mut own = outer.to_vec();
        if when_let.is_some() {
            own.push(place);
        }
        let start = self.binders.len();
        self.binders.extend(&own);
        let bound = start..self.binders.len();
        for site in sites.iter_mut() {
            site.bound = bound.clone();
        }
        if let Some((w, _)) = &when_let {
            // A `when let`'s value is in scope for the clauses after it.
            for site in sites.clauses.iter_mut().take(w + 1) {
                site.bound = bound.start..bound.end - 1;
            }
        }
        let inner_scope = {
            let mut scope = own;
            if item.is_some() {
                scope.push(place);
            }
            scope
        };
        let binds = when_let.map(|(_, b)| b).or(item).unwrap_or_default();
        let (inner, role) = if let Kind::Rendezvous { role, .. } = &n.kind {
            (Some(place), role.to_string())
        } else {
            (rendezvous, String::new())
        };
        let sub = n.kind.subtree().map(|path| {
            let name = embedded(path);
            (program.trees.iter())
                .position(|t| t.name == name)
                .expect("parse refuses a subtree of another program")
        });
        let ids = n.children.clone();
        self.sites.push(sites);
        let step = self.trees[tree].nodes[node].step;
        self.places.push(Place {
            tree,
            node,
            step,
            children: 0..0,
            instance,
            rendezvous,
            role,
            bound,
            binds,
        });
        // An embedded tree's expressions see none of the bindings around it.
        let children: Vec<usize> = if let Some(sub) = sub {
            self.instances += 1;
            let embeds = match &n.kind {
                Kind::Subtree { path, args, .. } => {
                    let args: Vec<String> = args.iter().map(text).collect();
                    format!("{} ({})", text(path), args.join(" , "))
                }
                _ => String::new(),
            };
            self.embedding.push(Some((instance, embeds)));
            vec![self.lay_out(program, sub, 0, self.instances - 1, None, &[])]
        } else {
            ids.iter()
                .map(|&c| self.lay_out(program, tree, c, instance, inner, &inner_scope))
                .collect()
        };
        let start = self.kids.len();
        self.kids.extend(children);
        self.places[place].children = start..self.kids.len();
        place
    }

    /// The places of the children of place `p`.
    fn children_of(&self, p: usize) -> &[usize] {
        &self.kids[self.places[p].children.clone()]
    }

    /// The names of the trees laid out: the tree it runs, then each tree it
    /// embeds, once each.
    pub fn trees_laid_out(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for place in &self.places {
            let name = self.trees[place.tree].name.as_str();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// The `subtree` nodes that embed tree instance `instance`, outermost
    /// first.
    fn embedded(&self, mut instance: usize) -> Vec<&str> {
        let mut chain = Vec::new();
        while let Some((outer, text)) = &self.embedding[instance] {
            chain.push(text.as_str());
            instance = *outer;
        }
        chain.reverse();
        chain
    }

    /// The places of the `subtree` nodes that embed place `p`'s tree
    /// instance, outermost first.
    pub fn embedding_places(&self, p: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut at = p;
        while let Some(parent) = self.parent[at] {
            if self.places[parent].instance != self.places[at].instance {
                chain.push(parent);
            }
            at = parent;
        }
        chain.reverse();
        chain
    }

    /// The tree and node id at place `p`.
    pub fn node_at(&self, p: usize) -> (&str, usize) {
        let place = &self.places[p];
        (&self.trees[place.tree].name, place.node)
    }

    /// The name of the tree this interpreter runs.
    pub fn name(&self) -> &str {
        &self.trees[self.places[0].tree].name
    }

    /// How many places the laid-out tree has: its nodes, with every
    /// embedded tree's nodes at each place it is embedded. [`At::place`] is
    /// below this.
    pub fn places(&self) -> usize {
        self.places.len()
    }

    /// A new agent: nothing running, nothing remembered.
    pub fn agent(&self) -> Agent {
        Agent {
            slots: vec![Slot::default(); self.places.len()],
            armed: vec![0; self.instances],
        }
    }

    /// Fresh shared state, for every agent that runs this tree.
    pub fn shared(&self) -> Shared {
        let mut nodes = Vec::with_capacity(self.shared_len);
        for tree in &self.trees {
            for node in &tree.nodes {
                nodes.push(std::sync::Arc::new(match node.shared {
                    Some(kinds::Shared::Gate) => SharedNode::Gate(Gate::new()),
                    Some(kinds::Shared::Cooldown) => SharedNode::Cooldown(GlobalCooldown::new()),
                    Some(kinds::Shared::Rendezvous) => SharedNode::Rendezvous(Rendezvous::new()),
                    None => SharedNode::None,
                }));
            }
        }
        Shared { nodes }
    }

    /// Ticks one agent once from the root and returns the root's status.
    pub fn tick(
        &self,
        agent: &mut Agent,
        shared: &Shared,
        host: &mut impl Host,
        input: Input,
    ) -> Status {
        match self.try_tick(agent, shared, host, input) {
            Ok(status) => status,
            Err(limit) => limit.status,
        }
    }

    /// Like [`Interpreter::tick`], and reports a decider group of the
    /// ticked tree that went past its `redecides` bound.
    pub fn try_tick(
        &self,
        agent: &mut Agent,
        shared: &Shared,
        host: &mut impl Host,
        input: Input,
    ) -> Result<Status, RedecideLimit> {
        let hooks = host.hooks();
        let mut run = Run {
            layout: self,
            agent,
            shared,
            host,
            input,
            roles: Vec::with_capacity(self.nesting),
            limit: None,
            hooks,
        };
        let status = run.instance(0);
        match run.limit {
            Some(node) => Err(RedecideLimit { node, status }),
            None => Ok(status),
        }
    }

    /// Halts whatever runs, deepest first, and forgets everything the agent
    /// remembers (the compiled tree's `reset`).
    pub fn reset(&self, agent: &mut Agent, shared: &Shared, host: &mut impl Host) {
        let mut run = Run {
            layout: self,
            agent,
            shared,
            host,
            input: Input::default(),
            roles: Vec::with_capacity(self.nesting),
            limit: None,
            hooks: false,
        };
        run.halt(0);
        for slot in &mut run.agent.slots {
            *slot = Slot::default();
        }
        run.agent.armed.iter_mut().for_each(|a| *a = 0);
        run.trace(0, 6, Event::Reset);
    }

    /// The places that hold state for `agent`, in pre-order: the active
    /// path (every node that is entered or has a running child).
    pub fn active_places(&self, agent: &Agent) -> Vec<(usize, usize)> {
        (self.active(agent))
            .map(|p| (self.places[p].tree, self.places[p].node))
            .collect()
    }

    /// The places of the active path, as [`active_places`](Self::active_places).
    pub fn active<'a>(&'a self, agent: &'a Agent) -> impl Iterator<Item = usize> + 'a {
        (0..self.places.len()).filter(|&p| {
            let s = &agent.slots[p];
            s.active || s.child.is_some() || s.start != 0 || s.started.is_some() || s.arrived
        })
    }

    /// The depth of place `p`: 0 for the root, counting the nodes of
    /// enclosing trees for a node of an embedded tree.
    pub fn depth_of(&self, p: usize) -> usize {
        let mut depth = 0;
        let mut at = p;
        while let Some(parent) = self.parent[at] {
            depth += 1;
            at = parent;
        }
        depth
    }
}

/// One tick (or reset) of one agent.
struct Run<'r, H> {
    layout: &'r Interpreter,
    agent: &'r mut Agent,
    shared: &'r Shared,
    host: &'r mut H,
    input: Input,
    roles: Vec<(&'r str, usize)>,
    /// The first decider of the root tree past its bound in this tick.
    limit: Option<usize>,
    /// This tick calls the node hooks.
    hooks: bool,
}

impl<'r, H: Host> Run<'r, H> {
    #[inline]
    fn node(&self, p: usize) -> &'r Node {
        let place = &self.layout.places[p];
        &self.layout.trees[place.tree].nodes[place.node]
    }

    #[inline]
    fn child(&self, p: usize, i: usize) -> usize {
        self.layout.kids[self.layout.places[p].children.start + i]
    }

    #[inline]
    fn children(&self, p: usize) -> usize {
        self.layout.places[p].children.len()
    }

    #[inline]
    fn slot(&mut self, p: usize) -> &mut Slot {
        &mut self.agent.slots[p]
    }

    fn with_at<R>(&mut self, p: usize, f: impl FnOnce(&mut H, &At) -> R) -> R {
        self.at_site(p, None, f)
    }

    /// Calls `f` with the host and where expression `site` of place `p`
    /// is evaluated.
    fn at_site<R>(&mut self, p: usize, site: Option<&Site>, f: impl FnOnce(&mut H, &At) -> R) -> R {
        let place = &self.layout.places[p];
        let at = At {
            tree: &self.layout.trees[place.tree].name,
            node: place.node,
            place: p,
            roles: &self.roles,
            index: site.and_then(|s| s.index),
            bound: &self.layout.binders[site.map_or(&place.bound, |s| &s.bound).clone()],
        };
        f(self.host, &at)
    }

    /// Expression `which` of place `p`.
    fn site(&self, p: usize, which: Which) -> &'r Site {
        let sites = &self.layout.sites[p];
        match which {
            Which::Main => &sites.main,
            Which::Hook(i) => &sites.hooks[i],
            Which::Clause(i) => &sites.clauses[i],
        }
    }

    /// Asks the host about expression `which` of place `p`: `f` gets its
    /// text.
    fn ask<R>(&mut self, p: usize, which: Which, f: impl FnOnce(&mut H, &At, &str) -> R) -> R {
        let site = self.site(p, which);
        self.at_site(p, Some(site), |h, at| f(h, at, &site.text))
    }

    fn shared_node(&self, p: usize) -> &SharedNode {
        let place = &self.layout.places[p];
        &self.shared.nodes[self.layout.offsets[place.tree] + place.node]
    }

    /// Whether the gate or global cooldown of `refusal`, in the tree of
    /// place `p`, would refuse an agent now.
    fn refuses(&self, p: usize, refusal: &ir::Refusal) -> bool {
        let place = &self.layout.places[p];
        let q = self.layout.places.iter().position(|other| {
            other.tree == place.tree
                && other.instance == place.instance
                && other.node == refusal.node
        });
        let Some(q) = q else { return false };
        if let Step::Latch(Latch::Gate(n)) = self.node(q).step {
            self.gate(q).inside() >= n
        } else {
            !self.cooldown(q).is_ready(self.input.now)
        }
    }

    fn gate(&self, p: usize) -> &Gate {
        match self.shared_node(p) {
            SharedNode::Gate(g) => g,
            _ => unreachable!("a gate's shared node"),
        }
    }

    fn rendezvous(&self, p: usize) -> &Rendezvous {
        match self.shared_node(p) {
            SharedNode::Rendezvous(r) => r,
            _ => unreachable!("a rendezvous' shared node"),
        }
    }

    fn cooldown(&self, p: usize) -> &GlobalCooldown {
        match self.shared_node(p) {
            SharedNode::Cooldown(c) => c,
            _ => unreachable!("a global cooldown's shared node"),
        }
    }

    fn condition(&mut self, p: usize, which: Which) -> bool {
        self.ask(p, which, |h, at, e| h.condition(at, e))
    }

    /// Sends `event` at `level`, in the node at place `p`, if wanted.
    #[inline(always)]
    fn trace(&mut self, p: usize, level: u8, event: Event) {
        if self.host.trace_level() >= level {
            self.send(p, level, event);
        }
    }

    #[inline(never)]
    fn send(&mut self, p: usize, level: u8, event: Event) {
        self.with_at(p, |h, at| h.trace(at, level, event));
    }

    /// A child's node id in its tree: what events name.
    fn id(&self, p: usize, i: usize) -> usize {
        self.layout.places[self.child(p, i)].node
    }

    fn seconds(&mut self, p: usize, which: Which) -> f64 {
        match self.site(p, which).number {
            Some(seconds) => seconds,
            None => self.ask(p, which, |h, at, e| h.seconds(at, e)),
        }
    }

    /// Hook `i` of place `p` (see [`Sites::hooks`]).
    fn hook(&mut self, p: usize, i: usize) -> bool {
        self.ask(p, Which::Hook(i), |h, at, e| h.hook(at, e))
    }

    /// A tree instance (the root, or an embedded subtree) at place `p`:
    /// armed monitors first, then the tree from its root.
    fn instance(&mut self, p: usize) -> Status {
        let instance = self.layout.places[p].instance;
        if self.agent.armed[instance] != 0 {
            let monitors: &'r [usize] = &self.layout.monitors[instance];
            let mut fired = None;
            for &m in monitors {
                let Step::Monitor { index, .. } = &self.node(m).step else {
                    unreachable!()
                };
                if self.agent.armed[instance] & (1 << index) != 0 && self.condition(m, Which::Main)
                {
                    fired = Some(m);
                    break;
                }
            }
            if let Some(m) = fired {
                let monitor = self.layout.places[m].node;
                self.trace(p, 1, Event::MonitorFired { monitor });
                self.halt(p);
                self.agent.armed[instance] = 0;
            }
        }
        self.trace(p, 3, Event::TickStart);
        let status = self.tick(p);
        if status.is_done() {
            self.agent.armed[instance] = 0;
        }
        self.trace(p, 3, Event::TickEnd(status));
        status
    }

    /// Ticks the node at place `p` and reports the status it returned
    /// (level 6).
    fn tick(&mut self, p: usize) -> Status {
        let status = if self.hooks {
            self.hooked(p)
        } else {
            self.tick_node(p)
        };
        self.trace(p, 6, Event::Returned(status));
        status
    }

    /// The node at place `p` with its hook points (see the compiled
    /// `hooked`): a hook may replace it or change its status; a node left
    /// finished is halted, a node left running is held. A hook's `Running`
    /// for a node that cannot run is ignored.
    #[inline(never)]
    fn hooked(&mut self, p: usize) -> Status {
        let can_run = self.node(p).can_run;
        let taken = |s: &Status| can_run || !s.is_running();
        if let Some(status) = self.with_at(p, |h, at| h.before(at)).filter(taken) {
            self.left(p, status);
            return status;
        }
        let returned = self.tick_node(p);
        let status = self.with_at(p, |h, at| h.after(at, returned));
        if status != returned && taken(&status) {
            self.left(p, status);
            return status;
        }
        returned
    }

    /// A hook left the node at place `p` with `status`: halted if it is
    /// finished, held if it runs.
    fn left(&mut self, p: usize, status: Status) {
        if status.is_running() {
            self.hold(p);
        } else {
            self.halt(p);
        }
    }

    /// Leaves the node at place `p` running: as it is if it runs, else as
    /// entered with a fresh state. A stateful leaf counts as started (its
    /// memory new, its `start` not called). A node that is its leaf's
    /// memory ([`Shape::LeafOf`](ir::Shape::LeafOf)) runs exactly when that
    /// leaf does: the nodes down to the leaf hold the child leading to it,
    /// and the leaf counts as started.
    #[inline(never)]
    fn hold(&mut self, p: usize) {
        let leaf = match (self.node(p).step, self.node(p).leaf_of) {
            (Step::Leaf, _) => p,
            (_, Some(leaf)) => {
                let tree = &self.layout.trees[self.layout.places[p].tree];
                // The leaf's ancestors up to this node, outermost last.
                let mut path = vec![leaf];
                while let Some(parent) = tree.nodes[*path.last().expect("not empty")].parent
                    && parent != self.layout.places[p].node
                {
                    path.push(parent);
                }
                let mut q = p;
                for &id in path.iter().rev() {
                    let i = (0..self.children(q))
                        .find(|&i| self.layout.places[self.child(q, i)].node == id)
                        .expect("the path leads through the children");
                    // A sequence or select remembers the child it runs;
                    // a decorator over the leaf, nothing.
                    if self.node(q).holds_running_child && self.slot(q).child.is_none() {
                        self.slot(q).child = Some(i);
                    }
                    q = self.child(q, i);
                }
                q
            }
            _ => return,
        };
        self.slot(leaf).active = true;
    }

    fn tick_node(&mut self, p: usize) -> Status {
        use Status::{Failure, Running, Success};
        match self.layout.places[p].step {
            Step::Cond => Status::from(self.condition(p, Which::Main)),
            Step::Action => self.ask(p, Which::Main, |h, at, e| h.action(at, e)),
            Step::Instant => self.ask(p, Which::Main, |h, at, e| h.instant(at, e).status()),
            Step::Constant(s) => s,
            Step::Leaf => {
                let status = if self.slot(p).active {
                    self.ask(p, Which::Main, |h, at, leaf| h.tick(at, leaf))
                } else {
                    self.ask(p, Which::Main, |h, at, leaf| h.start(at, leaf))
                };
                self.slot(p).active = status.is_running();
                status
            }
            Step::Subtree => {
                let root = self.child(p, 0);
                self.trace(p, 6, Event::EnterSubtree);
                let status = self.instance(root);
                self.slot(p).active = status.is_running();
                status
            }
            Step::Sequence => self.one_of(p, Plain::Resume, Success),
            Step::SequenceWithMemory => self.one_of(p, Plain::Memory, Success),
            Step::Select => self.one_of(p, Plain::Resume, Failure),
            Step::AsyncSequence => self.one_of(p, Plain::Async, Success),
            Step::AsyncSelect => self.one_of(p, Plain::Async, Failure),
            Step::TryCatch => self.try_catch(p),
            Step::ReactiveSequence => self.reactive(p, Success, Failure),
            Step::ReactiveSelect => self.reactive(p, Failure, Success),
            Step::IfThenElse => self.if_then_else(p),
            Step::WhileDoElse => self.while_do_else(p),
            Step::Parallel { success, failure } => self.parallel(p, Some((success, failure)), 0),
            Step::ParallelAll { max_failures } => self.parallel(p, None, max_failures),
            Step::Invert => self.tick(self.child(p, 0)).invert(),
            Step::ForceSuccess => match self.tick(self.child(p, 0)) {
                Running => Running,
                _ => Success,
            },
            Step::ForceFailure => match self.tick(self.child(p, 0)) {
                Running => Running,
                _ => Failure,
            },
            Step::KeepRunningUntilFailure => match self.tick(self.child(p, 0)) {
                Failure => Failure,
                _ => Running,
            },
            Step::Repeat(Some(n)) => self.repeat(p, n, Success),
            Step::Retry(Some(n)) => self.repeat(p, n, Failure),
            Step::ForEach { then } => {
                if self.slot(p).child.is_none() {
                    if !self.ask(p, Which::Main, |h, at, e| h.item(at, e)) {
                        self.slot(p).active = then == Running;
                        return then;
                    }
                    let slot = self.slot(p);
                    slot.child = Some(0);
                    slot.active = true;
                }
                match self.tick(self.child(p, 0)) {
                    Running => Running,
                    Success => {
                        self.slot(p).child = None;
                        Running
                    }
                    Failure => {
                        let slot = self.slot(p);
                        slot.child = None;
                        slot.active = false;
                        Failure
                    }
                }
            }
            Step::Repeat(None) => self.forever(p, Success),
            Step::Retry(None) => self.forever(p, Failure),
            Step::Decider { policy, redecides } => self.decider(p, policy, redecides),
            Step::Wait => {
                let now = self.input.now;
                let start = *self.slot(p).started.get_or_insert(now);
                let d = self.seconds(p, Which::Main);
                if now - start >= d {
                    self.slot(p).started = None;
                    Success
                } else {
                    Running
                }
            }
            Step::Cooldown => {
                if self.input.now < self.slot(p).keep.ready {
                    return Failure;
                }
                let status = self.tick(self.child(p, 0));
                if status.is_done() {
                    let d = self.seconds(p, Which::Main);
                    self.slot(p).keep.ready = self.input.now + d;
                }
                status
            }
            Step::RunOnce { skip } => {
                if let Some(done) = self.slot(p).keep.once {
                    return skip.unwrap_or(done);
                }
                let status = self.tick(self.child(p, 0));
                if status.is_done() {
                    self.slot(p).keep.once = Some(status);
                }
                status
            }
            Step::Latch(latch) => self.latch(p, latch),
            Step::Rendezvous { n } => self.meet(p, n),
            Step::Sync => self.sync(p),
            Step::Monitor { index, .. } => {
                let instance = self.layout.places[p].instance;
                if self.condition(p, Which::Main) {
                    self.agent.armed[instance] &= !(1 << index);
                    Success
                } else {
                    self.agent.armed[instance] |= 1 << index;
                    Failure
                }
            }
            Step::Switch => {
                let arms: &'r [String] = &self.layout.sites[p].arms;
                let k = self.ask(p, Which::Main, |h, at, e| h.arm(at, e, arms));
                if self.slot(p).child.is_some_and(|c| c != k) {
                    self.halt(p);
                }
                let status = self.tick(self.child(p, k));
                self.slot(p).child = status.is_running().then_some(k);
                status
            }
        }
    }

    /// `sequence`, `select` (resume at the running child) and
    /// `sequence_with_memory` (resume where it stopped, also after a
    /// failure or a halt).
    #[inline(never)]
    fn one_of(&mut self, p: usize, form: Plain, next: Status) -> Status {
        let n = self.children(p);
        self.in_order(p, form, next, n)
    }

    /// [`one_of`](Self::one_of) over the first `n` children.
    #[inline(never)]
    fn in_order(&mut self, p: usize, form: Plain, next: Status, n: usize) -> Status {
        let resumed = self.slot(p).child;
        let first = match form {
            Plain::Resume => resumed.unwrap_or(0),
            Plain::Async => resumed.unwrap_or(self.slot(p).start),
            Plain::Memory => self.slot(p).keep.next,
        };
        self.slot(p).start = 0;
        for i in first..n {
            let status = self.tick(self.child(p, i));
            if status == next {
                // An async form yields after a child that finished in the
                // tick it started, unless it was the last.
                if form == Plain::Async && resumed != Some(i) && i + 1 < n {
                    let slot = self.slot(p);
                    slot.child = None;
                    slot.start = i + 1;
                    return Status::Running;
                }
                continue;
            }
            if form == Plain::Memory {
                self.slot(p).keep.next = i;
            }
            self.slot(p).child = status.is_running().then_some(i);
            return status;
        }
        self.slot(p).child = None;
        if form == Plain::Memory {
            self.slot(p).keep.next = 0;
        }
        next
    }

    /// `try_catch`: the children but the last as a `sequence`; when one
    /// fails, the last (the catch) runs in the same tick, and the node
    /// fails once it finished. While the catch runs, it alone is ticked.
    #[inline(never)]
    fn try_catch(&mut self, p: usize) -> Status {
        let catch = self.children(p) - 1;
        if self.slot(p).child != Some(catch) {
            let status = self.in_order(p, Plain::Resume, Status::Success, catch);
            if status != Status::Failure {
                return status;
            }
        }
        let status = self.tick(self.child(p, catch));
        self.slot(p).child = status.is_running().then_some(catch);
        if status.is_running() {
            status
        } else {
            Status::Failure
        }
    }

    /// `reactive_sequence`, `reactive_select`: from the first child every
    /// tick; a child that stops or runs halts the remembered later one.
    #[inline(never)]
    fn reactive(&mut self, p: usize, next: Status, stop: Status) -> Status {
        for i in 0..self.children(p) {
            let status = self.tick(self.child(p, i));
            if status == next {
                continue;
            }
            if status == stop || self.slot(p).child != Some(i) {
                self.halt(p);
            }
            self.slot(p).child = status.is_running().then_some(i);
            return status;
        }
        self.slot(p).child = None;
        next
    }

    #[inline(never)]
    fn if_then_else(&mut self, p: usize) -> Status {
        let pick = match self.slot(p).child {
            Some(b @ (1 | 2)) => b,
            _ => match self.tick(self.child(p, 0)) {
                Status::Running => {
                    self.slot(p).child = Some(0);
                    return Status::Running;
                }
                Status::Success => 1,
                Status::Failure if self.children(p) == 3 => 2,
                Status::Failure => {
                    self.slot(p).child = None;
                    return Status::Failure;
                }
            },
        };
        let status = self.tick(self.child(p, pick));
        self.slot(p).child = status.is_running().then_some(pick);
        status
    }

    #[inline(never)]
    fn while_do_else(&mut self, p: usize) -> Status {
        let status = self.tick(self.child(p, 0));
        let pick = match status {
            Status::Running => {
                if self.slot(p).child != Some(0) {
                    self.halt(p);
                    self.slot(p).child = Some(0);
                }
                return Status::Running;
            }
            Status::Success => 1,
            Status::Failure if self.children(p) == 3 => 2,
            Status::Failure => {
                self.halt(p);
                return Status::Failure;
            }
        };
        if self.slot(p).child != Some(pick) {
            self.halt(p);
        }
        let status = self.tick(self.child(p, pick));
        self.slot(p).child = status.is_running().then_some(pick);
        status
    }

    /// `parallel` (`thresholds`: success and effective failure counts) and
    /// `parallel_all` (finishes when every child finished).
    #[inline(never)]
    fn parallel(&mut self, p: usize, thresholds: Option<(u32, u32)>, max_failures: u32) -> Status {
        let n = self.children(p);
        for i in 0..n {
            let bit = 1u128 << i;
            let slot = self.slot(p);
            if (slot.succeeded | slot.failed) & bit != 0 {
                continue;
            }
            let status = self.tick(self.child(p, i));
            let slot = self.slot(p);
            match status {
                Status::Success => slot.succeeded |= bit,
                Status::Failure => slot.failed |= bit,
                Status::Running => continue,
            }
            if let Some((success, failure)) = thresholds {
                let (succeeded, failed) = (slot.succeeded.count_ones(), slot.failed.count_ones());
                if succeeded >= success || failed >= failure {
                    self.halt(p);
                    return Status::from(succeeded >= success);
                }
            }
        }
        let slot = self.slot(p);
        let all = u128::MAX >> (128 - n);
        if (slot.succeeded | slot.failed) != all {
            return Status::Running;
        }
        let verdict = match thresholds {
            Some((success, _)) => slot.succeeded.count_ones() >= success,
            None => slot.failed.count_ones() < max_failures,
        };
        self.halt(p);
        Status::from(verdict)
    }

    /// `repeat(n)` (`again`: Success) and `retry(n)` (`again`: Failure).
    #[inline(never)]
    fn repeat(&mut self, p: usize, n: u32, again: Status) -> Status {
        loop {
            let status = self.tick(self.child(p, 0));
            if status.is_running() {
                return status;
            }
            if status == again {
                self.slot(p).count += 1;
                if self.slot(p).count < n {
                    continue;
                }
            }
            self.slot(p).count = 0;
            return status;
        }
    }

    /// `repeat(forever)`, `retry(forever)`: a run that started in this tick
    /// and ends the way that goes on ends the tick with `Running`.
    #[inline(never)]
    fn forever(&mut self, p: usize, again: Status) -> Status {
        let mut fresh = !self.slot(p).running;
        self.slot(p).active = true;
        loop {
            let status = self.tick(self.child(p, 0));
            if status.is_running() {
                self.slot(p).running = true;
                return status;
            }
            self.slot(p).running = false;
            if status != again {
                self.slot(p).active = false;
                return status;
            }
            if fresh {
                return Status::Running;
            }
            fresh = true;
        }
    }

    /// Latched decorators: enter once (or refuse), check what may stop
    /// the node, hold, run the child, leave when it finishes.
    #[inline(never)]
    fn latch(&mut self, p: usize, latch: Latch) -> Status {
        let node = self.node(p);
        let now = self.input.now;
        let refuse = match latch {
            Latch::Precondition { then, .. } => then,
            Latch::RunWhile { skip, .. } => skip,
            Latch::Scope { .. }
            | Latch::Timeout
            | Latch::Delay
            | Latch::Every
            | Latch::After { .. }
            | Latch::Gate(_)
            | Latch::GlobalCooldown => Status::Failure,
        };
        if !self.slot(p).active {
            let enter = match latch {
                Latch::Scope { enter: true, .. } => self.hook(p, 0),
                Latch::Precondition { when, .. } => self.condition(p, Which::Main) != when,
                Latch::Gate(n) => rt::gate_enter(self.gate(p), n),
                Latch::GlobalCooldown => self.cooldown(p).is_ready(now),
                Latch::Every => now >= self.slot(p).keep.period,
                Latch::Scope { enter: false, .. }
                | Latch::Timeout
                | Latch::Delay
                | Latch::After { .. }
                | Latch::RunWhile { .. } => true,
            };
            if !enter {
                return refuse;
            }
            let slot = self.slot(p);
            slot.active = true;
            slot.since = now;
            if let Latch::Every = latch {
                let d = self.seconds(p, Which::Main);
                self.slot(p).keep.period = now + d;
            }
        }
        let stop = match latch {
            Latch::Scope { tick: true, .. } => !self.hook(p, 1),
            Latch::Timeout if node.has_state => {
                let d = self.seconds(p, Which::Main);
                d > 0.0 && now - self.slot(p).since >= d
            }
            Latch::RunWhile { .. } => !self.condition(p, Which::Main),
            Latch::Scope { tick: false, .. }
            | Latch::Timeout
            | Latch::Delay
            | Latch::Every
            | Latch::After { .. }
            | Latch::Precondition { .. }
            | Latch::Gate(_)
            | Latch::GlobalCooldown => false,
        };
        if stop {
            self.halt(p);
            return refuse;
        }
        if let Latch::Delay = latch
            && !self.slot(p).passed
        {
            let d = self.seconds(p, Which::Main);
            if now - self.slot(p).since < d {
                return Status::Running;
            }
            self.slot(p).passed = true;
        }
        let status = self.tick(self.child(p, 0));
        if status.is_done() {
            self.slot(p).active = false;
            self.release(p, latch, false);
            match latch {
                Latch::Delay => self.slot(p).passed = false,
                Latch::GlobalCooldown => {
                    let d = self.seconds(p, Which::Main);
                    rt::cooldown_start(self.cooldown(p), now, d);
                }
                Latch::After {
                    success,
                    failure,
                    finished,
                    ..
                } => {
                    let by_status = if status.is_success() {
                        success.then_some(0)
                    } else {
                        failure.then_some(1)
                    };
                    for hook in [by_status, finished.then_some(2)].into_iter().flatten() {
                        self.hook(p, hook);
                    }
                }
                Latch::Scope { .. }
                | Latch::Timeout
                | Latch::Every
                | Latch::Precondition { .. }
                | Latch::RunWhile { .. }
                | Latch::Gate(_) => {}
            }
        }
        status
    }

    /// Gives back what entering a latch took; `halted`: the node is being
    /// halted (an `after`'s `halted` hook runs only then).
    fn release(&mut self, p: usize, latch: Latch, halted: bool) {
        match latch {
            Latch::Gate(_) => rt::gate_leave(self.gate(p)),
            Latch::Scope { exit: true, .. } => {
                self.hook(p, 2);
            }
            Latch::After { halted: true, .. } if halted => {
                self.hook(p, 3);
            }
            Latch::Scope { exit: false, .. }
            | Latch::After { .. }
            | Latch::Timeout
            | Latch::Delay
            | Latch::Every
            | Latch::Precondition { .. }
            | Latch::RunWhile { .. }
            | Latch::GlobalCooldown => {}
        }
    }

    /// `rendezvous(n) as role`: join, wait for the group, run the child.
    #[inline(never)]
    fn meet(&mut self, p: usize, n: u32) -> Status {
        if self.slot(p).member.phase == rt::Phase::Idle {
            match rt::rendezvous_join(self.rendezvous(p), n) {
                Some((generation, assigned)) => {
                    let member = &mut self.slot(p).member;
                    member.phase = rt::Phase::Waiting;
                    member.generation = generation;
                    member.role = assigned as u8;
                    member.syncs = 0;
                }
                None => return Status::Failure,
            }
        }
        if self.slot(p).member.phase == rt::Phase::Waiting {
            let generation = self.slot(p).member.generation;
            match rt::rendezvous_poll(self.rendezvous(p), generation, n) {
                rt::Meeting::Waiting => return Status::Running,
                rt::Meeting::Dissolved => {
                    self.slot(p).member = rt::Member::default();
                    return Status::Failure;
                }
                rt::Meeting::Complete => self.slot(p).member.phase = rt::Phase::Meeting,
            }
        }
        let assigned = usize::from(self.slot(p).member.role);
        let role: &'r str = &self.layout.places[p].role;
        self.roles.push((role, assigned));
        let status = self.tick(self.child(p, 0));
        self.roles.pop();
        if status.is_done() {
            self.leave(p, n);
        }
        status
    }

    /// `sync`: arrive once, then wait for every member.
    #[inline(never)]
    fn sync(&mut self, p: usize) -> Status {
        let r = self.layout.places[p]
            .rendezvous
            .expect("check puts every sync inside a rendezvous");
        let Step::Rendezvous { n } = self.node(r).step else {
            unreachable!("a sync's rendezvous")
        };
        let generation = self.agent.slots[r].member.generation;
        if !self.slot(p).arrived {
            rt::rendezvous_arrive(self.rendezvous(r), generation);
            self.slot(p).arrived = true;
        }
        let syncs = u32::from(self.agent.slots[r].member.syncs);
        match rt::rendezvous_sync(self.rendezvous(r), generation, n, syncs) {
            rt::Sync::Passed => {
                self.slot(p).arrived = false;
                self.agent.slots[r].member.syncs += 1;
                Status::Success
            }
            rt::Sync::Waiting => Status::Running,
            rt::Sync::Broken => {
                self.slot(p).arrived = false;
                Status::Failure
            }
        }
    }

    /// A decider group: guards, hysteresis, interrupts, masked redecides
    /// (see `generate/decide.rs`). Each turn of the loop decides once and
    /// runs the active child; a failed child is masked for the next turn.
    #[inline(never)]
    fn decider(&mut self, p: usize, policy: Policy, redecides: Option<u32>) -> Status {
        let n = self.children(p);
        let mut mask: u128 = 0;
        let mut count = 0u32;
        loop {
            let active = self.slot(p).child;
            let mut fresh = false;
            let chosen = match (policy, active) {
                (Policy::Prioritized, _) => {
                    (0..active.unwrap_or(n)).find(|&k| self.guard(p, k, mask).is_some())
                }
                (_, Some(_)) => None,
                (Policy::Sequential, None) => {
                    let start = self.slot(p).keep.next;
                    (0..n)
                        .map(|j| (start + j) % n)
                        .find(|&k| self.guard(p, k, mask).is_some())
                }
                (_, None) => {
                    let (mut accepted, mut best, mut best_score) = (0u128, n, 0.0f32);
                    for k in 0..n {
                        if let Some(score) = self.guard(p, k, mask) {
                            accepted |= 1 << k;
                            if score > best_score {
                                best = k;
                                best_score = score;
                            }
                        }
                    }
                    let pick = match policy {
                        Policy::Random => {
                            self.ask(p, Which::Main, |h, at, rng| h.pick(at, rng, accepted))
                        }
                        Policy::Shuffle => {
                            let mut round = accepted & !self.slot(p).keep.used;
                            if round == 0 {
                                self.slot(p).keep.used = 0;
                                round = accepted;
                            }
                            self.ask(p, Which::Main, |h, at, rng| h.pick(at, rng, round))
                        }
                        _ => Some(best),
                    };
                    pick.filter(|&k| k < n)
                }
            };
            if let Some(k) = chosen {
                // A lower-priority active child is interrupted.
                if let Some(i) = active {
                    let (child, by) = (self.id(p, i), self.id(p, k));
                    self.trace(p, 2, Event::Interrupt { child, by });
                    self.halt(p);
                }
                match policy {
                    Policy::Sequential => self.slot(p).keep.next = (k + 1) % n,
                    Policy::Shuffle => self.slot(p).keep.used |= 1 << k,
                    _ => {}
                }
                let child = self.id(p, k);
                self.trace(p, 1, Event::Activate { child });
                let c = self.child(p, k);
                if self.node(c).can_run {
                    let now = self.input.now;
                    let slot = self.slot(p);
                    slot.child = Some(k);
                    slot.since = now;
                    fresh = true;
                } else {
                    // A child that cannot run finishes here and now.
                    let status = self.tick(c);
                    self.trace(p, 2, Event::End { child, status });
                    if status.is_success() || !self.masked(p, &mut mask, &mut count, k, redecides) {
                        return status;
                    }
                    continue;
                }
            }
            let Some(k) = self.slot(p).child else {
                self.trace(p, 2, Event::NoneAccepted);
                return Status::Failure;
            };
            let child = self.id(p, k);
            if !fresh {
                let place = &self.layout.places[p];
                let active_for = self.layout.trees[place.tree]
                    .activation_times
                    .then(|| self.input.now - self.agent.slots[p].since);
                self.trace(p, 4, Event::Continue { child, active_for });
            }
            let status = self.tick(self.child(p, k));
            if status.is_running() {
                return status;
            }
            self.trace(p, 2, Event::End { child, status });
            self.slot(p).child = None;
            if status.is_success() || !self.masked(p, &mut mask, &mut count, k, redecides) {
                return status;
            }
        }
    }

    /// Child `k` of decider group `p` failed: masks it; whether the group
    /// decides again (false past its `redecides` bound).
    fn masked(
        &mut self,
        p: usize,
        mask: &mut u128,
        count: &mut u32,
        k: usize,
        redecides: Option<u32>,
    ) -> bool {
        *mask |= 1 << k;
        let Some(max) = redecides else {
            return true;
        };
        *count += 1;
        if *count <= max {
            return true;
        }
        self.trace(p, 1, Event::RedecideLimit);
        if self.layout.places[p].instance == 0 && self.limit.is_none() {
            self.limit = Some(self.layout.places[p].node);
        }
        false
    }

    /// Child `k`'s guard of decider group `p`: its score when every clause
    /// accepts (1.0 without a `score` clause), `None` when one rejects or
    /// the child is masked.
    fn guard(&mut self, p: usize, k: usize, mask: u128) -> Option<f32> {
        let c = self.child(p, k);
        let child = self.id(p, k);
        if mask & (1 << k) != 0 {
            let verdict = Verdict::Masked;
            self.trace(p, 5, Event::Guard { child, verdict });
            return None;
        }
        let mut score = 1.0;
        let refusals: &'r [ir::Refusal] = &self.node(c).refusals;
        for refusal in refusals {
            if self.refuses(c, refusal) {
                let verdict = Verdict::Rejected(&refusal.text);
                self.trace(p, 5, Event::Guard { child, verdict });
                return None;
            }
        }
        let clauses: &'r [Clause] = &self.node(c).guard;
        for (i, clause) in clauses.iter().enumerate() {
            let which = Which::Clause(i);
            let accepts = match &clause.test {
                Test::Room(refusal) => !self.refuses(c, refusal),
                Test::When => self.condition(c, which),
                Test::WhenLet => {
                    let pattern: &'r str = &self.site(c, which).pattern;
                    self.ask(c, which, |h, at, e| h.matches(at, e, pattern))
                }
                Test::Score => {
                    score = match self.site(c, which).number {
                        Some(number) => number as f32,
                        None => self.ask(c, which, |h, at, e| h.score(at, e)),
                    };
                    score > 0.0
                }
                Test::Every => {
                    let now = self.input.now;
                    if now < self.slot(c).keep.every {
                        false
                    } else {
                        let d = self.seconds(c, which);
                        self.slot(c).keep.every = now + d;
                        true
                    }
                }
                Test::Flags { stimuli, mode } => {
                    let have = if *stimuli {
                        self.input.stimuli
                    } else {
                        self.input.decision
                    };
                    let want = self.ask(c, which, |h, at, e| h.flags(at, e));
                    match mode {
                        FlagMode::Any => have & want != 0,
                        FlagMode::All => have & want == want,
                        FlagMode::None => have & want == 0,
                    }
                }
            };
            if !accepts {
                let verdict = Verdict::Rejected(&clause.text);
                self.trace(p, 5, Event::Guard { child, verdict });
                return None;
            }
        }
        let verdict = Verdict::Accepted(score);
        self.trace(p, 5, Event::Guard { child, verdict });
        Some(score)
    }

    /// A stateful leaf at place `p` that runs gets its `halt`.
    fn halt_leaf(&mut self, p: usize) {
        if self.slot(p).active {
            self.slot(p).active = false;
            self.trace(p, 2, Event::Halted);
            self.ask(p, Which::Main, |h, at, leaf| h.halt(at, leaf));
        }
    }

    /// The rendezvous at place `p`, for `n` members, gives back its place
    /// if it holds one.
    fn leave(&mut self, p: usize, n: u32) {
        if self.slot(p).member.phase != rt::Phase::Idle {
            let generation = self.slot(p).member.generation;
            rt::rendezvous_leave(self.rendezvous(p), generation, n);
        }
        self.slot(p).member = rt::Member::default();
    }

    /// Halts whatever runs at and below place `p`, deepest first, and gives
    /// back what entering took; what outlives activity stays.
    fn halt(&mut self, p: usize) {
        match self.node(p).step {
            Step::Leaf => self.halt_leaf(p),
            Step::Subtree => {
                let root = self.child(p, 0);
                self.halt(root);
                let instance = self.layout.places[root].instance;
                self.agent.armed[instance] = 0;
                self.slot(p).active = false;
            }
            Step::Parallel { .. } | Step::ParallelAll { .. } => {
                for i in 0..self.children(p) {
                    self.halt(self.child(p, i));
                }
                let slot = self.slot(p);
                slot.succeeded = 0;
                slot.failed = 0;
            }
            Step::Rendezvous { n } => {
                if self.slot(p).member.phase != rt::Phase::Idle {
                    self.halt(self.child(p, 0));
                }
                self.leave(p, n);
            }
            Step::Wait => self.slot(p).started = None,
            Step::Sync => self.slot(p).arrived = false,
            Step::Latch(latch) => {
                if self.slot(p).active {
                    self.halt(self.child(p, 0));
                    self.release(p, latch, true);
                }
                let slot = self.slot(p);
                slot.active = false;
                slot.passed = false;
            }
            Step::ForEach { .. } => {
                if self.slot(p).child.take().is_some() {
                    self.halt(self.child(p, 0));
                }
                self.slot(p).active = false;
            }
            Step::Repeat(_) | Step::Retry(_) => {
                self.halt(self.child(p, 0));
                let slot = self.slot(p);
                slot.count = 0;
                slot.running = false;
                slot.active = false;
            }
            Step::Invert
            | Step::ForceSuccess
            | Step::ForceFailure
            | Step::KeepRunningUntilFailure
            | Step::Cooldown
            | Step::RunOnce { .. } => self.halt(self.child(p, 0)),
            Step::Sequence
            | Step::SequenceWithMemory
            | Step::ReactiveSequence
            | Step::Select
            | Step::ReactiveSelect
            | Step::IfThenElse
            | Step::WhileDoElse
            | Step::AsyncSequence
            | Step::AsyncSelect
            | Step::TryCatch
            | Step::Switch
            | Step::Decider { .. } => {
                self.slot(p).start = 0;
                if let Some(i) = self.slot(p).child.take() {
                    self.halt(self.child(p, i));
                }
            }
            // Leaves that finish within a tick, and monitors (re-armed
            // by the instance, not by a halt), hold nothing.
            Step::Cond
            | Step::Action
            | Step::Instant
            | Step::Constant(_)
            | Step::Monitor { .. } => {}
        }
    }
}

/// A latched decorator's parts: what the steps of
/// [`Run::latch`] read. [`Latch::of`] is the one place that says which
/// kinds latch.
#[derive(Clone, Copy, Debug)]
enum Latch {
    /// Which hooks it has.
    Scope {
        enter: bool,
        tick: bool,
        exit: bool,
    },
    Timeout,
    Delay,
    Every,
    /// Which hooks it has.
    After {
        success: bool,
        failure: bool,
        finished: bool,
        halted: bool,
    },
    Precondition {
        then: Status,
        when: bool,
    },
    RunWhile {
        skip: Status,
    },
    Gate(u32),
    GlobalCooldown,
}

impl Latch {
    /// `node`'s parts if it is a latched decorator.
    fn of(kind: &Kind) -> Option<Latch> {
        Some(match kind {
            Kind::Scope { enter, tick, exit } => Latch::Scope {
                enter: enter.is_some(),
                tick: tick.is_some(),
                exit: exit.is_some(),
            },
            Kind::Timeout(_) => Latch::Timeout,
            Kind::Delay(_) => Latch::Delay,
            Kind::Every(_) => Latch::Every,
            Kind::After {
                success,
                failure,
                finished,
                halted,
            } => Latch::After {
                success: success.is_some(),
                failure: failure.is_some(),
                finished: finished.is_some(),
                halted: halted.is_some(),
            },
            Kind::Precondition { then, when, .. } => Latch::Precondition {
                then: *then,
                when: *when,
            },
            Kind::RunWhile { skip, .. } => Latch::RunWhile { skip: *skip },
            Kind::Gate(n) => Latch::Gate(number(n)),
            Kind::GlobalCooldown(_) => Latch::GlobalCooldown,
            Kind::Sequence
            | Kind::SequenceWithMemory
            | Kind::ReactiveSequence
            | Kind::Select
            | Kind::ReactiveSelect
            | Kind::AsyncSequence
            | Kind::AsyncSelect
            | Kind::TryCatch
            | Kind::IfThenElse
            | Kind::WhileDoElse
            | Kind::Parallel { .. }
            | Kind::ParallelAll { .. }
            | Kind::Invert
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::KeepRunningUntilFailure
            | Kind::Repeat(_)
            | Kind::Retry(_)
            | Kind::ForEach { .. }
            | Kind::Decider { .. }
            | Kind::Wait(_)
            | Kind::Cooldown(_)
            | Kind::RunOnce { .. }
            | Kind::Rendezvous { .. }
            | Kind::Sync { .. }
            | Kind::Request { .. }
            | Kind::Monitor { .. }
            | Kind::Switch(_)
            | Kind::Cond(_)
            | Kind::Action(_)
            | Kind::Instant(_)
            | Kind::Constant(_)
            | Kind::Leaf { .. }
            | Kind::Subtree { .. } => return None,
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Plain {
    Resume,
    /// `async_sequence`, `async_select`: `Resume`, and `Running` after a
    /// child that finished in the tick it started.
    Async,
    Memory,
}

/// A count's number. The interpreter refuses trees with named counts
/// ([`Program::parse`]), whose value only rustc knows.
fn number(count: &ir::Count) -> u32 {
    count.literal().unwrap_or(1)
}
