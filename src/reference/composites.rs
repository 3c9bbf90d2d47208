//! Composites: sequences, selects, their reactive, memory and async forms, `try_catch`, `switch_eq`, branches and `parallel`.
//!
//! These follow BehaviorTree.CPP 4.x (`Sequence`, `SequenceWithMemory`,
//! `Fallback`, `ReactiveSequence`, `ReactiveFallback`, `AsyncSequence`,
//! `AsyncFallback`, `IfThenElse`, `WhileDoElse`, `Parallel`,
//! `ParallelAll`); see
//! [BehaviorTree.CPP's catalog](super::btcpp_catalog) for where they
//! differ.
//!
//! ## `sequence { .. }`
//!
//! Ticks its children in order. A child's `Failure` ends the sequence with
//! `Failure` (the next tick starts again from the first child); `Running`
//! ends this tick with `Running`, and the next tick resumes at that child
//! without re-ticking the ones before it; when all succeed, `Success`.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { ticks: u32 }
//! behavior_tree! {
//!     tree Seq(me: &mut Bot) {
//!         sequence {
//!             action { me.ticks += 1; Status::Success }, // not re-ticked while the next runs
//!             action if me.ticks < 10 { Status::Running } else { Status::Failure },
//!         }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { ticks: 0 }, Seq::default());
//! state.tick(&mut bot);
//! state.tick(&mut bot);
//! assert_eq!(bot.ticks, 1);
//! ```
//!
//! ## `sequence_with_memory { .. }`
//!
//! A `sequence` that also remembers where it stopped on `Failure`, and when
//! it is halted: the next tick resumes at that child instead of the first,
//! until the whole sequence succeeds (then it starts from the first child
//! again). The position outlives activity like a cooldown; `reset` clears
//! it. BehaviorTree.CPP's `SequenceWithMemory`.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { steps: u32, door_open: bool }
//! behavior_tree! {
//!     tree Route(me: &mut Bot) {
//!         sequence_with_memory {
//!             action { me.steps += 1; Status::Success },
//!             cond me.door_open,
//!         }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { steps: 0, door_open: false }, Route::default());
//! assert_eq!(state.tick(&mut bot), Status::Failure);
//! bot.door_open = true;
//! assert_eq!(state.tick(&mut bot), Status::Success); // resumed at the door
//! assert_eq!(bot.steps, 1);
//! ```
//!
//! ## `select { .. }`
//!
//! The fallback: ticks its children in order until one returns `Success`
//! (the select succeeds) or `Running` (resumed next tick); fails when every
//! child failed.
//!
//! ```
//! # use bt::prelude::*;
//! behavior_tree! {
//!     tree Sel(hp: i32) {
//!         select { cond hp > 50, cond hp > 10, failure }
//!     }
//! }
//! let mut state = Sel::default();
//! assert_eq!(state.tick(20), Status::Success);
//! assert_eq!(state.tick(5), Status::Failure);
//! ```
//!
//! ## `reactive_sequence { .. }`
//!
//! Starts from the first child on every tick, so earlier children act as
//! conditions that are re-checked while a later child runs. If an earlier
//! child fails or starts running while a later child was running, that later
//! child is halted (after the earlier child's tick).
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { safe: bool, halted: bool }
//! struct Work;
//! impl Leaf<Bot> for Work {
//!     type Memory = ();
//!     fn tick(&self, _: &mut (), _: &mut Bot) -> Status { Status::Running }
//!     fn halt(_: &mut (), bot: &mut Bot) { bot.halted = true; }
//! }
//! behavior_tree! {
//!     tree Careful(me: &mut Bot) {
//!         reactive_sequence { cond me.safe, Work }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { safe: true, halted: false }, Careful::default());
//! assert_eq!(state.tick(&mut bot), Status::Running);
//! bot.safe = false;
//! assert_eq!(state.tick(&mut bot), Status::Failure);
//! assert!(bot.halted);
//! ```
//!
//! ## `reactive_select { .. }`
//!
//! Re-ticks higher-priority children on every tick; when one of them returns
//! `Success` or `Running`, the lower-priority child that was running is
//! halted.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { enemy: bool, patrol_halted: bool }
//! struct Patrol;
//! impl Leaf<Bot> for Patrol {
//!     type Memory = ();
//!     fn tick(&self, _: &mut (), _: &mut Bot) -> Status { Status::Running }
//!     fn halt(_: &mut (), bot: &mut Bot) { bot.patrol_halted = true; }
//! }
//! behavior_tree! {
//!     tree Priorities(me: &mut Bot) {
//!         reactive_select { sequence { cond me.enemy, running }, Patrol }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { enemy: false, patrol_halted: false }, Priorities::default());
//! state.tick(&mut bot);
//! bot.enemy = true;
//! state.tick(&mut bot);
//! assert!(bot.patrol_halted);
//! ```
//!
//! ## `async_sequence { .. }`, `async_select { .. }`
//!
//! A `sequence` (a `select`) that returns `Running` after a child that
//! succeeded (failed) in the tick it started, unless it was the last: the
//! next child starts on the next tick. A child that was running before the
//! tick and finishes goes on to the next child at once, as in `sequence`.
//! Long chains of instant steps are spread over ticks, so reactive
//! ancestors check their conditions between them and a parallel ticks its
//! other children. Halting it forgets where it was. BehaviorTree.CPP's
//! `AsyncSequence` and `AsyncFallback`, ticked with `tickExactlyOnce` (see
//! [BehaviorTree.CPP's catalog](super::btcpp_catalog)).
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { steps: Vec<&'static str> }
//! behavior_tree! {
//!     tree Steps(me: &mut Bot) {
//!         async_sequence {
//!             instant { me.steps.push("aim"); Outcome::Success },
//!             instant { me.steps.push("fire"); Outcome::Success },
//!         }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { steps: vec![] }, Steps::default());
//! assert_eq!(state.tick(&mut bot), Status::Running);
//! assert_eq!(bot.steps, ["aim"]);
//! assert_eq!(state.tick(&mut bot), Status::Success);
//! assert_eq!(bot.steps, ["aim", "fire"]);
//! ```
//!
//! ## `try_catch { try.., catch }`
//!
//! Its children but the last run as a `sequence`: the node succeeds when
//! they all did. When one fails, the last child (the catch) starts in the
//! same tick; the try children are not ticked again while it runs, and the
//! node fails once it finished, whatever it returned. The next tick after
//! that starts over at the first try child. Halting the node halts the
//! running child, try or catch, without running the catch: BehaviorTree.CPP's
//! `TryCatch` with its default `catch_on_halt = false` (its `true`, which
//! ticks the catch child inside the halt, has no spelling here; put code
//! that must run when the node is halted in `after(halted = ..)`). At
//! least two children.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { log: Vec<&'static str>, door_open: bool }
//! behavior_tree! {
//!     tree Enter(me: &mut Bot) {
//!         try_catch {
//!             instant { me.log.push("unlock"); Outcome::Success },
//!             cond me.door_open,
//!             instant { me.log.push("lock again"); Outcome::Success },
//!         }
//!     }
//! }
//! let (mut bot, mut state) = (Bot { log: vec![], door_open: false }, Enter::default());
//! assert_eq!(state.tick(&mut bot), Status::Failure);
//! assert_eq!(bot.log, ["unlock", "lock again"]);
//! bot.door_open = true;
//! assert_eq!(state.tick(&mut bot), Status::Success);
//! ```
//!
//! ## `switch_eq(value) { case => .., _ => .. }`
//!
//! BehaviorTree.CPP's `Switch2` to `Switch6`, typed: each tick the value is
//! compared with each case in order (`PartialEq::eq(&value, &case)`, so a
//! `String` value takes `&str` cases), and the child of the first equal
//! case runs; when none is equal, the child of the `_` arm, which is
//! required and last. When another arm is picked than last tick, the old
//! child is halted first. Any number of cases.
//!
//! Use `switch` when the cases are patterns: enum variants, ranges,
//! constants, bindings; rustc then checks that every value has an arm. Use
//! `switch_eq` when a case is a value known only at run time
//! (`me.home_base`), or a type that cannot be matched on (`f32`, a
//! `String` against `&str`, anything `PartialEq`).
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot { at: (i32, i32), home: (i32, i32), work: (i32, i32), done: Vec<&'static str> }
//! behavior_tree! {
//!     tree Chores(me: &mut Bot) {
//!         switch_eq(me.at) {
//!             me.home => instant { me.done.push("sleep"); Outcome::Success },
//!             me.work => instant { me.done.push("work"); Outcome::Success },
//!             _ => failure,
//!         }
//!     }
//! }
//! let mut bot = Bot { at: (0, 0), home: (0, 0), work: (5, 1), done: vec![] };
//! let mut state = Chores::default();
//! assert_eq!(state.tick(&mut bot), Status::Success);
//! bot.at = (5, 1);
//! assert_eq!(state.tick(&mut bot), Status::Success);
//! bot.at = (9, 9);
//! assert_eq!(state.tick(&mut bot), Status::Failure);
//! assert_eq!(bot.done, ["sleep", "work"]);
//! ```
//!
//! ## `if_then_else { condition, then, else }`
//!
//! Runs its first child, the condition, once (to the end if it returns
//! `Running`); on `Success` the second child runs, on `Failure` the third,
//! and that branch's status is the node's. The picked branch runs until it
//! finishes without the condition being checked again. Without a third
//! child a failed condition fails the node. BehaviorTree.CPP's
//! `IfThenElse`.
//!
//! ## `while_do_else { condition, do, else }`
//!
//! The reactive form: the condition runs on every tick, and picks the
//! second child on `Success`, the third on `Failure` (without one, the node
//! fails); the branch that was running and is no longer picked is halted
//! first. BehaviorTree.CPP's `WhileDoElse`.
//!
//! ```
//! # use bt::prelude::*;
//! behavior_tree! {
//!     tree Guard(enemy: bool) {
//!         while_do_else { cond enemy, running, success }
//!     }
//! }
//! let mut state = Guard::default();
//! assert_eq!(state.tick(true), Status::Running);
//! assert_eq!(state.tick(false), Status::Success); // the `do` branch is halted
//! ```
//!
//! ## `parallel(success = N, failure = M) { .. }`
//!
//! Ticks every child that has not finished yet, in order, on every tick.
//! Succeeds as soon as `N` children succeeded, fails as soon as `M` failed
//! or success became impossible; either way the children still running are
//! halted. `success` defaults to all children, `failure` to 1; both must be
//! between 1 and the number of children. As in BehaviorTree.CPP, a negative
//! threshold counts from the number of children: `-1` is all of them, `-2`
//! all but one.
//!
//! ```
//! # use bt::prelude::*;
//! behavior_tree! {
//!     tree AnyOf(a: bool, b: bool) {
//!         parallel(success = 1, failure = 2) { cond a, cond b }
//!     }
//! }
//! let mut state = AnyOf::default();
//! assert_eq!(state.tick(false, true), Status::Success);
//! assert_eq!(state.tick(false, false), Status::Failure);
//! ```
//!
//! ## `parallel_all(max_failures = N) { .. }`
//!
//! Ticks every unfinished child on every tick, and halts nothing: it
//! finishes once every child finished, with `Failure` if at least `N` of
//! them failed (default 1; negative counts from the number of children),
//! else `Success`. BehaviorTree.CPP's `ParallelAll`.
//!
//! ```
//! # use bt::prelude::*;
//! behavior_tree! {
//!     tree Survey(a: bool, b: bool, c: bool) {
//!         parallel_all(max_failures = 2) { cond a, cond b, cond c }
//!     }
//! }
//! let mut state = Survey::default();
//! assert_eq!(state.tick(true, false, true), Status::Success);
//! assert_eq!(state.tick(false, false, true), Status::Failure);
//! ```

#[allow(unused_imports)]
use crate::*;
