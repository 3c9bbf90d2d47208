//! Ticking never allocates: 100 agents, 10,000 ticks of a tree with every
//! composite kind, stateful leaves, preemption and resets, under a global
//! allocator that counts.

use bt::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Allocations made by this thread (tests run on several threads).
    static MINE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count() {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    let _ = MINE.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> usize {
    MINE.with(|n| n.get())
}

// SAFETY: every method forwards to `System` with the arguments it was given,
// so `System`'s guarantees hold; the only addition is an atomic counter.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// An agent with a tiny deterministic random source.
struct Agent {
    seed: u64,
    started: u32,
    ended: u32,
}

impl Agent {
    fn roll(&mut self, percent: u64) -> bool {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % 100 < percent
    }
    fn outcome(&mut self) -> Status {
        if self.roll(60) {
            Status::Running
        } else if self.roll(70) {
            Status::Success
        } else {
            Status::Failure
        }
    }
}

/// Runs for a random number of ticks; counts starts and ends.
struct Work {
    effort: u8,
}

impl Leaf<Agent> for Work {
    type Memory = [u16; 4];
    fn start(&self, memory: &mut [u16; 4], agent: &mut Agent) -> Status {
        agent.started += 1;
        memory[0] = u16::from(self.effort);
        self.tick(memory, agent)
    }
    fn tick(&self, memory: &mut [u16; 4], agent: &mut Agent) -> Status {
        memory[1] += 1;
        let status = agent.outcome();
        if status.is_done() {
            agent.ended += 1;
        }
        status
    }
    fn halt(_: &mut [u16; 4], agent: &mut Agent) {
        agent.ended += 1;
    }
}

behavior_tree! {
    tree Chore(me: &mut Agent) {
        retry(2) { sequence { Work { effort: 1 }, Work { effort: 2 } } }
    }

    tree Busy(me: &mut Agent) {
        reactive_select {
            sequence { cond me.roll(10), Work { effort: 9 } },
            parallel(success = 2, failure = 2) {
                Chore(me),
                repeat(3) { Work { effort: 3 } },
                invert { action me.outcome() },
            },
            reactive_sequence { cond me.roll(90), force_success { Work { effort: 4 } } },
        }
    }
}

bt::bitflags::bitflags! {
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Mode: u8 { const NIGHT = 1; }
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Senses: u8 { const HIT = 1; const FOOD = 2; }
}

/// A xorshift generator for the `shuffle` and `random` groups.
struct Xorshift(u64);

impl bt::rand_core::TryRng for Xorshift {
    type Error = std::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((self.try_next_u64()? >> 32) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Ok(self.0)
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        unimplemented!()
    }
}

behavior_tree! {
    tree Errand(me: &mut Agent, cx: &bt::Ctx<Mode, Senses, impl bt::Trace>) {
        sequence { Work { effort: 1 }, wait(0.1) }
    }

    tree Deciding(me: &mut Agent, cx: &bt::Ctx<Mode, Senses, impl bt::Trace>, rng: &mut Xorshift) {
        prioritized {
            stimuli(any = Senses::HIT) when me.roll(50) => timeout(1.0) { Work { effort: 5 } },
            when let Some(effort): Option<u8> = me.roll(20).then_some(6) => Work { effort: *effort },
            every(0.5) flags(none = Mode::NIGHT) => scope(enter = me.roll(90), exit = me.started += 0) {
                sequential { Work { effort: 7 }, delay(0.2) { Work { effort: 8 } } }
            },
            else => shuffle(rng) {
                cooldown(0.3) { Work { effort: 1 } },
                run_once { Work { effort: 2 } },
                random(rng) { Work { effort: 3 }, wait(0.25), Errand(me, cx) },
            },
        }
    }
}

#[test]
fn deciders_stimuli_and_timers_do_not_allocate() {
    let mut agents: Vec<(Agent, Deciding, bt::Stimuli<Senses, u32, 2>)> = (0..100)
        .map(|i| {
            let agent = Agent {
                seed: 0x51_7cc1_b727 + i,
                started: 0,
                ended: 0,
            };
            (agent, Deciding::default(), bt::Stimuli::new())
        })
        .collect();
    let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
    let mut statuses = [0usize; 3];
    let before = allocations();
    for tick in 0..10_000u32 {
        let now = f64::from(tick) * 0.05;
        for (agent, state, stimuli) in &mut agents {
            if agent.roll(5) {
                // Full store: the soonest-expiring stimulus makes room.
                let _ = stimuli.add_evicting(Senses::HIT, 0.4, tick);
            }
            let senses = stimuli.update(now);
            let mode = if tick % 200 < 50 {
                Mode::NIGHT
            } else {
                Mode::empty()
            };
            let cx = bt::Ctx::new(now, 0.05).flags(mode).stimuli(senses);
            let status = state.tick(agent, &cx, &mut rng);
            statuses[status as usize] += 1;
            if tick % 331 == 0 {
                state.reset(agent, &cx);
            }
        }
    }
    let allocations = allocations() - before;
    assert_eq!(allocations, 0);
    // The root has an `else` child, so it fails only when every branch failed
    // in the same tick; it succeeds and runs often.
    assert!(statuses[0] > 1000 && statuses[2] > 1000, "{statuses:?}");
    for (agent, state, _) in &mut agents {
        state.reset(agent, &bt::Ctx::new(0.0, 0.0));
        assert!(agent.started > 100);
        assert_eq!(agent.started, agent.ended, "every started leaf ended once");
    }
}

#[test]
fn recording_does_not_allocate() {
    // 100 agents, each with a ring of 512 transitions: it wraps many times.
    let recorder = bt::record::Recorder::new::<Deciding>(100, 512);
    let mut agents: Vec<(Agent, Deciding)> = (0..100)
        .map(|i| {
            let agent = Agent {
                seed: 0x51_7cc1_b727 + i,
                started: 0,
                ended: 0,
            };
            (agent, Deciding::default())
        })
        .collect();
    let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
    let before = allocations();
    for tick in 0..5_000u32 {
        let now = f64::from(tick) * 0.05;
        for (id, (agent, state)) in agents.iter_mut().enumerate() {
            let senses = if agent.roll(5) {
                Senses::HIT
            } else {
                Senses::empty()
            };
            let cx = bt::Ctx::new(now, 0.05)
                .stimuli(senses)
                .agent(id as u64)
                .trace(&recorder);
            state.tick(agent, &cx, &mut rng);
            if tick % 331 == 0 {
                state.reset(agent, &cx);
            }
        }
    }
    assert_eq!(allocations() - before, 0);
    for agent in 0..100 {
        assert_eq!(recorder.transitions(agent).unwrap().len(), 512);
        assert!(
            recorder.dropped(agent).unwrap() > 10_000,
            "{}",
            recorder.dropped(agent).unwrap()
        );
    }
}

behavior_tree! {
    tree Synced(me: &mut Agent, cx: &bt::Ctx, shared: &SyncedShared) {
        select {
            sequence { monitor(me.roll(3)), Work { effort: 1 } },
            'one: gate(1) { Work { effort: 2 } },
            'pair: rendezvous(2) as role {
                sequence { switch(role) { 0 => Work { effort: 3 }, _ => Work { effort: 4 } }, sync, Work { effort: 5 } }
            },
            'cool: global_cooldown(0.5) { Work { effort: 6 } },
        }
    }
}

#[test]
fn shared_state_monitors_and_switch_do_not_allocate() {
    let mut agents: Vec<(Agent, Synced)> = (0..64)
        .map(|i| {
            let agent = Agent {
                seed: 0x2545_f491 + i,
                started: 0,
                ended: 0,
            };
            (agent, Synced::default())
        })
        .collect();
    let shared = SyncedShared::new();
    let before = allocations();
    for tick in 0..10_000u32 {
        let cx = bt::Ctx::new(f64::from(tick) * 0.05, 0.05);
        for (agent, state) in &mut agents {
            state.tick(agent, &cx, &shared);
            if agent.roll(1) {
                state.reset(agent, &shared);
            }
        }
    }
    assert_eq!(allocations() - before, 0);
    for (agent, state) in &mut agents {
        state.reset(agent, &shared);
        assert!(agent.started > 50);
        assert_eq!(agent.started, agent.ended, "every started leaf ended once");
    }
    assert_eq!((shared.one.inside(), shared.pair.members()), (0, 0));
}

#[test]
fn ticking_many_agents_does_not_allocate() {
    let mut agents: Vec<(Agent, Busy)> = (0..100)
        .map(|i| {
            (
                Agent {
                    seed: 0x9e37_79b9 + i,
                    started: 0,
                    ended: 0,
                },
                Busy::default(),
            )
        })
        .collect();
    let mut statuses = [0usize; 3];

    let before = allocations();
    for tick in 0..10_000 {
        for (agent, state) in &mut agents {
            let status = state.tick(agent);
            statuses[status as usize] += 1;
            if tick % 97 == 0 {
                state.reset(agent);
            }
        }
    }
    let allocations = allocations() - before;

    assert_eq!(allocations, 0);
    // The run did real work: every outcome happened, and every started leaf ended.
    assert!(statuses.iter().all(|&n| n > 1000), "{statuses:?}");
    for (agent, state) in &mut agents {
        state.reset(agent);
        assert!(agent.started > 100);
        assert_eq!(agent.started, agent.ended);
    }
}

#[test]
fn ticking_in_batches_does_not_allocate_after_setup() {
    let agent = |i: u64| Agent {
        seed: 0x9e37_79b9 + i,
        started: 0,
        ended: 0,
    };
    // 1,000 agents in blocks of 64, grouped every 3 ticks: 16 blocks.
    let mut agents: Vec<(Busy, Agent)> = (0..1000).map(|i| (Busy::default(), agent(i))).collect();
    let mut batch = bt::batch::Batch::with_capacity::<Busy>(agents.len())
        .block(64)
        .regroup_every(3);
    let mut statuses = [0usize; 3];

    let before = allocations();
    for tick in 0..300 {
        batch.tick(
            &mut agents,
            |(state, _)| state,
            |i, (state, agent)| {
                let status = state.tick(agent);
                statuses[status as usize] += 1;
                if (tick + i) % 97 == 0 {
                    state.reset(agent);
                }
            },
        );
        // Fewer agents: the order is made again, in the same space.
        if tick == 150 {
            agents.truncate(900);
        }
    }
    let allocations = allocations() - before;

    assert_eq!(allocations, 0);
    assert!(statuses.iter().all(|&n| n > 1000), "{statuses:?}");
    for (state, agent) in &mut agents {
        state.reset(agent);
        assert!(agent.started > 10);
        assert_eq!(agent.started, agent.ended);
    }
    // A batch made without capacity allocates on its first call only.
    let mut batch = bt::batch::Batch::new();
    let tick = |_: usize, (state, agent): &mut (Busy, Agent)| {
        state.tick(agent);
    };
    batch.tick(&mut agents, |(state, _)| state, tick);
    let before = self::allocations();
    for _ in 0..50 {
        batch.tick(&mut agents, |(state, _)| state, tick);
    }
    assert_eq!(self::allocations() - before, 0);
}
