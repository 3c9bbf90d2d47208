//! The benchmark world: agents whose leaves are cheap, deterministic
//! functions of (agent, leaf id, tick), and a checksum of everything the
//! leaves saw, so implementations can be proven to do the same work.

use bt::Status;

/// Which load a run puts on a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// Actions never finish and every condition holds: every tick resumes
    /// the running action (after the reactive nodes re-check their
    /// conditions).
    Steady,
    /// Actions finish in one or two ticks and conditions change every
    /// tick: the root completes and restarts all the time.
    Restarts,
    /// Conditions flip every few ticks while actions take several ticks:
    /// reactive nodes keep preempting (and halting) running actions.
    Preemption,
}

impl Scenario {
    /// Every scenario, in report order.
    pub const ALL: [Scenario; 3] = [Scenario::Steady, Scenario::Restarts, Scenario::Preemption];

    /// Short name used in benchmark ids and the report.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Steady => "steady",
            Scenario::Restarts => "restarts",
            Scenario::Preemption => "preemption",
        }
    }

    /// How many ticks leaf `id` runs once started (1 = finishes at once).
    #[inline]
    pub fn duration(self, id: u32) -> u32 {
        match self {
            Scenario::Steady => u32::MAX,
            Scenario::Restarts => 1 + id % 2,
            Scenario::Preemption => 3 + id % 3,
        }
    }

    /// For how many ticks a condition keeps its value, and in how many
    /// (agent, condition, period) triples out of 100 it holds.
    #[inline]
    fn conditions(self) -> (u32, u32) {
        match self {
            Scenario::Steady => (1, 100),
            Scenario::Restarts => (1, 60),
            Scenario::Preemption => (3, 60),
        }
    }
}

/// One agent: its identity, its clock, and the running checksum of every
/// leaf call made on its behalf.
#[derive(Clone, Debug)]
pub struct Agent {
    /// Agent index, mixed into every leaf outcome.
    pub id: u32,
    /// Ticks this agent has been through (the driver advances it).
    pub tick: u32,
    /// The load this agent is under.
    pub scenario: Scenario,
    /// Overrides [`Scenario::duration`] for every action when nonzero (the
    /// small tree's `attack` runs exactly three ticks).
    pub fixed_duration: u32,
    /// Order-sensitive hash of (leaf id, status) over every leaf call.
    pub sum: u64,
    /// Leaf calls (conditions and actions, starts and ticks).
    pub calls: u64,
    /// Actions that ended with success or failure.
    pub completions: u64,
    /// Running actions that were halted. Only implementations with a halt
    /// notion report it; see [`Checksum`].
    pub halts: u64,
}

#[inline]
fn mix(a: u32, b: u32, c: u32) -> u32 {
    let mut x =
        a.wrapping_mul(0x9E37_79B9) ^ b.wrapping_mul(0x85EB_CA6B) ^ c.wrapping_mul(0xC2B2_AE35);
    x ^= x >> 15;
    x = x.wrapping_mul(0x2C1B_3C6D);
    x ^= x >> 12;
    x
}

impl Agent {
    /// A fresh agent.
    pub fn new(id: u32, scenario: Scenario) -> Agent {
        Agent {
            id,
            tick: 0,
            scenario,
            fixed_duration: 0,
            sum: 0xcbf2_9ce4_8422_2325,
            calls: 0,
            completions: 0,
            halts: 0,
        }
    }

    /// `count` agents numbered from 0.
    pub fn many(count: usize, scenario: Scenario) -> Vec<Agent> {
        (0..count as u32)
            .map(|id| Agent::new(id, scenario))
            .collect()
    }

    #[inline]
    fn record(&mut self, id: u32, status: Status) {
        let code = match status {
            Status::Success => 1,
            Status::Failure => 2,
            Status::Running => 3,
        };
        self.sum = (self.sum ^ u64::from(id * 4 + code)).wrapping_mul(0x0000_0100_0000_01b3);
        self.calls += 1;
    }

    /// Condition `id`: always true when steady, else true for about 60%
    /// of (agent, id, period) triples.
    #[inline]
    pub fn sense(&mut self, id: u32) -> bool {
        let (period, percent) = self.scenario.conditions();
        let ok = mix(self.id, id, self.tick / period) % 100 < percent;
        self.record(id, Status::from(ok));
        ok
    }

    /// Starts action `id`; `left` is its memory: ticks still to run.
    #[inline]
    pub fn act_start(&mut self, id: u32, left: &mut u32) -> Status {
        *left = match self.fixed_duration {
            0 => self.scenario.duration(id),
            d => d,
        };
        self.act_tick(id, left)
    }

    /// Ticks running action `id`: Running until its time is up, then
    /// Success for about 75% of (agent, id, tick) triples, else Failure.
    #[inline]
    pub fn act_tick(&mut self, id: u32, left: &mut u32) -> Status {
        *left -= 1;
        let status = if *left > 0 {
            Status::Running
        } else {
            self.completions += 1;
            Status::from(mix(self.id, id, self.tick) % 100 < 75)
        };
        self.record(id, status);
        status
    }

    /// Instant action `id`: finishes on the call that starts it, with
    /// Success for about 75% of (agent, id, tick) triples, else Failure.
    #[inline]
    pub fn act_now(&mut self, id: u32) -> Status {
        self.completions += 1;
        let status = Status::from(mix(self.id, id, self.tick) % 100 < 75);
        self.record(id, status);
        status
    }

    /// A running action was abandoned.
    #[inline]
    pub fn act_halt(&mut self) {
        self.halts += 1;
    }
}

/// What a scripted run did, summed over all agents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checksum {
    /// XOR-fold of each agent's order-sensitive leaf hash.
    pub leaf_hash: u64,
    /// Leaf calls.
    pub calls: u64,
    /// Actions that completed.
    pub completions: u64,
    /// Root results: successes, failures, running.
    pub roots: [u64; 3],
    /// Halts, when the implementation has them (`None` for peers whose
    /// leaves are never told they were abandoned).
    pub halts: Option<u64>,
}

impl Checksum {
    /// Adds one root result.
    pub fn root(&mut self, status: Status) {
        self.roots[match status {
            Status::Success => 0,
            Status::Failure => 1,
            Status::Running => 2,
        }] += 1;
    }

    /// Folds in the agents' leaf records.
    pub fn agents(&mut self, agents: &[Agent], with_halts: bool) {
        for (i, a) in agents.iter().enumerate() {
            self.leaf_hash ^= a.sum.rotate_left(i as u32 % 64);
            self.calls += a.calls;
            self.completions += a.completions;
        }
        self.halts = with_halts.then(|| agents.iter().map(|a| a.halts).sum());
    }

    /// Equal in everything both sides can observe.
    pub fn agrees_with(&self, other: &Checksum) -> bool {
        let halts = match (self.halts, other.halts) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        halts
            && self.leaf_hash == other.leaf_hash
            && self.calls == other.calls
            && self.completions == other.completions
            && self.roots == other.roots
    }
}
