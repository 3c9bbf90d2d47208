//! A user's types named like every primitive type the generated code
//! names do not capture it: the generated code writes them as
//! `::core::primitive::..`. (serde's derive, behind `#[bt(serde)]`, writes
//! `u8`, `u64`, `usize` and `str` bare: a saved tree needs those
//! unshadowed, see the `saved` module.)
#![allow(non_camel_case_types, dead_code, unused_imports)]

/// Types named like primitives, as a user may have them in scope.
mod shadows {
    pub struct bool;
    pub struct char;
    pub struct f32;
    pub struct f64;
    pub struct i8;
    pub struct i16;
    pub struct i32;
    pub struct i64;
    pub struct i128;
    pub struct isize;
    pub struct str;
    pub struct u8;
    pub struct u16;
    pub struct u32;
    pub struct u64;
    pub struct u128;
    pub struct usize;
}

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
    use crate::shadows::*;

    behavior_tree! {
        /// A subtree in another module, with memory that outlives activity.
        pub tree Watch(me: &mut Agent, cx: &bt::Ctx) {
            cooldown(2) { run_once { MoveTo { x: 1.0 } } }
        }
    }
}

mod trees {
    use super::*;
    use crate::shadows::*;

    behavior_tree! {
        /// A subtree with two bindings.
        pub tree Patrol(me: &mut Agent, speed: ::core::primitive::f32) {
            sequence { MoveTo { x: speed }, Idle }
        }

        /// Every node kind once.
        pub(crate) tree Everything(me: &mut Agent, dt: ::core::primitive::f32) {
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
                'eat: when let Some(x): Option<::core::primitive::f32> = Some(me.hp) score *x => delay(0.5) { MoveTo { x: *x } },
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


/// What the request tree asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Anim {
    Run,
}

mod requests {
    use super::*;
    use crate::shadows::*;

    behavior_tree! {
        /// A request, a switch and a rendezvous under shadowed names.
        pub tree Asks(_me: &mut Agent, anims: &mut bt::request::Requests<Anim>, cx: &bt::Ctx, shared: &AsksShared) {
            parallel(success = 2, failure = 1) {
                request(anims, Anim::Run),
                'pair: rendezvous(2) as role { switch(role) { 0 => sync, _ => success } },
            }
        }
    }
}

mod saved {
    use super::*;
    // serde's derive names `u8`, `u64`, `usize` and `str` itself.
    use crate::shadows::{bool, char, f32, f64, i8, i16, i32, i64, i128, isize, u16, u32, u128};

    behavior_tree! {
        /// Saved, with every kind that keeps a time, a count or a mask.
        #[bt(serde, activation_times)]
        pub tree Kept(me: &mut Agent, cx: &bt::Ctx, rng: &mut Dice, shared: &KeptShared) {
            'top: prioritized {
                when let Some(_x): Option<::core::primitive::f32> = Some(me.hp) => repeat(3) { wait(1) },
                'g: every(1) => gate(2) {
                    parallel(success = 1, failure = 2) { wait(1), cooldown(2) { success } }
                },
                else => shuffle(rng) { run_once { success }, sequence_with_memory { success, success } },
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
