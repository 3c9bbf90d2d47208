//! Invariants of shared tree state under random agent counts, random leaf
//! outcomes, random preemption and random resets (proptest), and under
//! several threads ticking one shared state (bounded stress test):
//! - no gate ever has more agents inside than its capacity;
//! - no rendezvous body ever has more than `n` members in it;
//! - every started leaf ends exactly once (finishes or is halted);
//! - once every agent is reset, every permit is back and no group is left.

use bt::{Ctx, Leaf, Status, behavior_tree};
use proptest::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// Zones whose occupancy is counted: inside gate(1), gate(2), the pair's
/// body, the trio's body.
const ZONES: usize = 4;
const CAPACITY: [i64; ZONES] = [1, 2, 2, 3];

#[derive(Default)]
struct Counters {
    inside: [AtomicI64; ZONES],
    peak: [AtomicI64; ZONES],
    started: AtomicU64,
    ended: AtomicU64,
}

impl Counters {
    fn enter(&self, zone: usize) {
        let now = self.inside[zone].fetch_add(1, Ordering::SeqCst) + 1;
        self.peak[zone].fetch_max(now, Ordering::SeqCst);
    }
    fn leave(&self, zone: usize) {
        self.inside[zone].fetch_sub(1, Ordering::SeqCst);
    }
}

struct Bot {
    rng: u64,
    counters: Arc<Counters>,
}

impl Bot {
    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }
    fn coin(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A leaf in `zone` (or none), with a random outcome each tick.
struct Work {
    zone: Option<usize>,
}

impl Leaf<Bot> for Work {
    /// The zone it entered, while running.
    type Memory = Option<Option<usize>>;

    fn start(&self, memory: &mut Self::Memory, bot: &mut Bot) -> Status {
        bot.counters.started.fetch_add(1, Ordering::SeqCst);
        if let Some(z) = self.zone {
            bot.counters.enter(z);
        }
        *memory = Some(self.zone);
        self.tick(memory, bot)
    }

    fn tick(&self, memory: &mut Self::Memory, bot: &mut Bot) -> Status {
        let status = match bot.next() % 10 {
            0..=5 => Status::Running,
            6..=8 => Status::Success,
            _ => Status::Failure,
        };
        if status.is_done() {
            Self::halt(memory, bot);
        }
        status
    }

    fn halt(memory: &mut Self::Memory, bot: &mut Bot) {
        let zone = memory.take().expect("ended a leaf that was not running");
        bot.counters.ended.fetch_add(1, Ordering::SeqCst);
        if let Some(z) = zone {
            bot.counters.leave(z);
        }
    }
}

behavior_tree! {
    tree Squad(me: &mut Bot, cx: &Ctx, shared: &SquadShared) {
        reactive_select {
            sequence { cond me.coin(15), 'one: gate(1) { Work { zone: Some(0) } } },
            prioritized {
                'two: when me.coin(30) => gate(2) {
                    sequence { Work { zone: Some(1) }, Work { zone: Some(1) } }
                },
                'pair: when me.coin(20) => rendezvous(2) as role {
                    sequence { Work { zone: Some(2) }, sync, Work { zone: Some(2 + role - role) } }
                },
                'trio: when me.coin(20) => rendezvous(3) as _role {
                    sequence { sync, Work { zone: Some(3) } }
                },
                'cool: when me.coin(50) => global_cooldown(0.3) { Work { zone: None } },
                else => Work { zone: None },
            },
        }
    }
}

struct Agent {
    bot: Bot,
    state: Squad,
}

fn agents(count: usize, seed: u64, counters: &Arc<Counters>) -> Vec<Agent> {
    (0..count as u64)
        .map(|i| Agent {
            bot: Bot {
                rng: (seed ^ (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1,
                counters: Arc::clone(counters),
            },
            state: Squad::default(),
        })
        .collect()
}

/// Checks every invariant once all agents are reset.
fn check_all_released(agents: &mut [Agent], shared: &SquadShared, counters: &Counters) {
    for a in agents.iter_mut() {
        a.state.reset(&mut a.bot, shared);
    }
    for (zone, &capacity) in CAPACITY.iter().enumerate() {
        let peak = counters.peak[zone].load(Ordering::SeqCst);
        assert!(peak <= capacity, "zone {zone} held {peak}");
        assert_eq!(counters.inside[zone].load(Ordering::SeqCst), 0);
    }
    assert_eq!(
        counters.started.load(Ordering::SeqCst),
        counters.ended.load(Ordering::SeqCst),
        "every started leaf ends exactly once"
    );
    assert_eq!(shared.one.inside(), 0);
    assert_eq!(shared.two.inside(), 0);
    assert_eq!(shared.pair.members(), 0);
    assert_eq!(shared.trio.members(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn limits_hold_and_everything_is_released(
        count in 1usize..40,
        seed in any::<u64>(),
        ticks in 1usize..300,
        reset_percent in 0u64..10,
    ) {
        let counters = Arc::new(Counters::default());
        let shared = SquadShared::new();
        let mut agents = agents(count, seed, &counters);
        let mut resets = seed | 1;
        for tick in 0..ticks {
            let cx = Ctx::new(tick as f64 * 0.05, 0.05);
            for a in agents.iter_mut() {
                a.state.tick(&mut a.bot, &cx, &shared);
                resets = resets.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                if (resets >> 33) % 100 < reset_percent {
                    a.state.reset(&mut a.bot, &shared);
                }
            }
            for (zone, &capacity) in CAPACITY.iter().enumerate() {
                let inside = counters.inside[zone].load(Ordering::SeqCst);
                prop_assert!(inside <= capacity, "zone {} has {}", zone, inside);
            }
        }
        check_all_released(&mut agents, &shared, &counters);
        // The run did something in each zone when it was long enough.
        if count >= 6 && ticks >= 200 {
            prop_assert!(counters.peak[0].load(Ordering::SeqCst) >= 1);
            prop_assert!(counters.peak[1].load(Ordering::SeqCst) >= 1);
        }
    }
}

#[test]
fn limits_hold_when_agents_tick_on_four_threads() {
    let counters = Arc::new(Counters::default());
    let shared = SquadShared::new();
    let mut agents = agents(128, 0xC0FFEE, &counters);
    std::thread::scope(|scope| {
        for (t, chunk) in agents.chunks_mut(32).enumerate() {
            let shared = &shared;
            scope.spawn(move || {
                for tick in 0..3_000u64 {
                    let cx = Ctx::new(tick as f64 * 0.05, 0.05);
                    for (i, a) in chunk.iter_mut().enumerate() {
                        a.state.tick(&mut a.bot, &cx, shared);
                        if (tick + i as u64 + t as u64).is_multiple_of(97) {
                            a.state.reset(&mut a.bot, shared);
                        }
                    }
                }
            });
        }
    });
    check_all_released(&mut agents, &shared, &counters);
    // Every limited zone was used, and filled to its limit at some point.
    for (zone, &capacity) in CAPACITY.iter().enumerate() {
        assert_eq!(
            counters.peak[zone].load(Ordering::SeqCst),
            capacity,
            "zone {zone} never filled up"
        );
    }
}

#[test]
fn shared_state_is_sync_and_agent_state_is_send() {
    fn sync<T: Sync>() {}
    fn send<T: Send>() {}
    sync::<SquadShared>();
    send::<Squad>();
}
