//! Bevy components and reflection.
//!
//! Attributes other than `#[bt(..)]` on a tree go to its state type, so
//! `#[derive(Component)]` makes the state a Bevy component. With the
//! `bevy_reflect` feature, a tree that says `#[bt(reflect)]` gets Bevy's
//! `Reflect` on its state and on every type inside it, so that
//! inspectors and the Bevy Remote Protocol show which nodes run: each
//! composite that remembers a running child is an enum whose variant `N<k>`
//! is node `k` of [`BehaviorTree::NODES`]. Stateful leaves' memories must
//! implement `Reflect` too (rustc says so on the leaf), and embedded trees
//! say `#[bt(reflect)]` as well. The derive finds `bevy_reflect` the way
//! Bevy's own derives do: `bevy` or `bevy_reflect` must be a dependency of
//! your crate. The `arbortick-bevy` crate ticks such trees in a plugin.

#[allow(unused_imports)]
use crate::*;
