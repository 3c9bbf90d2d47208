//! Times decider variants, or two builds of one, side by side on a noisy
//! machine: each round runs every variant once with `long` ticks and once
//! with a quarter of them, one after the other, so that the ratios are of
//! runs a few seconds apart. The time per agent-tick is (long − short) /
//! (agents × (long − short ticks)): set-up cancels out.
//!
//! ```sh
//! cargo build --release -p bt-bench --bin tick_count --bin alternate
//! target/release/alternate <agents> <long ticks> <rounds> <spec>...
//! target/release/alternate 100000 800 5 bt-notrace bt-recorder /tmp/before/tick_count:bt-recorder
//! ```
//!
//! A spec is a decider variant (`BENCHMARKS-deciders.md`), run by the
//! `tick_count` beside this binary, or `path:variant`, run by the
//! `tick_count` at `path` (another build). Each round starts one spec
//! later than the round before, so that the order of the runs favours
//! none over the rounds. The first spec is the base:
//! for each spec it prints the median time per agent-tick, and the median
//! over rounds of its ratio to the base in the same round. The drain
//! thread's own time per agent-tick (`tick_count` prints it to stderr) is
//! added for the variants that drain.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// One variant of one build.
struct Spec {
    label: String,
    exe: PathBuf,
    variant: String,
}

/// One run: its wall time in seconds, and the drain thread's busy time in
/// nanoseconds if it printed one.
fn run(spec: &Spec, agents: u64, ticks: u64) -> (f64, Option<f64>) {
    let start = Instant::now();
    let out = Command::new(&spec.exe)
        .args([
            "decider",
            &spec.variant,
            &agents.to_string(),
            &ticks.to_string(),
        ])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", spec.exe.display()));
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{} failed:\n{stderr}", spec.label);
    let drain = stderr
        .split("drain busy ")
        .nth(1)
        .and_then(|rest| rest.split(" ns").next())
        .and_then(|n| n.trim().parse().ok());
    (seconds, drain)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: alternate <agents> <long ticks> <rounds> <[path:]variant>...";
    let number = |i: usize| -> u64 {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| panic!("{usage}"))
    };
    let (agents, long, rounds) = (number(0), number(1), number(2));
    let short = long / 4;
    assert!(short > 0 && args.len() > 3, "{usage}");
    let here = std::env::current_exe().expect("the path of this binary");
    let specs: Vec<Spec> = args[3..]
        .iter()
        .map(|arg| {
            let (exe, variant) = match arg.rsplit_once(':') {
                Some((path, variant)) => (PathBuf::from(path), variant),
                None => (here.with_file_name("tick_count"), arg.as_str()),
            };
            Spec {
                label: arg.clone(),
                exe,
                variant: variant.to_string(),
            }
        })
        .collect();
    let per_tick = (agents * (long - short)) as f64;
    let mut times = vec![Vec::new(); specs.len()];
    let mut drains = vec![Vec::new(); specs.len()];
    for round in 0..rounds {
        // Each round starts one spec later: no build always runs right
        // after the same one.
        let n = specs.len();
        for k in (0..n).map(|i| (i + round as usize) % n) {
            let spec = &specs[k];
            let (long_s, long_drain) = run(spec, agents, long);
            let (short_s, short_drain) = run(spec, agents, short);
            times[k].push((long_s - short_s) * 1e9 / per_tick);
            if let (Some(l), Some(s)) = (long_drain, short_drain) {
                drains[k].push((l - s) / per_tick);
            }
        }
        let row: Vec<String> = times
            .iter()
            .map(|t| format!("{:.2}", t[t.len() - 1]))
            .collect();
        println!("round {round}: {}", row.join(" "));
    }
    for (k, spec) in specs.iter().enumerate() {
        let ratios = times[k].iter().zip(&times[0]).map(|(t, b)| t / b).collect();
        let drain = if drains[k].is_empty() {
            String::new()
        } else {
            format!(", drain thread {:.2} ns", median(drains[k].clone()))
        };
        println!(
            "{:<40} {:.2} ns per agent-tick, {:.3} x base{drain}",
            spec.label,
            median(times[k].clone()),
            median(ratios),
        );
    }
}
