use bt::{BehaviorTree, Leaf, Status, behavior_tree};

pub struct Agent {
    hp: f32,
}

impl Agent {
    fn ok(&self) -> bool {
        self.hp > 0.0
    }
    fn act(&mut self) -> Status {
        Status::Success
    }
}

pub struct MoveTo {
    pub x: f32,
}

impl Leaf<Agent> for MoveTo {
    type Memory = u32;
    fn tick(&self, ticks: &mut u32, _: &mut Agent) -> Status {
        *ticks += 1;
        Status::Running
    }
}

pub struct Idle;

impl Leaf<Agent> for Idle {
    type Memory = ();
    fn tick(&self, _: &mut (), _: &mut Agent) -> Status {
        Status::Success
    }
}

mod trees {
    use super::*;

    behavior_tree! {
        /// A subtree with two bindings.
        pub tree Patrol(me: &mut Agent, speed: f32) {
            sequence { MoveTo { x: speed }, Idle }
        }

        /// Every node kind once.
        pub(crate) tree Everything(me: &mut Agent, dt: f32) {
            'root: reactive_select {
                'low_hp: sequence { cond me.hp < 10.0, invert { cond me.ok() } },
                reactive_sequence { cond me.ok(), force_failure { action me.act() } },
                parallel(success = 1, failure = 2) {
                    repeat(2) { MoveTo { x: dt * 2.0 } },
                    retry(3) { force_success { Idle } },
                },
                select { failure, running, success },
                Patrol(me, dt),
            }
        }
    }
}

fn main() {
    let mut agent = Agent { hp: 5.0 };
    let mut state = trees::Everything::default();
    let status: Status = state.tick(&mut agent, 0.5);
    let _ = status.is_running();
    state.reset(&mut agent, 0.5);
    let _: usize = <trees::Everything as BehaviorTree>::STATE_SIZE;
    let _ = <trees::Patrol as BehaviorTree>::NODES;
}
