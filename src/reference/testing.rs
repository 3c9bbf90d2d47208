//! Testing trees: forcing nodes, breakpoints, expected traces and coverage.
//!
//! A tree is tested as compiled: the test builds the agent, ticks the state
//! with a context whose time it chooses (time is an input: no clock, no
//! sleep), and looks at what the agent did, what the tree returned, its
//! active path ([`BehaviorTree::active_path`]) and its trace. [`testing`]
//! adds four hooks, attached to the context with `Ctx::trace`:
//!
//! | hook | for |
//! |---|---|
//! | [`testing::Force`] | make a node return statuses instead of running: a mock action, a condition forced true, a branch paused |
//! | [`testing::Breakpoints`] | stop the ticking thread before or after a node, look, release (with a status if you like) |
//! | [`testing::Log`], [`testing::active_lines`] and [`testing::assert_lines`] | the trace and the active path as lines written in the test, a line diff when they differ |
//! | [`testing::Coverage`] | which nodes a set of runs never reached, never saw succeed, never saw fail |
//!
//! They work on trees whose context can trace: declare it
//! `cx: &Ctx<D, S, impl Trace>` (the program passes its plain `Ctx`, which
//! costs nothing, see [`halting`](super::halting#node-hooks)). Two hooks at
//! once are a pair: `cx.trace(&(&force, &log))`.
//!
//! ## Forcing a node
//!
//! Name the node by its label (without the quote), its id, or its
//! [`NodeInfo`]; a name the tree does not have is a typed error listing the
//! tree's labels. The statuses go one per run of the node:
//! [`Forced::once`](testing::Forced::once),
//! [`times`](testing::Forced::times), [`always`](testing::Forced::always)
//! (until [`clear`](testing::Force::clear)ed), or a
//! [`script`](testing::Forced::script).
//!
//! ```
//! use bt::prelude::*;
//! use bt::testing::{Force, Forced};
//! use bt::{NoFlags, Trace};
//!
//! #[derive(Default)]
//! pub struct Bot { hp: i32, fled: u32, dug: u32 }
//!
//! behavior_tree! {
//!     pub tree Miner(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//!         reactive_select {
//!             'hurt: sequence { cond me.hp < 10, action { me.fled += 1; Status::Success } },
//!             'dig: action { me.dug += 1; Status::Running },
//!         }
//!     }
//! }
//!
//! // The dig action is a mock: two ticks of work, then done.
//! let force = Force::<Miner>::new();
//! force.set("dig", Forced::script([Status::Running, Status::Running, Status::Success]))?;
//! let (mut me, mut miner) = (Bot { hp: 50, ..Bot::default() }, Miner::default());
//! let statuses: Vec<Status> = (0..3)
//!     .map(|t| miner.tick(&mut me, &Ctx::new(t as f64, 1.0).trace(&force)))
//!     .collect();
//! assert_eq!(statuses, [Status::Running, Status::Running, Status::Success]);
//! assert_eq!(me.dug, 0, "the real action never ran");
//!
//! // A healthy miner made to flee: the guard's branch is forced to succeed.
//! force.set("hurt", Forced::once(Status::Success))?;
//! miner.tick(&mut me, &Ctx::new(3.0, 1.0).trace(&force));
//! assert_eq!((me.fled, me.dug), (0, 0));
//!
//! // A typo is an error that says what there is.
//! let typo = force.set("hrt", Forced::once(Status::Success)).unwrap_err();
//! assert_eq!(typo.to_string(), "tree `Miner` has no node labelled 'hrt; its labels: 'hurt, 'dig");
//! # Ok::<(), bt::testing::TestingError>(())
//! ```
//!
//! A forced node does not run, and its state follows the hook rule of
//! [Halting and resetting](super::halting#node-hooks): forcing a running
//! node to finish halts it exactly once; forcing `Running` on a running
//! node pauses it. `Running` for a node that can never run (a `cond`) is
//! refused with [`TestingError::CannotRun`](testing::TestingError). By
//! default every agent ticked with the hook is forced;
//! [`only_agent`](testing::Force::only_agent) picks one.
//!
//! ## Expected traces
//!
//! [`testing::Log`] writes the trace up to a level as lines (`n3 'dig
//! returned Running`; trace levels in [`trace`]); write the lines you
//! expect in the test and compare with [`testing::assert_lines`], which
//! prints a line diff (`-` expected and missing, `+` there and not
//! expected); [`testing::active_lines`] writes the active path the same
//! way. Drive the tree through your own inputs per tick (time, flags,
//! stimuli) by building each tick's context.
//!
//! ```
//! # use bt::prelude::*;
//! # use bt::{NoFlags, Trace};
//! # #[derive(Default)]
//! # pub struct Bot { hp: i32, fled: u32, dug: u32 }
//! # behavior_tree! {
//! #     pub tree Miner(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//! #         reactive_select {
//! #             'hurt: sequence { cond me.hp < 10, action { me.fled += 1; Status::Success } },
//! #             'dig: action { me.dug += 1; Status::Running },
//! #         }
//! #     }
//! # }
//! use bt::testing::{Log, active_lines, assert_lines};
//!
//! let log = Log::new(6);
//! let (mut me, mut miner) = (Bot { hp: 50, ..Bot::default() }, Miner::default());
//! miner.tick(&mut me, &Ctx::new(0.0, 1.0).trace(&log));
//! // The active path: where the next tick resumes.
//! assert_lines(&active_lines(&miner), "
//!     n0 (reactive_select)
//!       n4 'dig
//! ");
//! me.hp = 5;
//! miner.tick(&mut me, &Ctx::new(1.0, 1.0).trace(&log));
//! assert_lines(&log.take(), "
//!     n0 (reactive_select) tick starts
//!     n2 (cond me.hp < 10) returned Failure
//!     n1 'hurt returned Failure
//!     n4 'dig returned Running
//!     n0 (reactive_select) returned Running
//!     n0 (reactive_select) tick ends Running
//!     n0 (reactive_select) tick starts
//!     n2 (cond me.hp < 10) returned Success
//!     n3 (action { me.fled += 1; Status::Success }) returned Success
//!     n1 'hurt returned Success
//!     n0 (reactive_select) returned Success
//!     n0 (reactive_select) tick ends Success
//! ");
//! ```
//!
//! ## Breakpoints
//!
//! [`testing::Breakpoints`] blocks the thread that ticks when it reaches a
//! node (before it runs, or after it returned) until another thread
//! releases it, as Groot2's breakpoints stop BehaviorTree.CPP. Every wait
//! is bounded: the ticking thread goes on by itself after the timeout given
//! to `Breakpoints::new`, and the controlling thread waits for a stop with
//! a timeout of its own. Releasing may give the status the node returns;
//! releasing twice, or after the timeout, is a typed error.
//!
//! ```
//! # use bt::prelude::*;
//! # use bt::{NoFlags, Trace};
//! # #[derive(Default)]
//! # pub struct Bot { hp: i32, fled: u32, dug: u32 }
//! # behavior_tree! {
//! #     pub tree Miner(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//! #         reactive_select {
//! #             'hurt: sequence { cond me.hp < 10, action { me.fled += 1; Status::Success } },
//! #             'dig: action { me.dug += 1; Status::Running },
//! #         }
//! #     }
//! # }
//! use bt::testing::{BreakpointError, Breakpoints, When};
//! use std::time::Duration;
//!
//! let breakpoints = Breakpoints::new(Duration::from_secs(60));
//! breakpoints.add::<Miner>("dig", When::Before)?;
//! let (mut me, mut miner) = (Bot { hp: 50, ..Bot::default() }, Miner::default());
//! std::thread::scope(|s| {
//!     let ticking = s.spawn(|| miner.tick(&mut me, &Ctx::new(0.0, 1.0).trace(&breakpoints)));
//!     let stop = breakpoints.wait_for_stop(Duration::from_secs(60)).expect("a stop");
//!     assert_eq!(stop.node.label, Some("dig"));
//!     // Nothing of `dig` started; let it fail instead of running.
//!     breakpoints.release(stop.id, Some(Status::Failure)).unwrap();
//!     assert_eq!(breakpoints.release(stop.id, None), Err(BreakpointError::AlreadyReleased(stop.id)));
//!     assert_eq!(ticking.join().unwrap(), Status::Failure);
//! });
//! assert_eq!(me.dug, 0);
//! # Ok::<(), bt::testing::TestingError>(())
//! ```
//!
//! ## Coverage
//!
//! [`testing::Coverage`] counts, per node, the statuses it returned over
//! every tick it was attached to; [`never_ran`](testing::Coverage::never_ran),
//! [`never_succeeded`](testing::Coverage::never_succeeded) and
//! [`never_failed`](testing::Coverage::never_failed) list the nodes a set of
//! runs missed, and [`assert_all_ran`](testing::Coverage::assert_all_ran)
//! fails naming them, with their lines.
//!
//! ```
//! # use bt::prelude::*;
//! # use bt::{NoFlags, Trace};
//! # #[derive(Default)]
//! # pub struct Bot { hp: i32, fled: u32, dug: u32 }
//! # behavior_tree! {
//! #     pub tree Miner(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//! #         reactive_select {
//! #             'hurt: sequence { cond me.hp < 10, action { me.fled += 1; Status::Success } },
//! #             'dig: action { me.dug += 1; Status::Running },
//! #         }
//! #     }
//! # }
//! use bt::testing::Coverage;
//!
//! let coverage = Coverage::<Miner>::new();
//! for hp in [50, 40, 30] {
//!     let (mut me, mut miner) = (Bot { hp, ..Bot::default() }, Miner::default());
//!     miner.tick(&mut me, &Ctx::new(0.0, 1.0).trace(&coverage));
//! }
//! let missed: Vec<&str> = coverage.never_ran().iter().map(|n| n.name()).collect();
//! assert_eq!(missed, ["action { me.fled += 1; Status::Success }"]);
//! ```
//!
//! ## Testing many agents
//!
//! Hooks see the agent id of the context ([`Ctx::agent`]), so one hook
//! serves a whole herd and acts on the agents it names. The `workers`
//! example's tests (`examples/workers.rs`) are a model of testing a
//! program's trees as a whole: a limit that holds across a thousand agents,
//! work resumed after an interruption, a state saved and loaded mid-run.

#[allow(unused_imports)]
use crate::*;
