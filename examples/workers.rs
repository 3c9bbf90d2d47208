//! An RTS economy: workers gather from a field and carry loads back to the
//! base; a worker that is threatened and hurt flees to the base, and goes
//! back to what it was doing once safe; a worker that is worn repairs at
//! the base's bench, which holds at most `MAX_REPAIRERS` at once.
//!
//! Every worker runs the same tree, with one shared state holding the
//! bench's gate. The run is seeded and time is the simulated clock, so it
//! prints the same summary every time. It runs the economy twice: once as
//! written, once with `skip_blocked = false` on the decider, to show what a
//! full bench costs a worker that is chosen for it anyway: its gathering
//! is interrupted and starts over each tick the bench refuses it.
//!
//! `cargo run --example workers -- [seed] [--workers N] [--seconds S]`
//!
//! The tests at the end (`cargo test --example workers`, part of `cargo
//! test --workspace`) are a model of how to test a tree: scripted agents,
//! a few ticks, exact assertions on what they did; a node forced to a
//! status (`bt::testing::Force`); and the coverage of a whole run. The
//! tree's context is `Ctx<NoFlags, NoFlags, impl Trace>` so that tests can
//! attach those hooks; the program passes a plain `Ctx`, which costs
//! nothing.

use bt::prelude::*;
use bt::{Ctx, Leaf, NoFlags, Trace};
use rand_pcg::Pcg32;
use rand_pcg::rand_core::{Rng, SeedableRng};

/// How many workers the bench repairs at once.
pub const MAX_REPAIRERS: u32 = 3;
/// Where the resources are; the base is at 0.
pub const FIELD: f32 = 10.0;
/// What a worker carries when full.
pub const CAPACITY: f32 = 5.0;

/// One worker: where it is, what it carries, how it is doing, and what
/// happened to it (for the summary and the tests).
#[derive(Clone, Debug, Default)]
pub struct Unit {
    /// Position: the base at 0, the field at [`FIELD`].
    pub x: f32,
    /// What it carries.
    pub load: f32,
    /// Health, out of 100.
    pub hp: f32,
    /// An enemy is near (set by the world each tick).
    pub threatened: bool,
    /// Resources brought to the base.
    pub delivered: f32,
    /// Harvests started.
    pub harvests_started: u32,
    /// Harvests halted before the load was full.
    pub harvests_interrupted: u32,
    /// Times it fled.
    pub fled: u32,
    /// Repairs started.
    pub repaired: u32,
}

impl Unit {
    /// A healthy worker at the base.
    pub fn new() -> Unit {
        Unit {
            hp: 100.0,
            ..Unit::default()
        }
    }
}

/// Walks towards `x` at `speed` units per second; `Success` on arrival
/// (at once if already there, so a restarted sequence passes over it).
pub struct GoTo {
    /// Where to.
    pub x: f32,
    /// Units per second.
    pub speed: f32,
    /// The tick's seconds.
    pub dt: f32,
}

impl Leaf<Unit> for GoTo {
    type Memory = ();
    fn tick(&self, _: &mut (), me: &mut Unit) -> Status {
        let step = self.speed * self.dt;
        if (self.x - me.x).abs() <= step {
            me.x = self.x;
            return Status::Success;
        }
        me.x += step * (self.x - me.x).signum();
        Status::Running
    }
}

/// Fills the worker's load, one unit per swing of `swing` seconds, until it
/// is full. The load is the worker's: an interrupted harvest keeps what it
/// gathered, and the next one goes on from there. The swing in progress is
/// the leaf's own memory, lost when it is interrupted.
pub struct Harvest {
    /// Seconds per unit gathered.
    pub swing: f32,
    /// The tick's seconds.
    pub dt: f32,
}

impl Leaf<Unit> for Harvest {
    /// Seconds into the current swing.
    type Memory = f32;
    fn start(&self, swung: &mut f32, me: &mut Unit) -> Status {
        me.harvests_started += 1;
        self.tick(swung, me)
    }
    fn tick(&self, swung: &mut f32, me: &mut Unit) -> Status {
        *swung += self.dt;
        if *swung >= self.swing - 1e-4 {
            *swung = 0.0;
            me.load = (me.load + 1.0).min(CAPACITY);
        }
        if me.load >= CAPACITY {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(_: &mut f32, me: &mut Unit) {
        me.harvests_interrupted += 1;
    }
}

/// Heals at the bench at `rate` hp per second until whole.
pub struct Repair {
    /// Hp per second.
    pub rate: f32,
    /// The tick's seconds.
    pub dt: f32,
}

impl Leaf<Unit> for Repair {
    type Memory = ();
    fn start(&self, memory: &mut (), me: &mut Unit) -> Status {
        me.repaired += 1;
        self.tick(memory, me)
    }
    fn tick(&self, _: &mut (), me: &mut Unit) -> Status {
        me.hp = (me.hp + self.rate * self.dt).min(100.0);
        if me.hp >= 100.0 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

/// The worker's tree, written once: `$name` and `$shared` name the tree and
/// its shared state, `$args` is the decider's argument list (empty, or
/// `(skip_blocked = false)`).
macro_rules! worker_tree {
    ($(#[$doc:meta])* $name:ident, $shared:ident, $($args:tt)*) => {
        behavior_tree! {
            $(#[$doc])*
            pub tree $name(me: &mut Unit, cx: &Ctx<NoFlags, NoFlags, impl Trace>, shared: &$shared) {
                prioritized $($args)* {
                    'flee: when me.threatened && me.hp < 50.0 => sequence {
                        instant { me.fled += 1; Outcome::Success },
                        GoTo { x: 0.0, speed: 3.0, dt: cx.dt_f32() },
                        // Safe at the base: wait there until the threat is gone.
                        run_while(me.threatened) { running },
                    },
                    // The bench is this child's first step: while it is full,
                    // the child is passed over and gathering goes on.
                    'bench: when me.hp < 70.0 => gate(MAX_REPAIRERS) {
                        sequence {
                            GoTo { x: 0.0, speed: 2.0, dt: cx.dt_f32() },
                            Repair { rate: 20.0, dt: cx.dt_f32() },
                        }
                    },
                    'gather: else => sequence {
                        select {
                            cond me.load >= CAPACITY,
                            sequence {
                                GoTo { x: FIELD, speed: 2.0, dt: cx.dt_f32() },
                                'harvest: Harvest { swing: 1.0, dt: cx.dt_f32() },
                            },
                        },
                        GoTo { x: 0.0, speed: 2.0, dt: cx.dt_f32() },
                        instant { me.delivered += me.load; me.load = 0.0; Outcome::Success },
                    },
                }
            }
        }
    };
}

worker_tree! {
    /// One worker. Fleeing interrupts anything; a worn worker repairs when
    /// the bench has room; otherwise it gathers. Gathering keeps its
    /// progress in the worker (its position and load) and each step
    /// succeeds at once when already done, so after an interruption the
    /// same sequence resumes where the worker is.
    Worker, WorkerShared,
}

worker_tree! {
    /// The same worker, but choosing the bench even when it is full: the
    /// gate refuses, the decider falls back to gathering, which starts
    /// over, and does so again on every tick the worker is worn.
    PushyWorker, PushyWorkerShared, (skip_blocked = false)
}

/// What a run did, summed over the workers.
#[derive(Debug, Default, PartialEq)]
pub struct Summary {
    /// Resources brought to the base.
    pub delivered: f32,
    /// Harvests started.
    pub harvests_started: u32,
    /// Harvests halted before the load was full.
    pub harvests_interrupted: u32,
    /// Times a worker fled.
    pub fled: u32,
    /// Repairs started.
    pub repaired: u32,
    /// The most workers inside the bench at once.
    pub most_at_the_bench: u32,
}

/// The world's side of a tick: enemies come and go near the field and
/// hurt the workers there; work wears workers down.
fn world_step(units: &mut [Unit], rng: &mut Pcg32, raid: bool) {
    for me in units {
        me.threatened = raid && me.x > FIELD / 2.0;
        if me.threatened && rng.next_u32().is_multiple_of(10) {
            me.hp = (me.hp - 15.0).max(1.0);
        }
        if me.x >= FIELD && rng.next_u32().is_multiple_of(50) {
            me.hp = (me.hp - 10.0).max(1.0);
        }
    }
}

/// Runs `workers` workers for `seconds` at 10 ticks per second, ticking
/// each with `tick`; `inside` reads how many are at the bench.
fn run<S: Default>(
    seed: u64,
    workers: usize,
    seconds: u32,
    mut tick: impl FnMut(&mut S, &mut Unit, &Ctx),
    inside: impl Fn() -> u32,
) -> (Summary, Vec<Unit>) {
    let mut rng = Pcg32::seed_from_u64(seed);
    let mut units: Vec<(Unit, S)> = (0..workers).map(|_| (Unit::new(), S::default())).collect();
    let mut summary = Summary::default();
    let dt = 0.1_f32;
    for step in 0..seconds * 10 {
        let now = step as f32 * dt;
        // A raid every 30 seconds, lasting 8.
        let raid = (now % 30.0) >= 20.0 && (now % 30.0) < 28.0;
        let mut bare: Vec<Unit> = units.iter().map(|(u, _)| u.clone()).collect();
        world_step(&mut bare, &mut rng, raid);
        for ((unit, state), moved) in units.iter_mut().zip(bare) {
            *unit = moved;
            tick(state, unit, &Ctx::new(now, dt));
        }
        summary.most_at_the_bench = summary.most_at_the_bench.max(inside());
    }
    for (me, _) in &units {
        summary.delivered += me.delivered;
        summary.harvests_started += me.harvests_started;
        summary.harvests_interrupted += me.harvests_interrupted;
        summary.fled += me.fled;
        summary.repaired += me.repaired;
    }
    (summary, units.into_iter().map(|(u, _)| u).collect())
}

/// Runs the economy with the tree as written.
pub fn economy(seed: u64, workers: usize, seconds: u32) -> Summary {
    let shared = WorkerShared::new();
    run::<Worker>(
        seed,
        workers,
        seconds,
        |state, me, cx| {
            state.tick(me, cx, &shared);
        },
        || shared.bench.inside(),
    )
    .0
}

/// Runs the economy with `skip_blocked = false`.
pub fn pushy_economy(seed: u64, workers: usize, seconds: u32) -> Summary {
    let shared = PushyWorkerShared::new();
    run::<PushyWorker>(
        seed,
        workers,
        seconds,
        |state, me, cx| {
            state.tick(me, cx, &shared);
        },
        || shared.bench.inside(),
    )
    .0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut seed, mut workers, mut seconds) = (7u64, 1000usize, 120u32);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--workers" => workers = args.next().and_then(|v| v.parse().ok()).unwrap_or(workers),
            "--seconds" => seconds = args.next().and_then(|v| v.parse().ok()).unwrap_or(seconds),
            other => seed = other.parse().unwrap_or(seed),
        }
    }
    println!("{workers} workers, {seconds} s, seed {seed}, a bench for {MAX_REPAIRERS}");
    println!(
        "{} bytes of tree state per worker",
        <Worker as bt::BehaviorTree>::STATE_SIZE
    );
    for (name, summary) in [
        ("as written", economy(seed, workers, seconds)),
        (
            "skip_blocked = false",
            pushy_economy(seed, workers, seconds),
        ),
    ] {
        println!(
            "{name:>22}: delivered {:.0}, harvests started {}, interrupted {}, fled {} times, \
             repaired {} times, at most {} at the bench",
            summary.delivered,
            summary.harvests_started,
            summary.harvests_interrupted,
            summary.fled,
            summary.repaired,
            summary.most_at_the_bench
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(state: &mut Worker, me: &mut Unit, now: f32, shared: &WorkerShared) -> Status {
        state.tick(me, &Ctx::new(now, 0.1_f32), shared)
    }

    #[test]
    fn the_bench_never_holds_more_than_its_capacity() {
        let summary = economy(1, 200, 60);
        assert!(summary.repaired > 0, "{summary:?}");
        assert_eq!(summary.most_at_the_bench, MAX_REPAIRERS);
    }

    #[test]
    fn a_worn_worker_keeps_gathering_while_the_bench_is_full() {
        let shared = WorkerShared::new();
        // Three worn workers fill the bench.
        let mut repairing: Vec<(Unit, Worker)> = (0..3)
            .map(|_| {
                (
                    Unit {
                        hp: 60.0,
                        ..Unit::new()
                    },
                    Worker::default(),
                )
            })
            .collect();
        for (me, state) in &mut repairing {
            tick(state, me, 0.0, &shared);
        }
        assert!(shared.bench.is_full());
        // A fourth, harvesting in the field, wears down: it goes on.
        let mut me = Unit {
            x: FIELD,
            ..Unit::new()
        };
        let mut state = Worker::default();
        tick(&mut state, &mut me, 0.0, &shared);
        me.hp = 60.0;
        for step in 1..10 {
            tick(&mut state, &mut me, step as f32 * 0.1, &shared);
        }
        assert_eq!((me.harvests_started, me.harvests_interrupted), (1, 0));
        assert_eq!(me.load, 1.0, "it gathered on: {me:?}");
        // Once the bench has room, the worker goes to repair.
        for (me, state) in &mut repairing {
            state.reset(me, &Ctx::new(1.0, 0.1_f32), &shared);
        }
        tick(&mut state, &mut me, 1.0, &shared);
        assert_eq!(me.harvests_interrupted, 1);
        assert_eq!(shared.bench.inside(), 1);
    }

    #[test]
    fn a_worker_that_fled_goes_back_to_its_load() {
        let shared = WorkerShared::new();
        let mut me = Unit {
            x: FIELD,
            load: 3.0,
            hp: 40.0,
            threatened: true,
            ..Unit::default()
        };
        let mut state = Worker::default();
        let mut now = 0.0;
        // It flees to the base and waits there while threatened.
        for _ in 0..40 {
            tick(&mut state, &mut me, now, &shared);
            now += 0.1;
        }
        assert_eq!((me.x, me.fled), (0.0, 1));
        // The threat is gone: it repairs first (worn), then walks back to
        // the field and fills the load it had, rather than starting empty.
        me.threatened = false;
        while me.delivered == 0.0 && now < 60.0 {
            tick(&mut state, &mut me, now, &shared);
            now += 0.1;
        }
        assert_eq!(me.delivered, CAPACITY);
        assert_eq!(me.harvests_started, 1, "one harvest, from 3 to 5");
    }

    #[test]
    fn a_raided_economy_runs_every_node_but_the_wait_at_the_base() {
        let (shared, coverage) = (WorkerShared::new(), bt::testing::Coverage::<Worker>::new());
        run::<Worker>(
            1,
            50,
            60,
            |state, me, cx| {
                state.tick(me, &cx.trace(&coverage), &shared);
            },
            || shared.bench.inside(),
        );
        // The world threatens only workers past the middle of the way, so
        // a worker that fled to the base is never threatened there: the
        // wait at the base never runs. Coverage shows what runs never do.
        let never: Vec<(&str, u32)> = coverage
            .never_ran()
            .iter()
            .map(|n| (n.detail, n.line - bt::node!(Worker, 'flee).line))
            .collect();
        assert_eq!(never, [("running", 4)]);
    }

    #[test]
    fn a_worker_whose_harvest_fails_carries_nothing_home() {
        use bt::testing::{Force, Forced};
        // The harvest is a mock that fails at once: the worker walks to
        // the field, fails there, and tries again; it never starts a real
        // harvest and never walks home with a load.
        let force = Force::<Worker>::new();
        force
            .set(bt::node!(Worker, 'harvest), Forced::always(Status::Failure))
            .unwrap();
        let (shared, mut me, mut state) = (WorkerShared::new(), Unit::new(), Worker::default());
        for step in 0..100 {
            let cx = Ctx::new(step as f32 * 0.1, 0.1_f32).trace(&force);
            state.tick(&mut me, &cx, &shared);
        }
        assert_eq!((me.delivered, me.harvests_started, me.x), (0.0, 0, FIELD));
    }

    #[test]
    fn passing_over_a_full_bench_saves_the_interrupted_harvests() {
        let (kind, pushy) = (economy(3, 300, 60), pushy_economy(3, 300, 60));
        assert!(
            kind.harvests_interrupted * 10 < pushy.harvests_interrupted,
            "{kind:?} against {pushy:?}"
        );
    }
}
