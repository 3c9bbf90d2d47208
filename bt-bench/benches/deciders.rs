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
    if !filtered {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-deciders.md");
        std::fs::write(&path, report(&out)).expect("write BENCHMARKS-deciders.md");
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

fn report(dir: &Path) -> String {
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
