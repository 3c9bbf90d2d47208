//! The syntax tree of a `behavior_tree!` invocation, as written, with spans.
//!
//! Produced by [`crate::parse`], validated by [`crate::check`], turned into
//! the flat IR by [`crate::lower`]. Nothing here is validated beyond syntax.

use crate::errors::Reported;
use crate::kinds::Kind;
use crate::kinds::Typed;
use proc_macro2::Span;
use proc_macro2::TokenStream;
use syn::{Attribute, Expr, Ident, Lifetime, Pat, Path, Type, Visibility};

/// Everything inside `behavior_tree! { ... }`: one or more trees.
pub struct Input {
    pub trees: Vec<TreeDef>,
}

/// `/// docs  pub tree Name(me: &mut Agent, ...) { root }`
pub struct TreeDef {
    /// Outer attributes, doc comments included; passed through to the state
    /// type (all but `#[bt(..)]`).
    pub attrs: Vec<Attribute>,
    /// `#[bt(crate = path)]`: where generated code finds the runtime, for a
    /// crate that re-exports `bt` under another path.
    pub krate: Option<Path>,
    /// `#[bt(recursion_limit = N)]`: the crate's `recursion_limit`, when
    /// raised, which bounds how deep the tree may nest.
    pub recursion_limit: Option<(u32, proc_macro2::Span)>,
    /// `#[bt(serde)]`: the state types implement `Serialize` and
    /// `Deserialize` (the span of `serde`, where a missing feature is
    /// reported).
    pub serde: Option<proc_macro2::Span>,
    /// `#[bt(reflect)]`: the state types implement bevy's `Reflect` (the
    /// span of `reflect`, where a missing feature is reported).
    pub reflect: Option<proc_macro2::Span>,
    /// `#[bt(activation_times)]`: decider groups and scopes remember when
    /// they activated, for `print_state` and the `Continue` trace event
    /// (the span of `activation_times`, where a missing context is
    /// reported).
    pub activation_times: Option<proc_macro2::Span>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    /// A header parameter did not parse: it is an error already, and the
    /// checks that read the parameters stay silent (what they would say
    /// may be false). A parameter with a name is kept, typed `impl Sized`.
    pub header_broken: bool,
    /// Span of the `{ ... }` body, for "no root" errors.
    pub body_span: Span,
    /// The nodes at the top of the body; a valid tree has exactly one.
    pub roots: Vec<Node>,
    /// Nodes at the top of the body that did not parse (already reported).
    pub broken: usize,
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

/// What selects an arm of a `switch` or a `switch_eq`.
#[derive(Clone)]
pub enum Arm {
    /// A pattern the value matches: `Weapon::Rifle`, `_` (`switch`, and
    /// `switch_eq`'s default).
    Pattern(Pat),
    /// A value the switch's value equals (`==`): `me.home` (`switch_eq`).
    Equals(Expr),
}

impl quote::ToTokens for Arm {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Arm::Pattern(pat) => pat.to_tokens(tokens),
            Arm::Equals(expr) => expr.to_tokens(tokens),
        }
    }
}

/// A node, with its optional label: `'flee: sequence { .. }`.
pub struct Node {
    pub label: Option<Lifetime>,
    /// The guard of a child of a decider group (`when x =>`, `else =>`).
    pub guard: Option<Guard>,
    /// What selects an arm of a `switch` or `switch_eq` (`Weapon::Rifle =>`).
    pub arm: Option<Box<Arm>>,
    pub kind: NodeKind,
    /// Span of the node's head (keyword, expression or path), where errors
    /// about the node point.
    pub span: Span,
}

pub enum NodeKind {
    /// A node written with a keyword of the node-kind table: composites,
    /// decorators, decider groups, `wait(..)`, `sync`, `monitor(..)`,
    /// `switch(..)`, constants. E.g. `repeat(3) { a }`.
    Keyword {
        kind: Kind,
        ident: Ident,
        /// The parenthesised arguments as written, if any.
        args: Option<Args>,
        /// The arguments, read into the kind's struct; `Err` when reading
        /// them reported a problem. Boxed: nodes nest as deep as the
        /// parser recurses, so each stays small.
        typed: Result<Box<Typed>, Reported>,
        children: Vec<Node>,
        /// Children that did not parse (already reported): they count for
        /// the arity check, so it reports nothing more.
        broken: usize,
        /// Span of the `{ .. }` holding the children, or of the keyword.
        brace_span: Span,
        /// `rendezvous(2) as role`: the role binding.
        binding: Option<Ident>,
        /// A misspelled keyword (reported), standing for the kind it most
        /// likely means so that its children are still read and checked;
        /// its own arity is not checked.
        misspelled: bool,
    },
    /// e.g. `cond me.hp < 20.0`
    Cond(Expr),
    /// e.g. `action me.attack()`
    Action(Expr),
    /// e.g. `instant me.shout()`
    Instant(Expr),
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

impl Node {
    /// The node's row of the node-kind table.
    pub fn kind(&self) -> Kind {
        match &self.kind {
            NodeKind::Keyword { kind, .. } => *kind,
            NodeKind::Cond(_) => Kind::Cond,
            NodeKind::Action(_) => Kind::Action,
            NodeKind::Instant(_) => Kind::Instant,
            NodeKind::Leaf { .. } => Kind::Leaf,
            NodeKind::Subtree { .. } => Kind::Subtree,
        }
    }

    /// The node's children (none for leaves).
    pub fn children(&self) -> &[Node] {
        if let NodeKind::Keyword { children, .. } = &self.kind {
            children
        } else {
            &[]
        }
    }
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
    Every(Result<crate::args::Seconds, Reported>),
    /// `room('label)`: the labelled gate or global cooldown lets an agent
    /// in.
    Room(syn::Lifetime),
    /// `flags(any = .., all = .., none = ..)` or `stimuli(..)`
    Flags {
        stimuli: bool,
        flags: Result<Box<crate::args::FlagClause>, Reported>,
    },
}

/// Parenthesised arguments as written: `(3)` or `(success = 2, failure = 1)`.
pub struct Args {
    pub span: Span,
    pub items: Vec<Arg>,
}

/// One argument: positional `3` or named `success = 2`; or a binding
/// `item: Type = expression`, whose `binds` are the name and the type.
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
    pub binds: Option<(Ident, Box<Type>)>,
}
