//! The syntax tree of a `behavior_tree!` invocation, as written, with spans.
//!
//! Produced by [`crate::parse`], validated by [`crate::check`], turned into
//! the flat IR by [`crate::lower`]. Nothing here is validated beyond syntax.

use proc_macro2::Span;
use proc_macro2::TokenStream;
use syn::{Attribute, Expr, Ident, Lifetime, Pat, Path, Type, Visibility};

/// Everything inside `behavior_tree! { ... }`: one or more trees.
pub struct Input {
    pub trees: Vec<TreeDef>,
}

/// `/// docs  pub tree Name(me: &mut Agent, ...) { root }`
pub struct TreeDef {
    /// Outer attributes, doc comments included; passed through to the state type.
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    /// Span of the `{ ... }` body, for "no root" errors.
    pub body_span: Span,
    /// The nodes at the top of the body; a valid tree has exactly one.
    pub roots: Vec<Node>,
}

/// One parameter of the tree header: `me: &mut Agent`.
#[derive(Clone)]
pub struct Param {
    /// `#[context]` marks the tick context binding.
    pub context_attr: Option<Span>,
    /// `#[shared]` marks the shared-state binding.
    pub shared_attr: Option<Span>,
    pub name: Ident,
    pub ty: Type,
}

/// A node, with its optional label: `'flee: sequence { .. }`.
pub struct Node {
    pub label: Option<Lifetime>,
    /// The guard of a child of a decider group (`when x =>`, `else =>`).
    pub guard: Option<Guard>,
    /// The pattern of an arm of a `switch` (`Weapon::Rifle =>`).
    pub arm: Option<Box<Pat>>,
    pub kind: NodeKind,
    /// Span of the node's head (keyword, expression or path), where errors
    /// about the node point.
    pub span: Span,
}

pub enum NodeKind {
    /// A keyword node with children: composites and decorators, e.g.
    /// `sequence { a, b }`, `repeat(3) { a }`, `parallel(success = 1) { a, b }`.
    Group {
        keyword: GroupKeyword,
        ident: Ident,
        args: Option<Args>,
        children: Vec<Node>,
        brace_span: Span,
        /// `rendezvous(2) as role`: the role binding.
        binding: Option<Ident>,
    },
    /// e.g. `cond me.hp < 20.0`
    Cond(Expr),
    /// e.g. `action me.attack()`
    Action(Expr),
    /// `success`, `failure` or `running`.
    Constant(Constant),
    /// `wait(seconds)`
    Wait { ident: Ident, args: Option<Args> },
    /// `sync`: inside a rendezvous, wait for every member.
    Sync(Ident),
    /// `monitor(<bool>)`
    Monitor { ident: Ident, args: Option<Args> },
    /// A stateful leaf type, e.g. `MoveTo { to: pos }` or `Idle`.
    Leaf { path: Path, literal: Expr },
    /// An embedded generated tree, e.g. `Patrol(me, cx)`.
    Subtree {
        path: Path,
        args: Vec<Expr>,
        /// Span of the parenthesised argument list.
        paren: Span,
        call: Expr,
    },
}

/// What decides whether a child of a decider group may activate: clauses
/// checked left to right, `=>`, then the child. `else =>` has no clauses.
pub struct Guard {
    pub clauses: Vec<Clause>,
    /// The guard's tokens, for its source text.
    pub tokens: TokenStream,
}

pub struct Clause {
    pub kind: ClauseKind,
    /// Span of the clause's keyword.
    pub span: Span,
    /// The clause's tokens, for its source text.
    pub tokens: TokenStream,
}

pub enum ClauseKind {
    /// `when <bool>`
    When(Expr),
    /// `when let PAT: Type = <expr>`
    WhenLet {
        pat: Box<Pat>,
        ty: Option<Box<Type>>,
        expr: Expr,
    },
    /// `score <f32>`
    Score(Expr),
    /// `every(seconds)`
    Every(Option<Args>),
    /// `flags(any = .., all = .., none = ..)` or `stimuli(..)`
    Flags { stimuli: bool, args: Option<Args> },
}

/// Parenthesised arguments of a group keyword: `(3)` or `(success = 2, failure = 1)`.
pub struct Args {
    pub span: Span,
    pub items: Vec<Arg>,
}

/// One argument: positional `3` or named `success = 2`.
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Constant {
    Success,
    Failure,
    Running,
}

/// Keywords that take a braced list of children.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GroupKeyword {
    Sequence,
    ReactiveSequence,
    Select,
    ReactiveSelect,
    Parallel,
    Invert,
    ForceSuccess,
    ForceFailure,
    Repeat,
    Retry,
    Prioritized,
    Sequential,
    Random,
    Shuffle,
    Scored,
    Scope,
    Timeout,
    Delay,
    Cooldown,
    RunOnce,
    Gate,
    GlobalCooldown,
    Rendezvous,
    Switch,
}

impl GroupKeyword {
    pub const ALL: &'static [GroupKeyword] = &[
        GroupKeyword::Sequence,
        GroupKeyword::ReactiveSequence,
        GroupKeyword::Select,
        GroupKeyword::ReactiveSelect,
        GroupKeyword::Parallel,
        GroupKeyword::Invert,
        GroupKeyword::ForceSuccess,
        GroupKeyword::ForceFailure,
        GroupKeyword::Repeat,
        GroupKeyword::Retry,
        GroupKeyword::Prioritized,
        GroupKeyword::Sequential,
        GroupKeyword::Random,
        GroupKeyword::Shuffle,
        GroupKeyword::Scored,
        GroupKeyword::Scope,
        GroupKeyword::Timeout,
        GroupKeyword::Delay,
        GroupKeyword::Cooldown,
        GroupKeyword::RunOnce,
        GroupKeyword::Gate,
        GroupKeyword::GlobalCooldown,
        GroupKeyword::Rendezvous,
        GroupKeyword::Switch,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GroupKeyword::Sequence => "sequence",
            GroupKeyword::ReactiveSequence => "reactive_sequence",
            GroupKeyword::Select => "select",
            GroupKeyword::ReactiveSelect => "reactive_select",
            GroupKeyword::Parallel => "parallel",
            GroupKeyword::Invert => "invert",
            GroupKeyword::ForceSuccess => "force_success",
            GroupKeyword::ForceFailure => "force_failure",
            GroupKeyword::Repeat => "repeat",
            GroupKeyword::Retry => "retry",
            GroupKeyword::Prioritized => "prioritized",
            GroupKeyword::Sequential => "sequential",
            GroupKeyword::Random => "random",
            GroupKeyword::Shuffle => "shuffle",
            GroupKeyword::Scored => "scored",
            GroupKeyword::Scope => "scope",
            GroupKeyword::Timeout => "timeout",
            GroupKeyword::Delay => "delay",
            GroupKeyword::Cooldown => "cooldown",
            GroupKeyword::RunOnce => "run_once",
            GroupKeyword::Gate => "gate",
            GroupKeyword::GlobalCooldown => "global_cooldown",
            GroupKeyword::Rendezvous => "rendezvous",
            GroupKeyword::Switch => "switch",
        }
    }

    pub fn from_str(word: &str) -> Option<GroupKeyword> {
        GroupKeyword::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == word)
    }

    /// Decorators take exactly one child; composites one or more.
    pub fn is_decorator(self) -> bool {
        matches!(
            self,
            GroupKeyword::Invert
                | GroupKeyword::ForceSuccess
                | GroupKeyword::ForceFailure
                | GroupKeyword::Repeat
                | GroupKeyword::Retry
                | GroupKeyword::Scope
                | GroupKeyword::Timeout
                | GroupKeyword::Delay
                | GroupKeyword::Cooldown
                | GroupKeyword::RunOnce
                | GroupKeyword::Gate
                | GroupKeyword::GlobalCooldown
                | GroupKeyword::Rendezvous
        )
    }

    /// Nodes whose state is shared by all agents of the tree.
    pub fn is_shared(self) -> bool {
        matches!(
            self,
            GroupKeyword::Gate | GroupKeyword::GlobalCooldown | GroupKeyword::Rendezvous
        )
    }

    /// Decider groups: children may have guards.
    pub fn is_decider(self) -> bool {
        matches!(
            self,
            GroupKeyword::Prioritized
                | GroupKeyword::Sequential
                | GroupKeyword::Random
                | GroupKeyword::Shuffle
                | GroupKeyword::Scored
        )
    }

    /// Nodes that read the time from the tick context.
    pub fn needs_time(self) -> bool {
        matches!(
            self,
            GroupKeyword::Timeout
                | GroupKeyword::Delay
                | GroupKeyword::Cooldown
                | GroupKeyword::GlobalCooldown
        )
    }
}

impl Constant {
    pub fn from_str(word: &str) -> Option<Constant> {
        match word {
            "success" => Some(Constant::Success),
            "failure" => Some(Constant::Failure),
            "running" => Some(Constant::Running),
            _ => None,
        }
    }
}

/// Every keyword that may start a node, for the "unknown node kind" message.
pub fn known_keywords() -> Vec<&'static str> {
    let mut words: Vec<&str> = GroupKeyword::ALL.iter().map(|k| k.as_str()).collect();
    words.extend([
        "wait", "sync", "monitor", "cond", "action", "success", "failure", "running",
    ]);
    words
}

/// Words that start a guard clause.
pub const GUARD_WORDS: &[&str] = &["when", "score", "every", "flags", "stimuli"];
