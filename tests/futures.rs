//! Futures as leaves (`bt::future`): started on the leaf's first tick and
//! polled at once, polled once per tick while pending, never polled after it
//! is ready, dropped exactly once when the leaf is halted (with
//! `cancelled` called once), lost in a clone or a loaded state (the leaf
//! fails), dropped when it panics; boxed `async` blocks; many future
//! leaves under one `parallel`.

use bt::future::{BoxFuture, FutureLeaf};
use bt::{Outcome, Status};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

/// What every probe future of one test counts.
#[derive(Debug, Default)]
struct Counts {
    started: Cell<u32>,
    polls: Cell<u32>,
    /// Polls after the future was ready: must stay 0.
    polls_after_ready: Cell<u32>,
    drops: Cell<u32>,
    cancelled: Cell<u32>,
    finished: Cell<u32>,
}

/// Ready with `ok` on its `ready_on`-th poll (1 for the first); panics on
/// the `panic_on`-th if set.
#[derive(Debug)]
struct Probe {
    counts: Rc<Counts>,
    polled: u32,
    ready_on: u32,
    ok: bool,
    panic_on: Option<u32>,
    ready: bool,
}

impl Future for Probe {
    type Output = bool;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<bool> {
        let c = Rc::clone(&self.counts);
        if self.ready {
            c.polls_after_ready.set(c.polls_after_ready.get() + 1);
        }
        c.polls.set(c.polls.get() + 1);
        self.polled += 1;
        if Some(self.polled) == self.panic_on {
            panic!("the probe panics on poll {}", self.polled);
        }
        if self.polled >= self.ready_on {
            self.ready = true;
            Poll::Ready(self.ok)
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.counts.drops.set(self.counts.drops.get() + 1);
    }
}

/// The agent: the counts its probes share, and switches the tests flip.
#[derive(Debug, Default)]
struct Bot {
    counts: Rc<Counts>,
    go: bool,
    /// Outcomes `finish` saw, in order.
    outcomes: Vec<bool>,
}

/// A leaf waiting for a [`Probe`].
struct Ask {
    ready_on: u32,
    ok: bool,
    panic_on: Option<u32>,
}

impl FutureLeaf<Bot> for Ask {
    type Future = Probe;

    fn start(&self, bot: &mut Bot) -> Probe {
        bot.counts.started.set(bot.counts.started.get() + 1);
        Probe {
            counts: Rc::clone(&bot.counts),
            polled: 0,
            ready_on: self.ready_on,
            ok: self.ok,
            panic_on: self.panic_on,
            ready: false,
        }
    }

    fn finish(&self, ok: bool, bot: &mut Bot) -> Outcome {
        bot.counts.finished.set(bot.counts.finished.get() + 1);
        bot.outcomes.push(ok);
        Outcome::from_bool(ok)
    }

    fn cancelled(bot: &mut Bot) {
        bot.counts.cancelled.set(bot.counts.cancelled.get() + 1);
    }
}

bt::behavior_tree! {
    /// One future leaf, kept while `go` holds.
    tree Guarded(me: &mut Bot) {
        reactive_sequence {
            cond me.go,
            Ask { ready_on: 3, ok: true, panic_on: None },
        }
    }

    /// A future leaf that fails on its second poll.
    tree Failing(me: &mut Bot) {
        sequence {
            Ask { ready_on: 2, ok: false, panic_on: None },
        }
    }

    /// A future that panics on its second poll.
    tree Panicking(me: &mut Bot) {
        sequence {
            Ask { ready_on: 5, ok: true, panic_on: Some(2) },
        }
    }

    /// Twelve future leaves side by side: all must succeed, one failure
    /// fails the parallel (the fifth fails on its third poll).
    tree Many(me: &mut Bot) {
        parallel(success = 12, failure = 1) {
            Ask { ready_on: 2, ok: true, panic_on: None },
            Ask { ready_on: 4, ok: true, panic_on: None },
            Ask { ready_on: 6, ok: true, panic_on: None },
            Ask { ready_on: 8, ok: true, panic_on: None },
            Ask { ready_on: 3, ok: me.go, panic_on: None },
            Ask { ready_on: 5, ok: true, panic_on: None },
            Ask { ready_on: 7, ok: true, panic_on: None },
            Ask { ready_on: 9, ok: true, panic_on: None },
            Ask { ready_on: 1, ok: true, panic_on: None },
            Ask { ready_on: 2, ok: true, panic_on: None },
            Ask { ready_on: 4, ok: true, panic_on: None },
            Ask { ready_on: 6, ok: true, panic_on: None },
        }
    }
}

fn bot(go: bool) -> Bot {
    Bot {
        go,
        ..Bot::default()
    }
}

#[test]
fn a_future_is_started_polled_once_per_tick_and_never_after_it_is_ready() {
    let (mut tree, mut me) = (Guarded::default(), bot(true));
    let c = Rc::clone(&me.counts);
    assert_eq!(tree.tick(&mut me), Status::Running);
    // Started and polled on the first tick.
    assert_eq!((c.started.get(), c.polls.get()), (1, 1));
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!(c.polls.get(), 2);
    // Ready on the third poll: the leaf succeeds, the future is dropped.
    assert_eq!(tree.tick(&mut me), Status::Success);
    assert_eq!(c.polls.get(), 3);
    assert_eq!((c.finished.get(), c.drops.get()), (1, 1));
    assert_eq!(me.outcomes, [true]);
    // The next tick starts a new future; the old one is never polled again.
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!((c.started.get(), c.polls.get()), (2, 4));
    assert_eq!(c.polls_after_ready.get(), 0);
    assert_eq!(c.cancelled.get(), 0);
}

#[test]
fn a_future_that_is_ready_with_a_failure_fails_the_leaf() {
    let (mut tree, mut me) = (Failing::default(), bot(true));
    let c = Rc::clone(&me.counts);
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!(tree.tick(&mut me), Status::Failure);
    assert_eq!(me.outcomes, [false]);
    assert_eq!((c.drops.get(), c.cancelled.get()), (1, 0));
}

#[test]
fn halting_drops_the_future_once_and_calls_cancelled_once() {
    let (mut tree, mut me) = (Guarded::default(), bot(true));
    let c = Rc::clone(&me.counts);
    tree.tick(&mut me);
    tree.tick(&mut me);
    assert_eq!(c.drops.get(), 0);
    // The guard fails: the reactive sequence halts the running leaf.
    me.go = false;
    assert_eq!(tree.tick(&mut me), Status::Failure);
    assert_eq!((c.drops.get(), c.cancelled.get()), (1, 1));
    assert_eq!(c.polls.get(), 2, "a halted future is not polled");
    // Halting again (a reset) finds nothing to cancel.
    tree.reset(&mut me);
    assert_eq!((c.drops.get(), c.cancelled.get()), (1, 1));
    assert_eq!(c.finished.get(), 0);
}

#[test]
fn reset_cancels_a_running_future() {
    let (mut tree, mut me) = (Guarded::default(), bot(true));
    let c = Rc::clone(&me.counts);
    tree.tick(&mut me);
    tree.reset(&mut me);
    assert_eq!((c.drops.get(), c.cancelled.get()), (1, 1));
    // A fresh start after the reset.
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!(c.started.get(), 2);
}

#[test]
fn a_cloned_state_has_no_future_and_its_leaf_fails() {
    let (mut tree, mut me) = (Guarded::default(), bot(true));
    let c = Rc::clone(&me.counts);
    tree.tick(&mut me);
    let mut copy = tree.clone();
    // The copy's leaf runs without a future: it fails at once, unpolled.
    assert_eq!(copy.tick(&mut me), Status::Failure);
    assert_eq!(c.polls.get(), 1);
    // The original carries on with its own future.
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!(tree.tick(&mut me), Status::Success);
    assert_eq!(c.polls.get(), 3);
    assert_eq!(c.drops.get(), 1);
}

#[test]
fn a_future_that_panics_is_dropped_and_never_polled_again() {
    let (mut tree, mut me) = (Panicking::default(), bot(true));
    let c = Rc::clone(&me.counts);
    assert_eq!(tree.tick(&mut me), Status::Running);
    let panicked = catch_unwind(AssertUnwindSafe(|| tree.tick(&mut me)));
    assert!(panicked.is_err(), "the future's panic leaves the tick");
    // Dropped as the panic unwound.
    assert_eq!((c.polls.get(), c.drops.get()), (2, 1));
    // Ticked again: the leaf finds its future gone and fails, unpolled.
    assert_eq!(tree.tick(&mut me), Status::Failure);
    assert_eq!(c.polls.get(), 2);
    assert_eq!((c.finished.get(), c.cancelled.get()), (0, 0));
}

#[test]
fn many_future_leaves_under_a_parallel_each_poll_once_per_tick() {
    let (mut tree, mut me) = (Many::default(), bot(true));
    let c = Rc::clone(&me.counts);
    let mut polls = 0;
    let mut status = Status::Running;
    // Ready on polls 1 to 9: the parallel succeeds on the ninth tick.
    for tick in 1..=9 {
        status = tree.tick(&mut me);
        let running_before = [2, 4, 6, 8, 3, 5, 7, 9, 1, 2, 4, 6]
            .iter()
            .filter(|&&ready_on| ready_on >= tick)
            .count();
        polls += running_before;
        assert_eq!(c.polls.get() as usize, polls, "tick {tick}");
    }
    assert_eq!(status, Status::Success);
    assert_eq!(c.started.get(), 12);
    assert_eq!(c.finished.get(), 12);
    assert_eq!((c.drops.get(), c.cancelled.get()), (12, 0));
    assert_eq!(c.polls_after_ready.get(), 0);
}

#[test]
fn a_failing_future_under_a_parallel_cancels_the_others_once_each() {
    let (mut tree, mut me) = (Many::default(), bot(false));
    let c = Rc::clone(&me.counts);
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!(tree.tick(&mut me), Status::Running);
    // Tick 3: the fifth is ready with a failure; the parallel fails at
    // once and halts those still running: all but the four ready on polls
    // 1 to 3. The ones after the fifth are not polled on that tick.
    assert_eq!(tree.tick(&mut me), Status::Failure);
    assert_eq!(c.cancelled.get(), 8);
    assert_eq!(c.drops.get(), 12);
    assert_eq!(c.finished.get(), 4);
    assert_eq!(me.outcomes, [true, true, true, false]);
    // Polls: 12 on tick 1, 11 on tick 2, then children 2 to 5 on tick 3.
    assert_eq!(c.polls.get(), 12 + 11 + 4);
    assert_eq!(c.polls_after_ready.get(), 0);
}

/// An agent whose async blocks wait on two countdowns.
#[derive(Debug, Default)]
struct Walker {
    arrived: u32,
}

/// Ready after `0` more polls.
struct Countdown(u32);

impl Future for Countdown {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            return Poll::Ready(());
        }
        self.0 -= 1;
        Poll::Pending
    }
}

/// Walks two legs in an `async` block, boxed.
struct TwoLegs;

impl FutureLeaf<Walker> for TwoLegs {
    type Future = BoxFuture<u32>;

    fn start(&self, _: &mut Walker) -> BoxFuture<u32> {
        Box::pin(async {
            Countdown(1).await;
            Countdown(2).await;
            2
        })
    }

    fn finish(&self, legs: u32, walker: &mut Walker) -> Outcome {
        walker.arrived += legs;
        Outcome::Success
    }
}

bt::behavior_tree! {
    tree Walk(me: &mut Walker) {
        sequence { TwoLegs }
    }
}

#[test]
fn a_boxed_async_block_runs_across_ticks() {
    let (mut tree, mut me) = (Walk::default(), Walker::default());
    // Pending on polls 1 to 3 (one, then two more), ready on the fourth.
    for _ in 0..3 {
        assert_eq!(tree.tick(&mut me), Status::Running);
    }
    assert_eq!(tree.tick(&mut me), Status::Success);
    assert_eq!(me.arrived, 2);
}

/// A saved state keeps no future: loaded, the running leaf fails.
#[test]
fn a_loaded_state_has_no_future_and_its_leaf_fails() {
    bt::behavior_tree! {
        #[bt(serde)]
        tree Saved(me: &mut Walker) {
            sequence { TwoLegs }
        }
    }
    let (mut tree, mut me) = (Saved::default(), Walker::default());
    assert_eq!(tree.tick(&mut me), Status::Running);
    let json = serde_json::to_string(&tree).unwrap();
    let mut loaded: Saved = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded.tick(&mut me), Status::Failure);
    assert_eq!(me.arrived, 0);
}
