//! `cargo bench -p bt-bench --bench bevy`: the 20-node guard tree ticked by
//! `bt-bevy`'s plugin in a Bevy `App`, against the same tree and agents in a
//! plain loop over a `Vec`. Writes `BENCHMARKS-bevy.md` on an unfiltered
//! run.
//!
//! Both sides call the same `AgentTree::tick_agent` (a tick, then the
//! agent's `advance`), under the *preemption* load of `BENCHMARKS.md`, so
//! the difference is what the ECS costs: the schedule, the query, the
//! parallel iteration and the change ticks. Timing starts once the branch
//! mix has settled, after checking that both sides made the same leaf
//! calls.

use bevy_app::App;
use bevy_ecs::batching::BatchingStrategy;
use bevy_time::Time;
use bt::Ctx;
use bt_bench::harness::TreeId;
use bt_bench::ours::Guard;
use bt_bench::report::{machine, mean_ns};
use bt_bench::world::{Agent, Checksum, Scenario};
use bt_bevy::{AgentTree, DEFAULT_MIN_BATCH, TreeInspect, TreePlugin};
use criterion::Criterion;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

const SIZES: [usize; 2] = [1_000, 100_000];
/// Frames before timing, so that the branch mix is the steady one.
const SETTLE: usize = 30;
/// Agents per rayon task in the plain parallel loop.
const CHUNK: usize = 4096;
/// The frame time of both sides' clocks.
const DT: Duration = Duration::from_millis(16);

/// The agents in a `Vec`, ticked by hand.
struct Plain {
    pairs: Vec<(Guard, Agent)>,
    now: f64,
}

impl Plain {
    fn new(agents: usize) -> Plain {
        let pairs = TreeId::Guard
            .agents(Scenario::Preemption, agents)
            .into_iter()
            .map(|a| (Guard::default(), a))
            .collect();
        Plain { pairs, now: 0.0 }
    }

    fn clock(&mut self) -> Ctx {
        self.now += DT.as_secs_f64();
        Ctx::new(self.now, DT.as_secs_f64())
    }

    /// One frame on this thread.
    fn frame(&mut self) {
        let clock = self.clock();
        for (i, (state, agent)) in self.pairs.iter_mut().enumerate() {
            state.tick_agent(agent, &clock.agent(i as u64), &());
        }
    }

    /// One frame on rayon's pool.
    fn frame_parallel(&mut self) {
        let clock = self.clock();
        bt::parallel::for_each_parallel(&mut self.pairs, CHUNK, |i, (state, agent)| {
            state.tick_agent(agent, &clock.agent(i as u64), &());
        });
    }

    fn checksum(&self) -> Checksum {
        let agents: Vec<Agent> = self.pairs.iter().map(|(_, a)| a.clone()).collect();
        Checksum::of_agents(&agents)
    }
}

/// The agents as entities of an `App`, ticked by the plugin.
fn app(agents: usize, plugin: TreePlugin<Guard>) -> App {
    let mut app = App::new();
    app.init_resource::<Time>().add_plugins(plugin);
    app.world_mut().spawn_batch(
        TreeId::Guard
            .agents(Scenario::Preemption, agents)
            .into_iter()
            .map(|a| (a, Guard::default())),
    );
    app
}

/// The same, every agent with a [`TreeInspect`] the plugin keeps current.
fn inspected_app(agents: usize) -> App {
    let mut app = App::new();
    app.init_resource::<Time>().add_plugins(
        TreePlugin::<Guard>::default()
            .batching(BatchingStrategy::fixed(usize::MAX))
            .inspected(),
    );
    app.world_mut().spawn_batch(
        TreeId::Guard
            .agents(Scenario::Preemption, agents)
            .into_iter()
            .map(|a| (a, Guard::default(), TreeInspect::<Guard>::default())),
    );
    app
}

/// One frame of the app: the clock advances, `Update` runs.
fn frame(app: &mut App) {
    app.world_mut().resource_mut::<Time>().advance_by(DT);
    app.update();
}

/// The app's agents in the order of their ids, as the plain side has them.
fn checksum(app: &mut App) -> Checksum {
    let world = app.world_mut();
    let mut agents: Vec<Agent> = world.query::<&Agent>().iter(world).cloned().collect();
    agents.sort_by_key(|a| a.id);
    Checksum::of_agents(&agents)
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion");
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    let mut c = Criterion::default()
        .output_directory(&out)
        .configure_from_args();
    // What a frame costs with no agent at all: the schedule's fixed cost.
    let mut empty = app(0, TreePlugin::default());
    c.benchmark_group("bevy-0")
        .bench_function("plugin", |b| b.iter(|| frame(&mut empty)));
    for agents in SIZES {
        let mut plain = Plain::new(agents);
        let one_batch = || TreePlugin::default().batching(BatchingStrategy::fixed(usize::MAX));
        let mut one = app(agents, one_batch());
        let mut unmarked = app(agents, one_batch().without_change_detection());
        let mut parallel = app(agents, TreePlugin::default());
        let mut inspected = inspected_app(agents);
        for _ in 0..SETTLE {
            plain.frame();
            frame(&mut one);
            frame(&mut unmarked);
            frame(&mut parallel);
            frame(&mut inspected);
        }
        // The same leaf calls, outcomes and halts on every side.
        let expected = plain.checksum();
        assert!(checksum(&mut one).agrees_with(&expected), "one thread");
        assert!(checksum(&mut unmarked).agrees_with(&expected), "unmarked");
        assert!(checksum(&mut parallel).agrees_with(&expected), "parallel");
        assert!(checksum(&mut inspected).agrees_with(&expected), "inspected");
        let mut g = c.benchmark_group(format!("bevy-{agents}"));
        g.sample_size(if agents > 10_000 { 20 } else { 100 })
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        g.bench_function("plain", |b| b.iter(|| plain.frame()));
        g.bench_function("plugin-one-thread", |b| b.iter(|| frame(&mut one)));
        g.bench_function("plugin-one-thread-unmarked", |b| {
            b.iter(|| frame(&mut unmarked))
        });
        g.bench_function("plugin-one-thread-inspected", |b| {
            b.iter(|| frame(&mut inspected))
        });
        g.bench_function("plain-parallel", |b| b.iter(|| plain.frame_parallel()));
        g.bench_function("plugin", |b| b.iter(|| frame(&mut parallel)));
        g.finish();
    }
    c.final_summary();
    if !filtered {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-bevy.md");
        std::fs::write(&path, report(&out)).expect("write BENCHMARKS-bevy.md");
        println!("wrote {}", path.display());
    }
}

fn report(dir: &Path) -> String {
    let mut o = String::new();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    writeln!(
        o,
        "# Behavior trees in Bevy: the plugin against a plain loop\n"
    )
    .unwrap();
    writeln!(
        o,
        "Written by `cargo bench -p bt-bench --bench bevy` (`bt-bench/benches/bevy.rs`); do not edit by hand."
    )
    .unwrap();
    writeln!(o, "Machine: {}.\n", machine()).unwrap();
    writeln!(
        o,
        "The 20-node *guard* tree of `BENCHMARKS.md`, under its *preemption* load, as a component ticked by\n\
         `bt_bevy::TreePlugin` in a Bevy `App` (one `App::update` per frame, `Time` advanced by the program), against\n\
         the same states and agents in a `Vec` ticked in a plain loop. Both sides call the same `tick_agent` (a\n\
         tick, then the agent's clock), so the difference is the ECS: the schedule, the query, the parallel\n\
         iteration and change detection. Both sides were checked to make the same leaf calls, with the same\n\
         results and halts, after {SETTLE} settling frames. *1* is the plugin with every agent in one batch, on\n\
         the system's thread, against the loop on one thread; *{threads}, default* is the plugin's default batching on\n\
         Bevy's compute task pool (batches of at least {DEFAULT_MIN_BATCH} agents: fewer are ticked on the system's\n\
         thread), against the loop on rayon's pool (`bt::parallel::for_each_parallel`, {CHUNK} agents per task).\n"
    )
    .unwrap();
    writeln!(
        o,
        "| agents | threads | plain loop, ns per agent-tick | plugin | plugin / plain |"
    )
    .unwrap();
    writeln!(o, "|---:|---|---:|---:|---:|").unwrap();
    for agents in SIZES {
        let group = format!("bevy-{agents}");
        let per_agent = |bench: &str| mean_ns(dir, &group, bench).map(|ns| ns / agents as f64);
        for (threads, plain, plugin) in [
            ("1".to_string(), "plain", "plugin-one-thread"),
            (
                "1, without change detection".to_string(),
                "plain",
                "plugin-one-thread-unmarked",
            ),
            (
                "1, every agent inspected".to_string(),
                "plain",
                "plugin-one-thread-inspected",
            ),
            (format!("{threads}, default"), "plain-parallel", "plugin"),
        ] {
            match (per_agent(plain), per_agent(plugin)) {
                (Some(p), Some(q)) => writeln!(
                    o,
                    "| {agents} | {threads} | {p:.2} | {q:.2} | {:.2} |",
                    q / p
                )
                .unwrap(),
                _ => writeln!(o, "| {agents} | {threads} | - | - | - |").unwrap(),
            }
        }
    }
    // The fixed cost of one `App::update`, whatever the number of agents.
    if let Some(fixed) = mean_ns(dir, "bevy-0", "plugin") {
        writeln!(
            o,
            "\nAn `App::update` with the plugin and no agents takes {:.1} µs on this machine (it varies by tens of\n\
             µs from run to run): the fixed cost of running Bevy's main schedule, which any app pays. At 1,000 agents\n\
             it is most of the frame; the 100,000-agent rows show what each agent costs. *Without change detection*\n\
             is `TreePlugin::without_change_detection()`: the ticks do not write the state's and the agent's change\n\
             ticks. *Every agent inspected* is `TreePlugin::inspected()` with a `TreeInspect` on every agent: after\n\
             the ticks, a system rewrites each agent's view of its active path (labels, kinds, times).",
            fixed / 1e3,
        )
        .unwrap();
    }
    o
}
