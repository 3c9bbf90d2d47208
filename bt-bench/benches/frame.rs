//! `cargo bench -p bt-bench --bench frame`: one frame of a million agents
//! of the 20-node guard tree, generated and hand-written, on one core and
//! on every core with `bt::parallel::for_each_parallel`. Writes
//! `BENCHMARKS-frame.md` on an unfiltered run.
//!
//! The load is the preemption scenario (conditions flip every three ticks,
//! actions take three to five), so agents sit in different branches and
//! reactive nodes keep halting running actions. Timing starts once the
//! branch mix has settled.

use bt::Status;
use bt_bench::hand::GuardHand;
use bt_bench::harness::TreeId;
use bt_bench::ours::Guard;
use bt_bench::report::{machine, mean_ns};
use bt_bench::world::{Agent, Checksum, Scenario};
use criterion::Criterion;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const AGENTS: usize = 1_000_000;
/// Ticks before timing, so that the branch mix is the steady one.
const SETTLE: usize = 30;
/// Agents per rayon task.
const CHUNK: usize = 4096;

/// A million agents with their tree states.
struct Population<S> {
    pairs: Vec<(S, Agent)>,
    tick: fn(&mut S, &mut Agent) -> Status,
}

impl<S: Default + Send> Population<S> {
    fn new(tick: fn(&mut S, &mut Agent) -> Status) -> Population<S> {
        let pairs = TreeId::Guard
            .agents(Scenario::Preemption, AGENTS)
            .into_iter()
            .map(|a| (S::default(), a))
            .collect();
        let mut population = Population { pairs, tick };
        for _ in 0..SETTLE {
            population.frame();
        }
        population
    }

    /// One frame on this thread.
    fn frame(&mut self) -> u64 {
        let mut running = 0;
        for (s, a) in &mut self.pairs {
            running += ((self.tick)(s, a) == Status::Running) as u64;
            a.advance();
        }
        running
    }

    /// One frame on rayon's pool.
    fn frame_parallel(&mut self) {
        let tick = self.tick;
        bt::parallel::for_each_parallel(&mut self.pairs, CHUNK, |_, (s, a)| {
            tick(s, a);
            a.advance();
        });
    }

    /// What the leaves saw, summed over the agents.
    fn checksum(&self) -> Checksum {
        let agents: Vec<Agent> = self.pairs.iter().map(|(_, a)| a.clone()).collect();
        Checksum::of_agents(&agents)
    }
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion");
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    let mut ours = Population::<Guard>::new(Guard::tick);
    let mut hand = Population::<GuardHand>::new(GuardHand::tick);
    // The same leaf calls, outcomes and halts from both before timing.
    assert_eq!(
        ours.checksum(),
        hand.checksum(),
        "bt and hand-written disagree"
    );
    let running = ours.frame();
    assert_eq!(running, hand.frame());
    let mut c = Criterion::default()
        .output_directory(&out)
        .configure_from_args();
    let mut g = c.benchmark_group("frame-1000000");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("bt", |b| b.iter(|| black_box(ours.frame())));
    g.bench_function("hand-written", |b| b.iter(|| black_box(hand.frame())));
    g.bench_function("bt-parallel", |b| b.iter(|| ours.frame_parallel()));
    g.bench_function("hand-written-parallel", |b| {
        b.iter(|| hand.frame_parallel())
    });
    g.finish();
    c.final_summary();
    if !filtered {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-frame.md");
        std::fs::write(&path, report(&out, running)).expect("write BENCHMARKS-frame.md");
        println!("wrote {}", path.display());
    }
}

fn report(dir: &Path, running: u64) -> String {
    let ms = |bench: &str| mean_ns(dir, "frame-1000000", bench).map(|ns| ns / 1e6);
    let mut o = String::new();
    writeln!(o, "# A million agents per frame\n").unwrap();
    writeln!(
        o,
        "Written by `cargo bench -p bt-bench --bench frame` (`bt-bench/benches/frame.rs`); do not edit by hand."
    )
    .unwrap();
    writeln!(o, "Machine: {}.\n", machine()).unwrap();
    writeln!(
        o,
        "One frame ticks 1,000,000 agents of the 20-node *guard* tree once each, their states in one contiguous"
    )
    .unwrap();
    writeln!(
        o,
        "`Vec`, under the *preemption* load of `BENCHMARKS.md` (conditions flip every three ticks, actions take three"
    )
    .unwrap();
    writeln!(
        o,
        "to five, so agents sit in different branches and running actions keep being halted). Timing starts after"
    )
    .unwrap();
    writeln!(
        o,
        "{SETTLE} frames; the generated and hand-written trees were first checked to make the same leaf calls with"
    )
    .unwrap();
    writeln!(
        o,
        "the same results and halts. In the frame after settling, {running} of the agents' roots were running.\n"
    )
    .unwrap();
    writeln!(
        o,
        "| threads | bt, ms per frame | hand-written | bt / hand |"
    )
    .unwrap();
    writeln!(o, "|---|---:|---:|---:|").unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (threads, ours, hand) in [
        ("1".to_string(), "bt", "hand-written"),
        (
            format!("{cores} (rayon, `for_each_parallel`)"),
            "bt-parallel",
            "hand-written-parallel",
        ),
    ] {
        let (o_ms, h_ms) = (ms(ours), ms(hand));
        let ratio = match (o_ms, h_ms) {
            (Some(a), Some(b)) => format!("{:.3}", a / b),
            _ => "n/a".into(),
        };
        let show = |x: Option<f64>| x.map_or("n/a".into(), |x| format!("{x:.2}"));
        writeln!(
            o,
            "| {threads} | {} | {} | {ratio} |",
            show(o_ms),
            show(h_ms)
        )
        .unwrap();
    }
    if let (Some(one), Some(all)) = (ms("bt"), ms("bt-parallel")) {
        writeln!(o, "\nSpeed-up of `bt` on {cores} cores: {:.2}x.", one / all).unwrap();
    }
    o
}
