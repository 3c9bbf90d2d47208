//! Named counts: constants wherever a count is written.
//!
//! Every count and size may be a named constant instead of a literal:
//! `gate(MAX_REPAIRERS)`, `repeat(TRIES)`, `retry(limits::TWICE)`,
//! `parallel(success = NEED, failure = NEED)`, `parallel_all(max_failures
//! = N)`, `rendezvous(PAIR)`, `redecides = BOUND`. The constant is any
//! constant expression of type `u32`: rustc checks the type on its name,
//! and a compile-time assertion its limits (at least 1; a rendezvous at
//! most 255 members; a threshold at most the number of children), each
//! mistake one error on the constant. A literal gives the macro the
//! number, so the state keeps the narrowest counter that holds it and a
//! negative threshold counts from the number of children (`-1` is all); a
//! named count keeps a `u32` counter, and a named threshold counts from 1.
//! The views write a named count as a blackboard entry of its name
//! (`num_cycles="{TRIES}"`), and the reference interpreter (the
//! `interpret` module of `arbortick-compiler`) runs
//! only literal counts.
//!
//! ```
//! # use bt::prelude::*;
//! const MAX_REPAIRERS: u32 = 3;
//! const TRIES: u32 = 2;
//! struct Worker;
//!
//! behavior_tree! {
//!     tree Repair(me: &mut Worker, shared: &RepairShared) {
//!         'bench: gate(MAX_REPAIRERS) { retry(TRIES) { running } }
//!     }
//! }
//! let shared = RepairShared::new();
//! assert_eq!(shared.bench.capacity(), MAX_REPAIRERS);
//! ```

#[allow(unused_imports)]
use crate::*;
