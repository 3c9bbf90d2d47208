//! Views and recording: BehaviorTree.CPP XML, Mermaid, DOT, `.btlog`, JSON lines and the page.
//!
//! Every tree carries its views as constants of [`BehaviorTree`], computed
//! by the macro, so they cannot drift from the code:
//! [`BTCPP_XML`](BehaviorTree::BTCPP_XML) (a BehaviorTree.CPP 4 file that
//! Groot2 opens), [`BTCPP_INSTANCE_XML`](BehaviorTree::BTCPP_INSTANCE_XML)
//! (the same with BT.CPP's `_uid` and `_fullpath`),
//! [`MERMAID`](BehaviorTree::MERMAID) and [`DOT`](BehaviorTree::DOT). The
//! generated type's documentation draws the Mermaid diagram. [`view`] gives
//! the mapping to BT.CPP's names and the uid rule.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot;
//! # impl Bot { fn tired(&self) -> bool { false } }
//! behavior_tree! {
//!     tree Rest(me: &mut Bot) {
//!         'rest: select { cond me.tired(), repeat(2) { success } }
//!     }
//! }
//! assert!(Rest::BTCPP_XML.contains(
//!     "  <BehaviorTree ID=\"Rest\">\n    <Fallback name=\"rest\">\n      \
//!      <Cond _description=\"cond me.tired()\"/>\n      <Repeat num_cycles=\"2\">\n        \
//!      <AlwaysSuccess/>\n      </Repeat>\n    </Fallback>\n  </BehaviorTree>\n"
//! ));
//! assert!(Rest::BTCPP_INSTANCE_XML.contains("<Repeat _uid=\"3\" num_cycles=\"2\">"));
//! assert!(Rest::MERMAID.starts_with("flowchart TD\n  n0[\"'rest: select\"]\n"));
//! ```
//!
//! A [`record::Recorder`] is a trace hook that listens at level 6
//! ([`trace::STATUSES`]: the status every node returns) and keeps, per
//! agent, every status transition of every node in a ring of fixed size,
//! the way BehaviorTree.CPP's loggers see them. It writes an agent's
//! recording as a `.btlog` file that Groot2 replays, all agents' as JSON
//! lines, or a self-contained HTML page to scrub through
//! ([`write_html`](record::Recorder::write_html): statuses per tick, guard
//! verdicts with [`with_guards`](record::Recorder::with_guards), values
//! attached with [`note`](record::Recorder::note), and coverage).
//!
//! ```
//! use bt::record::{NodeStatus, Recorder};
//! use bt::{Ctx, NoFlags};
//!
//! bt::behavior_tree! {
//!     tree Hello(cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
//!         sequence { cond true, wait(0.5) }
//!     }
//! }
//!
//! let recorder = Recorder::new::<Hello>(1, 64); // 1 agent, 64 transitions
//! let mut agent = Hello::default();
//! for tick in 0..3 {
//!     agent.tick(&Ctx::new(tick as f64 * 0.25, 0.25).trace(&recorder));
//! }
//! let log: Vec<(f64, u16, NodeStatus)> =
//!     recorder.transitions(0).unwrap().iter().map(|t| (t.time, t.uid, t.status)).collect();
//! use NodeStatus::*;
//! assert_eq!(log, [
//!     (0.0, 1, Running), (0.0, 2, Success), (0.0, 3, Running),
//!     (0.5, 3, Success), (0.5, 2, Idle), (0.5, 3, Idle), (0.5, 1, Success), (0.5, 1, Idle),
//! ]);
//! let mut btlog = Vec::new();
//! recorder.write_btlog(0, &mut btlog).unwrap();
//! assert!(btlog.starts_with(b"BTCPP4-FileLogger2\x01"));
//! ```
//!
//! With many agents (ten thousand and more), fold their logs on a thread of your own, once a frame
//! ([`Recorder::drain`](crate::record::Recorder::drain)): the ticking threads then only log, and
//! leave the folding, about a third of what recording costs them at 100,000 agents, to that
//! thread. What is recorded is the same.
//!
//! ```
//! use bt::record::Recorder;
//! use bt::{Ctx, NoFlags};
//! use std::sync::atomic::{AtomicU32, Ordering};
//!
//! bt::behavior_tree! {
//!     tree Pace(cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
//!         sequence { wait(0.5), wait(0.2) }
//!     }
//! }
//!
//! let recorder = Recorder::new::<Pace>(1_000, 64);
//! let mut herd = vec![Pace::default(); 1_000];
//! let frames = AtomicU32::new(0);
//! const LAST: u32 = 300;
//! std::thread::scope(|s| {
//!     // The drain: a sweep each time a frame is ticked.
//!     s.spawn(|| {
//!         let mut seen = 0;
//!         while seen < LAST {
//!             let frame = frames.load(Ordering::Acquire);
//!             if frame == seen {
//!                 std::thread::yield_now();
//!                 continue;
//!             }
//!             seen = frame;
//!             recorder.drain();
//!         }
//!     });
//!     for frame in 1..=LAST {
//!         let now = f64::from(frame) * 0.1;
//!         for (i, agent) in herd.iter_mut().enumerate() {
//!             agent.tick(&Ctx::new(now, 0.1).agent(i as u64).trace(&recorder));
//!         }
//!         frames.store(frame, Ordering::Release);
//!     }
//! });
//! assert_eq!(recorder.ticks(999).unwrap(), LAST);
//! ```

#[allow(unused_imports)]
use crate::*;
