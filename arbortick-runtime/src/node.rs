//! What a node is, statically: its kind ([`NodeKind`]) and its entry of a
//! tree's node table ([`NodeInfo`]), for debuggers, traces and views.

/// How a node's children go back to idle, besides all of them when the
/// node finishes: one column of the kinds' list, read by the recorder.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ChildrenReset {
    /// A child that finished stays so until the node finishes (and a leaf,
    /// which has no children).
    Keep,
    /// As `Keep`, but failing keeps the children that succeeded: the node
    /// resumes after them (`sequence_with_memory`).
    Memory,
    /// A child that finished goes back to idle at once.
    One,
    /// A child that runs returns the others to idle.
    Reactive,
    /// Entering a child returns the others to idle.
    Exclusive,
    /// Entering the second or third child returns the other one to idle.
    Branches,
    /// As `Keep`, and entering the last child returns the others to idle
    /// (`try_catch`: the try children are reset before the catch runs).
    Catch,
}

/// Declares [`NodeKind`], its [`ALL`](NodeKind::ALL) list, its keywords
/// and how each kind's children go back to idle, from one list. The compiler's node-kind table has one row per
/// variant, in this order (its build checks it): the compiler, the
/// interpreter, the recorder and the views all name kinds by this enum.
macro_rules! node_kinds {
    ($($(#[doc = $doc:literal])* $variant:ident = $keyword:literal, $reset:ident;)*) => {
        /// What kind of node a [`NodeInfo`] describes. Mirrors the DSL keywords.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum NodeKind {
            $($(#[doc = $doc])* $variant,)*
        }

        impl NodeKind {
            /// Every kind, in the order of the node-kind table.
            pub const ALL: &'static [NodeKind] = &[$(NodeKind::$variant),*];

            /// The DSL keyword of this kind (`"leaf"` and `"subtree"` for the
            /// two kinds written as Rust paths).
            pub const fn keyword(self) -> &'static str {
                match self {
                    $(NodeKind::$variant => $keyword,)*
                }
            }

            /// How this kind's children go back to idle, as BehaviorTree.CPP
            /// resets them: what the recorder follows.
            #[doc(hidden)]
            pub const fn children_reset(self) -> ChildrenReset {
                match self {
                    $(NodeKind::$variant => ChildrenReset::$reset,)*
                }
            }
        }
    };
}

node_kinds! {
    /// `sequence { .. }`
    Sequence = "sequence", Keep;
    /// `sequence_with_memory { .. }`: a sequence that resumes at the child that failed
    SequenceWithMemory = "sequence_with_memory", Memory;
    /// `reactive_sequence { .. }`
    ReactiveSequence = "reactive_sequence", Reactive;
    /// `select { .. }`
    Select = "select", Keep;
    /// `reactive_select { .. }`
    ReactiveSelect = "reactive_select", Reactive;
    /// `async_sequence { .. }`: a sequence that returns `Running` after a child finished in the tick it started
    AsyncSequence = "async_sequence", Keep;
    /// `async_select { .. }`: a select that returns `Running` after a child finished in the tick it started
    AsyncSelect = "async_select", Keep;
    /// `try_catch { try.., catch }`: the children but the last as a sequence; if one fails, the last
    TryCatch = "try_catch", Catch;
    /// `if_then_else { condition, then, else }`
    IfThenElse = "if_then_else", Keep;
    /// `while_do_else { condition, do, else }`
    WhileDoElse = "while_do_else", Branches;
    /// `parallel(success = N, failure = M) { .. }`
    Parallel = "parallel", Keep;
    /// `parallel_all(max_failures = N) { .. }`
    ParallelAll = "parallel_all", Keep;
    /// `invert { .. }`
    Invert = "invert", One;
    /// `force_success { .. }`
    ForceSuccess = "force_success", One;
    /// `force_failure { .. }`
    ForceFailure = "force_failure", One;
    /// `keep_running_until_failure { .. }`
    KeepRunningUntilFailure = "keep_running_until_failure", One;
    /// `repeat(n) { .. }` or `repeat(forever) { .. }`
    Repeat = "repeat", One;
    /// `retry(n) { .. }` or `retry(forever) { .. }`
    Retry = "retry", One;
    /// `for_each(item: T = <Option<T> expression>) { .. }`: the child once per item
    ForEach = "for_each", One;
    /// `prioritized { guard => child, .. }` (Spore's prioritized list)
    Prioritized = "prioritized", Exclusive;
    /// `sequential { .. }`: deciders chosen in turn
    Sequential = "sequential", Exclusive;
    /// `random(rng) { .. }`: deciders chosen at random
    Random = "random", Exclusive;
    /// `shuffle(rng) { .. }`: each decider once, in random order, per round
    Shuffle = "shuffle", Exclusive;
    /// `scored { score .. => child, .. }`: the best score wins
    Scored = "scored", Exclusive;
    /// `scope(enter = .., tick = .., exit = ..) { .. }`
    Scope = "scope", One;
    /// `after(success = .., failure = .., finished = .., halted = ..) { .. }`
    After = "after", One;
    /// `skip_if(<bool>) { .. }`
    SkipIf = "skip_if", One;
    /// `success_if(<bool>) { .. }`
    SuccessIf = "success_if", One;
    /// `failure_if(<bool>) { .. }`
    FailureIf = "failure_if", One;
    /// `precondition(<bool>, otherwise = ..) { .. }`: BehaviorTree.CPP's `Precondition`
    Precondition = "precondition", One;
    /// `run_while(<bool>) { .. }`
    RunWhile = "run_while", One;
    /// `wait(seconds)`
    Wait = "wait", Keep;
    /// `timeout(seconds) { .. }`
    Timeout = "timeout", One;
    /// `delay(seconds) { .. }`
    Delay = "delay", One;
    /// `cooldown(seconds) { .. }`
    Cooldown = "cooldown", One;
    /// `every(seconds) { .. }`
    Every = "every", One;
    /// `run_once { .. }`
    RunOnce = "run_once", One;
    /// `gate(n) { .. }`
    Gate = "gate", One;
    /// `global_cooldown(seconds) { .. }`
    GlobalCooldown = "global_cooldown", One;
    /// `rendezvous(n) as role { .. }`
    Rendezvous = "rendezvous", One;
    /// `sync`
    Sync = "sync", Keep;
    /// `request(stream, <request>)`, see [`request`](crate::request).
    Request = "request", Keep;
    /// `monitor(<bool>)`
    Monitor = "monitor", Keep;
    /// `switch(<expr>) { PATTERN => .., .. }`
    Switch = "switch", Exclusive;
    /// `switch_eq(value) { case => .., _ => .. }`: the arm whose case equals the value
    SwitchEq = "switch_eq", Exclusive;
    /// `cond <bool expression>`
    Cond = "cond", Keep;
    /// `action <Status expression>`
    Action = "action", Keep;
    /// `instant <Outcome expression>`: an action that finishes in the tick
    /// it runs.
    Instant = "instant", Keep;
    /// A stateful leaf type (`MoveTo { .. }`), see [`Leaf`](crate::Leaf).
    Leaf = "leaf", Keep;
    /// An embedded tree (`Patrol(me)`).
    Subtree = "subtree", One;
    /// `success`
    Success = "success", Keep;
    /// `failure`
    Failure = "failure", Keep;
    /// `running`
    Running = "running", Keep;
}

impl core::fmt::Display for NodeKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.keyword())
    }
}

/// Static description of one node of a generated tree.
///
/// Every generated tree has a table of these, [`BehaviorTree::NODES`](crate::BehaviorTree::NODES), in
/// depth-first pre-order: the root is node 0 and `id` is the index in the
/// table. Ids are stable as long as the tree's text is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    /// Name of the tree this node belongs to.
    pub tree: &'static str,
    /// Index of this node in its tree's node table.
    pub id: usize,
    /// The node's kind.
    pub kind: NodeKind,
    /// The node's label (`'name: node` in the DSL), without the quote.
    pub label: Option<&'static str>,
    /// Id of the parent node; `None` for the root.
    pub parent: Option<usize>,
    /// Distance from the root (the root has depth 0).
    pub depth: usize,
    /// 1-based source line of the node's first token.
    pub line: u32,
    /// 1-based source column of the node's first token.
    pub column: u32,
    /// Source text of the node's head: the expression of a `cond` or
    /// `action`, the leaf literal, the subtree call, or the keyword with its
    /// arguments for composites and decorators.
    pub detail: &'static str,
    /// Source text of the node's guard when it is a child of a decider
    /// group (`when me.hp < 20.0`, `else`); `None` otherwise.
    pub guard: Option<&'static str>,
    /// Whether the node can return `Running` (a `cond` or an `instant`
    /// cannot, nor a composite of such). A node hook's `Running` for a node
    /// that cannot run is ignored.
    pub can_run: bool,
}

impl NodeInfo {
    /// The label if there is one, otherwise the node's [`detail`](Self::detail).
    pub fn name(&self) -> &'static str {
        self.label.unwrap_or(self.detail)
    }
}

/// One entry of an agent's active path, as reported by
/// [`BehaviorTree::visit_active`](crate::BehaviorTree::visit_active).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActiveNode {
    /// The node.
    pub info: &'static NodeInfo,
    /// Depth in the whole tree, counting the nodes of enclosing trees when
    /// the node sits in an embedded subtree.
    pub depth: usize,
    /// When the node became active, for nodes that record it: children of
    /// decider groups and `scope`s (in trees with a tick context), and
    /// `wait`, `timeout` and `delay`.
    pub since: Option<f64>,
}
