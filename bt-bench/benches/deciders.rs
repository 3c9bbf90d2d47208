//! `cargo bench -p bt-bench --bench deciders`: a `prioritized` decider,
//! generated vs hand-written, and the generated one with trace hooks off in
//! three ways. Writes `BENCHMARKS-deciders.md` on an unfiltered run.

mod common;

use bt_bench::decider::{GateHerd, Herd, Variant};
use criterion::Criterion;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

const COUNTS: [usize; 2] = [1_000, 100_000];

/// The variants timed again in alternation, after criterion: the base
/// first.
const ALTERNATED: [Variant; 6] = [
    Variant::NoTrace,
    Variant::Hand,
    Variant::Recorded,
    Variant::RecordedDrained,
    Variant::Hooked,
    Variant::LivePage,
];
/// Ticks each alternated herd takes before it is timed: every recorder's
/// logs fill and are folded a few times (about every 800 ticks here).
const WARM_TICKS: usize = 2_000;
/// Rounds of alternation, and agent-ticks per variant in a round.
const ROUNDS: usize = 160;
const ROUND_AGENT_TICKS: usize = 1_000_000;

/// One variant's alternated timings at one count.
struct Alternated {
    variant: Variant,
    /// Nanoseconds per agent-tick over all rounds.
    ns: f64,
    /// Its total time over the base's total time.
    ratio: f64,
    /// The rounds' own ratios, first and third quartiles.
    quartiles: (f64, f64),
}

/// Ticks a herd of each [`ALTERNATED`] variant in turn, [`ROUNDS`] times,
/// so that a ratio compares runs tens of milliseconds apart on a noisy
/// machine. Over all rounds each herd takes 160,000 ticks at 1,000 agents
/// and 1,600 at 100,000: every log folds in that time, at least twice.
fn alternate(count: usize) -> Vec<Alternated> {
    let mut herds: Vec<Herd> = ALTERNATED
        .iter()
        .map(|&v| {
            let mut herd = Herd::new(v, count);
            for _ in 0..WARM_TICKS {
                herd.step();
            }
            herd.set_draining(false);
            herd
        })
        .collect();
    let ticks = ROUND_AGENT_TICKS / count;
    let mut totals = vec![0.0; herds.len()];
    let mut ratios = vec![Vec::new(); herds.len()];
    for _ in 0..ROUNDS {
        let times: Vec<f64> = herds
            .iter_mut()
            .map(|herd| {
                herd.set_draining(true);
                let start = std::time::Instant::now();
                for _ in 0..ticks {
                    herd.step();
                }
                black_box(herd.statuses);
                let elapsed = start.elapsed().as_secs_f64();
                herd.set_draining(false);
                elapsed
            })
            .collect();
        for (k, t) in times.iter().enumerate() {
            totals[k] += t;
            ratios[k].push(t / times[0]);
        }
    }
    ALTERNATED
        .iter()
        .enumerate()
        .map(|(k, &variant)| {
            let mut r = core::mem::take(&mut ratios[k]);
            r.sort_by(f64::total_cmp);
            Alternated {
                variant,
                ns: totals[k] * 1e9 / (ROUNDS * ticks * count) as f64,
                ratio: totals[k] / totals[0],
                quartiles: (r[ROUNDS / 4], r[ROUNDS * 3 / 4]),
            }
        })
        .collect()
}

fn group(count: usize) -> String {
    format!("decider-{count}")
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion");
    // A program that logs at INFO: the trees' tracing events are filtered out.
    tracing::subscriber::set_global_default(bt_bench::decider::InfoOnly)
        .expect("the first global subscriber");
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    // Same calls and statuses from every variant before anything is timed.
    let reference = run(Variant::Hand, 256, 500);
    for v in Variant::ALL {
        assert_eq!(run(v, 256, 500), reference, "{} disagrees", v.name());
    }
    let mut c = Criterion::default()
        .output_directory(&out)
        .configure_from_args();
    for count in COUNTS {
        let mut g = common::herd_group(&mut c, group(count), count);
        for v in Variant::ALL {
            let mut herd = Herd::new(v, count);
            g.bench_function(v.name(), |b| {
                b.iter(|| {
                    herd.step();
                    black_box(herd.statuses)
                })
            });
        }
        g.finish();
    }
    // The gate: every agent enters and leaves it once per tick.
    for count in COUNTS {
        let mut g = common::herd_group(&mut c, format!("gate-{count}"), count);
        for (name, gated) in [("without", false), ("with", true)] {
            let mut herd = GateHerd::new(gated, count);
            g.bench_function(name, |b| {
                b.iter(|| {
                    herd.step();
                    black_box(herd.statuses)
                })
            });
        }
        g.finish();
    }
    c.final_summary();
    let only_alternated = std::env::args().skip(1).any(|a| a == "alternated");
    if only_alternated || !filtered {
        let alternated: Vec<(usize, Vec<Alternated>)> = COUNTS
            .iter()
            .map(|&count| (count, alternate(count)))
            .collect();
        if only_alternated {
            println!("{}", alternated_table(&alternated));
            return;
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-deciders.md");
        std::fs::write(&path, report(&out, &alternated)).expect("write BENCHMARKS-deciders.md");
        println!("wrote {}", path.display());
    }
}

fn run(v: Variant, count: usize, ticks: usize) -> (u64, u64) {
    let mut herd = Herd::new(v, count);
    for _ in 0..ticks {
        herd.step();
    }
    (herd.calls(), herd.statuses)
}

/// The alternated timings as a Markdown table.
fn alternated_table(alternated: &[(usize, Vec<Alternated>)]) -> String {
    let mut o = String::new();
    writeln!(
        o,
        "| agents | variant | ns per agent-tick | / bt-notrace | rounds' quartiles |"
    )
    .unwrap();
    writeln!(o, "|---:|---|---:|---:|---:|").unwrap();
    for (count, rows) in alternated {
        for row in rows {
            writeln!(
                o,
                "| {count} | {} | {:.2} | {:.2} | {:.2} to {:.2} |",
                row.variant.name(),
                row.ns,
                row.ratio,
                row.quartiles.0,
                row.quartiles.1
            )
            .unwrap();
        }
    }
    o
}

fn report(dir: &Path, alternated: &[(usize, Vec<Alternated>)]) -> String {
    let mut o = String::new();
    writeln!(o, "# Decider and trace-hook benchmarks\n").unwrap();
    writeln!(
        o,
        "Written by `cargo bench -p bt-bench --bench deciders` (`bt-bench/src/decider.rs`). A \
         `prioritized` group of four guarded actions reading the agent and the context's \
         decision flags, ticked for every agent; the senses change every tick, so children \
         interrupt each other and finish now and then. All variants make the same calls \
         (checked before timing).\n"
    )
    .unwrap();
    writeln!(
        o,
        "- **hand**: the same decider written by hand, without trace points or activation times."
    )
    .unwrap();
    writeln!(o, "- **bt-no-context**: generated from the same tree without a tick context (the flag read from the agent): the macro emits no trace point and no activation time.").unwrap();
    writeln!(
        o,
        "- **bt-notrace**: generated, ticked with `Ctx<Mode>` (trace hook `NoTrace`)."
    )
    .unwrap();
    writeln!(
        o,
        "- **bt-tracer-level-0**: generated, with a `Tracer` attached at level 0."
    )
    .unwrap();
    writeln!(o, "- **bt-tracer-other-agent**: generated, with a level-5 `Tracer` filtered to an agent not in the herd.").unwrap();
    writeln!(
        o,
        "- **bt-recorder**: generated, with a `bt::record::Recorder` recording every agent: every \
         node's status each tick, transitions kept in a ring of {} per agent.",
        bt_bench::decider::RING
    )
    .unwrap();
    writeln!(
        o,
        "- **bt-recorder-drained**: the same, with the logs folded on a second thread \
         (`Recorder::drain_agents`, an eighth of the agents each frame, as \
         `bt_bench::decider::Drainer` does): the time is the ticking thread's; the drain's \
         own is on the other core."
    )
    .unwrap();
    writeln!(
        o,
        "- **bt-hooks-noop**: generated, with node hooks on every agent that let every node run \
         and change nothing (`Trace::HOOKS`): the cost of the hook points."
    )
    .unwrap();
    writeln!(
        o,
        "- **bt-groot2-attached-no-client**: generated, with a Groot2 server \
         (`bt_groot::Groot2`, serving on two localhost ports) attached to every agent's \
         context and watching agent 0, no client connected: each tick asks it whether its \
         agent is followed and hooked, and the tick is the traced one.\n\
         - **bt-groot2-no-client**: the same server, each agent ticked with it only when \
         `groot.follows(agent)` (the watched agent, with a client connected), else with \
         `NoTrace`: the integration the crate documents.\n\
         - **bt-groot2-polled-10hz**: the same, with a client on another thread asking for the \
         statuses 10 times a second: agent 0's statuses are recorded every tick, and the server \
         thread answers.\n\
         - **bt-live-page-no-client**: generated, with the live page (`bt_live::LivePage`) \
         attached to every agent's context, no page open: every agent recorded (a ring of 16 \
         transitions each), each tick asking whether its agent is watched with hooks set.\n\
         - **bt-tracing-filtered-out**: generated, with `bt::trace::ToTracing` at level 6 on \
         every agent, under a `tracing` subscriber that keeps `INFO` and above (installed for \
         the whole run): each tick asks `tracing` whether the trees' events are wanted, and \
         builds none.\n"
    )
    .unwrap();
    writeln!(
        o,
        "| agents | variant | ns per agent-tick | / hand | / bt-no-context | / bt-notrace |"
    )
    .unwrap();
    writeln!(o, "|---:|---|---:|---:|---:|---:|").unwrap();
    for count in COUNTS {
        let mean = |v: Variant| bt_bench::report::mean_ns(dir, &group(count), v.name());
        let (hand, base) = (mean(Variant::Hand), mean(Variant::NoContext));
        let notrace = mean(Variant::NoTrace);
        for v in Variant::ALL {
            let Some(ns) = mean(v) else { continue };
            let per = ns / count as f64;
            let ratio = |b: Option<f64>| b.map_or("-".into(), |b| format!("{:.2}", ns / b));
            writeln!(
                o,
                "| {count} | {} | {per:.2} | {} | {} | {} |",
                v.name(),
                ratio(hand),
                ratio(base),
                ratio(notrace)
            )
            .unwrap();
        }
    }
    writeln!(o, "\n## The same, alternated\n").unwrap();
    writeln!(
        o,
        "Criterion times one variant after another, seconds apart, and a fresh 100,000-agent \
         herd takes only about 800 ticks in its run, about when a recorder's logs first fill. \
         Here a herd of each variant below first takes {WARM_TICKS} ticks, then they are \
         ticked in turn, {ROUNDS} rounds of {} million agent-ticks each (`cargo bench -p \
         bt-bench --bench deciders -- alternated` runs only these): a ratio is of the totals \
         of runs tens of milliseconds apart, with every log folded several times meanwhile. \
         The quartiles are of the rounds' own ratios. `bt-recorder-drained`'s thread drains \
         only in its herd's turns.\n",
        ROUND_AGENT_TICKS / 1_000_000
    )
    .unwrap();
    o.push_str(&alternated_table(alternated));
    writeln!(o, "\n## Cost of a gate\n").unwrap();
    writeln!(
        o,
        "`gate(n) {{ action }}` against the same tree without the gate, single-threaded: each \
         agent takes and gives back a permit (two atomic read-modify-writes on the shared \
         counter) every tick.\n"
    )
    .unwrap();
    writeln!(
        o,
        "| agents | without gate, ns per agent-tick | with gate | gate entry + exit |"
    )
    .unwrap();
    writeln!(o, "|---:|---:|---:|---:|").unwrap();
    for count in COUNTS {
        let group = format!("gate-{count}");
        let mean = |b: &str| bt_bench::report::mean_ns(dir, &group, b).map(|ns| ns / count as f64);
        if let (Some(without), Some(with)) = (mean("without"), mean("with")) {
            writeln!(
                o,
                "| {count} | {without:.2} | {with:.2} | {:.2} ns |",
                with - without
            )
            .unwrap();
        }
    }
    writeln!(
        o,
        "\nState per agent, in bytes: generated {} (the active child; no activation time \
         without `#[bt(activation_times)]`), hand-written {}.",
        <bt_bench::decider::Decider as bt::BehaviorTree>::STATE_SIZE,
        std::mem::size_of::<bt_bench::decider::HandDecider>()
    )
    .unwrap();
    let recorder =
        bt::record::Recorder::new::<bt_bench::decider::Decider>(1, bt_bench::decider::RING);
    writeln!(
        o,
        "\nThe recorder keeps per agent {} transitions of 16 bytes, one status byte per node ({} \
         nodes) and its bookkeeping: about {} bytes per agent here.",
        bt_bench::decider::RING,
        recorder.nodes(),
        recorder.bytes_per_agent()
    )
    .unwrap();
    o
}
