//! Deferred requests: actions served by another system, in batches.
//!
//! An action that works on a large structure (a path grid, an animation
//! graph, a physics world) costs a cache miss per agent when each agent's
//! tick calls it. A `request` node asks instead: its tick pushes a small
//! value into a request stream and returns `Running`; afterwards, one
//! system handles every request of the frame in a batch (sorted,
//! partitioned, in parallel) and answers each through the agent's tree
//! state; the node's next tick returns the answer.
//!
//! | node | semantics |
//! |---|---|
//! | `request(stream, <value>)` | first tick: pushes `Start(ticket, value)` into `stream` (a parameter of the tree, usually `&mut bt::request::Requests<R>`; `value` must be an `R`) and returns `Running`. Later ticks: `Running` until `answer(ticket, outcome)` was called on the agent's state, then the outcome (`Success` or `Failure`). Halted while in flight (by a reactive node, a decider, `timeout`, `reset`): pushes `Cancel(ticket)`. Needs the tick context, whose `agent` the ticket names. |
//!
//! The life of one request (see [`request`] for the guarantees: every
//! `Start` ends in exactly one read answer or one `Cancel`; stale answers
//! are refused; `MAX_REQUESTS_PER_TICK` bounds a tick's requests; a full
//! stream loses nothing):
//!
//! ```text
//!  tick        tree                       stream                  system
//!  ─────────────────────────────────────────────────────────────────────────────
//!   1    request node: idle ──push──▶ Start(agent 3, slot 0, gen 41, value)
//!        returns Running                       │ drain, sort, batch ──▶ works
//!   2    in flight: Running                    │                         │
//!        ◀──────────── state.answer(ticket, Outcome::Success) ───────────┘
//!   3    reads the answer: Success
//!
//!   or, halted while in flight: ──push──▶ Cancel(agent 3, slot 0, gen 41) ──▶ stops
//!   (an answer to gen 41 arriving after that is never read; one to an
//!    older generation is refused with Stale)
//! ```
//!
//! ```
//! use bt::prelude::*;
//! use bt::Outcome;
//! use bt::request::{Message, Requests};
//!
//! /// What a walker asks the pathfinding system for.
//! struct FindPath { to: i32 }
//!
//! struct Walker { goal: i32, walked: bool }
//!
//! behavior_tree! {
//!     tree Walk(me: &mut Walker, paths: &mut Requests<FindPath>, cx: &Ctx) {
//!         sequence {
//!             request(paths, FindPath { to: me.goal }),
//!             action { me.walked = true; Status::Success },
//!         }
//!     }
//! }
//!
//! let mut walkers: Vec<Walker> = (0..4).map(|i| Walker { goal: i - 1, walked: false }).collect();
//! let mut states = vec![Walk::default(); 4];
//! // Room for one frame's requests (and cancellations) of 4 agents.
//! let mut paths = Requests::for_agents::<Walk>(4);
//!
//! fn frame(walkers: &mut [Walker], states: &mut [Walk], paths: &mut Requests<FindPath>) {
//!     for (i, (me, state)) in walkers.iter_mut().zip(&mut *states).enumerate() {
//!         state.tick(me, paths, &Ctx::new(0.0, 0.1).agent(i as u64));
//!     }
//!     // The pathfinding system: every request of the frame in one batch.
//!     let answers: Vec<_> = paths
//!         .drain()
//!         .filter_map(|m| match m {
//!             Message::Start(ticket, FindPath { to }) => {
//!                 Some((ticket, if to >= 0 { Outcome::Success } else { Outcome::Failure }))
//!             }
//!             Message::Cancel(_) => None,
//!         })
//!         .collect();
//!     assert!(bt::request::deliver(states, answers).is_empty());
//! }
//! frame(&mut walkers, &mut states, &mut paths); // requests go out, answers come back
//! frame(&mut walkers, &mut states, &mut paths); // the nodes read them
//! let walked: Vec<bool> = walkers.iter().map(|w| w.walked).collect();
//! assert_eq!(walked, [false, true, true, true]); // no path to -1
//! assert_eq!(Walk::MAX_REQUESTS_PER_TICK, 1);
//! ```
//!
//! With the `rayon` feature, `bt::request::deliver_parallel` answers a batch
//! on rayon's thread pool without locks (each thread answers the agents of
//! its own chunk). Embedded trees may make requests too: the embedding
//! tree's `answer` hands a ticket to the node whose slot holds it (a ticket
//! names its stream and a generation unique in that stream), and its
//! `MAX_REQUESTS_PER_TICK` counts theirs.

#[allow(unused_imports)]
use crate::*;
