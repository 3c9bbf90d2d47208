//! One out-of-line entry point per benchmarked tick, so that each tree's
//! generated and hand-written hot path can be read side by side in the
//! assembly:
//!
//! ```sh
//! cargo rustc -p bt-bench --lib --release -- --emit asm -C llvm-args=-x86-asm-syntax=intel
//! ```
//!
//! The functions are named `probe_<tree>_<implementation>` (their symbols
//! keep those names inside the mangling); where a tick is not inlined into
//! its probe, the probe is one jump to it (`__GuardParts::tick`,
//! `GuardHand::tick`, ...).

use bt::{Ctx, NoFlags, Status, TraceEvent, Tracer};

use crate::decider::{Decider, DeciderPlain, HandDecider, Mode, Npc};
use crate::hand::{GuardHand, LargeHand, SmallHand};
use crate::ours::{Guard, Large, Small};
use crate::world::Agent;

/// The tracer type of the decider benchmark's `bt-tracer-level-0` row.
pub type QuietTracer = Tracer<fn(&TraceEvent)>;

/// `Small::tick`.
#[inline(never)]
pub fn probe_small_bt(s: &mut Small, a: &mut Agent) -> Status {
    s.tick(a)
}

/// `SmallHand::tick`.
#[inline(never)]
pub fn probe_small_hand(s: &mut SmallHand, a: &mut Agent) -> Status {
    s.tick(a)
}

/// `Guard::tick`.
#[inline(never)]
pub fn probe_guard_bt(s: &mut Guard, a: &mut Agent) -> Status {
    s.tick(a)
}

/// `GuardHand::tick`.
#[inline(never)]
pub fn probe_guard_hand(s: &mut GuardHand, a: &mut Agent) -> Status {
    s.tick(a)
}

/// `Large::tick`.
#[inline(never)]
pub fn probe_large_bt(s: &mut Large, a: &mut Agent) -> Status {
    s.tick(a)
}

/// `LargeHand::tick`.
#[inline(never)]
pub fn probe_large_hand(s: &mut LargeHand, a: &mut Agent) -> Status {
    s.tick(a)
}

/// `DeciderPlain::tick` (no context).
#[inline(never)]
pub fn probe_decider_bt(s: &mut DeciderPlain, me: &mut Npc) -> Status {
    s.tick(me)
}

/// `Decider::tick` with the `NoTrace` context.
#[inline(never)]
pub fn probe_decider_notrace(s: &mut Decider, me: &mut Npc, cx: &Ctx<Mode>) -> Status {
    s.tick(me, cx)
}

/// `Decider::tick` with a level-0 tracer attached.
#[inline(never)]
pub fn probe_decider_quiet(
    s: &mut Decider,
    me: &mut Npc,
    cx: &Ctx<Mode, NoFlags, &QuietTracer>,
) -> Status {
    s.tick(me, cx)
}

/// `HandDecider::tick`.
#[inline(never)]
pub fn probe_decider_hand(s: &mut HandDecider, me: &mut Npc, cx: &Ctx<Mode>) -> Status {
    s.tick(me, cx)
}
