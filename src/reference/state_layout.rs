//! State layout: what an agent's state holds, and its size.
//!
//! Only the active path has memory. A `sequence`, `select` or reactive node
//! stores an enum whose variant is the running child and holds that child's
//! state, so exclusive branches share bytes: the size is the largest branch,
//! not the sum. A stateful leaf in such a variant is stored as its memory
//! alone, and so is a node that runs exactly when one leaf below it runs: an
//! `invert`, `force_success` or `force_failure` over it, or a sequence or
//! select of up to 16 nodes whose only child that can run leads to it. The
//! variant says by itself that they run, so there is no tag of theirs to
//! store or test. A `parallel` stores which children succeeded, which failed
//! (only when failures add up over ticks: not with the default `failure = 1`,
//! where the first failure ends it) and the state of each child; such a leaf
//! or node among its children is again the memory alone, with one bit of a
//! `running` mask. A `sequence`, `select` or reactive node among its children
//! whose children with state are all memories of one leaf type (the leaf, or
//! a node that is its memory) needs no enum of its own either: the parallel
//! stores which branch runs in a one-byte tag and one memory beside it, as
//! two of its own fields, so the tag fills the parallel's padding instead of
//! taking a word in an enum. `repeat`/`retry` store a count, in the smallest
//! integer that holds `n`. A subtree of nodes that never return `Running`
//! stores nothing; an [`instant`](super::leaves#instant-actions) never does.
//!
//! Rust folds an enum's tag into a spare value of its data when it has one,
//! so a leaf memory with a niche saves the tag: ticks left that are never 0
//! while the leaf runs, kept in a `NonZeroU32`, make a `select` between that
//! leaf and `instant`s or conditions 4 bytes, the memory alone, with "not
//! running" as its 0 (the `Niche` leaf of `tests/nodes.rs`).
//!
//! ```
//! # use bt::prelude::*;
//! /// Walks for a number of ticks: its memory is the ticks left.
//! struct Walk;
//! impl Leaf<[bool; 3]> for Walk {
//!     type Memory = u32;
//!     fn start(&self, left: &mut u32, _: &mut [bool; 3]) -> Status {
//!         *left = 3;
//!         Status::Running
//!     }
//!     fn tick(&self, left: &mut u32, _: &mut [bool; 3]) -> Status {
//!         *left -= 1;
//!         if *left == 0 { Status::Success } else { Status::Running }
//!     }
//! }
//!
//! behavior_tree! {
//!     tree Patrol(seen: &mut [bool; 3]) {
//!         reactive_select {
//!             reactive_sequence { cond seen[0], invert { cond seen[1] }, Walk },
//!             reactive_sequence { cond seen[2], force_success { Walk } },
//!             Walk,
//!         }
//!     }
//! }
//!
//! // One tag for the running branch, and one walker's ticks left.
//! assert_eq!(Patrol::STATE_SIZE, 8);
//!
//! behavior_tree! {
//!     tree Guard(seen: &mut [bool; 3]) {
//!         parallel {
//!             force_success { Walk },
//!             sequence { cond seen[0], Walk },
//!         }
//!     }
//! }
//!
//! // Two walkers' ticks left, and one byte each for the children that
//! // succeeded and for those that run.
//! assert_eq!(Guard::STATE_SIZE, 4 + 4 + 1 + 1 + 2 /* padding */);
//!
//! behavior_tree! {
//!     tree Lookout(seen: &mut [bool; 3]) {
//!         parallel {
//!             force_success { Walk },
//!             reactive_select {
//!                 reactive_sequence { cond seen[0], Walk },
//!                 reactive_sequence { cond seen[1], invert { Walk } },
//!                 Walk,
//!             },
//!         }
//!     }
//! }
//!
//! // Two walkers' ticks left (the looking one's and the running branch's),
//! // the two masks, and a byte for which branch runs: an enum holding the
//! // branch's walker would have taken 8 bytes where the tag and the second
//! // walker take 5.
//! assert_eq!(Lookout::STATE_SIZE, 4 + 4 + 1 + 1 + 1 + 1 /* padding */);
//! ```

#[allow(unused_imports)]
use crate::*;
