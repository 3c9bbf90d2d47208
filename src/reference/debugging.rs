//! Debugging: the active path, traces and the tracer.
//!
//! [`BehaviorTree::print_state`] writes an agent's active path, one node per
//! line with its id, label, kind and how long it has been active (Spore's
//! `DebugPrintState`):
//!
//! ```text
//! *0 'root (prioritized)
//!   *2 'guard_nest (scope ..) 34.32s
//!     *6 'patrol (leaf Patrol { .. }) 4.51s
//! ```
//!
//! Time nodes (`wait`, `timeout`, `delay`) know when they started, since
//! their semantics need it. Decider groups and scopes only remember when
//! they activated if the tree asks for it with `#[bt(activation_times)]`
//! (its header needs a context, whose `now` they store): each running
//! child of a group then carries an `f64`, shown by `print_state` and in
//! the level-4 `Continue` event (`active_for`). Without the attribute
//! those lines have no time, and a decider's state is its active child's
//! tag and state alone (one byte for four stateless children, instead of
//! sixteen):
//!
//! ```
//! # use bt::prelude::*;
//! use bt::NoFlags;
//! behavior_tree! {
//!     #[bt(activation_times)]
//!     tree Timed(cx: &Ctx) { prioritized { 'idle: else => running } }
//!     tree Plain(cx: &Ctx) { prioritized { 'idle: else => running } }
//! }
//! let (mut timed, mut plain) = (Timed::default(), Plain::default());
//! timed.tick(&Ctx::new(1.0, 0.1));
//! plain.tick(&Ctx::new(1.0, 0.1));
//! let (mut a, mut b) = (String::new(), String::new());
//! timed.print_state(3.5, &mut a).unwrap();
//! plain.print_state(3.5, &mut b).unwrap();
//! assert_eq!(a, "*0 (prioritized)\n  *1 'idle (running) 2.50s\n");
//! assert_eq!(b, "*0 (prioritized)\n  *1 'idle (running)\n");
//! assert_eq!((Timed::STATE_SIZE, Plain::STATE_SIZE), (16, 1));
//! ```
//!
//! Trace output goes through the context's trace hook ([`Trace`]), at
//! Spore's five levels: 1 activations, 2 endings, interrupts and failed
//! groups, 3 tick start and end, 4 every continued child, 5 every guard's
//! verdict; level 6 adds the status every node returns (for recorders, see
//! [Views and recording](super::views_and_recording)). [`Tracer`] sends events up to a level, of all agents or one, to
//! a closure. To allow tracing, declare the context as `&Ctx<D, S, impl
//! bt::Trace>`: each context type gets its own compiled `tick`, and with
//! the default [`NoTrace`] every trace point compiles to nothing. An agent
//! the hook wants nothing of (level 0 and no statuses, or a [`Tracer`]
//! filtered to another agent) is ticked through that same `NoTrace` code
//! ([`Ctx::quiet`]), so a tracer that is attached but quiet costs one check
//! per tick.
//!
//! ```
//! # use bt::prelude::*;
//! use bt::{NoFlags, Trace, Tracer};
//! behavior_tree! {
//!     tree T(cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//!         prioritized { 'idle: else => wait(1) }
//!     }
//! }
//! let lines = std::cell::RefCell::new(Vec::new());
//! let tracer = Tracer::new(1, |e: &bt::TraceEvent| lines.borrow_mut().push(e.to_string()));
//! let mut t = T::default();
//! t.tick(&Ctx::new(0.5, 0.1).agent(4).trace(&tracer));
//! t.tick(&Ctx::new(0.6, 0.1));               // untraced: no trace code runs
//! assert_eq!(lines.take(), ["BT(1) agent 4 @ 0.500: activating 'idle (n1 wait) in n0 prioritized"]);
//! let mut state = String::new();
//! t.print_state(0.75, &mut state).unwrap();
//! assert_eq!(state, "*0 (prioritized)\n  *1 'idle (wait wait(1)) 0.25s\n");
//! ```
//!
//! ## Into `tracing`
//!
//! With the `tracing` feature, [`ToTracing`](crate::trace::ToTracing) is a
//! trace hook that turns each event into an event of the `tracing` crate
//! (target `arbortick`; levels 1 and 2 at `DEBUG`, the others at `TRACE`),
//! with the agent, the node's tree, id, kind and label, and the status,
//! child or guard verdict as fields: `tracing-subscriber`'s formatters and
//! every tool built on `tracing` show trees. The subscriber filters: a tick
//! builds no event it would drop, and with the target filtered out a tick
//! costs one check of `tracing`'s global level (`bt-bench`'s
//! `BENCHMARKS-deciders.md`, row `bt-tracing-filtered-out`).
//!
//! ```
//! # #[cfg(feature = "tracing")] {
//! use bt::prelude::*;
//! use bt::trace::{ToTracing, ENDINGS};
//! use bt::{NoFlags, Trace};
//! behavior_tree! {
//!     tree T(cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//!         prioritized { 'idle: else => wait(1) }
//!     }
//! }
//! // Activations, endings and interrupts of every agent, at DEBUG.
//! let hook = ToTracing::new(ENDINGS);
//! T::default().tick(&Ctx::new(0.5, 0.1).agent(4).trace(hook));
//! # }
//! ```
//!
//! ## Live, in Groot2
//!
//! The `arbortick-groot` crate serves Groot2's live monitor protocol from
//! a running program, as such a hook: Groot2 shows one agent's tree with
//! its statuses, and sets breakpoints and replacements on its nodes through
//! [`Trace::before`] and [`Trace::after`]. Ticking only the agent it
//! `follows` with it attached, and the others as above, keeps its cost to
//! one check per tick. The README's "Watching a running program in
//! Groot2" has the commands; `examples/creature.rs` (`--groot PORT`) shows
//! it.

#[allow(unused_imports)]
use crate::*;
