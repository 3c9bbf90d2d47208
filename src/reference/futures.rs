//! Future leaves: actions served outside the tree, awaited tick by tick.
//!
//! A type implementing [`FutureLeaf`](crate::future::FutureLeaf) is a
//! leaf whose action is a Rust future: a reply from a worker thread, a
//! task on an async runtime, a goal sent to a robot's middleware. The tree
//! has no executor and starts no thread; it polls the future once per
//! tick, with a waker that does nothing (the tick is the wake-up).
//!
//! | moment | what happens |
//! |---|---|
//! | first tick | `start(&self, agent)` makes the future; it is polled at once |
//! | each later tick | polled once: pending is `Running` |
//! | ready | `finish(&self, output, agent)` gives the outcome; the future is dropped and never polled again |
//! | halted while running (a reactive node, a decider, `timeout`, `parallel`, `reset`) | the future is dropped, exactly once, then `cancelled(agent)` |
//! | running without a future (a cloned or loaded state, a future that panicked) | `lost(&self, agent)`: `Failure` unless overridden |
//!
//! The future lives in the agent's tree state, so it must be `Unpin`. A
//! named `Unpin` future (a channel's receiver, a task handle, a future you
//! write) costs no allocation; an `async` block is boxed
//! ([`BoxFuture`](crate::future::BoxFuture)), one allocation per start.
//! `bt-bench/BENCHMARKS-futures.md` measures both against a plain leaf. A
//! future that panics while polled panics out of `tick`; it is dropped as
//! the panic unwinds.
//!
//! ```
//! use bt::future::{BoxFuture, FutureLeaf};
//! use bt::{Outcome, Status};
//! use std::sync::mpsc;
//!
//! struct Rover { replies: Vec<mpsc::Sender<bool>>, arrived: bool }
//!
//! /// Asks the rover's driver to move, and waits for its answer.
//! struct Drive { to: (i32, i32) }
//!
//! impl FutureLeaf<Rover> for Drive {
//!     type Future = BoxFuture<bool>;
//!
//!     fn start(&self, rover: &mut Rover) -> BoxFuture<bool> {
//!         let (tx, rx) = mpsc::channel();
//!         rover.replies.push(tx); // the driver answers through it
//!         Box::pin(async move {
//!             // A real program awaits its runtime's channel; this one
//!             // checks once per poll.
//!             loop {
//!                 if let Ok(ok) = rx.try_recv() {
//!                     return ok;
//!                 }
//!                 Yield(false).await;
//!             }
//!         })
//!     }
//!
//!     fn finish(&self, ok: bool, rover: &mut Rover) -> Outcome {
//!         rover.arrived = ok;
//!         Outcome::from_bool(ok)
//!     }
//! }
//!
//! /// Pending once.
//! struct Yield(bool);
//! impl std::future::Future for Yield {
//!     type Output = ();
//!     fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
//!         if self.0 { std::task::Poll::Ready(()) } else { self.0 = true; std::task::Poll::Pending }
//!     }
//! }
//!
//! bt::behavior_tree! {
//!     tree Mission(me: &mut Rover) {
//!         sequence { Drive { to: (3, 4) }, cond me.arrived }
//!     }
//! }
//!
//! let mut rover = Rover { replies: Vec::new(), arrived: false };
//! let mut mission = Mission::default();
//! assert_eq!(mission.tick(&mut rover), Status::Running);
//! assert_eq!(mission.tick(&mut rover), Status::Running);
//! rover.replies[0].send(true).unwrap(); // the driver arrives
//! assert_eq!(mission.tick(&mut rover), Status::Success);
//! assert!(rover.arrived);
//! ```
//!
//! `examples/couriers.rs` runs a fleet whose routes a planner thread
//! computes, with threats preempting requests in flight
//! (`cargo run --example couriers`).
//!
//! # Futures or deferred requests
//!
//! Both start an action in one tick and finish it in a later one, and both
//! cancel it when the tree moves on. Use a **future** for one agent's own
//! action served by something that hands out futures (an async client, a
//! middleware's goal handle, a worker thread's reply): the future holds
//! what the action needs, and its drop is the cancellation. Use a
//! [deferred request](super::requests) when many agents ask the same
//! system each tick and it should serve them in batches: the tree keeps
//! only a ticket, the requests of a frame are one stream to sort and
//! answer together, and nothing is allocated per action.

#[allow(unused_imports)]
use crate::*;
