//! The benchmark world: agents whose leaves are cheap, deterministic
//! functions of (agent, leaf id, tick), and a checksum of everything the
//! leaves saw, so implementations can be proven to do the same work.

use bt::{Outcome, Status};

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

    /// For how many ticks conditions and outcomes keep their values (0:
    /// forever, all conditions true).
    #[inline]
    fn period(self) -> u32 {
        match self {
            Scenario::Steady => 0,
            Scenario::Restarts => 1,
            Scenario::Preemption => 3,
        }
    }
}

/// One agent: its identity, its clock, and the running checksum of every
/// leaf call made on its behalf. A Bevy component in the plugin benchmark.
#[derive(Clone, Debug, bevy_ecs::component::Component)]
pub struct Agent {
    /// Agent index, mixed into every leaf outcome.
    pub id: u32,
    /// Ticks this agent has been through ([`Agent::advance`]).
    pub tick: u32,
    /// This period's condition values, one bit per condition id mod 64.
    conditions: u64,
    /// This period's action outcomes (1 = success), one bit per id mod 64.
    outcomes: u64,
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

/// splitmix64: 64 well-mixed bits from (entry, stream).
pub const fn mix(entry: u64, stream: u64) -> u64 {
    let mut x = entry ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// How many precomputed draws there are (a power of two).
const DRAWS: usize = 1024;

/// Precomputed (conditions, outcomes) pairs: bitwise,
/// P(a | (b & c & d)) = 1/2 + 1/16 ~ 0.56 per condition, P(b | c) = 0.75
/// per outcome. Computed at compile time, so that a draw during the run
/// is one lookup and the world costs about as little as the leaves.
static TABLE: [(u64, u64); DRAWS] = {
    let mut table = [(0, 0); DRAWS];
    let mut i = 0;
    while i < DRAWS {
        let e = i as u64;
        let (a, b, c, d) = (mix(e, 1), mix(e, 2), mix(e, 3), mix(e, 4));
        table[i] = (a | (b & c & d), b | c);
        i += 1;
    }
    table
};

impl Agent {
    /// A fresh agent.
    pub fn new(id: u32, scenario: Scenario) -> Agent {
        let mut agent = Agent {
            id,
            tick: 0,
            conditions: u64::MAX,
            outcomes: u64::MAX,
            scenario,
            fixed_duration: 0,
            sum: 0xcbf2_9ce4_8422_2325,
            calls: 0,
            completions: 0,
            halts: 0,
        };
        agent.draw();
        agent
    }

    /// Draws this period's conditions (about 56% true) and outcomes (75%
    /// success) from the table, at a place that hashes (agent, period).
    /// Steady agents keep all conditions true.
    #[inline]
    fn draw(&mut self) {
        let period = match self.scenario.period() {
            0 => return,
            p => self.tick / p,
        };
        let h = self.id.wrapping_mul(0x9E37_79B9) ^ period.wrapping_mul(0x85EB_CA6B);
        let h = h ^ (h >> 15);
        (self.conditions, self.outcomes) = TABLE[h as usize % DRAWS];
    }

    /// Moves the agent to its next tick (the driver calls it after each
    /// tick; it costs the same for every implementation).
    #[inline]
    pub fn advance(&mut self) {
        self.tick += 1;
        let p = self.scenario.period();
        if p != 0 && self.tick.is_multiple_of(p) {
            self.draw();
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
        self.sum = self.sum.rotate_left(7) ^ u64::from(id * 4 + code);
        self.calls += 1;
    }

    /// Condition `id`: always true when steady, else true for about 56%
    /// of (agent, id, period) triples.
    #[inline]
    pub fn sense(&mut self, id: u32) -> bool {
        let ok = self.conditions >> (id % 64) & 1 != 0;
        self.record(id, Status::from(ok));
        ok
    }

    /// Starts action `id`; `left` is its memory: ticks still to run.
    #[inline]
    pub fn act_start(&mut self, id: u32, left: &mut u32) -> Status {
        *left = self.act_duration(id);
        self.act_tick(id, left)
    }

    /// How many ticks action `id` runs, its first included (at least 1).
    #[inline]
    pub fn act_duration(&self, id: u32) -> u32 {
        match self.fixed_duration {
            0 => self.scenario.duration(id),
            d => d,
        }
    }

    /// Ticks running action `id`: Running until its time is up, then
    /// Success for about 75% of (agent, id, period) triples, else Failure.
    #[inline]
    pub fn act_tick(&mut self, id: u32, left: &mut u32) -> Status {
        *left -= 1;
        let status = if *left > 0 {
            Status::Running
        } else {
            Status::from(self.complete(id))
        };
        self.record(id, status);
        status
    }

    /// Action `id` goes on running after this tick: what
    /// [`Agent::act_tick`] does for a count still above 0, for a leaf that
    /// keeps the count itself.
    #[inline]
    pub fn act_runs(&mut self, id: u32) -> Status {
        self.record(id, Status::Running);
        Status::Running
    }

    /// Action `id` ends on this tick: what [`Agent::act_tick`] does for a
    /// count that reached 0.
    #[inline]
    pub fn act_ends(&mut self, id: u32) -> Status {
        let status = Status::from(self.complete(id));
        self.record(id, status);
        status
    }

    /// Action `id` completes: whether it succeeds (about 75% of (agent,
    /// id, period) triples).
    #[inline]
    fn complete(&mut self, id: u32) -> bool {
        self.completions += 1;
        self.outcomes >> (id % 64) & 1 != 0
    }

    /// Instant action `id`: finishes on the call that starts it, with
    /// Success for about 75% of (agent, id, period) triples, else Failure.
    #[inline]
    pub fn act_done(&mut self, id: u32) -> Outcome {
        let ok = self.complete(id);
        self.record(id, Status::from(ok));
        Outcome::from(ok)
    }

    /// [`Agent::act_done`] as a [`Status`].
    #[inline]
    pub fn act_now(&mut self, id: u32) -> Status {
        self.act_done(id).into()
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

    /// The agents' leaf records and halts, in the order given.
    pub fn of_agents(agents: &[Agent]) -> Checksum {
        let mut sum = Checksum::default();
        sum.agents(agents, true);
        sum
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
