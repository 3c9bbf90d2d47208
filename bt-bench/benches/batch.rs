//! `cargo bench -p bt-bench --bench batch`: the guard and large trees at
//! 10,000, 100,000 and 1,000,000 agents, ticked one agent after another
//! (generated and hand-written) and in batches grouped by where each
//! agent's tree resumes (`bt::batch::Batch`), on one thread and on rayon's
//! pool. Writes `BENCHMARKS-batch.md` on an unfiltered run.
//!
//! Every population holds `(state, agent)` pairs in one `Vec` and settles
//! for a few ticks before timing, so that agents are spread over the
//! tree's running nodes; under *restarts* and *preemption* a fraction of
//! them change branch every tick.

use bt::Status;
use bt::batch::Batch;
use bt_bench::hand::{GuardHand, LargeHand};
use bt_bench::harness::TreeId;
use bt_bench::ours::{Guard, Large};
use bt_bench::report::{machine, mean_ns};
use bt_bench::world::{Agent, Checksum, Scenario};
use criterion::Criterion;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

/// Agent counts, as benchmarked.
const COUNTS: [usize; 3] = [10_000, 100_000, 1_000_000];
/// Ticks before timing.
const SETTLE: usize = 24;
/// Agents per rayon task of the per-agent loop on the pool.
const CHUNK: usize = 4096;
/// The grouping intervals benchmarked.
const REGROUP: [u32; 2] = [8, 1];

/// How a population is ticked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// One agent after another, index order.
    PerAgent,
    /// `Batch::tick`, grouped every this many ticks.
    Batched(u32),
    /// `for_each_parallel`, index order within each task.
    Parallel,
    /// `Batch::par_tick`, grouped every 8 ticks.
    ParBatched,
}

impl Way {
    fn name(self, hand: bool) -> String {
        let who = if hand { "hand-written" } else { "bt" };
        match self {
            Way::PerAgent => who.to_string(),
            Way::Batched(n) => format!("{who}-batched-{n}"),
            Way::Parallel => format!("{who}-parallel"),
            Way::ParBatched => format!("{who}-parallel-batched"),
        }
    }
}

/// `(state, agent)` pairs, ticked one way.
struct Population<S> {
    pairs: Vec<(S, Agent)>,
    tick: fn(&mut S, &mut Agent) -> Status,
    batch: Batch,
    /// How a tick of all agents is done: one of the methods below.
    each: fn(&mut Population<S>) -> u64,
}

impl<S: Default + Send> Population<S> {
    /// Agents of `tree` under `scenario`, settled for [`SETTLE`] ticks.
    fn with(
        tree: TreeId,
        scenario: Scenario,
        count: usize,
        tick: fn(&mut S, &mut Agent) -> Status,
        batch: Batch,
        each: fn(&mut Population<S>) -> u64,
    ) -> Self {
        let pairs = tree
            .agents(scenario, count)
            .into_iter()
            .map(|a| (S::default(), a))
            .collect();
        let mut population = Population {
            pairs,
            tick,
            batch,
            each,
        };
        for _ in 0..SETTLE {
            population.step();
        }
        population
    }

    /// Ticked one agent after another, on this thread or on the pool (the
    /// ways any tree, hand-written ones too, can be ticked).
    fn plain(
        tree: TreeId,
        scenario: Scenario,
        count: usize,
        tick: fn(&mut S, &mut Agent) -> Status,
        parallel: bool,
    ) -> Self {
        let each = if parallel {
            Self::parallel
        } else {
            Self::per_agent
        };
        Self::with(tree, scenario, count, tick, Batch::new(), each)
    }

    /// Ticks every agent once; returns how many roots run (0 on the pool).
    fn step(&mut self) -> u64 {
        (self.each)(self)
    }

    fn per_agent(&mut self) -> u64 {
        let tick = self.tick;
        let mut running = 0;
        for (s, a) in &mut self.pairs {
            running += u64::from(tick(s, a) == Status::Running);
            a.advance();
        }
        running
    }

    fn parallel(&mut self) -> u64 {
        let tick = self.tick;
        bt::parallel::for_each_parallel(&mut self.pairs, CHUNK, |_, (s, a)| {
            black_box(tick(s, a));
            a.advance();
        });
        0
    }

    /// What the leaves saw, summed over the agents in index order.
    fn checksum(&self) -> Checksum {
        let agents: Vec<Agent> = self.pairs.iter().map(|(_, a)| a.clone()).collect();
        Checksum::of_agents(&agents)
    }
}

impl<S: bt::BehaviorTree + Send> Population<S> {
    /// A generated tree's agents, ticked `way` (batched ways with `batch`).
    fn new(
        tree: TreeId,
        scenario: Scenario,
        count: usize,
        tick: fn(&mut S, &mut Agent) -> Status,
        way: Way,
        batch: Batch,
    ) -> Self {
        let each = match way {
            Way::PerAgent => Self::per_agent,
            Way::Parallel => Self::parallel,
            Way::Batched(_) => Self::batched,
            Way::ParBatched => Self::par_batched,
        };
        Self::with(tree, scenario, count, tick, batch, each)
    }

    fn batched(&mut self) -> u64 {
        let tick = self.tick;
        let mut running = 0;
        self.batch.tick(
            &mut self.pairs,
            |(s, _)| s,
            |_, (s, a)| {
                running += u64::from(tick(s, a) == Status::Running);
                a.advance();
            },
        );
        running
    }

    fn par_batched(&mut self) -> u64 {
        let tick = self.tick;
        self.batch.par_tick(
            &mut self.pairs,
            |(s, _)| s,
            |_, (s, a)| {
                black_box(tick(s, a));
                a.advance();
            },
        );
        0
    }
}

/// The batch a way ticks with: grouped every `n` ticks for `Batched(n)`,
/// every 8 otherwise.
fn batch_for<S: bt::BehaviorTree>(way: Way, count: usize) -> Batch {
    Batch::with_capacity::<S>(count).regroup_every(match way {
        Way::Batched(n) => n,
        _ => 8,
    })
}

fn ways() -> impl Iterator<Item = Way> {
    [Way::PerAgent]
        .into_iter()
        .chain(REGROUP.map(Way::Batched))
        .chain([Way::Parallel, Way::ParBatched])
}

/// Benchmarks one tree, generated and hand-written, every way.
fn bench_tree<S: bt::BehaviorTree + Send, H: Default + Send>(
    c: &mut Criterion,
    tree: TreeId,
    ours: fn(&mut S, &mut Agent) -> Status,
    hand: fn(&mut H, &mut Agent) -> Status,
) {
    for scenario in Scenario::ALL {
        for count in COUNTS {
            let group = format!("batch-{}-{}-{count}", tree.name(), scenario.name());
            // Every way of ticking ends where one agent after another does.
            let mut reference = Population::plain(tree, scenario, 2000, ours, false);
            let mut hand_reference = Population::plain(tree, scenario, 2000, hand, false);
            for _ in 0..40 {
                reference.step();
                hand_reference.step();
            }
            assert_eq!(
                reference.checksum(),
                hand_reference.checksum(),
                "{group}: hand-written"
            );
            for way in ways() {
                // Small blocks, grouped every third tick: many groupings.
                let batch = Batch::with_capacity::<S>(2000)
                    .block(300)
                    .regroup_every(match way {
                        Way::Batched(n) => n,
                        _ => 3,
                    });
                let mut p = Population::<S>::new(tree, scenario, 2000, ours, way, batch);
                for _ in 0..40 {
                    p.step();
                }
                assert_eq!(
                    p.checksum(),
                    reference.checksum(),
                    "{group}: {}",
                    way.name(false)
                );
            }
            let mut g = c.benchmark_group(&group);
            g.sample_size(10)
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_millis(if count >= 1_000_000 {
                    3000
                } else {
                    1500
                }));
            for way in ways() {
                let batch = batch_for::<S>(way, count);
                let mut p = Population::<S>::new(tree, scenario, count, ours, way, batch);
                g.bench_function(way.name(false), |b| b.iter(|| black_box(p.step())));
            }
            for parallel in [false, true] {
                let mut p = Population::plain(tree, scenario, count, hand, parallel);
                let way = if parallel {
                    Way::Parallel
                } else {
                    Way::PerAgent
                };
                g.bench_function(way.name(true), |b| b.iter(|| black_box(p.step())));
            }
            g.finish();
        }
    }
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion");
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    let mut c = Criterion::default()
        .output_directory(&out)
        .configure_from_args();
    bench_tree::<Guard, GuardHand>(&mut c, TreeId::Guard, Guard::tick, GuardHand::tick);
    bench_tree::<Large, LargeHand>(&mut c, TreeId::Large, Large::tick, LargeHand::tick);
    c.final_summary();
    if !filtered {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-batch.md");
        std::fs::write(&path, report(&out)).expect("write BENCHMARKS-batch.md");
        println!("wrote {}", path.display());
    }
}

fn report(dir: &Path) -> String {
    let mut o = String::new();
    writeln!(o, "# Ticking in batches grouped by where trees resume\n").unwrap();
    writeln!(
        o,
        "Written by `cargo bench -p bt-bench --bench batch` (`bt-bench/benches/batch.rs`); do not edit by hand."
    )
    .unwrap();
    writeln!(o, "Machine: {}.\n", machine()).unwrap();
    o.push_str(
        "Nanoseconds per agent-tick, every way side by side in one run. Each population holds `(state, agent)`\n\
         pairs in one `Vec` and settles for 24 ticks before timing; the loads are those of `BENCHMARKS.md`\n\
         (*steady*: every agent resumes its running action; *restarts*: roots finish and restart every tick or\n\
         two; *preemption*: conditions flip every three ticks while actions take three to five, so a third of\n\
         the agents change branch each tick). Before timing, every way was checked to make the same leaf calls,\n\
         with the same results and halts, as ticking one agent after another.\n\n\
         - **bt**, **hand-written**: one agent after another, index order.\n\
         - **batched/8**, **batched/1**: `bt::batch::Batch::tick`, agents grouped by resume node in blocks of\n\
         4,096, the grouping redone every 8 ticks or every tick (a block over fewer than 16 resume nodes\n\
         keeps index order).\n\
         - **bt ∥**, **hand ∥**: one agent after another on rayon's pool (`bt::parallel::for_each_parallel`,\n\
         4,096 agents per task); **batched ∥**: `Batch::par_tick`, grouped every 8 ticks.\n\
         - `hand / x`: how many times as fast as hand-written per agent `x` is (above 1: faster).\n\n\
         Where grouping pays and where it does not, with instruction, branch and cache-miss counts, is in\n\
         `ASSEMBLY.md`, \"Ticking in batches: built (`bt::batch`), and where it pays\".\n\n",
    );
    writeln!(
        o,
        "| tree | scenario | agents | bt | hand-written | batched/8 | batched/1 | hand / bt | hand / batched/8 | hand / batched/1 | bt ∥ | hand ∥ | batched ∥ | hand ∥ / batched ∥ |"
    )
    .unwrap();
    writeln!(
        o,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    .unwrap();
    for tree in [TreeId::Guard, TreeId::Large] {
        for scenario in Scenario::ALL {
            for count in COUNTS {
                let group = format!("batch-{}-{}-{count}", tree.name(), scenario.name());
                let ns = |bench: String| mean_ns(dir, &group, &bench).map(|t| t / count as f64);
                let [bt, hand, b8, b1, par, hand_par, par_b] = [
                    Way::PerAgent.name(false),
                    Way::PerAgent.name(true),
                    Way::Batched(8).name(false),
                    Way::Batched(1).name(false),
                    Way::Parallel.name(false),
                    Way::Parallel.name(true),
                    Way::ParBatched.name(false),
                ]
                .map(ns);
                let show = |x: Option<f64>| x.map_or("n/a".into(), |x| format!("{x:.2}"));
                let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                    (Some(a), Some(b)) => format!("{:.2}", a / b),
                    _ => "n/a".into(),
                };
                writeln!(
                    o,
                    "| {} | {} | {count} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    tree.name(),
                    scenario.name(),
                    show(bt),
                    show(hand),
                    show(b8),
                    show(b1),
                    ratio(hand, bt),
                    ratio(hand, b8),
                    ratio(hand, b1),
                    show(par),
                    show(hand_par),
                    show(par_b),
                    ratio(hand_par, par_b),
                )
                .unwrap();
            }
        }
    }
    o
}
