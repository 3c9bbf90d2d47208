//! What the herd benchmarks (`deciders`, `futures`) share.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use std::time::Duration;

/// A group whose iteration ticks `count` agents once: throughput in
/// agents, half a second of warm-up, two seconds of measurement, and 20
/// samples from 100,000 agents on (an iteration is long there).
pub fn herd_group<'a>(
    c: &'a mut Criterion,
    name: String,
    count: usize,
) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(count as u64))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    if count >= 100_000 {
        g.sample_size(20);
    }
    g
}
