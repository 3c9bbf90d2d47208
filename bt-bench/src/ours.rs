//! (a) The reference trees written with `behavior_tree!`.

use crate::spec::small_ids::*;
use crate::world::Agent;
use bt::{Leaf, Status};
use core::num::NonZeroU32;

/// Stateful action `id`, as a `bt` leaf: its memory is the ticks left.
pub struct Act {
    /// Leaf id ([`Agent::act_start`]).
    pub id: u32,
}

/// The ticks left of a running action. The action ends on the tick its
/// count reaches 0, so while it runs the count is never 0: a `NonZeroU32`.
/// A state enum holding it keeps "not running" in that 0, the way the
/// hand-written trees do with their plain `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bt::serde::Serialize, bt::serde::Deserialize)]
#[serde(crate = "bt::serde")]
pub struct TicksLeft(NonZeroU32);

impl Default for TicksLeft {
    fn default() -> Self {
        TicksLeft(NonZeroU32::MIN)
    }
}

impl Act {
    /// One tick of the action, `left` ticks to go with this one: what
    /// [`Agent::act_tick`] does, with the count kept in a `NonZeroU32`.
    #[inline]
    fn step(&self, left: u32, memory: &mut TicksLeft, agent: &mut Agent) -> Status {
        match NonZeroU32::new(left - 1) {
            Some(rest) => {
                memory.0 = rest;
                agent.act_runs(self.id)
            }
            None => agent.act_ends(self.id),
        }
    }
}

impl Leaf<Agent> for Act {
    type Memory = TicksLeft;

    #[inline]
    fn start(&self, left: &mut TicksLeft, agent: &mut Agent) -> Status {
        self.step(agent.act_duration(self.id), left, agent)
    }

    #[inline]
    fn tick(&self, left: &mut TicksLeft, agent: &mut Agent) -> Status {
        self.step(left.0.get(), left, agent)
    }

    #[inline]
    fn halt(_: &mut TicksLeft, agent: &mut Agent) {
        agent.act_halt();
    }
}

bt::behavior_tree! {
    /// `select[ sequence[ cond enemy_visible, attack ], idle ]`; `idle`
    /// finishes at once, so it is an `instant`.
    #[bt(serde)]
    pub tree Small(me: &mut Agent) {
        select {
            sequence {
                cond me.sense(ENEMY_VISIBLE),
                Act { id: ATTACK },
            },
            instant me.act_done(IDLE),
        }
    }

    /// The 20-node guard of [`crate::spec::guard`]; a Bevy component in the
    /// plugin benchmark.
    #[bt(serde)]
    #[derive(bevy_ecs::component::Component, bevy_reflect::TypePath)]
    pub tree Guard(me: &mut Agent) {
        parallel(success = 2, failure = 1) {
            force_success { Act { id: 10 } },
            'priorities: reactive_select {
                'flee: reactive_sequence {
                    cond me.sense(0),
                    invert { cond me.sense(1) },
                    Act { id: 11 },
                },
                'attack: reactive_sequence { cond me.sense(2), cond me.sense(3), Act { id: 12 } },
                'chase: reactive_sequence { cond me.sense(2), Act { id: 13 } },
                'investigate: reactive_sequence { cond me.sense(4), Act { id: 14 } },
                'patrol: Act { id: 15 },
            },
        }
    }
}

bt::behavior_tree! {
    /// [`Small`] with a tick context: its trace points report to the
    /// context's trace hook (a recorder, in the benchmarks).
    pub tree SmallTraced(me: &mut Agent, cx: &bt::Ctx<bt::NoFlags, bt::NoFlags, impl bt::Trace>) {
        select {
            sequence {
                cond me.sense(ENEMY_VISIBLE),
                Act { id: ATTACK },
            },
            instant me.act_done(IDLE),
        }
    }

    /// [`Guard`] with a tick context.
    pub tree GuardTraced(me: &mut Agent, cx: &bt::Ctx<bt::NoFlags, bt::NoFlags, impl bt::Trace>) {
        parallel(success = 2, failure = 1) {
            force_success { Act { id: 10 } },
            'priorities: reactive_select {
                'flee: reactive_sequence {
                    cond me.sense(0),
                    invert { cond me.sense(1) },
                    Act { id: 11 },
                },
                'attack: reactive_sequence { cond me.sense(2), cond me.sense(3), Act { id: 12 } },
                'chase: reactive_sequence { cond me.sense(2), Act { id: 13 } },
                'investigate: reactive_sequence { cond me.sense(4), Act { id: 14 } },
                'patrol: Act { id: 15 },
            },
        }
    }
}

include!("generated/large_ours.rs");
include!("generated/large_traced.rs");
