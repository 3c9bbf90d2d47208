//! Ticking never allocates: 100 agents, 10,000 ticks of a tree with every
//! composite kind, stateful leaves, preemption and resets, under a global
//! allocator that counts.

use bt::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the arguments it was given,
// so `System`'s guarantees hold; the only addition is an atomic counter.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
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

    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for tick in 0..10_000 {
        for (agent, state) in &mut agents {
            let status = state.tick(agent);
            statuses[status as usize] += 1;
            if tick % 97 == 0 {
                state.reset(agent);
            }
        }
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;

    assert_eq!(allocations, 0);
    // The run did real work: every outcome happened, and every started leaf ended.
    assert!(statuses.iter().all(|&n| n > 1000), "{statuses:?}");
    for (agent, state) in &mut agents {
        state.reset(agent);
        assert!(agent.started > 100);
        assert_eq!(agent.started, agent.ended);
    }
}
