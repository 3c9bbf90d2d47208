//! Prints the tables of the `## Instructions per agent-tick` section of
//! `bt-bench/ASSEMBLY.md`:
//! instructions, branches and simulated mispredictions per agent-tick of
//! each reference tree and the decider, generated against hand-written,
//! counted by cachegrind. Unlike times, these counts are the same on every
//! run of the same binary, whatever else the machine is doing.
//!
//! ```sh
//! cargo build --release -p bt-bench --bin tick_count --bin instructions
//! target/release/instructions
//! ```
//!
//! Needs `valgrind` on the `PATH`. Each row runs `tick_count` twice under
//! cachegrind, for 20 and for 120 ticks of 1,000 agents, and divides the
//! difference by the 100,000 agent-ticks between them, which leaves out
//! building the agents and everything else both runs share.

use bt_bench::decider::Variant;
use bt_bench::harness::{Imp, TreeId};
use std::path::{Path, PathBuf};
use std::process::Command;

const AGENTS: u64 = 1000;
const SHORT: u64 = 20;
const LONG: u64 = 120;

/// Totals of one cachegrind run (`u64`), or per agent-tick (`f64`).
#[derive(Clone, Copy)]
struct Counts<T> {
    instructions: T,
    branches: T,
    indirect: T,
    mispredicted: T,
}

/// The line of cachegrind's summary that contains `label`.
fn line_of<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(label))
        .unwrap_or_else(|| panic!("cachegrind printed no `{label}` line:\n{text}"))
}

/// The number (written with thousands separators) that `text` starts with,
/// after blanks.
fn leading_number(text: &str) -> u64 {
    let digits: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().expect("a count")
}

/// The number after `label`.
fn number_after(text: &str, label: &str) -> u64 {
    let line = line_of(text, label);
    leading_number(&line[line.find(label).expect("found above") + label.len()..])
}

/// The indirect part of the `label` line (`N (C cond + I ind)`).
fn indirect(text: &str, label: &str) -> u64 {
    let line = line_of(text, label);
    leading_number(&line[line.find('+').expect("cond + ind") + 1..])
}

fn run(exe: &Path, args: &[String], ticks: u64) -> Counts<u64> {
    let out = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--branch-sim=yes",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(exe)
        .args(args)
        .arg(ticks.to_string())
        .output()
        .expect("run valgrind (is it installed?)");
    assert!(out.status.success(), "tick_count {args:?} failed");
    parse(&String::from_utf8_lossy(&out.stderr))
}

/// The totals cachegrind prints at exit.
fn parse(text: &str) -> Counts<u64> {
    Counts {
        instructions: number_after(text, "I   refs:"),
        branches: number_after(text, "Branches:"),
        indirect: indirect(text, "Branches:"),
        mispredicted: number_after(text, "Mispredicts:"),
    }
}

/// Counts per agent-tick: the long run's totals less the short run's.
fn per_tick(exe: &Path, args: &[String]) -> Counts<f64> {
    let (a, b) = (run(exe, args, SHORT), run(exe, args, LONG));
    let n = ((LONG - SHORT) * AGENTS) as f64;
    let d = |x: u64, y: u64| (y as f64 - x as f64) / n;
    Counts {
        instructions: d(a.instructions, b.instructions),
        branches: d(a.branches, b.branches),
        indirect: d(a.indirect, b.indirect),
        mispredicted: d(a.mispredicted, b.mispredicted),
    }
}

fn tick_count() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    let path = exe.with_file_name("tick_count");
    assert!(
        path.exists(),
        "build it first: cargo build --release -p bt-bench --bin tick_count"
    );
    path
}

fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

fn main() {
    let exe = tick_count();
    let mut out = String::new();
    out.push_str("| tree | scenario | instructions: bt | hand-written | bt / hand | branches: bt | hand-written | indirect: bt | hand-written | mispredicted: bt | hand-written |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            let args = |imp: Imp| {
                vec![
                    tree.name().to_string(),
                    scenario.name().to_string(),
                    imp.name().to_string(),
                    AGENTS.to_string(),
                ]
            };
            let bt = per_tick(&exe, &args(Imp::Ours));
            let hand = per_tick(&exe, &args(Imp::Hand));
            out.push_str(&row(&[
                tree.name().into(),
                scenario.name().into(),
                format!("{:.1}", bt.instructions),
                format!("{:.1}", hand.instructions),
                format!("{:.2}", bt.instructions / hand.instructions),
                format!("{:.1}", bt.branches),
                format!("{:.1}", hand.branches),
                format!("{:.1}", bt.indirect),
                format!("{:.1}", hand.indirect),
                format!("{:.2}", bt.mispredicted),
                format!("{:.2}", hand.mispredicted),
            ]));
        }
    }
    out.push('\n');
    out.push_str("| decider | instructions | / hand | branches | indirect | mispredicted |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    let variants = [
        Variant::Hand,
        Variant::NoContext,
        Variant::NoTrace,
        Variant::TracerOff,
        Variant::Hooked,
    ];
    let mut hand = 0.0;
    for variant in variants {
        let args = vec![
            "decider".to_string(),
            variant.name().to_string(),
            AGENTS.to_string(),
        ];
        let c = per_tick(&exe, &args);
        if variant == Variant::Hand {
            hand = c.instructions;
        }
        out.push_str(&row(&[
            variant.name().into(),
            format!("{:.1}", c.instructions),
            format!("{:.2}", c.instructions / hand),
            format!("{:.1}", c.branches),
            format!("{:.1}", c.indirect),
            format!("{:.2}", c.mispredicted),
        ]));
    }
    print!("{out}");
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_the_totals_cachegrind_prints() {
        let text = "==10305== \n\
            ==10305== I   refs:      2,171,161\n\
            ==10305== \n\
            ==10305== Branches:        346,181  (265,975 cond + 80,206 ind)\n\
            ==10305== Mispredicts:       6,174  (  5,623 cond +    551 ind)\n\
            ==10305== Mispred rate:        1.8% (    2.1%     +    0.7%   )\n";
        let c = parse(text);
        assert_eq!(
            (c.instructions, c.branches, c.indirect, c.mispredicted),
            (2_171_161, 346_181, 80_206, 6_174)
        );
    }
}
