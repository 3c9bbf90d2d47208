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

mod other {
    use super::*;

    behavior_tree! {
        /// A subtree in another module, with memory that outlives activity.
        pub tree Watch(me: &mut Agent, cx: &bt::Ctx) {
            cooldown(2) { run_once { MoveTo { x: 1.0 } } }
        }
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
                reactive_sequence { cond me.ok(), force_failure { action me.act() }, keep_running_until_failure { Idle } },
                parallel(success = 1, failure = 2) {
                    repeat(2) { MoveTo { x: dt * 2.0 } },
                    retry(3) { force_success { Idle } },
                },
                select { failure, running, success },
                Patrol(me, dt),
            }
        }

        /// BehaviorTree.CPP's catalog: every remaining node kind and option.
        pub tree Catalog(me: &mut Agent, cx: &bt::Ctx) {
            sequence_with_memory {
                if_then_else { cond me.ok(), MoveTo { x: 1.0 }, Idle },
                while_do_else { cond me.ok(), MoveTo { x: 2.0 } },
                parallel_all(max_failures = -1) { repeat(forever) { Idle }, retry(forever) { Idle } },
                parallel(success = -1, failure = 1) { timeout(0) { Idle }, every(2) { Idle } },
                select {
                    skip_if(me.ok()) { Idle },
                    run_while(me.ok()) { Idle },
                    run_once(then_skip = true) { Idle },
                },
                success_if(me.ok()) { failure_if(!me.ok()) { Idle } },
                after(success = me.act(), failure = (), finished = (), halted = me.hp = 0.0) { Idle },
                prioritized { every(1) => every(2) { Idle }, else => success },
            }
        }

        /// Every deciding, timing and shared node kind once.
        pub tree Spore(
            me: &mut Agent,
            cx: &bt::Ctx<bt::NoFlags, bt::NoFlags, impl bt::Trace>,
            rng: &mut Dice,
            shared: &SporeShared,
        ) {
            'root: prioritized(redecides = 8) {
                'flee: flags(any = bt::NoFlags::empty()) stimuli(none = bt::NoFlags::empty())
                    when me.hp < 1.0 => timeout(3) { MoveTo { x: -1.0 } },
                'eat: when let Some(x): Option<f32> = Some(me.hp) score *x => delay(0.5) { MoveTo { x: *x } },
                'look: every(1) => scope(enter = me.ok(), tick = (), exit = ()) { wait(1) },
                'idle: else => sequential {
                    random(rng) { action me.act(), Idle },
                    shuffle(rng) { Idle, success },
                    scored { score 1.0 => Idle, Idle },
                    sequence { monitor(me.ok()), other::Watch(me, &bt::Ctx::new(cx.now, cx.dt)) },
                    'grenade: gate(1) { 'taunt: global_cooldown(4) { Idle } },
                    'pair: rendezvous(2) as role {
                        sequence { switch(role) { 0 => Idle, _ => action me.act() }, sync }
                    },
                },
            }
        }
    }
}

/// A fixed "random" source.
pub struct Dice;

impl bt::rand_core::TryRng for Dice {
    type Error = std::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(4)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(4)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(4);
        Ok(())
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

    let mut catalog = trees::Catalog::default();
    let cx = bt::Ctx::new(0.0, 0.1);
    let _: Status = catalog.tick(&mut agent, &cx);
    catalog.reset(&mut agent);

    let shared = trees::SporeShared::new();
    let mut spore = trees::Spore::default();
    let cx = bt::Ctx::new(0.0, 0.1);
    let _: Result<Status, bt::TickError> = spore.try_tick(&mut agent, &cx, &mut Dice, &shared);
    let mut text = String::new();
    spore.print_state(0.1, &mut text).unwrap();
    spore.reset(&mut agent, &cx, &shared);
}
