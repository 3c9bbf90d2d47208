//! `cargo bench -p bt-bench --bench futures`: a future leaf (kept inline,
//! and boxed) against a plain leaf doing the same work. Writes
//! `BENCHMARKS-futures.md` on an unfiltered run.

mod common;

use bt_bench::alloc::{self, Counting};
use bt_bench::futures::{Herd, Variant};
use criterion::Criterion;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOC: Counting = Counting;

const COUNTS: [usize; 2] = [1_000, 100_000];

fn group(count: usize) -> String {
    format!("futures-{count}")
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion");
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    // The same calls and statuses from every variant before anything is timed.
    let reference = run(Variant::Leaf, 256, 500);
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
    c.final_summary();
    if !filtered {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-futures.md");
        std::fs::write(&path, report(&out)).expect("write BENCHMARKS-futures.md");
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

/// Allocations per agent-tick over 100 ticks of 1,000 agents, after one
/// warm-up tick.
fn allocations(v: Variant) -> f64 {
    let mut herd = Herd::new(v, 1_000);
    herd.step();
    let (_, usage) = alloc::measure(|| {
        for _ in 0..100 {
            herd.step();
        }
    });
    usage.allocations as f64 / 100_000.0
}

fn report(dir: &Path) -> String {
    let mut o = String::new();
    writeln!(o, "# Future leaves\n").unwrap();
    writeln!(
        o,
        "Written by `cargo bench -p bt-bench --bench futures` (`bt-bench/src/futures.rs`). Each \
         agent runs `sequence {{ <action>, action me.done() }}`, the action lasting 1 to 8 ticks \
         (drawn per agent and run), every agent ticked once per iteration. All variants make the \
         same calls (checked before timing).\n"
    )
    .unwrap();
    writeln!(
        o,
        "- **leaf**: a plain `Leaf` counting its ticks in its memory.\n\
         - **future-inline**: a `FutureLeaf` whose future is a named `Unpin` type kept in the \
         tree state, polled once per tick.\n\
         - **future-boxed**: a `FutureLeaf` whose future is an `async` block awaiting the same \
         countdown, boxed (`BoxFuture`): one allocation per start.\n"
    )
    .unwrap();
    writeln!(o, "| agents | variant | ns per agent-tick | / leaf |").unwrap();
    writeln!(o, "|---:|---|---:|---:|").unwrap();
    for count in COUNTS {
        let mean = |v: Variant| bt_bench::report::mean_ns(dir, &group(count), v.name());
        let leaf = mean(Variant::Leaf);
        for v in Variant::ALL {
            let Some(ns) = mean(v) else { continue };
            let ratio = leaf.map_or("-".into(), |b| format!("{:.2}", ns / b));
            writeln!(
                o,
                "| {count} | {} | {:.2} | {ratio} |",
                v.name(),
                ns / count as f64
            )
            .unwrap();
        }
    }
    writeln!(
        o,
        "\n| variant | state bytes per agent | allocations per agent-tick |"
    )
    .unwrap();
    writeln!(o, "|---|---:|---:|").unwrap();
    for v in Variant::ALL {
        writeln!(
            o,
            "| {} | {} | {:.3} |",
            v.name(),
            Herd::state_size(v),
            allocations(v)
        )
        .unwrap();
    }
    o
}
