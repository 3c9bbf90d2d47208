//! Re-running recorded ticks: what a tree read from its context each tick,
//! kept so that a run can be repeated exactly.
//!
//! A tree reads time, decision flags and stimuli flags only through its
//! context, never from a clock, and every random choice through a generator
//! passed in. So a run is repeated exactly by loading the states saved at
//! some tick (the tree's, the agent's own data, the generators'; see
//! [`save`](crate::save)) and ticking again with the same contexts. A
//! [`Tape`] keeps those contexts as [`Frame`]s; [`Tape::replay`] gives them
//! back, with any trace hook attached (a [`Recorder`](crate::record::Recorder),
//! a debugger breakpoint in a leaf...).
//!
//! ```
//! use bt_runtime::{Ctx, NoFlags, NoTrace, bitflags::bitflags, replay::Tape};
//!
//! bitflags! {
//!     #[derive(Clone, Copy, Debug, PartialEq)]
//!     struct Senses: u8 { const HIT = 1; }
//! }
//!
//! let mut tape: Tape<NoFlags, Senses> = Tape::new();
//! for tick in 0..4 {
//!     let hit = if tick == 2 { Senses::HIT } else { Senses::empty() };
//!     let cx = Ctx::new(tick as f64 * 0.5, 0.5).stimuli(hit).agent(7);
//!     tape.record(&cx); // then tick every tree of agent 7 with `cx`
//! }
//! // Agent 7's ticks after its first two, as they were.
//! let again: Vec<(f64, Senses)> = tape.replay(7, 2, NoTrace).map(|cx| (cx.now, cx.stimuli)).collect();
//! assert_eq!(again, [(1.0, Senses::HIT), (1.5, Senses::empty())]);
//! ```
//!
//! The crate documentation of `bt` (*Saving, loading and replaying*)
//! replays a tree this way.

use crate::context::{Context, Ctx};
use crate::trace::Trace;
use bitflags::Flags;
use std::vec::Vec;

/// What one tick's context gave the tree: enough to build it again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame<D, S> {
    /// The tick's time, in seconds.
    pub now: f64,
    /// Seconds since the previous tick.
    pub dt: f64,
    /// The decision flags.
    pub flags: D,
    /// The stimuli flags.
    pub stimuli: S,
    /// The agent ticked.
    pub agent: u64,
}

impl<D: Flags + Copy, S: Flags + Copy> Frame<D, S> {
    /// The frame of a context.
    pub fn of<C: Context<Decision = D, Stimuli = S> + ?Sized>(cx: &C) -> Frame<D, S> {
        Frame {
            now: cx.now(),
            dt: cx.dt(),
            flags: cx.decision_flags(),
            stimuli: cx.stimuli_flags(),
            agent: cx.agent(),
        }
    }

    /// The context again, with `trace` attached.
    pub fn ctx<T: Trace>(&self, trace: T) -> Ctx<D, S, T> {
        Ctx {
            now: self.now,
            dt: self.dt,
            flags: self.flags,
            stimuli: self.stimuli,
            agent: self.agent,
            trace,
        }
    }
}

/// Every tick's [`Frame`], for every agent, in the order they were ticked.
#[derive(Clone, Debug, PartialEq)]
pub struct Tape<D, S> {
    frames: Vec<Frame<D, S>>,
}

impl<D, S> Default for Tape<D, S> {
    fn default() -> Self {
        Tape { frames: Vec::new() }
    }
}

impl<D: Flags + Copy, S: Flags + Copy> Tape<D, S> {
    /// An empty tape.
    pub fn new() -> Tape<D, S> {
        Tape::default()
    }

    /// An empty tape with room for `frames` frames: recording allocates no
    /// more until it is full.
    pub fn with_capacity(frames: usize) -> Tape<D, S> {
        Tape {
            frames: Vec::with_capacity(frames),
        }
    }

    /// Keeps the frame of `cx`: call it with the context of every tick.
    pub fn record<C: Context<Decision = D, Stimuli = S> + ?Sized>(&mut self, cx: &C) {
        self.frames.push(Frame::of(cx));
    }

    /// Every frame, in the order recorded.
    pub fn frames(&self) -> &[Frame<D, S>] {
        &self.frames
    }

    /// The contexts of `agent`'s ticks after its first `skip` ticks, rebuilt
    /// with `trace` attached: tick a state saved after tick `skip` with each
    /// of them, in order, and the run repeats.
    pub fn replay<'a, T: Trace + Copy + 'a>(
        &'a self,
        agent: u64,
        skip: usize,
        trace: T,
    ) -> impl Iterator<Item = Ctx<D, S, T>> + 'a {
        self.frames
            .iter()
            .filter(move |f| f.agent == agent)
            .skip(skip)
            .map(move |f| f.ctx(trace))
    }
}

/// Saved as `now`, `dt`, the flags' bits and `agent`.
#[cfg(feature = "serde")]
mod with_serde {
    use super::{Frame, Tape};
    use bitflags::Flags;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::vec::Vec;

    #[derive(Serialize, Deserialize)]
    #[serde(rename = "Frame")]
    struct Saved<B, C> {
        now: f64,
        dt: f64,
        flags: B,
        stimuli: C,
        agent: u64,
    }

    impl<D: Flags<Bits: Serialize>, S: Flags<Bits: Serialize>> Serialize for Frame<D, S> {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            Saved {
                now: self.now,
                dt: self.dt,
                flags: self.flags.bits(),
                stimuli: self.stimuli.bits(),
                agent: self.agent,
            }
            .serialize(serializer)
        }
    }

    impl<'de, D: Flags<Bits: Deserialize<'de>>, S: Flags<Bits: Deserialize<'de>>> Deserialize<'de>
        for Frame<D, S>
    {
        fn deserialize<Z: Deserializer<'de>>(deserializer: Z) -> Result<Self, Z::Error> {
            let saved: Saved<D::Bits, S::Bits> = Saved::deserialize(deserializer)?;
            Ok(Frame {
                now: saved.now,
                dt: saved.dt,
                flags: D::from_bits_retain(saved.flags),
                stimuli: S::from_bits_retain(saved.stimuli),
                agent: saved.agent,
            })
        }
    }

    impl<D: Flags<Bits: Serialize>, S: Flags<Bits: Serialize>> Serialize for Tape<D, S> {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            self.frames.serialize(serializer)
        }
    }

    impl<'de, D: Flags<Bits: Deserialize<'de>>, S: Flags<Bits: Deserialize<'de>>> Deserialize<'de>
        for Tape<D, S>
    {
        fn deserialize<Z: Deserializer<'de>>(deserializer: Z) -> Result<Self, Z::Error> {
            Vec::deserialize(deserializer).map(|frames| Tape { frames })
        }
    }
}
