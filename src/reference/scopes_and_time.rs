//! Scopes and time nodes: `scope`, `wait`, `timeout`, `delay`, `cooldown`, `every`, `run_once`.
//!
//! | node | semantics |
//! |---|---|
//! | `scope(enter = e, tick = t, exit = x) { c }` | Spore's group behaviors: `e` runs when the scope activates, `t` on every tick it is active (first included), `x` when it ends: the child finished, `tick` refused, or the scope was halted or reset. `enter` and `tick` may return `()`, `bool` or `Status`; `false`/`Failure` fails the scope (a refused `enter` runs no `exit`). Each hook is optional. |
//! | `wait(s)` | `Running` until `s` seconds after its first tick, then `Success`. |
//! | `timeout(s) { c }` | the child, but once `s` seconds passed since it started without finishing, it is halted and the node fails (BehaviorTree.CPP's `Timeout`). As in BehaviorTree.CPP, `s <= 0` means no timer. |
//! | `delay(s) { c }` | `Running` for `s` seconds, then the child (BehaviorTree.CPP's `Delay`). |
//! | `cooldown(s) { c }` | after the child finishes (either way), the node fails without ticking it until `s` seconds have passed. |
//! | `every(s) { c }` | the child starts at most once every `s` seconds, measured from its last start; in between the node fails without ticking it. A running child is never cut short. The decorator form of the `every` guard clause. |
//! | `run_once { c }` | the child until it finishes once; afterwards the status it finished with, without ticking it (BehaviorTree.CPP's `RunOnce` with `then_skip="false"`). |
//! | `run_once(then_skip = true) { c }` | afterwards the node is skipped: its parent passes over it (BehaviorTree.CPP's default, `then_skip="true"`). |
//!
//! Durations are `f64` seconds, any expression (integer literals are read
//! as seconds, `wait(2)`), read each tick they are needed. Cooldowns,
//! `run_once` marks, `every` timers and the positions of `sequential`,
//! `shuffle` and `sequence_with_memory` outlive activity: they sit in a small fixed part of the tree's
//! state, and `reset` clears them.

#[allow(unused_imports)]
use crate::*;
