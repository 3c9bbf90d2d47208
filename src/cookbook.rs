//! Recipes: what game and robotics programs need in their first week, each
//! a short tree that runs as written (every recipe is a doctest). The
//! [crate documentation](crate) is the reference they build on;
//! `examples/workers.rs` puts several of them together (gather, flee and
//! resume, limited repair slots) with its tests.
//!
//! # Patrol, get interrupted, and resume where you were
//!
//! Put what interrupts above the work in a [`prioritized`](crate::reference::deciding)
//! group. Keep the work's progress in the agent (the next waypoint, the
//! load carried), not in the tree, and write each step so that it succeeds
//! at once when it is already done. An interruption halts the work; when
//! the work is chosen again it starts from its first child, and the steps
//! already done pass straight through, so the agent goes on from where it
//! was. (`sequence_with_memory` is not the tool here: like
//! BehaviorTree.CPP's, it starts over when it is halted.)
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Guard { x: i32, route: Vec<i32>, next: usize, scared: bool }
//!
//! behavior_tree! {
//!     tree Patrol(me: &mut Guard) {
//!         prioritized {
//!             // Its own guard is not checked again while it runs (only
//!             // children before the running one are): it ends itself.
//!             'flee: when me.scared => action {
//!                 if me.scared { me.x -= 1; Status::Running } else { Status::Success }
//!             },
//!             'patrol: else => sequence {
//!                 // Walk to the current waypoint: at once if there already.
//!                 action {
//!                     let to = me.route[me.next];
//!                     if me.x == to {
//!                         Status::Success
//!                     } else {
//!                         me.x += (to - me.x).signum();
//!                         Status::Running
//!                     }
//!                 },
//!                 instant { me.next = (me.next + 1) % me.route.len(); Outcome::Success },
//!             },
//!         }
//!     }
//! }
//!
//! let mut me = Guard { x: 0, route: vec![3, 0], next: 0, scared: false };
//! let mut state = Patrol::default();
//! state.tick(&mut me);
//! state.tick(&mut me);
//! assert_eq!(me.x, 2);
//! me.scared = true;                 // flee for two ticks
//! state.tick(&mut me);
//! state.tick(&mut me);
//! assert_eq!(me.x, 0);
//! me.scared = false;                // fleeing ends, then back to waypoint 3
//! for _ in 0..5 { state.tick(&mut me); }
//! assert_eq!((me.x, me.next), (3, 1));
//! ```
//!
//! # Limited slots for a task
//!
//! A [`gate(n)`](crate::reference::synchronized) lets at most `n` agents into its
//! child at once; the tree's shared state holds it, and every agent is
//! ticked with the same one. Under a decider, make the gate the child's
//! first step: while it is full the child is [passed
//! over](crate::reference::deciding#children-a-full-gate-would-refuse), so an agent that may use
//! it goes on with what it was doing instead of being interrupted for
//! nothing. Name the size with a constant if other code needs it.
//!
//! ```
//! use bt::prelude::*;
//!
//! const SLOTS: u32 = 2;
//! struct Worker { repairing: bool }
//!
//! behavior_tree! {
//!     tree Work(me: &mut Worker, shared: &WorkShared) {
//!         prioritized {
//!             'bench: else => gate(SLOTS) {
//!                 action { me.repairing = true; Status::Running }
//!             },
//!         }
//!     }
//! }
//!
//! let shared = WorkShared::new();
//! let mut crew: Vec<(Worker, Work)> =
//!     (0..3).map(|_| (Worker { repairing: false }, Work::default())).collect();
//! for (me, state) in &mut crew {
//!     state.tick(me, &shared);
//! }
//! let repairing = crew.iter().filter(|(me, _)| me.repairing).count();
//! assert_eq!((repairing, shared.bench.inside(), shared.bench.capacity()), (2, 2, SLOTS));
//! ```
//!
//! # A timed action
//!
//! Time comes from the tick context, never a clock, so runs replay and
//! tests choose the time. `timeout(s)` fails an action that takes too long
//! (halting it); `wait(s)` is an action that only takes time.
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Door { pushes: u32 }
//!
//! behavior_tree! {
//!     tree Open(me: &mut Door, cx: &Ctx) {
//!         sequence {
//!             timeout(1.5) { action { me.pushes += 1; Status::Running } }, // stuck
//!             wait(2),
//!         }
//!     }
//! }
//!
//! let (mut door, mut state) = (Door { pushes: 0 }, Open::default());
//! let statuses: Vec<Status> = [0.0, 0.5, 1.0, 1.5]
//!     .iter()
//!     .map(|&now| state.tick(&mut door, &Ctx::new(now, 0.5)))
//!     .collect();
//! use Status::*;
//! assert_eq!(statuses, [Running, Running, Running, Failure]);
//! assert_eq!(door.pushes, 3);
//! ```
//!
//! # A cooldown between attempts
//!
//! `cooldown(s) { child }` fails without ticking the child for `s` seconds
//! after it finished; under a `select`, the next child runs meanwhile. In a
//! decider, the guard clause `every(s)` does the same for a child's
//! activation.
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Mage { casts: u32, swings: u32 }
//!
//! behavior_tree! {
//!     tree Fight(me: &mut Mage, cx: &Ctx) {
//!         select {
//!             cooldown(3) { instant { me.casts += 1; Outcome::Success } },
//!             instant { me.swings += 1; Outcome::Success },
//!         }
//!     }
//! }
//!
//! let (mut me, mut state) = (Mage { casts: 0, swings: 0 }, Fight::default());
//! for second in 0..7 {
//!     state.tick(&mut me, &Ctx::new(second, 1));
//! }
//! // Casts at 0, 3 and 6; swings in between.
//! assert_eq!((me.casts, me.swings), (3, 4));
//! ```
//!
//! # Retry with backoff
//!
//! `retry(n)` runs its child again after each failure; a `delay` in front of
//! the attempt, whose duration the agent computes from the attempts so far,
//! spaces them out. A duration is read when its node starts.
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Link { failures: u32, attempts: Vec<f64> }
//! impl Link {
//!     fn backoff(&self) -> f64 { 0.5 * 2f64.powi(self.failures as i32) }
//!     fn connect(&mut self, now: f64) -> Status {
//!         self.attempts.push(now);
//!         if self.attempts.len() < 3 { self.failures += 1; Status::Failure } else { Status::Success }
//!     }
//! }
//!
//! behavior_tree! {
//!     tree Connect(me: &mut Link, cx: &Ctx) {
//!         retry(5) { delay(me.backoff()) { action me.connect(cx.now) } }
//!     }
//! }
//!
//! let (mut link, mut state) = (Link { failures: 0, attempts: vec![] }, Connect::default());
//! let mut now = 0.0;
//! while state.tick(&mut link, &Ctx::new(now, 0.25)) == Status::Running {
//!     now += 0.25;
//! }
//! // Waits of 0.5, 1 and 2 seconds before the three attempts.
//! assert_eq!(link.attempts, [0.5, 1.5, 3.5]);
//! ```
//!
//! # A squad moving together
//!
//! `rendezvous(n) as role { child }` gathers `n` agents, gives each a role
//! (`0..n`, in the order they joined) and runs the child for all of them;
//! `sync` inside waits until every member got there. See [synchronized
//! trees](crate::reference::synchronized) for what happens to latecomers and to a
//! member that leaves.
//!
//! ```
//! use bt::prelude::*;
//!
//! struct Soldier { log: Vec<&'static str> }
//!
//! behavior_tree! {
//!     tree Breach(me: &mut Soldier, shared: &BreachShared) {
//!         rendezvous(2) as role {
//!             sequence {
//!                 action { me.log.push(["left door", "right door"][role]); Status::Success },
//!                 sync,
//!                 action { me.log.push("in"); Status::Success },
//!             }
//!         }
//!     }
//! }
//!
//! let shared = BreachShared::new();
//! let mut squad: Vec<(Soldier, Breach)> =
//!     (0..2).map(|_| (Soldier { log: vec![] }, Breach::default())).collect();
//! for _ in 0..2 {
//!     for (me, state) in &mut squad {
//!         state.tick(me, &shared);
//!     }
//! }
//! assert_eq!(squad[0].0.log, ["left door", "in"]);
//! assert_eq!(squad[1].0.log, ["right door", "in"]);
//! ```
//!
//! # An action served by another system
//!
//! When the work is done elsewhere (a pathfinding system that batches a
//! frame's queries, an animation system, a robot's action server), the
//! tree asks with `request(stream, value)` and reads the answer on a later
//! tick; halting the node in flight sends a cancellation. [Deferred
//! requests](crate::reference::requests) has the whole loop; the shape is:
//!
//! ```
//! use bt::prelude::*;
//! use bt::request::{Message, Requests};
//!
//! struct Scan { area: u8 }
//! struct Drone { found: bool }
//!
//! behavior_tree! {
//!     tree Survey(me: &mut Drone, scans: &mut Requests<Scan>, cx: &Ctx) {
//!         sequence {
//!             request(scans, Scan { area: 7 }),
//!             action { me.found = true; Status::Success },
//!         }
//!     }
//! }
//!
//! let (mut me, mut state) = (Drone { found: false }, Survey::default());
//! let mut scans = Requests::for_agents::<Survey>(1);
//! assert_eq!(state.tick(&mut me, &mut scans, &Ctx::new(0.0, 0.1)), Status::Running);
//! // The scanning system, once per frame.
//! for message in scans.drain().collect::<Vec<_>>() {
//!     if let Message::Start(ticket, Scan { area: 7 }) = message {
//!         state.answer(ticket, Outcome::Success).unwrap();
//!     }
//! }
//! assert_eq!(state.tick(&mut me, &mut scans, &Ctx::new(0.1, 0.1)), Status::Success);
//! assert!(me.found);
//! ```
//!
//! # Testing a tree
//!
//! A tree is a function of its bindings and its state, so a test builds an
//! agent, ticks a few times with chosen times, and asserts what the agent
//! did, the returned statuses and, where it helps, the active path. No
//! mocks are needed for conditions and actions: they are expressions on
//! the agent.
//!
//! ```
//! use bt::prelude::*;
//!
//! #[derive(Default)]
//! struct Bot { enemy: bool, shots: u32 }
//!
//! behavior_tree! {
//!     tree Sentry(me: &mut Bot) {
//!         reactive_select {
//!             'shoot: sequence { cond me.enemy, 'fire: action { me.shots += 1; Status::Running } },
//!             'idle: running,
//!         }
//!     }
//! }
//!
//! let (mut bot, mut state) = (Bot::default(), Sentry::default());
//! assert_eq!(state.tick(&mut bot), Status::Running);
//! assert_eq!(state.active_path().last().unwrap().info.label, Some("idle"));
//! bot.enemy = true;
//! state.tick(&mut bot);
//! state.tick(&mut bot);
//! assert_eq!(bot.shots, 2);
//! let path: Vec<_> = state.active_path().iter().map(|n| n.info.name()).collect();
//! assert_eq!(path, ["reactive_select", "shoot", "fire"]);
//! ```
//!
//! # Seeing why an agent did something
//!
//! Attach a [`Tracer`](crate::Tracer) to one agent's context: level 1 says
//! what activated, level 2 what ended or was interrupted, level 5 every
//! guard's verdict with the clause that rejected. For a picture of a whole
//! run, record it and write the time-travel page ([views and
//! recording](crate::reference::views_and_recording)).
//!
//! ```
//! use bt::prelude::*;
//! use bt::{NoFlags, Trace, Tracer};
//!
//! struct Cat { hungry: bool }
//!
//! behavior_tree! {
//!     tree Mind(me: &mut Cat, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
//!         prioritized {
//!             'eat: when me.hungry => running,
//!             'nap: else => running,
//!         }
//!     }
//! }
//!
//! let lines = std::cell::RefCell::new(Vec::new());
//! let tracer = Tracer::new(5, |e: &bt::TraceEvent| lines.borrow_mut().push(e.to_string()));
//! let mut state = Mind::default();
//! state.tick(&mut Cat { hungry: false }, &Ctx::new(0.0, 0.1).trace(&tracer));
//! let lines = lines.take();
//! // Why it naps: the guard of 'eat rejected, at its clause.
//! assert!(lines.iter().any(|l| l.contains("'eat") && l.contains("when me.hungry")), "{lines:#?}");
//! assert!(lines.iter().any(|l| l.contains("activating 'nap")), "{lines:#?}");
//! ```
