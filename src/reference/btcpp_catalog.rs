//! BehaviorTree.CPP's catalog: its node names here, and where semantics differ.
//!
//! The nodes of BehaviorTree.CPP 4.10's catalog, and how to write each
//! here: the same semantics except where this table says otherwise. A
//! BT.CPP name this DSL spells otherwise (`fallback`, `sleep`,
//! `switch3`, `loop_int`, ..) is a compile error that says what to write
//! instead.
//! The workspace's differential tests hold that to BT.CPP 4.8.2 itself:
//! random trees over these nodes, exported as [`BTCPP_XML`](BehaviorTree::BTCPP_XML)
//! and run by BT.CPP with the same scripted leaves (one `tickExactlyOnce`
//! per tick), make the same leaf calls and return the same statuses tick
//! for tick. Each difference below has a test that shows both sides; the
//! ones about yielding show BT.CPP under `tickOnce`.
//!
//! | BehaviorTree.CPP | here | difference |
//! |---|---|---|
//! | `Sequence`, `ReactiveSequence` | `sequence`, `reactive_sequence` | |
//! | `SequenceWithMemory` | `sequence_with_memory` | BT.CPP yields after a child that started and finished in one tick (see [Decorators](super::decorators)); here the next child runs in the same tick |
//! | `Fallback`, `ReactiveFallback` | `select`, `reactive_select` | |
//! | `IfThenElse`, `WhileDoElse` | `if_then_else`, `while_do_else` | a `while_do_else` condition that returns `Running` halts a running branch (BT.CPP leaves it running, unticked); a condition that is a stateful leaf starts again on each tick after it finished (BT.CPP returns its old status without calling it until the node finishes); a two-child `if_then_else` whose stateful condition failed runs that condition again when next entered (BT.CPP's `IfThenElse` fails without resetting it, so the condition keeps its `FAILURE` and the node fails on every later entry without calling anything) |
//! | `Parallel`, `ParallelAll` | `parallel`, `parallel_all` | |
//! | `Inverter`, `ForceSuccess`, `ForceFailure` | `invert`, `force_success`, `force_failure` | |
//! | `KeepRunningUntilFailure` | `keep_running_until_failure` | |
//! | `Repeat`, `RetryUntilSuccessful` (`-1`: no bound) | `repeat(n)`, `retry(n)`, `repeat(forever)`, `retry(forever)` | how runs are split across ticks (see [Decorators](super::decorators)): BT.CPP yields between runs, so reactive ancestors check their conditions and a plain `Parallel` ticks its other children between them (its tick can then finish earlier than ours) |
//! | `Timeout`, `Delay` | `timeout(s)`, `delay(s)` | seconds of the context's time, not milliseconds of a clock |
//! | `RunOnce` | `run_once`, `run_once(then_skip = true)` | the default is `then_skip = false` |
//! | `AlwaysSuccess`, `AlwaysFailure` | `success`, `failure` | |
//! | `Script`, `ScriptCondition` | `action`, `cond` with Rust expressions | |
//! | `SubTree` | a subtree call, `Patrol(me)` | arguments are Rust values, not blackboard remappings |
//! | `_skipIf`, `_successIf`, `_failureIf`, `_while` | `skip_if`, `success_if`, `failure_if`, `run_while` | decorators around the node; skipping needs a sequence or select parent |
//! | `_onSuccess`, `_onFailure`, `_post`, `_onHalted` | `after(success, failure, finished, halted)` | |
//! | `Sleep` | `wait(s)` | seconds of the context's time, not milliseconds of a clock |
//! | `Precondition` (`if`, `else`) | `precondition(c, otherwise = ..)` | `if` is a Rust `bool` expression; `else="SKIPPED"` is `otherwise = skip`, which needs a sequence or select parent |
//! | `Switch2` to `Switch6` | `switch_eq(value) { a => .., b => .., _ => .. }`, or `switch(value)` over patterns | cases are typed Rust values compared with `==`, not strings; any number of them (2 to 6 export as `Switch2` to `Switch6`, with the value and any case that is not a literal as blackboard entries named after the node) |
//! | `AsyncSequence`, `AsyncFallback` | `async_sequence`, `async_select` | one tick is BT.CPP's `tickExactlyOnce`: after such a node returns `Running`, BT.CPP's `tickOnce` ticks the whole tree again at once, where ours returns |
//! | `TryCatch` | `try_catch { try.., catch }` | `catch_on_halt = true` has no spelling: a halt never runs the catch child (use `after(halted = ..)`); BT.CPP 4.8.2 has no `TryCatch`, so tests hold it to 4.10's source (`tests/catalog.rs`) instead of the random-tree comparison |
//! | `LoopInt`, `LoopDouble`, `LoopString`, `LoopBool` (`queue`, `if_empty`, `value`) | `for_each(x: T = e, if_empty = ..)` | one node for any item type; the items come from a Rust expression evaluated when the child is not running (`me.queue.pop_front()`), not a blackboard queue, and the item is bound for the child rather than written to a port |

#[allow(unused_imports)]
use crate::*;
