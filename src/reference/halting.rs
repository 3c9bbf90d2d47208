//! Halting and resetting: in what order running nodes stop, what `reset`
//! takes, and what a node hook leaves behind.
//!
//! A running node is halted when a reactive node preempts it, a `parallel`
//! finishes, a subtree is preempted, a decider interrupts it, a `timeout`
//! expires, a `switch` changes arm, a `monitor` fires, or `reset` is called. Halting is
//! deepest-first: the innermost running leaf's [`Leaf::halt`] runs first,
//! then each enclosing node resets; the children of a `parallel` are halted
//! in order. A preempting child is ticked before the child it preempts is
//! halted, because only its status tells whether it preempts.
//!
//! ## Resetting
//!
//! `Name::reset` halts whatever runs and clears what outlives activity. It
//! takes only the header bindings halting uses, in header order, because the
//! code that wants an agent gone (it died, despawned, changed trees) rarely
//! has this tick's context at hand. Halting uses:
//!
//! - the agent (the first binding), when the tree has a stateful leaf,
//!   whose [`Leaf::halt`] takes it;
//! - every binding named by an `exit` hook of a `scope`, a `halted` hook of
//!   an `after`, or the arguments of an embedded tree that keeps state;
//! - the shared binding, when the tree has a `gate`, `rendezvous` or other
//!   shared node a halt gives its place back to;
//! - the stream and the context, for a `request`, which halting cancels;
//! - the context, when it can trace (its type is not [`Ctx`] without a
//!   tracer argument, `Ctx<D, S>` or `Ctx<D, S, NoTrace>`): the trace's
//!   `Halted` and `Reset` events are sent through it.
//!
//! So a tree whose halting calls nothing of the agent's has `reset()` with
//! no arguments, and adding a stateful leaf or an `exit` hook can add one:
//! the compiler then points at each `reset` call to change. The generated
//! `reset`'s documentation (in `cargo doc` of your crate) names the
//! bindings it takes.
//!
//! ```
//! # use bt::prelude::*;
//! pub struct Bot { walked: u32, halted: bool }
//! pub struct Walk;
//! impl Leaf<Bot> for Walk {
//!     type Memory = ();
//!     fn tick(&self, _: &mut (), me: &mut Bot) -> Status {
//!         me.walked += 1;
//!         Status::Running
//!     }
//!     fn halt(_: &mut (), me: &mut Bot) {
//!         me.halted = true;
//!     }
//! }
//!
//! behavior_tree! {
//!     tree Patrol(me: &mut Bot, cx: &Ctx, shared: &PatrolShared) {
//!         sequence { wait(0.5), 'post: gate(2) { Walk } }
//!     }
//! }
//!
//! let shared = PatrolShared::new();
//! let (mut me, mut patrol) = (Bot { walked: 0, halted: false }, Patrol::default());
//! for t in 0..3 {
//!     patrol.tick(&mut me, &Ctx::new(t as f64 * 0.5, 0.5), &shared);
//! }
//! assert_eq!((me.walked, shared.post.inside()), (2, 1));
//! // The agent dies: no context needed, the leaf halts, the permit returns.
//! patrol.reset(&mut me, &shared);
//! assert!(me.halted);
//! assert_eq!(shared.post.inside(), 0);
//! ```
//!
//! ## Node hooks
//!
//! A tree whose context can trace (`Ctx<D, S, impl Trace>`, or a context
//! type of your own) calls its tracer's node hooks around every node:
//! [`Trace::before`] before the node runs, [`Trace::after`] once it
//! returned, for the agents [`Trace::hooks`] names. A hook lets the node
//! run, replaces it (it does not run, and its parent sees the hook's
//! status), or changes the status it returned. [`testing`] builds on them;
//! so do breakpoints. Their rule for the node's state:
//!
//! - **Left finished** (`Success` or `Failure`): the node is halted if it
//!   was running, as a preemption halts it: its running descendants, deepest
//!   first, exactly once (leaves' `halt`, scopes' `exit`, gates' permits).
//! - **Left running** (`Running`) while it runs: it stays as it is; replaced
//!   before it runs, it is paused (not ticked, its memory kept).
//! - **Left running while it does not run**: its parent holds it running,
//!   entered with a fresh state, so the next tick resumes it there. A
//!   stateful leaf so held counts as started with a new memory
//!   (`Default::default()`): its `start` is not called, and when it is later
//!   ticked, halted or finished by a hook, its `tick` or `halt` gets that
//!   memory. A decorator or small sequence whose only running child leads
//!   to one stateful leaf runs exactly when that leaf runs, so holding it
//!   holds that leaf the same way.
//! - A hook's `Running` for a node that can never run ([`NodeInfo::can_run`]
//!   is `false`: a `cond`, an `instant`, a composite of such) is ignored.
//!
//! The reference interpreter follows the same rule, and the differential
//! tests compare the two under random hooks. A tracer whose
//! [`Trace::HOOKS`] is `false` (every tracer but hooks) compiles the hook
//! points away: the tick is the same machine code as without them. A hook
//! that acts on nothing costs two calls per node reached.

#[allow(unused_imports)]
use crate::*;
