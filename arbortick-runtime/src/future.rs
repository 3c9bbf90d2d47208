//! Futures as leaves: an action served outside the tree (a worker thread,
//! an async runtime, a robot's middleware) that the tree starts, waits for
//! tick by tick and cancels when it moves on, with no executor inside the
//! tree and no thread.
//!
//! A type implementing [`FutureLeaf`] is a [`Leaf`]: it is written in a
//! tree as any leaf is (`Fetch { url }`), and its future lives in the
//! agent's tree state while it runs.
//!
//! - **Start.** On the leaf's first tick, [`FutureLeaf::start`] makes the
//!   future, which is polled at once.
//! - **Poll.** On each tick while it runs the future is polled once, with
//!   a waker that does nothing: the tick is the wake-up. A future that is
//!   pending keeps the leaf `Running`.
//! - **Finish.** The tick the future is ready, [`FutureLeaf::finish`] turns
//!   its output into the leaf's status and the future is dropped: a
//!   finished future is never polled again.
//! - **Cancel.** A leaf halted while it runs (a reactive node preempts it,
//!   a parallel finishes, the tree is reset) drops its future, exactly
//!   once, then calls [`FutureLeaf::cancelled`]. Dropping is how Rust
//!   cancels a future: a channel's receiver tells its sender, a task
//!   handle may abort its task.
//!
//! The future is kept in the tree state, which moves with the agent, so it
//! must be [`Unpin`]. A future whose type can be named and is `Unpin`
//! (a channel's receiver, a task handle, a hand-written future) is kept
//! inline: the leaf allocates nothing. An `async` block's future cannot be
//! named and is not `Unpin`: box it ([`BoxFuture`], with the `std`
//! feature), one allocation per start. `BENCHMARKS-futures.md` (in
//! `bt-bench`) measures both against a plain leaf.
//!
//! # What a future cannot do
//!
//! A future cannot be cloned or saved. The memory of a running future leaf
//! ([`InFlight`]) clones, saves (with `serde`) and loads as empty, and a
//! leaf that finds its future gone (in a cloned or loaded state) fails,
//! through [`FutureLeaf::lost`]. A future that panics while polled
//! propagates its panic out of the tick; the future is dropped as the panic
//! unwinds, so a program that catches the panic and ticks again finds the
//! leaf's future gone, as above: it is never polled again.
//!
//! [`InFlight`] does not implement Bevy's `Reflect`: a tree that says
//! `#[bt(reflect)]` cannot hold a future leaf (rustc says so on the leaf).
//!
//! # Futures or requests
//!
//! A future serves one agent's action and lives with it. When many agents
//! ask for the same kind of work each tick (paths, line-of-sight checks)
//! and a system serves them in batches, use deferred requests
//! ([`request`](crate::request)): the tree files a request, the program
//! answers all of them at once, and nothing is kept per agent but a ticket.
//!
//! ```
//! use bt_runtime::future::FutureLeaf;
//! use bt_runtime::{Leaf, Outcome, Status};
//! use core::future::Future;
//! use core::pin::Pin;
//! use core::task::{Context, Poll};
//!
//! /// Ready after `left` more polls, with `true`.
//! #[derive(Debug)]
//! struct Countdown { left: u32 }
//!
//! impl Future for Countdown {
//!     type Output = bool;
//!     fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<bool> {
//!         if self.left == 0 {
//!             return Poll::Ready(true);
//!         }
//!         self.left -= 1;
//!         Poll::Pending
//!     }
//! }
//!
//! struct Bot { done: bool }
//!
//! /// Waits for a countdown of `ticks`.
//! struct Wait { ticks: u32 }
//!
//! impl FutureLeaf<Bot> for Wait {
//!     type Future = Countdown;
//!     fn start(&self, _: &mut Bot) -> Countdown {
//!         Countdown { left: self.ticks }
//!     }
//!     fn finish(&self, ok: bool, bot: &mut Bot) -> Outcome {
//!         bot.done = ok;
//!         Outcome::from_bool(ok)
//!     }
//! }
//!
//! // As a generated tree drives it, through `Leaf`: start, then a tick
//! // while it runs (`FutureLeaf` has a `start` too: name the trait).
//! let (mut bot, mut memory) = (Bot { done: false }, Default::default());
//! let wait = Wait { ticks: 1 };
//! assert_eq!(Leaf::start(&wait, &mut memory, &mut bot), Status::Running);
//! assert_eq!(Leaf::tick(&wait, &mut memory, &mut bot), Status::Success);
//! assert!(bot.done);
//! ```

use crate::leaf::Leaf;
use crate::status::{Outcome, Status};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

/// A leaf that runs a future: see the [module docs](self).
///
/// Every type implementing it is a [`Leaf`] whose memory is
/// [`InFlight`]`<Self::Future>`, through a blanket implementation: a type
/// implements one of the two traits, and a blanket `Leaf` implementation
/// of your own (`impl<T: MyAction> Leaf<Bot> for T`) conflicts with it
/// (implement `Leaf` for each type instead, or through a macro).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a leaf of `{A}`",
    label = "not a leaf",
    note = "a leaf type implements `bt::Leaf<{A}>`, or `bt::future::FutureLeaf<{A}>` when its action is a future"
)]
pub trait FutureLeaf<A: ?Sized> {
    /// The future the leaf waits for. `Unpin`, since it moves with the
    /// agent's state: a boxed future ([`BoxFuture`]) is.
    type Future: Future + Unpin;

    /// Makes the future, on the leaf's first tick (the parameters are the
    /// leaf's fields, built that tick).
    fn start(&self, agent: &mut A) -> Self::Future;

    /// The leaf's outcome, from the future's output, the tick it is ready.
    fn finish(&self, output: <Self::Future as Future>::Output, agent: &mut A) -> Outcome;

    /// The leaf was halted while it ran; its future has been dropped. The
    /// default does nothing.
    #[inline]
    fn cancelled(agent: &mut A) {
        let _ = agent;
    }

    /// The leaf runs but has no future: its state was cloned or loaded
    /// while it ran, or its future panicked. The default fails.
    #[inline]
    fn lost(&self, agent: &mut A) -> Outcome {
        let _ = agent;
        Outcome::Failure
    }
}

/// A boxed future, for `async` blocks: `Unpin` and `Send`, its output
/// `O`. One allocation per start.
#[cfg(feature = "std")]
pub type BoxFuture<O> = Pin<std::boxed::Box<dyn Future<Output = O> + Send + 'static>>;

/// The memory of a running [`FutureLeaf`]: its future. Empty by default,
/// and when cloned, saved or loaded (a future can be none of these): a
/// leaf that finds it empty while it runs calls [`FutureLeaf::lost`].
pub struct InFlight<F>(Option<F>);

impl<F> InFlight<F> {
    /// Whether it holds a future.
    pub fn is_running(&self) -> bool {
        self.0.is_some()
    }
}

impl<F> Default for InFlight<F> {
    #[inline]
    fn default() -> Self {
        InFlight(None)
    }
}

/// Empty: a future cannot be cloned (see [`InFlight`]).
impl<F> Clone for InFlight<F> {
    #[inline]
    fn clone(&self) -> Self {
        InFlight(None)
    }
}

impl<F> core::fmt::Debug for InFlight<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.0.is_some() {
            "InFlight(future)"
        } else {
            "InFlight(empty)"
        })
    }
}

/// Saved as nothing: a future cannot be saved (see [`InFlight`]).
#[cfg(feature = "serde")]
impl<F> serde::Serialize for InFlight<F> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

/// Loaded empty (see [`InFlight`]).
#[cfg(feature = "serde")]
impl<'de, F> serde::Deserialize<'de> for InFlight<F> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <() as serde::Deserialize>::deserialize(deserializer)?;
        Ok(InFlight(None))
    }
}

/// Polls `leaf`'s future once; drops it when it is ready. The future is
/// out of the memory while polled, so that one that panics is dropped as
/// the panic unwinds.
#[inline]
fn poll<A: ?Sized, L: FutureLeaf<A> + ?Sized>(
    leaf: &L,
    memory: &mut InFlight<L::Future>,
    agent: &mut A,
) -> Status {
    let Some(mut future) = memory.0.take() else {
        return leaf.lost(agent).into();
    };
    match Pin::new(&mut future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Pending => {
            memory.0 = Some(future);
            Status::Running
        }
        Poll::Ready(output) => {
            drop(future);
            leaf.finish(output, agent).into()
        }
    }
}

impl<A: ?Sized, L: FutureLeaf<A>> Leaf<A> for L {
    type Memory = InFlight<L::Future>;

    #[inline]
    fn start(&self, memory: &mut Self::Memory, agent: &mut A) -> Status {
        memory.0 = Some(FutureLeaf::start(self, agent));
        poll(self, memory, agent)
    }

    #[inline]
    fn tick(&self, memory: &mut Self::Memory, agent: &mut A) -> Status {
        poll(self, memory, agent)
    }

    #[inline]
    fn halt(memory: &mut Self::Memory, agent: &mut A) {
        if let Some(future) = memory.0.take() {
            drop(future);
            L::cancelled(agent);
        }
    }
}
