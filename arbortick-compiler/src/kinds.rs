//! The node-kind table: every node kind of the DSL, described once.
//!
//! The kinds themselves are one enum, the runtime's `NodeKind` (here
//! [`Kind`]); each row of the table describes one of them: its keyword, how
//! it is written, what children it takes, the struct its arguments are
//! read into (a parameter list of `crate::args`), what it needs from the
//! tree header and one line of documentation. The parser recognises
//! keywords from it and reads each keyword's arguments into its variant of
//! [`Typed`], which the table generates; the checks take arity and needs
//! from it, and a test holds the DSL reference to it. What stays per kind
//! is the IR variant, the tick generator, the interpreter's case, its
//! semantics docs and its tests; every match over kinds names each kind,
//! so a kind added to the table is a compile error wherever it needs
//! code.

/// Every node kind: the runtime's [`NodeKind`](bt_runtime::NodeKind), which
/// the table below describes row by row.
pub use bt_runtime::NodeKind as Kind;

/// How a kind is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Syntax {
    /// `keyword`, then its arguments in parentheses if it has any, then its
    /// children in braces if it takes any: `repeat(3) { .. }`, `sync`.
    Keyword,
    /// `keyword <Rust expression>`: `cond me.ok()`, `action me.go()`.
    Expr,
    /// Written as Rust, without a keyword: a stateful leaf literal
    /// (`MoveTo { .. }`) or a subtree call (`Patrol(me)`).
    Rust,
}

/// What children a kind takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Children {
    /// A leaf.
    None,
    /// Exactly one (decorators).
    One,
    /// One or more (composites).
    Many,
    /// One or more, each with an optional guard (`when .. =>`): decider groups.
    Guarded,
    /// One or more `PATTERN => child` arms: `switch`.
    Arms,
    /// A condition, then one or two branches: `if_then_else`.
    Branches,
    /// Two or more, the last with a role of its own: `try_catch`'s catch.
    ThenLast,
    /// `VALUE => child` arms, then `_ => child`: `switch_eq`.
    Cases,
}

/// The type of an argument, checked when it is read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ArgType {
    /// An integer literal of at least 1.
    Count,
    /// Seconds, as an `f64` expression (an integer literal reads as
    /// seconds: `2` is `2.0`).
    Seconds,
    /// Any Rust expression, type-checked by rustc where it is used.
    Expr,
    /// A count, or `forever`.
    Bound,
    /// A non-zero integer literal; a negative one counts from the number
    /// of children, as in BehaviorTree.CPP (`-1` is all of them).
    Threshold,
    /// `true` or `false`.
    Flag,
    /// What a `precondition` returns when its condition does not hold:
    /// `success`, `failure`, `running` or `skip`.
    Otherwise,
    /// `name: Type = <expression>`: a name bound for the children, its
    /// type, and the expression that gives its values.
    Item,
}

/// The value of an [`ArgType::Otherwise`] argument.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Otherwise {
    /// `success`
    Success,
    /// `failure`
    Failure,
    /// `running`
    Running,
    /// `skip`: the parent passes over the node.
    Skip,
}

impl Otherwise {
    /// Every value with its word, in the order messages list them.
    pub const WORDS: &[(&str, Otherwise)] = &[
        ("failure", Otherwise::Failure),
        ("success", Otherwise::Success),
        ("running", Otherwise::Running),
        ("skip", Otherwise::Skip),
    ];
}

/// One argument of a keyword.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// Its name: `success = 2` for a named argument; for a positional one,
    /// the name the messages use.
    pub name: &'static str,
    /// Written without a name, in order.
    pub positional: bool,
    /// Must be given.
    pub required: bool,
    /// What its value must be.
    pub ty: ArgType,
}

pub(crate) const fn positional(name: &'static str, ty: ArgType) -> Param {
    Param {
        name,
        positional: true,
        required: true,
        ty,
    }
}

pub(crate) const fn named(name: &'static str, ty: ArgType) -> Param {
    Param {
        name,
        positional: false,
        required: false,
        ty,
    }
}

/// The arguments of a keyword (or of a guard clause).
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Positional ones first, in order.
    pub list: &'static [Param],
    /// At least one of the (named, optional) arguments must be given.
    pub at_least_one: bool,
    /// How the arguments are written, for messages: `(success = N, failure = M)`.
    pub usage: &'static str,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct KindInfo {
    /// The kind this row describes.
    pub kind: Kind,
    /// The DSL keyword (`leaf` and `subtree` for the two kinds written as
    /// Rust); also the runtime `NodeKind::keyword()`.
    pub keyword: &'static str,
    /// The runtime `NodeKind` variant.
    pub runtime: &'static str,
    /// How it is written.
    pub syntax: Syntax,
    /// What children it takes.
    pub children: Children,
    /// Its arguments.
    pub params: Params,
    /// Reads the time from the tick context.
    pub needs_context: bool,
    /// Keeps its state in the tree's shared state.
    pub needs_shared: bool,
    /// What it keeps there.
    pub shared: Option<Shared>,
    /// `rendezvous(n) as role`: binds a name for its body.
    pub binds: bool,
    /// The status with which a child lets the node go on to its next
    /// child, so that a skipped child can be passed over: `Some(true)`
    /// (Success) for a sequence, `Some(false)` (Failure) for a select.
    pub passes_over: Option<bool>,
    /// How BehaviorTree.CPP XML writes it.
    pub btcpp: Btcpp,
    /// One line of documentation.
    pub doc: &'static str,
}

/// The state a kind keeps in the tree's shared object, one per node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shared {
    /// `bt::shared::Gate`: permits taken.
    Gate,
    /// `bt::shared::GlobalCooldown`: when the node may be entered again.
    Cooldown,
    /// `bt::shared::Rendezvous`: the group meeting there.
    Rendezvous,
}

/// How a kind is written in BehaviorTree.CPP 4 XML.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Btcpp {
    /// A node BT.CPP has, under this name; the views write its ports.
    Builtin(&'static str),
    /// A node of our own, declared in `<TreeNodesModel>` in this category.
    Model(Category),
}

/// The category of a `<TreeNodesModel>` entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Category {
    /// A leaf that acts.
    Action,
    /// A leaf that checks.
    Condition,
    /// A node with several children.
    Control,
    /// A node with one child.
    Decorator,
}

impl Category {
    /// The model element's tag.
    pub fn tag(self) -> &'static str {
        match self {
            Category::Action => "Action",
            Category::Condition => "Condition",
            Category::Control => "Control",
            Category::Decorator => "Decorator",
        }
    }
}

macro_rules! node_kinds {
    ($(
        $variant:ident = $keyword:literal, $syntax:ident, $children:ident, $params:ident,
            [$($need:ident),*], $btcpp:expr, $doc:literal;
    )*) => {
        node_kinds!(@typed [] [] $($variant $syntax $params;)*);

        /// The table, one row per [`Kind`], in the runtime's declaration
        /// order (checked when this crate compiles).
        pub const KINDS: &[KindInfo] = &[$(
            KindInfo {
                kind: Kind::$variant,
                keyword: $keyword,
                runtime: stringify!($variant),
                syntax: Syntax::$syntax,
                children: Children::$children,
                params: <args::$params as args::Read>::PARAMS,
                needs_context: node_kinds!(@has context $($need)*),
                needs_shared: node_kinds!(@has gate $($need)*)
                    || node_kinds!(@has cooldown $($need)*)
                    || node_kinds!(@has meeting $($need)*),
                shared: if node_kinds!(@has gate $($need)*) {
                    Some(Shared::Gate)
                } else if node_kinds!(@has cooldown $($need)*) {
                    Some(Shared::Cooldown)
                } else if node_kinds!(@has meeting $($need)*) {
                    Some(Shared::Rendezvous)
                } else {
                    None
                },
                binds: node_kinds!(@has binds $($need)*),
                passes_over: if node_kinds!(@has on_success $($need)*) {
                    Some(true)
                } else if node_kinds!(@has on_failure $($need)*) {
                    Some(false)
                } else {
                    None
                },
                btcpp: $btcpp,
                doc: $doc,
            },
        )*];
    };
    // Keyword kinds get a variant of `Typed` and a reading arm; the others
    // (written as Rust or as `keyword <expression>`) read no arguments.
    (@typed [$($typed:tt)*] [$($arms:tt)*] $variant:ident Keyword $params:ident; $($rest:tt)*) => {
        node_kinds!(@typed
            [$($typed)* #[doc = concat!("`", stringify!($variant), "`'s arguments.")] $variant(args::$params),]
            [$($arms)* Kind::$variant => Some(|reader| {
                <args::$params as args::Read>::read(reader).map(Typed::$variant)
            }),]
            $($rest)*);
    };
    (@typed [$($typed:tt)*] [$($arms:tt)*] $variant:ident $syntax:ident $params:ident; $($rest:tt)*) => {
        node_kinds!(@typed [$($typed)*] [$($arms)* Kind::$variant => None,] $($rest)*);
    };
    (@typed [$($typed:tt)*] [$($arms:tt)*]) => {
        /// A keyword node's arguments, typed: one variant per kind written
        /// with a keyword, holding the struct its row names.
        ///
        /// Its variants differ in size; the syntax tree boxes it.
        #[derive(Clone)]
        #[allow(clippy::large_enum_variant)]
        pub enum Typed { $($typed)* }

        impl Typed {
            /// Whether the node can let its parent pass over it
            /// (`args::Read::skips`).
            pub fn skips(&self) -> bool {
                node_kinds!(@skips self [$($typed)*])
            }
        }

        /// How `kind`'s arguments are read into its [`Typed`] variant;
        /// `None` for a kind written without a keyword.
        pub fn read_args(kind: Kind) -> Option<args::ReadFn<Typed>> {
            match kind { $($arms)* }
        }
    };
    (@skips $self:ident [$(#[$doc:meta] $variant:ident($params:ty),)*]) => {
        match $self { $(Typed::$variant(args) => args::Read::skips(args),)* }
    };
    (@has $want:ident) => { false };
    (@has context context $($rest:ident)*) => { true };
    (@has gate gate $($rest:ident)*) => { true };
    (@has cooldown cooldown $($rest:ident)*) => { true };
    (@has meeting meeting $($rest:ident)*) => { true };
    (@has binds binds $($rest:ident)*) => { true };
    (@has on_success on_success $($rest:ident)*) => { true };
    (@has on_failure on_failure $($rest:ident)*) => { true };
    (@has $want:ident $other:ident $($rest:ident)*) => { node_kinds!(@has $want $($rest)*) };
}

use crate::args;
use Btcpp::{Builtin, Model};
use Category::{Action, Condition, Control, Decorator};

node_kinds! {
    Sequence = "sequence", Keyword, Many, NoArgs, [on_success], Builtin("Sequence"),
        "Children in order until one fails; resumes at the running child.";
    SequenceWithMemory = "sequence_with_memory", Keyword, Many, NoArgs, [on_success], Builtin("SequenceWithMemory"),
        "A sequence that also resumes at the child that failed, until the sequence succeeds.";
    ReactiveSequence = "reactive_sequence", Keyword, Many, NoArgs, [on_success], Builtin("ReactiveSequence"),
        "Children in order from the first every tick; an earlier child that fails or runs halts the later running one.";
    Select = "select", Keyword, Many, NoArgs, [on_failure], Builtin("Fallback"),
        "Children in order until one succeeds; resumes at the running child.";
    ReactiveSelect = "reactive_select", Keyword, Many, NoArgs, [on_failure], Builtin("ReactiveFallback"),
        "Children in order from the first every tick; an earlier child that succeeds or runs halts the later running one.";
    AsyncSequence = "async_sequence", Keyword, Many, NoArgs, [on_success], Builtin("AsyncSequence"),
        "A sequence that returns Running after a child that succeeded in the tick it started, and goes on with the next child on the next tick.";
    AsyncSelect = "async_select", Keyword, Many, NoArgs, [on_failure], Builtin("AsyncFallback"),
        "A select that returns Running after a child that failed in the tick it started, and goes on with the next child on the next tick.";
    TryCatch = "try_catch", Keyword, ThenLast, NoArgs, [on_success], Builtin("TryCatch"),
        "The children but the last as a sequence; if one fails, the last child runs and then the node fails.";
    IfThenElse = "if_then_else", Keyword, Branches, NoArgs, [], Builtin("IfThenElse"),
        "Runs the condition child once, then the second child if it succeeded, else the third.";
    WhileDoElse = "while_do_else", Keyword, Branches, NoArgs, [], Builtin("WhileDoElse"),
        "Re-checks the condition child every tick; runs the second child while it succeeds, else the third.";
    Parallel = "parallel", Keyword, Many, Parallel, [], Builtin("Parallel"),
        "Ticks every unfinished child; succeeds once `success` children succeeded, fails once `failure` failed.";
    ParallelAll = "parallel_all", Keyword, Many, ParallelAll, [], Builtin("ParallelAll"),
        "Ticks every unfinished child until all finished; fails if `max_failures` of them failed.";
    Invert = "invert", Keyword, One, NoArgs, [], Builtin("Inverter"),
        "Swaps the child's Success and Failure.";
    ForceSuccess = "force_success", Keyword, One, NoArgs, [], Builtin("ForceSuccess"),
        "Success once the child finishes, whatever it returned.";
    ForceFailure = "force_failure", Keyword, One, NoArgs, [], Builtin("ForceFailure"),
        "Failure once the child finishes, whatever it returned.";
    KeepRunningUntilFailure = "keep_running_until_failure", Keyword, One, NoArgs, [], Builtin("KeepRunningUntilFailure"),
        "Running while the child succeeds or runs; Failure once it fails.";
    Repeat = "repeat", Keyword, One, Bound, [], Builtin("Repeat"),
        "Runs the child again after each success, `count` times or `forever`.";
    Retry = "retry", Keyword, One, Bound, [], Builtin("RetryUntilSuccessful"),
        "Runs the child again after each failure, `count` times or `forever`.";
    ForEach = "for_each", Keyword, One, ForEach, [], Model(Decorator),
        "Runs the child once per item the expression gives (`Some`), the item bound for it; `if_empty` (success by default) once it gives `None`.";
    Prioritized = "prioritized", Keyword, Guarded, Redecides, [], Model(Control),
        "Spore's prioritized list: earlier guards interrupt later children.";
    Sequential = "sequential", Keyword, Guarded, Redecides, [], Model(Control),
        "Deciders tried in turn, starting after the one chosen last.";
    Random = "random", Keyword, Guarded, Drawn, [], Model(Control),
        "One accepting decider, chosen at random.";
    Shuffle = "shuffle", Keyword, Guarded, Drawn, [], Model(Control),
        "Each accepting decider once per round, in random order.";
    Scored = "scored", Keyword, Guarded, Redecides, [], Model(Control),
        "The accepting decider with the best score.";
    Scope = "scope", Keyword, One, Scope, [], Model(Decorator),
        "Hooks run on entering, on every tick and on leaving (exit guaranteed).";
    After = "after", Keyword, One, After, [], Model(Decorator),
        "Runs an expression once the child succeeded, failed, finished either way, or was halted.";
    SkipIf = "skip_if", Keyword, One, Skipping, [], Model(Decorator),
        "Before the child starts: if the expression is true, its parent passes over the node.";
    SuccessIf = "success_if", Keyword, One, Expression, [], Model(Decorator),
        "Before the child starts: if the expression is true, Success without ticking it.";
    FailureIf = "failure_if", Keyword, One, Expression, [], Model(Decorator),
        "Before the child starts: if the expression is true, Failure without ticking it.";
    Precondition = "precondition", Keyword, One, Precondition, [], Builtin("Precondition"),
        "Before the child starts: unless the condition holds, `otherwise` (failure by default) without ticking it.";
    RunWhile = "run_while", Keyword, One, Skipping, [], Model(Decorator),
        "Checked before the child starts and every tick it runs: when false, the child is halted and the parent passes over the node.";
    Wait = "wait", Keyword, None, Seconds, [context], Builtin("Sleep"),
        "Running for `seconds` after its first tick, then Success.";
    Timeout = "timeout", Keyword, One, Seconds, [context], Builtin("Timeout"),
        "The child fails, halted, if it runs longer than `seconds`.";
    Delay = "delay", Keyword, One, Seconds, [context], Builtin("Delay"),
        "Running for `seconds`, then the child.";
    Cooldown = "cooldown", Keyword, One, Seconds, [context], Model(Decorator),
        "Fails without ticking the child for `seconds` after it finished.";
    Every = "every", Keyword, One, Seconds, [context], Model(Decorator),
        "Starts the child at most once every `seconds`; fails without ticking it in between.";
    RunOnce = "run_once", Keyword, One, RunOnce, [], Builtin("RunOnce"),
        "Runs the child until it finishes once; later ticks return how it finished, or pass over the node with `then_skip = true`.";
    Gate = "gate", Keyword, One, Gate, [gate], Model(Decorator),
        "At most `capacity` agents inside the child at once.";
    GlobalCooldown = "global_cooldown", Keyword, One, Seconds, [context, cooldown], Model(Decorator),
        "No agent enters the child until `seconds` after any agent finished it.";
    Rendezvous = "rendezvous", Keyword, One, Rendezvous, [meeting, binds], Model(Decorator),
        "Waits until `members` agents joined, then runs the child with each one's role.";
    Sync = "sync", Keyword, None, NoArgs, [], Model(Action),
        "Inside a rendezvous: waits for every member to arrive.";
    Request = "request", Keyword, None, Request, [context], Model(Action),
        "Pushes the request into the stream, then Running until its answer arrives; halting it pushes a cancellation.";
    Monitor = "monitor", Keyword, None, Expression, [], Model(Condition),
        "Like `cond`; when false it is armed, and restarts the tree once it turns true.";
    Switch = "switch", Keyword, Arms, Expression, [], Model(Control),
        "Runs the arm whose pattern matches; halts the previous arm on a change.";
    SwitchEq = "switch_eq", Keyword, Cases, Expression, [], Model(Control),
        "Runs the first arm whose case equals the value (`==`), else the `_` arm; halts the previous arm on a change.";
    Cond = "cond", Expr, None, NoArgs, [], Model(Condition),
        "Success if the `bool` expression is true, Failure if false.";
    Action = "action", Expr, None, NoArgs, [], Model(Action),
        "The `Status` expression, evaluated each tick it is reached.";
    Instant = "instant", Expr, None, NoArgs, [], Model(Action),
        "The `Outcome` expression: an action that finishes in the tick it runs.";
    Leaf = "leaf", Rust, None, NoArgs, [], Model(Action),
        "A stateful leaf type: start, tick and halt, with memory while it runs.";
    Subtree = "subtree", Rust, None, NoArgs, [], Builtin("SubTree"),
        "An embedded tree generated by this macro.";
    Success = "success", Keyword, None, NoArgs, [], Builtin("AlwaysSuccess"),
        "Always Success.";
    Failure = "failure", Keyword, None, NoArgs, [], Builtin("AlwaysFailure"),
        "Always Failure.";
    Running = "running", Keyword, None, NoArgs, [], Model(Action),
        "Always Running.";
}

/// Row `i` of [`KINDS`] describes `NodeKind::ALL[i]`, for every kind: a
/// kind the runtime adds without a row here, or rows out of order, fail
/// this crate's build.
const _: () = {
    assert!(KINDS.len() == Kind::ALL.len(), "one row per NodeKind");
    let mut i = 0;
    while i < KINDS.len() {
        assert!(KINDS[i].kind as usize == i, "rows in NodeKind's order");
        i += 1;
    }
};

/// What the compiler knows of a [`Kind`]: its row of the table.
pub trait Row {
    /// This kind's row of [`KINDS`].
    fn info(self) -> &'static KindInfo;
    /// Decider groups, whose children may have guards.
    fn takes_guards(self) -> bool;
}

impl Row for Kind {
    fn info(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }

    fn takes_guards(self) -> bool {
        self.info().children == Children::Guarded
    }
}

/// The kind a DSL keyword starts, if any.
pub fn from_keyword(word: &str) -> Option<Kind> {
    KINDS
        .iter()
        .find(|k| k.syntax != Syntax::Rust && k.keyword == word)
        .map(|k| k.kind)
}

/// Every word that may start a node.
pub fn keywords() -> impl Iterator<Item = &'static str> {
    KINDS
        .iter()
        .filter(|k| k.syntax != Syntax::Rust)
        .map(|k| k.keyword)
}

/// BehaviorTree.CPP names of kinds this DSL spells otherwise, so that an
/// unknown `fallback` can say what to write.
pub const BTCPP_NAMES: &[(&str, &str)] = &[
    ("fallback", "select"),
    ("reactive_fallback", "reactive_select"),
    ("inverter", "invert"),
    ("retry_until_successful", "retry"),
    ("always_success", "success"),
    ("always_failure", "failure"),
    ("condition", "cond"),
    ("async_fallback", "async_select"),
    ("switch2", "switch_eq"),
    ("switch3", "switch_eq"),
    ("switch4", "switch_eq"),
    ("switch5", "switch_eq"),
    ("switch6", "switch_eq"),
];

/// BehaviorTree.CPP 4.10 nodes that have no keyword of their own here, with
/// what to write instead (or that nothing yet stands for them), so that an
/// unknown `sleep` or `precondition` says so.
pub const BTCPP_SPELLINGS: &[(&str, &str)] = &[
    (
        "sleep",
        "BehaviorTree.CPP's `Sleep` is `wait(seconds)` here, in seconds of the context's time",
    ),
    (
        "loop",
        "BehaviorTree.CPP's `LoopInt`, `LoopDouble`, `LoopString` and `LoopBool` are \
         `for_each(item: Type = <expression>)` here, its expression giving the items \
         (`me.queue.pop_front()`); `repeat(n)` runs a child a number of times",
    ),
];

/// Words that start a guard clause.
pub const GUARD_WORDS: &[&str] = &["when", "score", "every", "flags", "stimuli", "room"];

/// The candidate closest to `word`, if it is close enough to be a typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|&(d, c)| d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_variant_order_and_keywords_unique() {
        for (i, row) in KINDS.iter().enumerate() {
            assert_eq!(row.kind as usize, i, "{}", row.keyword);
            assert_eq!(
                from_keyword(row.keyword).is_some(),
                row.syntax != Syntax::Rust
            );
        }
        let mut words: Vec<&str> = KINDS.iter().map(|k| k.keyword).collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), KINDS.len());
    }

    #[test]
    fn the_runtime_node_kinds_are_the_table() {
        assert_eq!(bt_runtime::NodeKind::ALL.len(), KINDS.len());
        for (runtime, row) in bt_runtime::NodeKind::ALL.iter().zip(KINDS) {
            assert_eq!(format!("{runtime:?}"), row.runtime);
            assert_eq!(runtime.keyword(), row.keyword);
        }
    }

    #[test]
    fn the_dsl_reference_documents_every_keyword() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/reference");
        let mut reference = String::new();
        for entry in std::fs::read_dir(&dir).expect("the reference's modules") {
            let path = entry.expect("a directory entry").path();
            reference += &std::fs::read_to_string(&path).expect("a reference module");
        }
        for word in keywords() {
            assert!(
                reference.contains(&format!("`{word}")),
                "the DSL reference (src/reference) does not mention `{word}`"
            );
        }
    }

    #[test]
    fn needs_come_from_the_rows() {
        assert!(Kind::Wait.info().needs_context && !Kind::Wait.info().needs_shared);
        let cooldown = Kind::GlobalCooldown.info();
        assert!(cooldown.needs_context && cooldown.needs_shared && !cooldown.binds);
        assert!(Kind::Rendezvous.info().binds);
        assert!(!Kind::Sequence.info().needs_context);
    }

    #[test]
    fn typos_find_the_closest_keyword() {
        assert_eq!(closest("sequense", keywords()), Some("sequence"));
        assert_eq!(closest("selekt", keywords()), Some("select"));
        assert_eq!(
            closest("reactive_selct", keywords()),
            Some("reactive_select")
        );
        assert_eq!(closest("fallback", keywords()), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
