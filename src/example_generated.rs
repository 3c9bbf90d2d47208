//! What [`behavior_tree!`](crate::behavior_tree) generates, shown on one
//! example tree. This module exists only in the documentation.
//!
//! The tree below, written in this module as
//!
//! ```ignore
//! behavior_tree! {
//!     /// A sentry: answers the alarm, one at a time at the siren, else patrols.
//!     pub tree Sentry(me: &mut Guard, cx: &Ctx, shared: &SentryShared) {
//!         reactive_select {
//!             sequence { cond me.alarm, 'siren: gate(1) { action me.sound_siren() } },
//!             timeout(60) { Patrol { laps: 3 } },
//!         }
//!     }
//! }
//! ```
//!
//! declares:
//!
//! - [`Sentry`]: the per-agent state. `Sentry::default()` is an agent that
//!   has not started; [`Sentry::tick`] advances it one tick,
//!   [`Sentry::try_tick`] also reports a decider's `redecides` bound, and
//!   [`Sentry::reset`] halts whatever runs and forgets timers and marks.
//!   Its size is [`BehaviorTree::STATE_SIZE`](crate::BehaviorTree::STATE_SIZE)
//!   bytes.
//! - [`SentryShared`]: because the tree has a `gate`, the state every agent
//!   shares, with one field per shared node named by its label (`siren`).
//! - [`BehaviorTree`](crate::BehaviorTree) for `Sentry`: the static node
//!   table [`NODES`](crate::BehaviorTree::NODES) and the walk over an
//!   agent's active path.
//!
//! It also declares hidden types (the state of each node that needs one,
//! named after the tree and the node id) that only the generated code uses.

use crate::{Ctx, Leaf, Status};

/// The agent the example tree acts on.
#[derive(Debug, Default)]
pub struct Guard {
    /// The alarm sounds.
    pub alarm: bool,
    /// Laps walked.
    pub laps: u32,
}

impl Guard {
    /// Sounds the siren: done in one tick.
    pub fn sound_siren(&mut self) -> Status {
        Status::Success
    }
}

/// A stateful leaf: walks `laps` laps, one per tick.
#[derive(Debug)]
pub struct Patrol {
    /// How many laps.
    pub laps: u32,
}

impl Leaf<Guard> for Patrol {
    type Memory = u32;

    fn tick(&self, walked: &mut u32, guard: &mut Guard) -> Status {
        *walked += 1;
        guard.laps += 1;
        if *walked >= self.laps {
            Status::Success
        } else {
            Status::Running
        }
    }
}

crate::behavior_tree! {
    /// A sentry: answers the alarm, one at a time at the siren, else patrols.
    #[bt(crate = crate)]
    pub tree Sentry(me: &mut Guard, cx: &Ctx, shared: &SentryShared) {
        reactive_select {
            sequence { cond me.alarm, 'siren: gate(1) { action me.sound_siren() } },
            timeout(60) { Patrol { laps: 3 } },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_tree_runs() {
        let (shared, mut me, mut sentry) =
            (SentryShared::new(), Guard::default(), Sentry::default());
        let cx = Ctx::new(0.0, 0.1);
        assert_eq!(sentry.tick(&mut me, &cx, &shared), Status::Running);
        me.alarm = true;
        assert_eq!(sentry.tick(&mut me, &cx, &shared), Status::Success);
        assert_eq!(me.laps, 1);
    }
}
