//! The tree header: bindings, what a tree generates, size limits.
//!
//! `behavior_tree!` takes one or more trees. Each reads like a function
//! signature: `[vis] tree Name(binding: Type, ...) { root }`, with doc
//! comments and attributes before it. The bindings are what the tree's
//! expressions see, and become the parameters of the generated `tick`
//! method (and of `reset`, those halting uses). Give them reference or
//! `Copy` types: `tick` passes them on to halting code and subtrees.
//!
//! For a tree `Name`, the macro generates:
//! - `struct Name`, the per-agent state: `Default` (an agent that has not
//!   started), `Clone`, `Debug`; no heap, no `Box`, no `Vec`;
//! - `Name::tick(&mut self, bindings..) -> Status`: one tick from the root;
//! - `Name::reset(&mut self, bindings..)`: halts whatever is running
//!   (deepest first) and leaves the state as new, for an agent that leaves
//!   the tree (dies, despawns, switches trees); it takes only the bindings
//!   halting uses ([which](super::halting#resetting));
//! - an impl of [`BehaviorTree`]: the name, the static node table
//!   ([`NodeInfo`]: id, kind, label, parent, depth, source line), the state
//!   size, and a walk over the active path.
//!
//! A crate that re-exports `bt` under another path (an engine's plugin
//! crate, say) tells the macro where to find it with an attribute on the
//! tree: `#[bt(crate = my_engine::bt)] pub tree Guard(..) { .. }`. Generated
//! code then names only that path.
//!
//! **Size limits.** A tree may be as wide as you like (a composite with
//! thousands of children compiles; `parallel`, `parallel_all` and decider
//! groups take up to 128), and up to 100 nodes deep: each level nests a
//! state type, and rustc lays out types only as deep as the crate's
//! `recursion_limit` (128 by default) allows. For deeper trees raise both,
//! the crate's limit and the tree's: `#![recursion_limit = "256"]` at the
//! crate root and `#[bt(recursion_limit = 256)]` on the tree allow nodes
//! `limit - 28` deep, up to a limit of 328 (300 deep). The macro's time and
//! output grow linearly with the number of nodes, whatever the shape, and so
//! does rustc's: a node with 64 or more nodes below it is compiled as a
//! function of its own, and a composite with more than 32 children runs
//! them in functions of 32, so no function grows with the tree (numbers for
//! 1,000 to 5,000-node trees in the repository's `bt-bench/BENCHMARKS-compile.md`).
//!
//! Every tick starts at the root. A node returns [`Status::Success`],
//! [`Status::Failure`] or [`Status::Running`]; a node that returned
//! `Running` is resumed on the next tick where it stopped.

#[allow(unused_imports)]
use crate::*;
