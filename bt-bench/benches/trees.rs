//! `cargo bench -p bt-bench`: every reference tree, scenario, agent count
//! and implementation side by side, the macro's expansion time on the
//! 1,000-node tree, then `BENCHMARKS.md` rewritten from the results (only
//! on an unfiltered run).

use bt_bench::harness::{self, Imp, TreeId};
use bt_bench::report::{COUNTS, group_id};
use criterion::{BatchSize, Criterion, Throughput};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[global_allocator]
static ALLOC: bt_bench::alloc::Counting = bt_bench::alloc::Counting;

/// The 1,000-node tree, as the macro receives it.
const HUGE: &str = include_str!("../tests/generated/huge_ours.rs");

fn huge_tokens() -> proc_macro2::TokenStream {
    let body = HUGE
        .split_once("bt::behavior_tree! {")
        .expect("generated header")
        .1;
    let body = body.trim_end().strip_suffix('}').expect("closing brace");
    body.parse().expect("the generated tree tokenizes")
}

/// Before timing: every implementation that can express a tree must agree
/// with the macro's on the scripted run.
fn check_equivalence() {
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            let reference = harness::checksum(Imp::Ours, tree, scenario, 64, 300).unwrap();
            for imp in Imp::ALL {
                if let Ok(sum) = harness::checksum(imp, tree, scenario, 64, 300) {
                    assert!(
                        sum.agrees_with(&reference),
                        "{} disagrees with bt on {}/{}: {sum:?} vs {reference:?}",
                        imp.name(),
                        tree.name(),
                        scenario.name()
                    );
                }
            }
        }
    }
}

fn bench_trees(c: &mut Criterion) {
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            for count in COUNTS {
                let mut group = c.benchmark_group(group_id(tree, scenario, count));
                group.throughput(Throughput::Elements(count as u64));
                if count >= 100_000 {
                    group
                        .sample_size(10)
                        .warm_up_time(Duration::from_millis(500))
                        .measurement_time(Duration::from_secs(3));
                } else {
                    group
                        .warm_up_time(Duration::from_millis(300))
                        .measurement_time(Duration::from_secs(1));
                }
                for imp in Imp::ALL {
                    let Ok(mut population) = harness::population(imp, tree, scenario, count) else {
                        continue;
                    };
                    group.bench_function(imp.name(), |b| b.iter(|| black_box(population.step())));
                }
                group.finish();
            }
        }
    }
}

fn bench_expand(c: &mut Criterion) {
    let tokens = huge_tokens();
    let mut group = c.benchmark_group("expand");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("huge", |b| {
        b.iter_batched(
            || tokens.clone(),
            |t| black_box(bt_compiler::expand(t)),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn main() {
    let out = criterion_dir();
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    check_equivalence();
    let mut c = Criterion::default()
        .output_directory(&out)
        .configure_from_args();
    bench_trees(&mut c);
    bench_expand(&mut c);
    c.final_summary();
    if !filtered {
        let report = bt_bench::report::write(&out, bt_bench::spec::large(1000).nodes());
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
        std::fs::write(&path, report).expect("write BENCHMARKS.md");
        println!("wrote {}", path.display());
    }
}

fn criterion_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion")
}
