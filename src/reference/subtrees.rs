//! Subtrees: one tree embedded in another.
//!
//! Another generated tree, from this crate or another, is embedded by
//! calling it with arguments for its bindings: `Patrol(me, speed)`. Its
//! state becomes part of the parent's state, its `tick` is an `#[inline]`
//! call, and it is halted when the parent abandons it. What it remembers
//! across activations (cooldowns, `run_once` marks, `every` timers,
//! `sequential` and `shuffle` positions) sits in the parent's flat part, so
//! it survives the subtree being left and entered again; what it needs only
//! while running shares bytes with the parent's other branches. A subtree
//! with shared nodes takes its own `<Subtree>Shared` like any argument.
//!
//! ```
//! # use bt::prelude::*;
//! behavior_tree! {
//!     tree Healthy(hp: i32) { cond hp > 10 }
//!     tree Fighter(hp: i32, armed: bool) {
//!         sequence { Healthy(hp), cond armed }
//!     }
//! }
//! let mut state = Fighter::default();
//! assert_eq!(state.tick(50, true), Status::Success);
//! assert_eq!(state.tick(5, true), Status::Failure);
//! ```

#[allow(unused_imports)]
use crate::*;
