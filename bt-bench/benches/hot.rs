//! `cargo bench -p bt-bench --bench hot`: what hot reload costs on the
//! 1,001-node tree: reloading it from an edited file (parse, check, lower,
//! resolve, identities), and moving 10,000 running agents to the new
//! version. Results are written by hand into `BENCHMARKS-hot.md`.

use bt_bench::interpreted::{HUGE, Reloadable};
use bt_bench::world::{Agent, Scenario};
use criterion::{BatchSize, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// The file with one edit: the first `force_success` becomes a
/// `force_failure` (a kind change: what ran under it is halted).
fn edited() -> String {
    HUGE.0.replacen("force_success {", "force_failure {", 1)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hot");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    let tree = Reloadable::huge();
    let (original, edit) = (HUGE.0.to_string(), edited());
    let mut flip = false;
    group.bench_function("reload-1001-nodes", |b| {
        b.iter(|| {
            flip = !flip;
            black_box(tree.reload(if flip { &edit } else { &original }))
        })
    });
    group.bench_function("migrate-10000-agents", |b| {
        b.iter_batched(
            || {
                let tree = Reloadable::huge();
                let mut agents: Vec<_> = Agent::many(10_000, Scenario::Preemption)
                    .into_iter()
                    .map(|a| (tree.state(), a))
                    .collect();
                for _ in 0..3 {
                    for (state, agent) in &mut agents {
                        tree.tick(state, agent);
                        agent.advance();
                    }
                }
                assert!(matches!(
                    tree.reload(&edited()),
                    bt_compiler::live::Reload::Applied { .. }
                ));
                (tree, agents)
            },
            |(tree, mut agents)| {
                let mut moved = 0;
                for (state, agent) in &mut agents {
                    moved += usize::from(tree.catch_up(state, agent));
                }
                assert_eq!(moved, 10_000);
                (tree, agents)
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
