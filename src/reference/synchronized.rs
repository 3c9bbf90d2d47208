//! Synchronized trees: gates, global cooldowns, rendezvous and monitors shared across agents.
//!
//! One tree is shared by every agent that runs it, so it can also hold
//! state *about* those agents and coordinate them in plain sight. A tree
//! with such nodes gets a generated `<Tree>Shared` struct (one field per
//! node, named by its label), which the header takes as a binding
//! (`shared: &<Tree>Shared`, or any binding marked `#[shared]`); every agent
//! is ticked with the same object. It holds only atomics: it is `Sync`, and
//! agents may tick on many threads ([`parallel`]).
//!
//! | node | semantics |
//! |---|---|
//! | `gate(n) { c }` | at most `n` agents inside at once. The permit is taken on entry and given back when `c` finishes, is halted, or the agent is reset. An agent that finds the gate full fails it, so a `select` or decider moves on; a decider does not even choose a child whose first step is a full gate ([why](super::deciding#children-a-full-gate-would-refuse)). Its field is a [`shared::Gate<n>`](shared::Gate): `shared.bench.capacity()`, `inside()`, `is_full()`. |
//! | `global_cooldown(s) { c }` | after any agent *finishes* `c` (a halted run does not count), no agent may enter it for `s` seconds; an agent already inside goes on. It limits how often, not how many: put it in a `gate(1)` to also have one at a time. Needs the tick context. |
//! | `rendezvous(n) as role { c }` | exactly `n` agents meet. Each joins with a distinct `role` in `0..n` (joining order), bound for `c`; members wait (`Running`) until the group is complete, then run `c`. A complete group admits nobody else (their `rendezvous` fails). A member that leaves before the group is complete dissolves it: the others' `rendezvous` fails. |
//! | `sync` | inside a rendezvous: wait until every member reached this point. If a member left the group (finished, halted or reset) before arriving, `sync` fails for the others instead of holding them forever. |
//! | `monitor(<bool>)` | like `cond`, and when false it stays *armed*: before each later tick, armed monitors are checked first; when one becomes true, the active path is halted (deepest first) and the tree is evaluated from the root in the same tick. Monitors are disarmed when they pass, when the tree finishes (its root returns `Success` or `Failure`), is reset, or a monitor fires. Their expressions see the header bindings. |
//! | `switch(<expr>) { PATTERN => child, .. }` | the child of the arm matching this tick runs; when another arm matches than last tick, the old child is halted first. State is the largest arm's, not the sum. Typical arms are subtrees, picking a child tree at run time. Arms are checked for exhaustiveness by rustc. |
//! | `switch_eq(<expr>) { VALUE => child, .., _ => child }` | as `switch`, with cases that are values compared with `==` in order (see [`switch_eq`](super::composites#switch_eqvalue--case---_---)). |
//!
//! The seed's pair coordination (two agents, roles, act, wait for each
//! other, act again), and what happens to a third:
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Soldier { log: Vec<&'static str> }
//!
//! behavior_tree! {
//!     tree Flank(me: &mut Soldier, shared: &FlankShared) {
//!         select {
//!             'pair: rendezvous(2) as role {
//!                 sequence {
//!                     action { me.log.push(["left", "right"][role]); Status::Success },
//!                     sync,
//!                     action { me.log.push("attack"); Status::Success },
//!                 }
//!             },
//!             action { me.log.push("alone"); Status::Success },
//!         }
//!     }
//! }
//!
//! let shared = FlankShared::new();
//! let mut squad: Vec<(Soldier, Flank)> =
//!     (0..3).map(|_| (Soldier { log: vec![] }, Flank::default())).collect();
//! for _ in 0..2 {
//!     bt::parallel::for_each_in_order(&mut squad, |_, (me, state)| {
//!         state.tick(me, &shared);
//!     });
//! }
//! // Tick 1: the first two meet (the first waits, the second completes the
//! // pair and goes right); the third finds the pair running. Tick 2: left,
//! // both pass `sync`, both attack; the pair is over, so the third starts a
//! // new group and waits for a partner.
//! assert_eq!(squad[0].0.log, ["left", "attack"]);
//! assert_eq!(squad[1].0.log, ["right", "attack"]);
//! assert_eq!(squad[2].0.log, ["alone"]);
//! assert_eq!(shared.pair.members(), 1);
//! ```
//!
//! With the `rayon` feature, `parallel::for_each_parallel` ticks the same
//! slice on rayon's thread pool; every limit holds, and which agent gets a
//! permit then depends on thread timing.

#[allow(unused_imports)]
use crate::*;
