//! Support for decider groups (`prioritized`, `sequential`, `random`,
//! `shuffle`, `scored`) and `scope` hooks, called by generated code.

use crate::meta::NodeInfo;
use crate::status::Status;
use rand_core::Rng;

/// Picks one of the set bits of `candidates` uniformly at random; `None`
/// when no bit is set. Draws exactly one `u32` from `rng` when at least two
/// bits are set, and none otherwise, so replays with the same seed match.
#[inline]
pub fn pick<R: Rng + ?Sized>(rng: &mut R, candidates: u128) -> Option<usize> {
    let count = candidates.count_ones();
    if count == 0 {
        return None;
    }
    let mut nth = if count == 1 {
        0
    } else {
        // Lemire's multiply-shift: unbiased enough for 128 choices.
        ((u64::from(rng.next_u32()) * u64::from(count)) >> 32) as u32
    };
    let mut rest = candidates;
    loop {
        let bit = rest.trailing_zeros();
        if nth == 0 {
            return Some(bit as usize);
        }
        nth -= 1;
        rest &= rest - 1;
    }
}

/// What a `scope` hook's `enter` and `tick` expressions may return: `()`
/// always proceeds; `bool` proceeds on `true` and fails the scope on
/// `false`; a [`Status`] proceeds unless it is `Failure`.
pub trait HookResult {
    /// `true` to go on into the scope's child.
    fn proceed(self) -> bool;
}

impl HookResult for () {
    #[inline]
    fn proceed(self) -> bool {
        true
    }
}

impl HookResult for bool {
    #[inline]
    fn proceed(self) -> bool {
        self
    }
}

impl HookResult for Status {
    #[inline]
    fn proceed(self) -> bool {
        !self.is_failure()
    }
}

/// A tick that could not decide within its bounds. The tree's state is
/// consistent: the group that hit the bound failed for this tick, and the
/// rest of the tree went on from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickError {
    /// A decider group written with `redecides = N` needed more than `N`
    /// masked redecides in one tick: its children kept failing as soon as
    /// they were activated, a sign that a group's guard accepts where none
    /// of its children's guards do (Spore's "subset rule").
    RedecideLimit {
        /// The group.
        node: &'static NodeInfo,
        /// The status the tree returned for this tick.
        status: Status,
    },
}

impl TickError {
    /// The status the tree returned for the tick that erred.
    pub fn status(&self) -> Status {
        match self {
            TickError::RedecideLimit { status, .. } => *status,
        }
    }
}

impl core::fmt::Display for TickError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TickError::RedecideLimit { node, .. } => write!(
                f,
                "decider group `{}` (node {} of tree `{}`, line {}) exceeded its redecide limit \
                 in one tick",
                node.name(),
                node.id,
                node.tree,
                node.line
            ),
        }
    }
}

impl core::error::Error for TickError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns the values it was given, in order.
    struct Script(&'static [u32], usize);
    impl rand_core::TryRng for Script {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            self.1 += 1;
            Ok(self.0[self.1 - 1])
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(u64::from(self.try_next_u32()?))
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            unimplemented!()
        }
    }

    #[test]
    fn pick_maps_the_draw_onto_set_bits_in_order() {
        let candidates = 0b1011_0000;
        let mut rng = Script(&[0, u32::MAX, 1 << 31], 0);
        assert_eq!(pick(&mut rng, candidates), Some(4));
        assert_eq!(pick(&mut rng, candidates), Some(7));
        assert_eq!(pick(&mut rng, candidates), Some(5));
        // One candidate: no draw.
        assert_eq!(pick(&mut rng, 0b100), Some(2));
        assert_eq!(rng.1, 3);
        assert_eq!(pick(&mut rng, 0), None);
    }

    #[test]
    fn hook_results() {
        assert!(().proceed() && true.proceed() && !false.proceed());
        assert!(Status::Running.proceed() && !Status::Failure.proceed());
    }
}
