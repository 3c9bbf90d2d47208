//! Decorators: inverting, forcing, repeating, retrying, hooks, `for_each`.
//!
//! A decorator has exactly one child, in braces.
//!
//! | decorator | meaning |
//! |---|---|
//! | `invert { c }` | swaps `Success` and `Failure` |
//! | `force_success { c }` | `Success` once the child finishes, whatever its result |
//! | `force_failure { c }` | `Failure` once the child finishes, whatever its result |
//! | `keep_running_until_failure { c }` | `Running` while the child succeeds or runs (a success starts it again on the next tick); `Failure` once it fails |
//! | `repeat(n) { c }` | runs the child again while it succeeds, `n` successes in all, then `Success`; a failure fails |
//! | `retry(n) { c }` | runs the child again while it fails, at most `n` attempts, then `Failure`; a success succeeds |
//! | `repeat(forever) { c }`, `retry(forever) { c }` | the same without a bound: only a failure (a success for `retry`) ends it |
//! | `for_each(x: T = e) { c }`, `for_each(x: T = e, if_empty = s) { c }` | runs the child once per item: see [`for_each`](#for_eachx-t--e--c-) |
//! | `skip_if(e) { c }` | before the child starts: if `e` is true, the parent passes over the node (see below) |
//! | `success_if(e) { c }` | before the child starts: if `e` is true, `Success` without ticking it |
//! | `failure_if(e) { c }` | before the child starts: if `e` is true, `Failure` without ticking it |
//! | `precondition(e) { c }`, `precondition(e, otherwise = s) { c }` | before the child starts: unless `e` is true, `s` without ticking it: `failure` (the default), `success`, `running` (the node waits, checking `e` again on each tick) or `skip` |
//! | `run_while(e) { c }` | `e` must hold for the child to start, and is checked again before each tick while it runs: once false, the child is halted and the parent passes over the node |
//! | `after(success = e, failure = f, finished = g, halted = h) { c }` | the child; once it succeeds `e` runs, once it fails `f`, after either `g`; if the node is halted while the child runs, `h`. Any of them may be left out, at least one is given |
//!
//! `Running` passes through all of them. `keep_running_until_failure` is
//! BehaviorTree.CPP's `KeepRunningUntilFailure`, with its semantics: the
//! child's success is reported as `Running`, and the child starts afresh on
//! the next tick. `repeat` and `retry` (BehaviorTree.CPP's
//! `Repeat` and `RetryUntilSuccessful`) loop within one tick while the child
//! finishes at once, and resume the running child otherwise; `n` is an
//! integer literal of at least 1 or a [named count](super::named_counts).
//! BehaviorTree.CPP 4.x instead returns
//! `Running` with a wake-up signal after each run of the child that started
//! and finished in the same tick (so does its `SequenceWithMemory` after
//! such a child): its `tickOnce` then ticks the whole tree again at once,
//! from the root, and `tickExactlyOnce` returns. So under `tickOnce` the
//! leaf calls are ours, except that between runs reactive ancestors
//! re-check their conditions and a non-reactive `Parallel` ticks its other
//! children (so the root's status can differ: the parallel may finish in
//! the tick ours goes on in); and a wake-up signal emitted in one tick but
//! not consumed can make BT.CPP's next `tickOnce` tick the root twice.
//! Under `tickExactlyOnce` one tick is one run.
//! With `forever` we do what `tickExactlyOnce` does: a run that started in
//! this tick and goes on ends the tick with `Running` (a run resumed from an
//! earlier tick that goes on starts the next run at once). So a tick starts
//! at most one run and always returns, where BT.CPP's `tickOnce` never
//! returns from a `Repeat num_cycles="-1"` over a child that always
//! succeeds at once.
//!
//! The preconditions `skip_if`, `success_if` and `failure_if` are checked
//! only when the child is not running (BehaviorTree.CPP's `_skipIf`,
//! `_successIf` and `_failureIf` attributes), and so is `precondition`
//! (BehaviorTree.CPP's `Precondition` node, whose `else` is `otherwise`:
//! the child runs only while its condition holds when it starts, the
//! opposite sense of `failure_if`), `run_while` also while it
//! runs (`_while`), and `after` is `_onSuccess`, `_onFailure`, `_post` and
//! `_onHalted`. Their conditions are `bool` expressions and their hooks any
//! expression, evaluated where they stand in the tree. This DSL has no
//! `Skipped` status: a **skipped** node is passed over by its parent, which
//! must be a sequence (the node counts as `Success`) or a select (as
//! `Failure`); anywhere else `skip_if`, `run_while`,
//! `precondition(.., otherwise = skip)` and `run_once(then_skip = true)`
//! are compile errors.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { ammo: u32, reloads: u32 }
//! behavior_tree! {
//!     tree Shoot(me: &mut Bot) {
//!         sequence {
//!             skip_if(me.ammo > 0) {
//!                 after(success = me.reloads += 1) { action { me.ammo = 6; Status::Success } }
//!             },
//!             failure_if(me.ammo == 0) { action { me.ammo -= 1; Status::Success } },
//!             precondition(me.ammo > 4, otherwise = skip) { action { me.ammo -= 1; Status::Success } },
//!         }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { ammo: 0, reloads: 0 }, Shoot::default());
//! assert_eq!(state.tick(&mut bot), Status::Success); // reloaded, then shot twice
//! assert_eq!(state.tick(&mut bot), Status::Success); // reload skipped, shot once
//! assert_eq!((bot.ammo, bot.reloads), (3, 1));
//! ```
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { tries: u32 }
//! behavior_tree! {
//!     tree Stubborn(me: &mut Bot) {
//!         sequence {
//!             retry(5) { action { me.tries += 1; Status::from(me.tries == 3) } },
//!             invert { failure },
//!             force_success { failure },
//!             repeat(2) { success },
//!             force_failure { success },
//!         }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { tries: 0 }, Stubborn::default());
//! assert_eq!(state.tick(&mut bot), Status::Failure); // from force_failure
//! assert_eq!(bot.tries, 3);
//! ```
//!
//! ## `for_each(x: T = e) { c }`
//!
//! BehaviorTree.CPP's `LoopInt`, `LoopDouble`, `LoopString` and `LoopBool`
//! as one typed node. Whenever the child is not running, the expression `e`
//! (of type `Option<T>`) gives the next item: `me.route.pop_front()` takes
//! items from a queue, `me.targets.next()` from an iterator. The child
//! runs with `x` bound to `&T`, as `when let` binds its value; the node
//! keeps the item while the child runs. After each success it returns
//! `Running` and takes the next item on the next tick, so every item
//! spends at least one tick; a failure fails the node. When `e` gives
//! `None` the node returns `if_empty`: `success` (the default), `failure`,
//! `running` (it waits for items, asking again each tick) or `skip`.
//! Halting the node halts the child and drops its item: the next run takes
//! the next one. `T` is `Clone` and `Debug` (and, in a saved tree,
//! serializable), as the state that holds it is.
//!
//! ```
//! # use bt::prelude::*;
//! # use std::collections::VecDeque;
//! # struct Bot { route: VecDeque<(i32, i32)>, at: (i32, i32) }
//! behavior_tree! {
//!     tree Patrol(me: &mut Bot) {
//!         for_each(to: (i32, i32) = me.route.pop_front()) {
//!             action {
//!                 me.at.0 += (to.0 - me.at.0).signum();
//!                 if me.at.0 == to.0 { Status::Success } else { Status::Running }
//!             }
//!         }
//!     }
//! }
//! let mut bot = Bot { route: VecDeque::from([(2, 0), (1, 0)]), at: (0, 0) };
//! let mut state = Patrol::default();
//! let statuses: Vec<Status> = (0..4).map(|_| state.tick(&mut bot)).collect();
//! use Status::{Running, Success};
//! // Two steps to x = 2, one back to x = 1, then no item is left.
//! assert_eq!(statuses, [Running, Running, Running, Success]);
//! assert_eq!(bot.at, (1, 0));
//! ```

#[allow(unused_imports)]
use crate::*;
