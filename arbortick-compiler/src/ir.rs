//! The intermediate representation: each tree as a flat node table.
//!
//! Nodes are numbered in depth-first pre-order (the root is 0, a parent's id
//! is smaller than its children's), which is also the order of the runtime
//! node table. Each node carries what code generation needs: its kind, its
//! children, and the two facts that decide the state layout, `can_run` and
//! `has_state`.

use bt_runtime::Status;
use syn::{Attribute, Expr, Ident, Pat, Path, Type, Visibility};

pub struct Tree {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<crate::ast::Param>,
    /// Where generated code finds the runtime: `::bt` unless the tree says
    /// `#[bt(crate = path)]`.
    pub krate: syn::Path,
    /// `#[bt(serde)]`, with the span of `serde`.
    pub serde: Option<proc_macro2::Span>,
    /// `#[bt(reflect)]`, with the span of `reflect`.
    pub reflect: Option<proc_macro2::Span>,
    /// `#[bt(activation_times)]` on a tree with a tick context: decider
    /// groups and scopes store when they activated.
    pub activation_times: bool,
    /// `A` of a first parameter declared `&mut A`: what stateful leaves receive.
    pub agent: Option<Type>,
    /// The tick context binding, if the tree has one.
    pub context: Option<Ident>,
    /// The shared-state binding, if the tree has one.
    pub shared: Option<Ident>,
    pub nodes: Vec<Node>,
}

pub struct Node {
    pub id: usize,
    /// The node's row of the node-kind table.
    pub row: crate::kinds::Kind,
    pub parent: Option<usize>,
    pub depth: usize,
    pub children: Vec<usize>,
    pub kind: Kind,
    /// Label without the leading quote.
    pub label: Option<String>,
    /// 1-based line and column of the node's head.
    pub line: u32,
    pub column: u32,
    /// Source text of the node's head, for metadata and comments.
    pub detail: String,
    /// The guard, for a child of a decider group.
    pub guard: Option<Guard>,
    /// For a child of a decider group: the shared nodes it enters before
    /// doing anything else, any of which refusing fails it at once (see
    /// [`Kind::entry`]). Its guard rejects it while one refuses, unless the
    /// group says `skip_blocked = false`.
    pub refusals: Vec<Refusal>,
    /// What selects an arm of a `switch` or `switch_eq`.
    pub arm: Option<crate::ast::Arm>,
    /// The node may return `Running`, so its parent must remember it.
    pub can_run: bool,
    /// The node keeps memory between ticks, stored by its parent while it
    /// runs. Implies `can_run`.
    pub has_state: bool,
    /// What that memory looks like (or, for `parallel`, `repeat` and
    /// `retry` without state, the scratch record they use within a tick).
    pub shape: Shape,
    /// What the node remembers across activations, in the tree's keep part.
    pub keep: Vec<Keep>,
}

/// The layout of a node's per-agent state, decided in lowering: code
/// generation declares, halts, tests and walks states per shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Nothing: the node finishes within a tick, or has nothing to resume.
    None,
    /// `Option<Leaf::Memory>`: a stateful leaf's memory while it runs.
    Leaf,
    /// `Leaf::Memory`: the memory of a stateful leaf held bare, with no
    /// `Option` of its own, by a sequence's or select's enum in a variant
    /// that exists only while the leaf runs, or by a parallel's record in a
    /// field with a bit in its `running` mask (the leaf is a child of the
    /// holder, or below a child that is its memory, [`Shape::LeafOf`]).
    Memory,
    /// The memory of stateful leaf `.0`, which runs exactly when this node
    /// runs: the node is an `invert`, `force_success` or `force_failure`
    /// over it, or a small sequence or select whose only child that can run
    /// leads to it. The node is held like [`Shape::Memory`] (directly, or
    /// below another such node), so that its holder's variant or running
    /// bit says by itself that all of them run: it holds the leaf's memory
    /// and nothing else.
    LeafOf(usize),
    /// The embedded tree's active part.
    Subtree,
    /// Exactly its only child's state: the node maps statuses, or keeps
    /// what it needs in the keep part.
    Child,
    /// `Option<f64>`: when a `wait` started.
    Wait,
    /// `bool`: a `sync` counted this member's arrival.
    Arrived,
    /// `Option<u32>`: the generation of a `request` in flight.
    Ticket,
    /// `enum { Idle, N<c>(child state), .. }`: which child runs.
    OneOf,
    /// Which child runs, in a fieldless `enum { Idle, N<c>, .. }`, with the
    /// memory of leaf `.0` beside it: a sequence or select in a parallel
    /// whose children that keep state are all memories of leaves of that
    /// one type ([`Shape::Memory`] or [`Shape::LeafOf`]). The parallel's
    /// record holds the enum (one byte) and the memory as two fields of its
    /// own, so the tag does not take a word of padding in an enum of its
    /// own. The memory is `Default` while no stateful child runs.
    Tagged(usize),
    /// `enum { Idle, N<c>(state, value, since), .. }`: a decider group's
    /// active child.
    Decider,
    /// A struct of these fields, in this order.
    Record(Vec<Field>),
}

/// A field of a [`Shape::Record`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `active: bool`: entered and not yet left. Halting an active record
    /// halts its children and then gives back what entering took.
    Latch(Release),
    /// `t: f64`: when the latch was set.
    Since,
    /// `passed: bool`: a `delay` is over and its child runs.
    Passed,
    /// `running: bool`: the child returned Running on its last tick.
    Running,
    /// `item: Option<T>`: the item a `for_each`'s child runs with, while it
    /// runs.
    Item,
    /// `count: uN`: finished runs of the child that continue the loop, up
    /// to this bound.
    Count(u32),
    /// `succeeded`, and `failed` when failures can add up over ticks: one
    /// bit per child that finished so. With `running`, one bit per child
    /// whose state is a stateful leaf's memory ([`Shape::Memory`] or
    /// [`Shape::LeafOf`]), set while that leaf runs: the record holds such
    /// memories bare, with no `Option` of their own.
    Masks { failed: bool, running: bool },
    /// `member`: a rendezvous membership; halting leaves the group.
    Member,
    /// `child`: the only child's state, when it has one.
    Child,
    /// `n<c>`: the state of each child that has one.
    Children,
}

/// What halting an active latch gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    Nothing,
    /// The permit of a `gate`.
    Permit,
    /// A `scope`'s `exit` hook runs.
    Exit,
    /// An `after`'s `halted` hook runs: on halting only, not when the
    /// child finishes.
    Halted,
}

/// A slot of the tree's keep part: what outlives activity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// `f64`: when a `cooldown` may run again.
    Ready,
    /// `u8`: how a `run_once` ended (0 not yet, 1 success, 2 failure).
    Once,
    /// `uN`: the child a `sequential` group tries first next time, or a
    /// `sequence_with_memory` starts from.
    Next,
    /// mask: the children a `shuffle` group chose in this round.
    Used,
    /// The embedded tree's keep part.
    Subtree,
    /// `f64`: when an `every` guard may be checked again.
    Every,
    /// `f64`: when an `every` node may start its child again.
    Period,
    /// `bt::request::Slot`: a `request` node's latest generation and its
    /// answer.
    Answer,
}

// A handful per tree, built once per expansion: size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Kind {
    /// e.g. `sequence { a, b }`
    Sequence,
    /// e.g. `sequence_with_memory { a, b }`
    SequenceWithMemory,
    /// e.g. `reactive_sequence { a, b }`
    ReactiveSequence,
    /// e.g. `select { a, b }`
    Select,
    /// e.g. `reactive_select { a, b }`
    ReactiveSelect,
    /// e.g. `async_sequence { a, b }`
    AsyncSequence,
    /// e.g. `async_select { a, b }`
    AsyncSelect,
    /// e.g. `try_catch { a, b, cleanup }`: the children but the last as a
    /// sequence; when one fails, the last runs and the node fails.
    TryCatch,
    /// e.g. `if_then_else { c, a, b }` (the else branch is optional)
    IfThenElse,
    /// e.g. `while_do_else { c, a, b }` (the else branch is optional)
    WhileDoElse,
    /// e.g. `parallel(success = 2, failure = 1) { a, b, c }`; `failure` is the
    /// effective threshold: also reached once `success` became impossible.
    Parallel { success: Count, failure: Count },
    /// e.g. `parallel_all(max_failures = 2) { a, b, c }`
    ParallelAll { max_failures: Count },
    /// e.g. `invert { a }`
    Invert,
    /// e.g. `force_success { a }`
    ForceSuccess,
    /// e.g. `force_failure { a }`
    ForceFailure,
    /// e.g. `keep_running_until_failure { a }`
    KeepRunningUntilFailure,
    /// e.g. `repeat(3) { a }`; `None` for `repeat(forever)`
    Repeat(Option<Count>),
    /// e.g. `retry(3) { a }`; `None` for `retry(forever)`
    Retry(Option<Count>),
    /// e.g. `prioritized { when x => a, else => b }`; `rng` for `random`
    /// and `shuffle`.
    Decider {
        policy: Policy,
        rng: Option<Expr>,
        redecides: Option<Count>,
        /// Children a refusing shared node would fail at once are passed
        /// over (see [`Node::refusals`]).
        skip_blocked: bool,
    },
    /// e.g. `scope(enter = me.join(), exit = me.leave()) { a }`
    Scope {
        enter: Option<Expr>,
        tick: Option<Expr>,
        exit: Option<Expr>,
    },
    /// e.g. `wait(2.0)`
    Wait(Expr),
    /// e.g. `timeout(5.0) { a }`
    Timeout(Expr),
    /// e.g. `delay(1.0) { a }`
    Delay(Expr),
    /// e.g. `cooldown(3.0) { a }`
    Cooldown(Expr),
    /// `run_once { a }`; with `then_skip = true`, `skip` is the status
    /// its parent passes over.
    RunOnce { skip: Option<Status> },
    /// e.g. `every(2.0) { a }`
    Every(Expr),
    /// e.g. `after(success = me.cheer(), halted = me.reset()) { a }`
    After {
        success: Option<Expr>,
        failure: Option<Expr>,
        finished: Option<Expr>,
        halted: Option<Expr>,
    },
    /// `skip_if(e)`, `success_if(e)`, `failure_if(e)`: checked before the
    /// child starts; when true, the node returns `then` without ticking it
    /// (for `skip_if`, the status its parent passes over).
    ///
    /// `precondition(e, otherwise = ..)` is the same with `when: false`: the
    /// node returns `then` when `expr` is `when`. `skips`: `then` is the
    /// status the parent passes over (`skip_if`, `otherwise = skip`).
    Precondition {
        expr: Expr,
        then: Status,
        when: bool,
        skips: bool,
    },
    /// e.g. `run_while(me.sees_enemy()) { a }`; `skip` is the status its
    /// parent passes over.
    RunWhile { expr: Expr, skip: Status },
    /// e.g. `gate(3) { a }`
    Gate(Count),
    /// e.g. `global_cooldown(10.0) { a }`
    GlobalCooldown(Expr),
    /// e.g. `rendezvous(2) as role { a }`
    Rendezvous { n: Count, role: Ident },
    /// `sync`, inside the rendezvous node `rendezvous`.
    Sync { rendezvous: usize },
    /// e.g. `request(paths, FindPath { to })`; `slot` is its position among
    /// the tree's request nodes.
    Request {
        stream: Ident,
        request: Expr,
        slot: u32,
    },
    /// e.g. `monitor(me.heard_noise())`; `index` among the tree's monitors.
    Monitor { expr: Expr, index: usize },
    /// e.g. `switch(me.weapon) { Weapon::Rifle => Rifle(me), .. }`
    /// `for_each(item: T = expr, if_empty = ..) { a }`: `then` is what it
    /// returns once `expr` gives `None`; `skips`: that is the status its
    /// parent passes over.
    ForEach {
        item: crate::args::Item,
        then: Status,
        skips: bool,
    },
    /// Also `switch_eq(value) { case => a, _ => b }`, whose arms are
    /// [`Arm::Equals`](crate::ast::Arm::Equals) but the last.
    Switch(Expr),
    /// e.g. `cond me.hp < 20.0`
    Cond(Expr),
    /// e.g. `action me.attack()`
    Action(Expr),
    /// e.g. `instant me.shout()`
    Instant(Expr),
    /// `success`, `failure`, `running`
    Constant(Status),
    /// e.g. `MoveTo { to: pos }`
    Leaf { path: Path, literal: Expr },
    /// e.g. `Patrol(me, cx)`; `paren` is the span of the argument list.
    Subtree {
        path: Path,
        args: Vec<Expr>,
        paren: proc_macro2::Span,
    },
}

/// How a decider group chooses a child.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Policy {
    /// `prioritized`: earlier guards interrupt later children.
    Prioritized,
    /// `sequential`: in turn, after the child chosen last.
    Sequential,
    /// `random`: uniformly among the accepting children.
    Random,
    /// `shuffle`: each accepting child once per round.
    Shuffle,
    /// `scored`: the best score.
    Scored,
}

/// A decider child's guard: clauses checked left to right.
pub struct Guard {
    pub clauses: Vec<Clause>,
    /// Source text of the whole guard (`else` for none).
    pub text: String,
}

impl Guard {
    /// The `when let` clause's pattern and type, if any.
    pub fn binding(&self) -> Option<(&Pat, &Type)> {
        self.clauses.iter().find_map(|c| match &c.kind {
            ClauseKind::WhenLet { pat, ty, .. } => Some((pat, ty)),
            _ => None,
        })
    }

    pub fn has_every(&self) -> Option<&Expr> {
        self.clauses.iter().find_map(|c| match &c.kind {
            ClauseKind::Every(e) => Some(e),
            _ => None,
        })
    }
}

pub struct Clause {
    pub kind: ClauseKind,
    /// Source text, for trace output.
    pub text: String,
}

#[allow(clippy::large_enum_variant)]
pub enum ClauseKind {
    When(Expr),
    WhenLet {
        pat: Pat,
        ty: Type,
        expr: Expr,
    },
    Score(Expr),
    Every(Expr),
    Flags {
        stimuli: bool,
        mode: FlagMode,
        expr: Expr,
    },
    /// `room('label)`: the gate or global cooldown of that label lets an
    /// agent in now.
    Room(Refusal),
}

/// A count the tree uses: one the macro reads, or a named constant whose
/// value only rustc knows.
#[derive(Clone, Debug)]
pub enum Count {
    Literal(u32),
    /// A constant expression of type `u32`; generated code asserts at
    /// compile time that it lies in `min..=max` (`what` says where).
    Named {
        expr: Box<Expr>,
        min: u32,
        max: u32,
        what: String,
    },
}

impl Count {
    /// The number, if the macro knows it.
    pub fn literal(&self) -> Option<u32> {
        match self {
            Count::Literal(n) => Some(*n),
            Count::Named { .. } => None,
        }
    }

    /// The most it can be: what a counter up to it must hold.
    pub fn most(&self) -> u32 {
        match self {
            Count::Literal(n) => *n,
            Count::Named { max, .. } => *max,
        }
    }

    /// For a named count, a module-level item asserting at compile time
    /// that it lies in its limits, on the user's tokens.
    pub fn assertion(&self) -> Option<proc_macro2::TokenStream> {
        let Count::Named {
            expr,
            min,
            max,
            what,
        } = self
        else {
            return None;
        };
        use syn::spanned::Spanned;
        let (message, holds) = if *max == u32::MAX {
            (
                format!("{what} must be at least {min}"),
                quote::quote!(__COUNT >= #min),
            )
        } else {
            (
                format!("{what} must lie in {min}..={max}"),
                quote::quote!(__COUNT >= #min && __COUNT <= #max),
            )
        };
        Some(quote::quote_spanned!(expr.span()=>
            const _: () = {
                const __COUNT: ::core::primitive::u32 = #expr;
                ::core::assert!(#holds, #message);
            };
        ))
    }

    /// As written (the constant's expression for a named count).
    pub fn text(&self) -> String {
        match self {
            Count::Literal(n) => n.to_string(),
            Count::Named { expr, .. } => quote::ToTokens::to_token_stream(expr)
                .to_string()
                .replace(' ', ""),
        }
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// In generated code: the literal, or a block giving the constant as a
/// `u32`, so that rustc type-checks it on the user's tokens. Its limits
/// are asserted once per tree ([`Count::assertion`]).
impl quote::ToTokens for Count {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        match self {
            Count::Literal(n) => proc_macro2::Literal::u32_unsuffixed(*n).to_tokens(tokens),
            Count::Named {
                expr,
                min,
                max,
                what,
            } => {
                use syn::spanned::Spanned;

                let _ = (min, max, what);
                quote::quote_spanned!(expr.span()=> {
                    const __COUNT: ::core::primitive::u32 = #expr;
                    __COUNT
                })
                .to_tokens(tokens)
            }
        }
    }
}

/// A shared node that may refuse an agent at once: a `gate` that is full,
/// a `global_cooldown` that is cooling down.
#[derive(Clone, Debug)]
pub struct Refusal {
    /// The `gate` or `global_cooldown` node.
    pub node: usize,
    /// What the guard's trace says when it refuses.
    pub text: String,
}

/// What the passes ask of a kind ([`Kind::release`], [`Kind::entry`],
/// [`Kind::counts`], [`Kind::names`], [`Kind::memory_of`]), given in one
/// match.
struct Facts<'a> {
    entry: Entry,
    release: Release,
    counts: Vec<&'a Count>,
    names: Names<'a>,
    memory: MemoryOf,
    keep: Option<Keep>,
}

impl Facts<'_> {
    /// A kind that acts on entry, gives nothing back, has no count, names
    /// no type of the user's and keeps more than a leaf's memory.
    const PLAIN: Facts<'static> = Facts {
        entry: Entry::Acts,
        release: Release::Nothing,
        counts: Vec::new(),
        names: Names::Nothing,
        memory: MemoryOf::Own,
        keep: None,
    };
}

/// A type of the user's that a node's state holds ([`Kind::names`]).
#[derive(Clone, Copy)]
pub enum Names<'a> {
    /// Only the library's own types.
    Nothing,
    /// A stateful leaf's or an embedded tree's type, as written.
    Path(&'a Path),
    /// A `for_each` item's type.
    Item(&'a Type),
}

/// Whose leaf memory can be all of a node's state ([`Kind::memory_of`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MemoryOf {
    /// The node is a stateful leaf: its own memory.
    Leaf,
    /// Its only child's (`invert`, `force_success`, `force_failure`).
    Child,
    /// The one child that can run, if only one can (a small sequence or
    /// select).
    OnlyRunningChild,
    /// Its state is more than what runs below it.
    Own,
}

/// How entering a node leads into its first child ([`Kind::entry`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Entry {
    /// It may refuse, failing at once; else it enters its first child.
    Refuses,
    /// It enters its first child, and fails at once if that child does.
    PassesThrough,
    /// It may run a leaf, an expression or a hook, or turn its child's
    /// failure into something else, before or instead of entering it.
    Acts,
}

/// How a `flags`/`stimuli` clause tests the flags.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FlagMode {
    /// At least one of the flags is set.
    Any,
    /// All of the flags are set.
    All,
    /// None of the flags is set.
    None,
}

impl Kind {
    /// What leaving a latched node gives back (once its child finished, or
    /// when it is halted).
    pub fn release(&self) -> Release {
        self.facts().release
    }

    /// What entering the node does first: where a decider finds the
    /// shared nodes a child would be refused by before it does anything.
    pub fn entry(&self) -> Entry {
        self.facts().entry
    }

    /// A count of the node written as a named constant, if it has one.
    pub fn named_count(&self) -> Option<&Count> {
        self.counts().into_iter().find(|c| c.literal().is_none())
    }

    /// The node's counts and thresholds.
    pub fn counts(&self) -> Vec<&Count> {
        self.facts().counts
    }

    /// The type of the user's its state holds, for the layout hash.
    pub fn names(&self) -> Names<'_> {
        self.facts().names
    }

    /// Whose leaf memory can be all of the node's state.
    pub fn memory_of(&self) -> MemoryOf {
        self.facts().memory
    }

    /// What the node itself remembers across activations, if anything.
    pub fn keeps(&self) -> Option<Keep> {
        self.facts().keep
    }

    /// What the passes ask of a kind, one row per kind: most kinds are
    /// [`Facts::PLAIN`], and the others say how they differ.
    fn facts(&self) -> Facts<'_> {
        let plain = Facts::PLAIN;
        // Their first child's failure is theirs, at once.
        let passes = Facts {
            entry: Entry::PassesThrough,
            ..Facts::PLAIN
        };
        let only_running = Facts {
            memory: MemoryOf::OnlyRunningChild,
            ..Facts::PLAIN
        };
        let child = Facts {
            memory: MemoryOf::Child,
            ..Facts::PLAIN
        };
        match self {
            Kind::Sequence | Kind::ReactiveSequence => Facts {
                memory: MemoryOf::OnlyRunningChild,
                ..passes
            },
            Kind::Select | Kind::ReactiveSelect => only_running,
            Kind::Cooldown(_) => Facts {
                keep: Some(Keep::Ready),
                ..plain
            },
            Kind::Every(_) => Facts {
                keep: Some(Keep::Period),
                ..plain
            },
            Kind::RunOnce { .. } => Facts {
                keep: Some(Keep::Once),
                ..plain
            },
            Kind::Request { .. } => Facts {
                keep: Some(Keep::Answer),
                ..plain
            },
            Kind::Invert | Kind::ForceSuccess | Kind::ForceFailure => child,
            Kind::Leaf { path, .. } => Facts {
                names: Names::Path(path),
                memory: MemoryOf::Leaf,
                ..plain
            },
            Kind::Subtree { path, .. } => Facts {
                names: Names::Path(path),
                keep: Some(Keep::Subtree),
                ..plain
            },
            Kind::ForEach { item, .. } => Facts {
                names: Names::Item(&item.ty),
                ..plain
            },
            Kind::SequenceWithMemory => Facts {
                keep: Some(Keep::Next),
                ..passes
            },
            Kind::AsyncSequence | Kind::Timeout(_) | Kind::KeepRunningUntilFailure => passes,
            Kind::Repeat(n) => Facts {
                counts: n.iter().collect(),
                ..passes
            },
            // Runs its child again after a failure.
            Kind::Retry(n) => Facts {
                counts: n.iter().collect(),
                ..plain
            },
            Kind::Gate(n) => Facts {
                entry: Entry::Refuses,
                release: Release::Permit,
                counts: vec![n],
                ..plain
            },
            Kind::GlobalCooldown(_) => Facts {
                entry: Entry::Refuses,
                ..plain
            },
            Kind::Scope { exit, .. } => Facts {
                release: if exit.is_some() {
                    Release::Exit
                } else {
                    Release::Nothing
                },
                ..plain
            },
            Kind::After { halted, .. } => Facts {
                release: if halted.is_some() {
                    Release::Halted
                } else {
                    Release::Nothing
                },
                ..plain
            },
            Kind::Parallel { success, failure } => Facts {
                counts: vec![success, failure],
                ..plain
            },
            Kind::ParallelAll { max_failures } => Facts {
                counts: vec![max_failures],
                ..plain
            },
            Kind::Decider {
                redecides, policy, ..
            } => Facts {
                counts: redecides.iter().collect(),
                keep: match policy {
                    Policy::Sequential => Some(Keep::Next),
                    Policy::Shuffle => Some(Keep::Used),
                    Policy::Prioritized | Policy::Random | Policy::Scored => None,
                },
                ..plain
            },
            Kind::Rendezvous { n, .. } => Facts {
                counts: vec![n],
                ..plain
            },
            // A failure that runs something else (`try_catch`'s catch, a
            // select's next child), is turned into another status, or comes
            // after an expression, a hook or a wait; nothing to give back,
            // no count.
            Kind::TryCatch
            | Kind::AsyncSelect
            | Kind::IfThenElse
            | Kind::WhileDoElse
            | Kind::Wait(_)
            | Kind::Delay(_)
            | Kind::Precondition { .. }
            | Kind::RunWhile { .. }
            | Kind::Sync { .. }
            | Kind::Monitor { .. }
            | Kind::Switch(_)
            | Kind::Cond(_)
            | Kind::Action(_)
            | Kind::Instant(_)
            | Kind::Constant(_) => plain,
        }
    }

    /// A stateful leaf's type, if this is one.
    pub fn leaf(&self) -> Option<&Path> {
        if let Kind::Leaf { path, .. } = self {
            Some(path)
        } else {
            None
        }
    }

    /// An embedded tree's type, if this is one.
    pub fn subtree(&self) -> Option<&Path> {
        if let Kind::Subtree { path, .. } = self {
            Some(path)
        } else {
            None
        }
    }
}

/// Per node, the number of nodes in its subtree (itself included). Nodes
/// are in pre-order, so a reverse sweep sees every child before its parent.
pub fn subtree_sizes(nodes: &[Node]) -> Vec<usize> {
    let mut sizes = vec![1; nodes.len()];
    for id in (1..nodes.len()).rev() {
        if let Some(p) = nodes[id].parent {
            sizes[p] += sizes[id];
        }
    }
    sizes
}

impl Tree {
    pub fn node(&self, id: usize) -> &Node {
        &self.nodes[id]
    }

    /// Whether code generation declares a named state type for this node.
    pub fn has_named_type(&self, id: usize) -> bool {
        matches!(
            self.node(id).shape,
            Shape::OneOf | Shape::Tagged(_) | Shape::Decider | Shape::Record(_)
        )
    }
}

impl Node {
    /// The pattern and type of this decider child's `when let`, if any.
    pub fn binding(&self) -> Option<(&Pat, &Type)> {
        self.guard.as_ref().and_then(Guard::binding)
    }

    /// One line naming the node, for comments in generated code:
    /// ` n3 sequence 'fight (line 12)` (the leading space reads well after `///`).
    pub fn describe(&self) -> String {
        let label = self
            .label
            .as_ref()
            .map(|l| format!(" '{l}"))
            .unwrap_or_default();
        format!(" n{} {}{label} (line {})", self.id, self.detail, self.line)
    }
}
