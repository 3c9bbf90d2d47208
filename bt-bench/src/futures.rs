//! Future leaves (`bt::future`) against a plain leaf doing the same work:
//! an action that runs for a few ticks (1 to 8, per agent and run), then
//! succeeds, in `sequence { <action>, action me.done() }`.
//!
//! - **leaf**: a [`bt::Leaf`] counting its ticks in its memory.
//! - **future-inline**: a [`FutureLeaf`] whose future ([`Countdown`]) is a
//!   named `Unpin` type, kept in the tree state: no allocation.
//! - **future-boxed**: a [`FutureLeaf`] whose future is an `async` block
//!   awaiting the same countdown, boxed ([`BoxFuture`]): one allocation
//!   per start.

use bt::future::{BoxFuture, FutureLeaf};
use bt::{Leaf, Outcome, Status};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

/// An agent: a stream of run lengths, and a hash of what it did.
#[derive(Clone, Debug)]
pub struct Runner {
    bits: u64,
    /// Order-sensitive hash of every call.
    pub calls: u64,
}

impl Runner {
    /// Agent `i`.
    pub fn new(i: u64) -> Runner {
        Runner {
            bits: 0x9E37_79B9_7F4A_7C15 ^ (i + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
            calls: 0,
        }
    }

    /// Ticks the next run lasts: 1 to 8.
    fn run_length(&mut self) -> u32 {
        let mut x = self.bits;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.bits = x;
        (x & 7) as u32 + 1
    }

    fn record(&mut self, what: u64) {
        self.calls = self.calls.wrapping_mul(31).wrapping_add(what);
    }

    /// The action after the run.
    pub fn done(&mut self) -> Status {
        self.record(7);
        Status::Success
    }
}

/// Pending until polled `0` more times.
#[derive(Debug)]
pub struct Countdown(u32);

impl Future for Countdown {
    type Output = u32;
    #[inline]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        if self.0 <= 1 {
            return Poll::Ready(1);
        }
        self.0 -= 1;
        Poll::Pending
    }
}

/// The run as a plain leaf: its memory counts the ticks left.
pub struct Plain;

impl Leaf<Runner> for Plain {
    type Memory = u32;

    #[inline]
    fn start(&self, left: &mut u32, me: &mut Runner) -> Status {
        *left = me.run_length();
        self.tick(left, me)
    }

    #[inline]
    fn tick(&self, left: &mut u32, me: &mut Runner) -> Status {
        if *left <= 1 {
            me.record(1);
            return Status::Success;
        }
        *left -= 1;
        Status::Running
    }
}

/// The run as a future kept inline.
pub struct Inline;

impl FutureLeaf<Runner> for Inline {
    type Future = Countdown;

    #[inline]
    fn start(&self, me: &mut Runner) -> Countdown {
        Countdown(me.run_length())
    }

    #[inline]
    fn finish(&self, what: u32, me: &mut Runner) -> Outcome {
        me.record(u64::from(what));
        Outcome::Success
    }
}

/// The run as a boxed `async` block.
pub struct Boxed;

impl FutureLeaf<Runner> for Boxed {
    type Future = BoxFuture<u32>;

    #[inline]
    // An `async` block's state machine, boxed, is what is measured.
    #[allow(clippy::redundant_async_block)]
    fn start(&self, me: &mut Runner) -> BoxFuture<u32> {
        let ticks = me.run_length();
        Box::pin(async move { Countdown(ticks).await })
    }

    #[inline]
    fn finish(&self, what: u32, me: &mut Runner) -> Outcome {
        me.record(u64::from(what));
        Outcome::Success
    }
}

bt::behavior_tree! {
    /// With the plain leaf.
    pub tree WithLeaf(me: &mut Runner) {
        sequence { Plain, action me.done() }
    }

    /// With the inline future.
    pub tree WithInline(me: &mut Runner) {
        sequence { Inline, action me.done() }
    }

    /// With the boxed future.
    pub tree WithBoxed(me: &mut Runner) {
        sequence { Boxed, action me.done() }
    }
}

/// The three variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// [`Plain`].
    Leaf,
    /// [`Inline`].
    Inline,
    /// [`Boxed`].
    Boxed,
}

impl Variant {
    /// All, in report order.
    pub const ALL: [Variant; 3] = [Variant::Leaf, Variant::Inline, Variant::Boxed];

    /// Its benchmark name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Leaf => "leaf",
            Variant::Inline => "future-inline",
            Variant::Boxed => "future-boxed",
        }
    }
}

/// `count` runners with their tree states.
pub struct Herd {
    variant: Variant,
    runners: Vec<Runner>,
    leaf: Vec<WithLeaf>,
    inline: Vec<WithInline>,
    boxed: Vec<WithBoxed>,
    /// Fold of every root status.
    pub statuses: u64,
}

impl Herd {
    /// `count` runners of `variant`.
    pub fn new(variant: Variant, count: usize) -> Herd {
        let n = |on: bool| if on { count } else { 0 };
        Herd {
            variant,
            runners: (0..count as u64).map(Runner::new).collect(),
            leaf: (0..n(variant == Variant::Leaf))
                .map(|_| Default::default())
                .collect(),
            inline: (0..n(variant == Variant::Inline))
                .map(|_| Default::default())
                .collect(),
            boxed: (0..n(variant == Variant::Boxed))
                .map(|_| Default::default())
                .collect(),
            statuses: 0,
        }
    }

    /// One tick of every runner.
    #[inline(never)]
    pub fn step(&mut self) {
        let mut fold = self.statuses;
        let mut each = |status: Status| fold = fold.wrapping_mul(3).wrapping_add(status as u64);
        match self.variant {
            Variant::Leaf => {
                for (t, r) in self.leaf.iter_mut().zip(&mut self.runners) {
                    each(t.tick(r));
                }
            }
            Variant::Inline => {
                for (t, r) in self.inline.iter_mut().zip(&mut self.runners) {
                    each(t.tick(r));
                }
            }
            Variant::Boxed => {
                for (t, r) in self.boxed.iter_mut().zip(&mut self.runners) {
                    each(t.tick(r));
                }
            }
        }
        self.statuses = fold;
    }

    /// Hash of every runner's calls.
    pub fn calls(&self) -> u64 {
        (self.runners.iter()).fold(0u64, |h, r| {
            h.wrapping_mul(0x100_0000_01B3).wrapping_add(r.calls)
        })
    }

    /// Bytes of one agent's tree state.
    pub fn state_size(self_variant: Variant) -> usize {
        match self_variant {
            Variant::Leaf => core::mem::size_of::<WithLeaf>(),
            Variant::Inline => core::mem::size_of::<WithInline>(),
            Variant::Boxed => core::mem::size_of::<WithBoxed>(),
        }
    }
}
