//! Deciding, Spore style: decider groups, policies, guards, and children a full gate would refuse.
//!
//! Decider groups choose one child to run and keep it running until it
//! finishes or something more important comes up, the way Spore's
//! behavior tree does. Each child may have a **guard**, clauses followed by
//! `=>`; a child without one (or with `else =>`) always accepts.
//!
//! ```
//! # use bt::prelude::*;
//! bt::bitflags::bitflags! {
//!     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//!     pub struct Mode: u8 { const NIGHT = 1; }
//!     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//!     pub struct Senses: u8 { const TOOK_HIT = 1; }
//! }
//! struct Critter { hp: f32, food: Option<u32>, eaten: Vec<u32> }
//!
//! behavior_tree! {
//!     tree Brain(me: &mut Critter, cx: &Ctx<Mode, Senses>) {
//!         prioritized {
//!             'flee: stimuli(any = Senses::TOOK_HIT) when me.hp < 20.0 => action Status::Running,
//!             'eat: when let Some(food): Option<u32> = me.food => action {
//!                 me.eaten.push(*food);   // `food` is the value the guard matched
//!                 Status::Running
//!             },
//!             'rest: flags(any = Mode::NIGHT) => wait(5),
//!             'idle: else => running,
//!         }
//!     }
//! }
//!
//! let mut me = Critter { hp: 100.0, food: Some(3), eaten: vec![] };
//! let mut brain = Brain::default();
//! brain.tick(&mut me, &Ctx::new(0.0, 0.1));
//! me.food = None;                            // the active child keeps its food
//! brain.tick(&mut me, &Ctx::new(0.1, 0.1));
//! assert_eq!(me.eaten, [3, 3]);
//! me.hp = 10.0;                              // a higher guard interrupts
//! let hit = Ctx::new(0.2, 0.1).stimuli(Senses::TOOK_HIT);
//! brain.tick(&mut me, &hit);
//! assert_eq!(brain.active_path()[1].info.label, Some("flee"));
//! ```
//!
//! ## `prioritized { guard => child, .. }`
//!
//! Each tick:
//! - **Hysteresis.** The guards of the children *before* the active one are
//!   checked, in order; the active child's own guard is not checked again,
//!   nor are those after it. Only a higher-priority child can interrupt.
//! - **Interrupt.** When a guard accepts, the active child is halted
//!   (deepest first) and the winner is activated, in the same tick.
//! - **Masked redecide.** When the active child *fails*, the group decides
//!   again in the same tick among all its children, with every child that
//!   failed this tick masked out.
//! - **Failure propagates.** When no child accepts, the group fails, and a
//!   decider group above it redecides with this group masked.
//! - **Success ends the group.** When the active child succeeds, the group
//!   succeeds; the next tick decides afresh.
//! - **Bounded.** Every redecide masks one more child, so a tick makes at
//!   most one decision per child and always ends. `prioritized(redecides = N)`
//!   bounds it further: past `N` masked redecides in one tick the group fails
//!   and `try_tick` returns [`TickError::RedecideLimit`] (the tree's state
//!   stays consistent; `tick` returns the status anyway).
//!
//! ## Other policies
//!
//! These decide only when no child is active (on activation, and after the
//! active child failed); nothing interrupts the active child. Masked
//! redecides, failure and success work as for `prioritized`.
//! - `sequential { .. }`: the first accepting child after the one chosen
//!   last time, wrapping around: successive activations take the children
//!   in turn.
//! - `random(rng) { .. }`: a child chosen uniformly among those that accept.
//! - `shuffle(rng) { .. }`: like `random`, but every child runs once before
//!   any repeats: a round ends when no unused child accepts.
//! - `scored { score <f32> => child, .. }`: every guard is checked; the
//!   highest positive score wins, ties going to the earlier child. A guard
//!   without `score` scores 1.0.
//!
//! `rng` is any expression of type `&mut R` where `R` implements
//! [`rand_core::Rng`] (for example a tree binding `rng: &mut
//! rand_pcg::Pcg32`, or `&mut me.rng`): a seeded generator replays exactly.
//!
//! ## Guards
//!
//! Clauses are checked left to right; the first that rejects stops the
//! check. Combine as many as needed:
//!
//! | clause | accepts when |
//! |---|---|
//! | `when <bool>` | the expression is true |
//! | `when let PATTERN: Type = <expr>` | the value matches; the pattern's bindings are in scope in the later clauses (`when let Some(f): Option<Food> = me.food() score f.value`) and in the child for its whole activation (the value is kept in the agent's state, so its type is written out) |
//! | `score <f32>` | the score is above 0 (`scored` ranks by it) |
//! | `every(s)` | at least `s` seconds passed since this guard was last checked |
//! | `flags(any = A, all = B, none = C)` | the context's decision flags intersect `A`, contain `B`, miss `C` |
//! | `stimuli(any = .., all = .., none = ..)` | the same, on the context's stimuli flags |
//! | `room('label)` | the `gate` labelled `'label` has a free permit, or the `global_cooldown` labelled so is ready ([synchronized trees](super::synchronized)) |
//!
//! Guards are only allowed on the children of decider groups. A guard's
//! `when let` bindings are not visible in other children or other guards.
//!
//! ## Children a full gate would refuse
//!
//! A child whose first step is a shared node that refuses (a full `gate`, a
//! `global_cooldown` cooling down) would fail at once, having done nothing.
//! Choosing it would still halt the active child: under `prioritized`, a
//! worker that may repair interrupts its gathering every tick the repair
//! bench is full, the bench refuses, and gathering starts again from
//! scratch. So a decider group **passes over such a child, as if its guard
//! rejected it**, before checking its clauses (a passed-over child's
//! `every` clause is not used up). The trace's guard verdict says which
//! node refused (`Rejected("'bench: gate(3) is full")`).
//!
//! A shared node is the child's *first step* when the child is it, or is
//! reached from the child through first children of nodes that fail at
//! once when their first child does: `sequence`, `sequence_with_memory`,
//! `reactive_sequence`, `async_sequence`, `repeat`, `timeout`,
//! `keep_running_until_failure`, and other gates and global cooldowns.
//! Anything else on the way ends the search: a leaf, an expression or a
//! hook that runs first (`scope`, `precondition`, `delay`...), a node that
//! turns a failure into something else (`invert`, `retry`, a `select`'s
//! next child, `try_catch`'s catch), and an embedded tree, whose nodes this
//! tree does not see. A `rendezvous` never refuses: it waits.
//!
//! For a gate further in (`sequence { action walk_to_bench, 'bench: gate(3)
//! { .. } }`), ask it in the guard: `room('bench) => ..`. To choose children
//! even when their first step refuses (the child fails, and the group
//! redecides as after any failure), write `skip_blocked = false`:
//! `prioritized(skip_blocked = false) { .. }`, and the same for every
//! policy.
//!
//! Reactive nodes need no such rule: a refusing gate fails, and a failing
//! child does not halt a later running one.
//!
//! ```
//! # use bt::prelude::*;
//! struct Worker { hurt: bool, log: Vec<&'static str> }
//!
//! behavior_tree! {
//!     tree Work(me: &mut Worker, shared: &WorkShared) {
//!         prioritized {
//!             'bench: when me.hurt => gate(1) {
//!                 action { me.log.push("repair"); Status::Running }
//!             },
//!             else => action { me.log.push("gather"); Status::Running },
//!         }
//!     }
//! }
//!
//! let shared = WorkShared::new();
//! let (mut a, mut b) = (Worker { hurt: true, log: vec![] }, Worker { hurt: true, log: vec![] });
//! let (mut sa, mut sb) = (Work::default(), Work::default());
//! sa.tick(&mut a, &shared);
//! assert!(shared.bench.is_full());
//! sb.tick(&mut b, &shared);
//! sb.tick(&mut b, &shared);
//! assert_eq!(b.log, ["gather", "gather"]); // not interrupted for a full bench
//! ```

#[allow(unused_imports)]
use crate::*;
