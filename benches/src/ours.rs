//! (a) The reference trees written with `behavior_tree!`.

use crate::spec::small_ids::*;
use crate::world::Agent;
use bt::{Leaf, Status};

/// Stateful action `id`, as a `bt` leaf: its memory is the ticks left.
pub struct Act {
    /// Leaf id ([`Agent::act_start`]).
    pub id: u32,
}

impl Leaf<Agent> for Act {
    type Memory = u32;

    #[inline]
    fn start(&self, left: &mut u32, agent: &mut Agent) -> Status {
        agent.act_start(self.id, left)
    }

    #[inline]
    fn tick(&self, left: &mut u32, agent: &mut Agent) -> Status {
        agent.act_tick(self.id, left)
    }

    #[inline]
    fn halt(_: &mut u32, agent: &mut Agent) {
        agent.act_halt();
    }
}

bt::behavior_tree! {
    /// `select[ sequence[ cond enemy_visible, attack ], idle ]`.
    #[bt(serde)]
    pub tree Small(me: &mut Agent) {
        select {
            sequence {
                cond me.sense(ENEMY_VISIBLE),
                Act { id: ATTACK },
            },
            action me.act_now(IDLE),
        }
    }

    /// The 20-node guard of [`crate::spec::guard`]; a Bevy component in the
    /// plugin benchmark.
    #[bt(serde)]
    #[derive(bevy_ecs::component::Component)]
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

include!("generated/large_ours.rs");
