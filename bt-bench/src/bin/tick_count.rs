//! Ticks one population a given number of times and nothing else, so that
//! a run under `valgrind --tool=cachegrind` counts the instructions and
//! branches of the ticks (subtract a short run from a long one to leave out
//! the set-up):
//!
//! ```sh
//! cargo build --release -p bt-bench --bin tick_count
//! target/release/tick_count <tree> <scenario> <implementation> <agents> <ticks>
//! target/release/tick_count decider <variant> <agents> <ticks>
//! ```
//!
//! Built with `--features hot-reload`, the implementation `live` ticks the
//! `behavior_tree!` trees live (hot reload's interpreter with the build's
//! compiled expressions).
//!
//! Trees, scenarios and implementations are named as in `BENCHMARKS.md`
//! (`large steady hand-written 1000 120`), decider variants as in
//! `BENCHMARKS-deciders.md` (`decider bt-notrace 1000 120`). Prints the
//! state's bytes per agent (to stderr) and a checksum of the run.

use bt_bench::decider::{Herd, Variant};
use bt_bench::harness::{self, Imp, TreeId};
use bt_bench::world::Scenario;
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: tick_count <tree> <scenario> <implementation> <agents> <ticks> \
                 | tick_count decider <variant> <agents> <ticks>";
    let number = |i: usize| -> usize {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("{usage}"))
    };
    let name = |i: usize| args.get(i).map(String::as_str);
    if name(0) == Some("decider") {
        let variant = Variant::ALL
            .into_iter()
            .find(|v| Some(v.name()) == name(1))
            .unwrap_or_else(|| panic!("{usage}"));
        // As in the benchmark: a program logging at INFO.
        tracing::subscriber::set_global_default(bt_bench::decider::InfoOnly)
            .expect("the first global subscriber");
        let mut herd = Herd::new(variant, number(2));
        for _ in 0..number(3) {
            black_box(&mut herd).step();
        }
        if let Some(busy) = herd.drain_busy_ns() {
            eprintln!("drain busy {busy} ns");
        }
        println!("{}", herd.statuses ^ herd.calls());
        return;
    }
    let tree = TreeId::ALL.into_iter().find(|t| Some(t.name()) == name(0));
    let scenario = Scenario::ALL
        .into_iter()
        .find(|s| Some(s.name()) == name(1));
    let imp = Imp::ALL.into_iter().find(|i| Some(i.name()) == name(2));
    #[cfg(feature = "hot-reload")]
    if let (Some(tree), Some(scenario), Some("live")) = (tree, scenario, name(2)) {
        let mut population = harness::live_population(tree, scenario, number(3));
        let mut sum = 0u64;
        for _ in 0..number(4) {
            sum = sum.wrapping_add(black_box(population.step()));
        }
        println!("{sum}");
        return;
    }
    let (Some(tree), Some(scenario), Some(imp)) = (tree, scenario, imp) else {
        panic!("{usage}");
    };
    let mut population = harness::population(imp, tree, scenario, number(3))
        .unwrap_or_else(|e| panic!("{} cannot express {}: {e}", imp.name(), tree.name()));
    eprintln!("bytes per agent {:?}", population.bytes_per_agent());
    let mut sum = 0u64;
    for _ in 0..number(4) {
        sum = sum.wrapping_add(black_box(population.step()));
    }
    println!("{sum}");
}
