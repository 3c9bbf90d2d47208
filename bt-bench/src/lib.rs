//! Benchmarks of `behavior_tree!` against hand-written Rust, bonsai-bt,
//! bhv and a boxed `dyn Node` tree, on the same reference trees, leaves and
//! scripted loads.
//!
//! `cargo bench -p bt-bench` measures everything and rewrites
//! `BENCHMARKS.md`; `cargo test -p bt-bench` proves the implementations
//! agree before anything is timed.

pub mod alloc;
pub mod asm;
pub mod bevy;
pub mod codegen;
pub mod decider;
pub mod dyn_tree;
pub mod futures;
pub mod hand;
pub mod harness;
pub mod interpreted;
pub mod ours;
pub mod peers;
pub mod report;
pub mod saved;
pub mod spec;
pub mod world;
