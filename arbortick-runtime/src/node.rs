//! What a node is, statically: its kind ([`NodeKind`]) and its entry of a
//! tree's node table ([`NodeInfo`]), for debuggers, traces and views.

/// Declares [`NodeKind`], its [`ALL`](NodeKind::ALL) list and its
/// keywords from one list. The compiler's node-kind table has one row per
/// variant, in this order (its build checks it): the compiler, the
/// interpreter, the recorder and the views all name kinds by this enum.
macro_rules! node_kinds {
    ($($(#[doc = $doc:literal])* $variant:ident = $keyword:literal;)*) => {
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
        }
    };
}

node_kinds! {
    /// `sequence { .. }`
    Sequence = "sequence";
    /// `sequence_with_memory { .. }`: a sequence that resumes at the child that failed
    SequenceWithMemory = "sequence_with_memory";
    /// `reactive_sequence { .. }`
    ReactiveSequence = "reactive_sequence";
    /// `select { .. }`
    Select = "select";
    /// `reactive_select { .. }`
    ReactiveSelect = "reactive_select";
    /// `async_sequence { .. }`: a sequence that returns `Running` after a child finished in the tick it started
    AsyncSequence = "async_sequence";
    /// `async_select { .. }`: a select that returns `Running` after a child finished in the tick it started
    AsyncSelect = "async_select";
    /// `try_catch { try.., catch }`: the children but the last as a sequence; if one fails, the last
    TryCatch = "try_catch";
    /// `if_then_else { condition, then, else }`
    IfThenElse = "if_then_else";
    /// `while_do_else { condition, do, else }`
    WhileDoElse = "while_do_else";
    /// `parallel(success = N, failure = M) { .. }`
    Parallel = "parallel";
    /// `parallel_all(max_failures = N) { .. }`
    ParallelAll = "parallel_all";
    /// `invert { .. }`
    Invert = "invert";
    /// `force_success { .. }`
    ForceSuccess = "force_success";
    /// `force_failure { .. }`
    ForceFailure = "force_failure";
    /// `keep_running_until_failure { .. }`
    KeepRunningUntilFailure = "keep_running_until_failure";
    /// `repeat(n) { .. }` or `repeat(forever) { .. }`
    Repeat = "repeat";
    /// `retry(n) { .. }` or `retry(forever) { .. }`
    Retry = "retry";
    /// `for_each(item: T = <Option<T> expression>) { .. }`: the child once per item
    ForEach = "for_each";
    /// `prioritized { guard => child, .. }` (Spore's prioritized list)
    Prioritized = "prioritized";
    /// `sequential { .. }`: deciders chosen in turn
    Sequential = "sequential";
    /// `random(rng) { .. }`: deciders chosen at random
    Random = "random";
    /// `shuffle(rng) { .. }`: each decider once, in random order, per round
    Shuffle = "shuffle";
    /// `scored { score .. => child, .. }`: the best score wins
    Scored = "scored";
    /// `scope(enter = .., tick = .., exit = ..) { .. }`
    Scope = "scope";
    /// `after(success = .., failure = .., finished = .., halted = ..) { .. }`
    After = "after";
    /// `skip_if(<bool>) { .. }`
    SkipIf = "skip_if";
    /// `success_if(<bool>) { .. }`
    SuccessIf = "success_if";
    /// `failure_if(<bool>) { .. }`
    FailureIf = "failure_if";
    /// `precondition(<bool>, otherwise = ..) { .. }`: BehaviorTree.CPP's `Precondition`
    Precondition = "precondition";
    /// `run_while(<bool>) { .. }`
    RunWhile = "run_while";
    /// `wait(seconds)`
    Wait = "wait";
    /// `timeout(seconds) { .. }`
    Timeout = "timeout";
    /// `delay(seconds) { .. }`
    Delay = "delay";
    /// `cooldown(seconds) { .. }`
    Cooldown = "cooldown";
    /// `every(seconds) { .. }`
    Every = "every";
    /// `run_once { .. }`
    RunOnce = "run_once";
    /// `gate(n) { .. }`
    Gate = "gate";
    /// `global_cooldown(seconds) { .. }`
    GlobalCooldown = "global_cooldown";
    /// `rendezvous(n) as role { .. }`
    Rendezvous = "rendezvous";
    /// `sync`
    Sync = "sync";
    /// `request(stream, <request>)`, see [`request`](crate::request).
    Request = "request";
    /// `monitor(<bool>)`
    Monitor = "monitor";
    /// `switch(<expr>) { PATTERN => .., .. }`
    Switch = "switch";
    /// `switch_eq(value) { case => .., _ => .. }`: the arm whose case equals the value
    SwitchEq = "switch_eq";
    /// `cond <bool expression>`
    Cond = "cond";
    /// `action <Status expression>`
    Action = "action";
    /// `instant <Outcome expression>`: an action that finishes in the tick
    /// it runs.
    Instant = "instant";
    /// A stateful leaf type (`MoveTo { .. }`), see [`Leaf`](crate::Leaf).
    Leaf = "leaf";
    /// An embedded tree (`Patrol(me)`).
    Subtree = "subtree";
    /// `success`
    Success = "success";
    /// `failure`
    Failure = "failure";
    /// `running`
    Running = "running";
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
