//! Saving, loading and replaying agents' states.
//!
//! With the `serde` feature, a tree that says `#[bt(serde)]` gets
//! `Serialize` and `Deserialize` for its state type, through serde as `bt`
//! re-exports it (`bt::serde`): the user's crate needs no serde dependency
//! of its own. Its leaf `Memory` types and `when let` guard types (and its
//! game data, to save that too) derive them the same way:
//! `#[derive(bt::serde::Serialize, bt::serde::Deserialize)]` with
//! `#[serde(crate = "bt::serde")]`. An
//! agent saved mid-behaviour loads mid-behaviour: the same nodes running,
//! the same leaf memory, timers, cooldowns, `run_once` marks and guard
//! values. Embedded trees say `#[bt(serde)]` too; the `<Tree>Shared`
//! object of a synchronized tree gets the impls as well, and
//! [`Stimuli`] stores serialize with the feature.
//!
//! A saved state starts with the tree's
//! [`LAYOUT_HASH`](BehaviorTree::LAYOUT_HASH), a hash of its shape (node
//! kinds, nesting, labels, counts, leaf types, `when let` types, embedded
//! trees) that ignores expressions: a state saved by a tree of another shape
//! is refused, as the format's error or, through `bt::save::Checked`, as a
//! typed [`save::LoadError`]; a state saved before a guard, an action
//! or a duration was edited loads, and carries on under the new rules.
//! Every value a loaded state holds is checked against what the tree
//! allows before anything ticks (a count past its bound, a mask with bits
//! for children that do not exist, a time that is not a number, a `when
//! let` value that no longer matches: [`save::InvalidState`]), so a
//! hostile file can at worst be refused. [`save`] has the full rule, the
//! story of shared objects (save them with their agents, between ticks,
//! and call the shared object's `check` with the loaded agents) and the
//! formats.
//!
//! ```
//! # use bt::prelude::*;
//! # pub struct Bot { x: i32 }
//! # pub struct Walk { to: i32 }
//! # impl Leaf<Bot> for Walk {
//! #     type Memory = u8;
//! #     fn tick(&self, steps: &mut u8, me: &mut Bot) -> Status {
//! #         *steps += 1;
//! #         me.x += (self.to - me.x).signum();
//! #         if me.x == self.to { Status::Success } else { Status::Running }
//! #     }
//! # }
//! behavior_tree! {
//!     #[bt(serde)]
//!     tree Guard(me: &mut Bot, cx: &Ctx) {
//!         sequence { Walk { to: 3 }, cooldown(5) { wait(1) } }
//!     }
//! }
//!
//! let (mut me, mut guard) = (Bot { x: 0 }, Guard::default());
//! guard.tick(&mut me, &Ctx::new(0.0, 0.1));  // walking, 1 step of 3
//! let json = serde_json::to_string(&guard).unwrap();
//! assert!(json.starts_with(&format!(r#"{{"layout":{},"active":"#, Guard::LAYOUT_HASH)));
//!
//! let mut loaded: Guard = serde_json::from_str(&json).unwrap();
//! loaded.tick(&mut me, &Ctx::new(0.1, 0.1)); // the same walk goes on
//! assert_eq!(me.x, 2);
//!
//! // A state saved by a tree of another shape is refused.
//! behavior_tree! {
//!     #[bt(serde)]
//!     tree Other(me: &mut Bot) { Walk { to: 9 } }
//! }
//! let checked: bt::save::Checked<Other> = serde_json::from_str(&json).unwrap();
//! let Err(bt::save::LoadError::Layout(mismatch)) = checked.0 else { panic!() };
//! assert_eq!(mismatch.found, Guard::LAYOUT_HASH);
//! ```
//!
//! A tree with shared nodes is saved with its agents, and checked with them
//! when loaded:
//!
//! ```
//! # use bt::prelude::*;
//! # pub struct Bot;
//! behavior_tree! {
//!     #[bt(serde)]
//!     tree Door(me: &mut Bot, shared: &DoorShared) {
//!         'door: gate(1) { running }
//!     }
//! }
//!
//! let shared = DoorShared::new();
//! let mut agents = vec![Door::default(), Door::default()];
//! for agent in &mut agents {
//!     agent.tick(&mut Bot, &shared); // the first one goes in
//! }
//! let json = serde_json::to_string(&(&shared, &agents)).unwrap();
//!
//! let (shared, agents): (DoorShared, Vec<Door>) = serde_json::from_str(&json).unwrap();
//! assert_eq!(shared.check(&agents), Ok(()));
//!
//! // A shared object that lost its permit does not match its agents.
//! let fresh = DoorShared::new();
//! let refused = fresh.check(&agents).unwrap_err();
//! assert_eq!(refused.node.label, Some("door"));
//! ```
//!
//! Time and randomness reach a tree only through its inputs, so a run
//! repeats exactly from a save: [`replay::Tape`] keeps what each tick's
//! context carried (time, flags, stimuli) and gives the contexts back, with
//! any trace hook attached; a [`Recorder`](record::Recorder)
//! [`resume`](record::Recorder::resume)s from the statuses recorded before
//! the save. Set a breakpoint in a leaf and step through the generated code
//! of the tick that went wrong.
//!
//! ```
//! use bt::prelude::*;
//! use bt::replay::Tape;
//!
//! behavior_tree! {
//!     #[bt(serde)]
//!     tree Blink(on: &mut bool, cx: &Ctx) {
//!         sequence { wait(1), action { *on = !*on; Status::Success } }
//!     }
//! }
//!
//! let (mut tree, mut on, mut tape) = (Blink::default(), false, Tape::new());
//! let mut saved = String::new();
//! for tick in 1..=10 {
//!     if tick == 4 {
//!         saved = serde_json::to_string(&(&tree, on)).unwrap(); // mid-wait
//!     }
//!     let cx = Ctx::new(tick as f64 * 0.3, 0.3).agent(0);
//!     tape.record(&cx);
//!     tree.tick(&mut on, &cx);
//! }
//! // Ticks 4 to 10 again, from the state saved before tick 4.
//! let (mut again, mut on_again): (Blink, bool) = serde_json::from_str(&saved).unwrap();
//! for cx in tape.replay(0, 3, bt::NoTrace) {
//!     again.tick(&mut on_again, &cx);
//! }
//! assert_eq!(on_again, on);
//! assert_eq!(format!("{again:?}"), format!("{tree:?}"));
//! ```

#[allow(unused_imports)]
use crate::*;
