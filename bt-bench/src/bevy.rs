//! The guard tree as a Bevy agent, for the plugin benchmark: each tick is
//! followed by the agent's [`Agent::advance`], in the plugin's system as in
//! the plain loop, so that both do the same work.

use crate::ours::Guard;
use crate::world::Agent;
use bt::{Ctx, NoFlags, Status};
use bt_bevy::AgentTree;

impl AgentTree for Guard {
    type Agent = Agent;
    type Shared = ();
    type Decision = NoFlags;
    type Stimuli = NoFlags;

    #[inline]
    fn tick_agent(&mut self, me: &mut Agent, _: &Ctx, _: &()) -> Status {
        let status = self.tick(me);
        me.advance();
        status
    }

    fn reset_agent(&mut self, me: &mut Agent, _: &Ctx, _: &()) {
        self.reset(me);
    }
}
