//! Static metadata of generated trees, for debuggers and tracing.

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
/// Every generated tree has a table of these, [`BehaviorTree::NODES`], in
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
/// [`BehaviorTree::visit_active`].
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

/// Implemented by the state type of every generated tree.
///
/// The tick and reset entry points are inherent methods of the state type,
/// because their parameters are those of the tree header; this trait carries
/// what every tree shares: its name, node table and state size, and a walk
/// over the nodes an agent is currently running.
pub trait BehaviorTree: Default + Clone + core::fmt::Debug {
    /// The tree's name as written in its header.
    const NAME: &'static str;
    /// The static node table, in depth-first pre-order (the root is `NODES[0]`).
    const NODES: &'static [NodeInfo];
    /// Bytes of per-agent state: `size_of::<Self>()`.
    const STATE_SIZE: usize = core::mem::size_of::<Self>();
    /// The tree's views as the macro computed them, with the views of the
    /// trees it embeds: what [`view`](crate::view) joins into documents and
    /// [`record`](crate::record) lays out.
    const VIEW: &'static crate::view::TreeView<'static>;
    /// The tree as a BehaviorTree.CPP 4 XML file, the form Groot2 opens and
    /// edits: one `<BehaviorTree>` per tree (this one and each tree it
    /// embeds), built-in nodes under their BT.CPP names and ports, and a
    /// `<TreeNodesModel>` entry for every other node. See
    /// [`view`](crate::view) for the mapping.
    const BTCPP_XML: &'static str;
    /// The same XML in BT.CPP's instance form: one `<BehaviorTree>` per
    /// embedded instance with its `_fullpath`, every node with its `_uid`.
    /// It heads `.btlog` files.
    const BTCPP_INSTANCE_XML: &'static str;
    /// The tree as a Mermaid flowchart (`flowchart TD`), as shown in the
    /// type's documentation. Embedded trees are one node each.
    const MERMAID: &'static str;
    /// The tree as a Graphviz `digraph`. Embedded trees are one node each.
    const DOT: &'static str;
    /// A hash of the tree's shape: what a saved state means. A saved state
    /// carries it, and loading a state whose hash differs is refused with a
    /// [`LayoutMismatch`](crate::save::LayoutMismatch). See
    /// [`save`](crate::save) for what changes it (node kinds, order,
    /// labels, counts, leaf types, embedded trees) and what does not
    /// (expressions).
    const LAYOUT_HASH: u64;
    /// The most requests (`Start` messages, see [`request`](crate::request))
    /// one agent pushes in one tick: 1 per `request` node, the maximum over
    /// children that run one after another, the sum over `parallel`
    /// children. 0 for a tree without `request` nodes.
    const MAX_REQUESTS_PER_TICK: usize = 0;

    /// `true` while the agent is inside the tree: some node holds a place to
    /// resume from on the next tick.
    ///
    /// Nodes without memory (`cond`, `action`, constants) are remembered by
    /// their parent, so a tree whose root is such a node is never active.
    fn is_active(&self) -> bool;

    /// Calls `visit` for each node on the active path, parents before
    /// children, with `depth` added to each node's own depth.
    ///
    /// A `parallel` node reports every child that is still running and holds
    /// memory; a `cond` or `action` that returned `Running` is reported when
    /// its parent remembers it as the running child.
    fn visit_active<F: FnMut(ActiveNode)>(&self, depth: usize, visit: &mut F);

    /// Writes the active path, one node per line, indented by depth, as
    /// Spore's `DebugPrintState` does:
    ///
    /// ```text
    /// *0 'root (prioritized) 34.32s
    ///   *1 'guard_nest (prioritized) 34.32s
    ///     *3 'patrol (leaf Patrol) 4.51s
    /// ```
    ///
    /// Each line gives the node id, its label (or source text), its kind,
    /// and for nodes that record it how long it has been active at time
    /// `now`. An agent outside the tree prints `(inactive)`.
    fn print_state<W: core::fmt::Write>(&self, now: f64, out: &mut W) -> core::fmt::Result {
        if !self.is_active() {
            return writeln!(out, "{} (inactive)", Self::NAME);
        }
        let mut result = Ok(());
        self.visit_active(0, &mut |node| {
            if result.is_ok() {
                result = write_active(out, node, now);
            }
        });
        result
    }

    /// The active path as a list, root first.
    #[cfg(feature = "std")]
    fn active_path(&self) -> std::vec::Vec<ActiveNode> {
        let mut path = std::vec::Vec::new();
        self.visit_active(0, &mut |node| path.push(node));
        path
    }
}

/// One line of [`BehaviorTree::print_state`].
fn write_active<W: core::fmt::Write>(out: &mut W, node: ActiveNode, now: f64) -> core::fmt::Result {
    let info = node.info;
    write!(out, "{:indent$}*{} ", "", info.id, indent = 2 * node.depth)?;
    match info.label {
        Some(label) => write!(out, "'{label} ({}", info.kind)?,
        None => write!(out, "({}", info.kind)?,
    }
    if !matches!(info.kind.keyword(), k if info.detail == k) {
        write!(out, " {}", info.detail)?;
    }
    write!(out, ")")?;
    if let Some(since) = node.since {
        write!(out, " {:.2}s", now - since)?;
    }
    writeln!(out)
}

/// How a generated tree is embedded in another as a subtree: its state is
/// split into the part that lives only while it runs (held in the parent's
/// state for the running branch, sharing bytes with the other branches) and
/// the part that outlives activity (cooldowns, `run_once` marks, `every`
/// timers, `sequential` and `shuffle` positions), held in the parent's flat
/// part so it survives the subtree being left and entered again.
///
/// Implemented by every generated tree; used by generated code.
#[doc(hidden)]
pub trait Embed {
    /// State while the tree runs.
    type Active: Default + Clone + core::fmt::Debug;
    /// State that outlives activity.
    type Keep: Default + Clone + core::fmt::Debug;
    /// Both parts, borrowed, with the tree's `tick(..)` as a method.
    type Parts<'a>
    where
        Self: 'a;
    /// Borrows both parts.
    fn parts<'a>(active: &'a mut Self::Active, keep: &'a mut Self::Keep) -> Self::Parts<'a>;
    /// A state made of both parts (how a saved state is loaded).
    fn from_parts(active: Self::Active, keep: Self::Keep) -> Self
    where
        Self: Sized;
    /// Both parts of a state, borrowed (how a state is saved).
    fn split(&self) -> (&Self::Active, &Self::Keep);
    /// Whether the active part holds a running node.
    fn is_active(active: &Self::Active) -> bool;
    /// The active path of the active part.
    fn visit_active<F: FnMut(ActiveNode)>(active: &Self::Active, depth: usize, visit: &mut F);
    /// Checks every value of a loaded active part against what the tree
    /// allows, and reports each permit or rendezvous membership its nodes
    /// (and those of the trees it embeds) hold to `held`, with the node.
    /// Trees without `#[bt(serde)]` cannot be loaded: nothing to check.
    fn check_active(
        active: &Self::Active,
        held: &mut dyn FnMut(&'static NodeInfo, crate::__private::Held),
    ) -> Result<(), crate::save::InvalidState> {
        let _ = (active, held);
        Ok(())
    }
    /// Checks every value of a loaded keep part.
    fn check_keep(keep: &Self::Keep) -> Result<(), crate::save::InvalidState> {
        let _ = keep;
        Ok(())
    }
    /// Saves the active part: a tree without `#[bt(serde)]` refuses. (How
    /// a saved tree saves the trees it embeds: a tree of another
    /// invocation that is not saved is then one error, that it is not
    /// `Saved`, rather than that and serde's derive's on each part.)
    #[cfg(feature = "serde")]
    fn save_active<S: serde::Serializer>(
        active: &Self::Active,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let _ = (active, serializer);
        Err(serde::ser::Error::custom(NotSaved(core::any::type_name::<
            Self,
        >())))
    }
    /// Loads the active part: a tree without `#[bt(serde)]` refuses.
    #[cfg(feature = "serde")]
    fn load_active<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Self::Active, D::Error> {
        let _ = deserializer;
        Err(serde::de::Error::custom(NotSaved(core::any::type_name::<
            Self,
        >())))
    }
    /// Saves the keep part: a tree without `#[bt(serde)]` refuses.
    #[cfg(feature = "serde")]
    fn save_keep<S: serde::Serializer>(
        keep: &Self::Keep,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let _ = (keep, serializer);
        Err(serde::ser::Error::custom(NotSaved(core::any::type_name::<
            Self,
        >())))
    }
    /// Loads the keep part: a tree without `#[bt(serde)]` refuses.
    #[cfg(feature = "serde")]
    fn load_keep<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Self::Keep, D::Error> {
        let _ = deserializer;
        Err(serde::de::Error::custom(NotSaved(core::any::type_name::<
            Self,
        >())))
    }
    /// Hands an answer to the `request` node (of this tree or a tree it
    /// embeds) whose slot holds the ticket's request.
    fn answer(
        keep: &mut Self::Keep,
        ticket: crate::request::Ticket,
        outcome: crate::Outcome,
    ) -> Result<(), crate::request::Stale> {
        let _ = (keep, outcome);
        Err(crate::request::Stale(ticket))
    }
}

/// The error of a tree without `#[bt(serde)]` asked to save or load.
#[cfg(feature = "serde")]
struct NotSaved(&'static str);

#[cfg(feature = "serde")]
impl core::fmt::Display for NotSaved {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "tree `{}` is not saved: it needs `#[bt(serde)]`", self.0)
    }
}
