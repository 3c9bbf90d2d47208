//! The traits every generated tree implements: [`BehaviorTree`], what a
//! tree is to its users (name, node table, views, active path, layout
//! hash), and [`Embed`], how trees embed and save one another.

use crate::loading::InvalidState;
use crate::node::{ActiveNode, NodeInfo};
use crate::request::{Stale, Ticket};
use crate::shared::Held;
use crate::status::Outcome;
use crate::view::TreeView;

/// Implemented by the state type of every generated tree.
///
/// The tick and reset entry points are inherent methods of the state type,
/// because their parameters are those of the tree header; this trait carries
/// what every tree shares: its name, node table and state size, and a walk
/// over the nodes an agent is currently running.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tree declared with `behavior_tree!`",
    label = "not a tree"
)]
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
    const VIEW: &'static TreeView<'static>;
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is called as a subtree, but is not a tree declared with `behavior_tree!`",
    label = "not a tree",
    note = "a subtree call `Name(args)` names a tree; a stateful leaf is written with braces, `Name {{ field: value }}` (a leaf that is a tuple struct needs a named field)"
)]
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
        held: &mut dyn FnMut(&'static NodeInfo, Held),
    ) -> Result<(), InvalidState> {
        let _ = (active, held);
        Ok(())
    }
    /// Checks every value of a loaded keep part.
    fn check_keep(keep: &Self::Keep) -> Result<(), InvalidState> {
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
    fn answer(keep: &mut Self::Keep, ticket: Ticket, outcome: Outcome) -> Result<(), Stale> {
        let _ = (keep, outcome);
        Err(Stale(ticket))
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

/// Streams sized for a tree: here, beside [`BehaviorTree`], so that the
/// request module stays below the tree traits.
#[cfg(feature = "std")]
impl<R> crate::request::Requests<R> {
    /// A stream for one tick of `agents` agents of tree `T`, drained every
    /// tick: room for `2 * T::MAX_REQUESTS_PER_TICK` messages per agent
    /// (requests, and as many cancellations).
    pub fn for_agents<T: BehaviorTree>(agents: usize) -> Self {
        Self::with_capacity(agents.saturating_mul(2 * T::MAX_REQUESTS_PER_TICK))
    }
}
