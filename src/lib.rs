//! Behavior trees compiled by a macro into plain Rust.
//!
//! [`behavior_tree!`] turns a tree written inline in your source into one
//! tick function of nested labeled blocks (no recursion, no allocation, no
//! dynamic dispatch, no node table walked at run time) plus a small per-agent
//! state type. Thousands of agents share the code; each holds only its state,
//! a few bytes whose size is a compile-time constant. A malformed tree is a
//! compile error on the token to change.
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Guard { sees_enemy: bool, swings: u32 }
//!
//! behavior_tree! {
//!     /// Attack what is visible, otherwise idle.
//!     pub tree Small(me: &mut Guard) {
//!         select {
//!             sequence { cond me.sees_enemy, action { me.swings += 1; Status::Success } },
//!             action Status::Running,
//!         }
//!     }
//! }
//!
//! let mut agents: Vec<(Guard, Small)> = (0..1000)
//!     .map(|i| (Guard { sees_enemy: i % 2 == 0, swings: 0 }, Small::default()))
//!     .collect();
//! for (guard, state) in &mut agents {
//!     state.tick(guard);
//! }
//! assert_eq!(agents.iter().map(|(g, _)| g.swings).sum::<u32>(), 500);
//! assert!(Small::STATE_SIZE <= 1);
//! ```
//!
//! [`example_generated`] shows the API a tree gets: its state type with
//! `tick`, `try_tick` and `reset`, its shared state, and its
//! [`BehaviorTree`] impl.
//!
//! # Reference
//!
//! The DSL and everything a compiled tree gives you is documented in
//! [`reference`](mod@reference), one topic per module:
//!
//! - [The tree header](reference::header)
//! - [Leaves](reference::leaves)
//! - [Composites](reference::composites)
//! - [Decorators](reference::decorators)
//! - [Subtrees](reference::subtrees)
//! - [Named counts](reference::named_counts)
//! - [Labels and metadata](reference::labels)
//! - [Deciding, Spore style](reference::deciding)
//! - [The tick context](reference::context)
//! - [Scopes and time nodes](reference::scopes_and_time)
//! - [Debugging](reference::debugging)
//! - [Views and recording](reference::views_and_recording)
//! - [Synchronized trees](reference::synchronized)
//! - [Ticking many agents](reference::many_agents)
//! - [Deferred requests](reference::requests)
//! - [Future leaves](reference::futures)
//! - [BehaviorTree.CPP's catalog](reference::btcpp_catalog)
//! - [Saving, loading and replaying](reference::saving)
//! - [Bevy components and reflection](reference::bevy)
//! - [State layout](reference::state_layout)
//! - [Halting and resetting](reference::halting)
//! - [Testing trees](reference::testing)
//! - [Errors](reference::errors)
//!
//! Recipes that combine them, each a doctest, are in the [`cookbook`].
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

pub use bt_macros::behavior_tree;
pub use bt_runtime::*;

#[cfg(any(doc, test))]
pub mod example_generated;

pub mod cookbook;
#[cfg(feature = "hot-reload")]
#[cfg_attr(docsrs, doc(cfg(feature = "hot-reload")))]
pub mod hot;
pub mod reference;

/// The node of a tree labelled `'label`, as `&'static NodeInfo`, checked
/// at compile time: a label the tree does not have is a compile error on
/// the label. For the hooks of [`testing`], which also take a label as a
/// string (checked when the test runs).
///
/// ```
/// use bt::prelude::*;
/// behavior_tree! {
///     tree Guard(me: &mut bool) { 'watch: cond *me }
/// }
/// let watch: &'static bt::NodeInfo = bt::node!(Guard, 'watch);
/// assert_eq!((watch.id, watch.label), (0, Some("watch")));
/// ```
///
/// ```compile_fail
/// # use bt::prelude::*;
/// # behavior_tree! {
/// #     tree Guard(me: &mut bool) { 'watch: cond *me }
/// # }
/// let typo = bt::node!(Guard, 'wacth); // no such label
/// ```
#[macro_export]
macro_rules! node {
    ($tree:ty, $label:lifetime) => {
        $crate::__node!($crate, $tree, $label)
    };
}

#[doc(hidden)]
pub use bt_macros::__node;

/// The names most code needs: `use bt::prelude::*;`.
pub mod prelude {
    pub use crate::{BehaviorTree, Ctx, Leaf, NodeKind, Outcome, Status, behavior_tree};
}

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
