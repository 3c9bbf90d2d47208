//! `cargo run -p bt-bench --bin compile_cost`: what a tree costs to
//! compile, by size (1,000, 2,000 and 5,000 nodes) and shape (balanced,
//! deep, wide), and for very wide nodes (10,000 to 40,000 children of one
//! `select`: the macro, `cargo check` and rustc's expansion phase, no
//! release build). For each tree it measures the macro's expansion (in this
//! unoptimized process, as rustc runs a proc macro by default), then, in a
//! scratch crate holding only that tree, `cargo check` and a release
//! rebuild after touching the file, with rustc's peak memory and its time
//! split into phases (`-Z time-passes`, read through `RUSTC_BOOTSTRAP=1`:
//! measurement only). Writes `BENCHMARKS-compile.md`.
//!
//! Takes about fifteen minutes on two cores.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const SIZES: [usize; 3] = [1_000, 2_000, 5_000];
const SHAPES: [&str; 3] = ["balanced", "deep", "wide"];
/// Children of one node, beyond `SIZES`: checked, not built for release.
const WIDE: [usize; 4] = [5_000, 10_000, 20_000, 40_000];

/// A leaf, by position: a mix of conditions, actions and stateful leaves.
fn leaf(i: usize) -> String {
    match i % 3 {
        0 => format!("cond me.ok({i})"),
        1 => format!("action me.act({i})"),
        _ => format!("Work {{ id: {i} }}"),
    }
}

/// The tree's root node, of about `n` nodes.
fn tree(shape: &str, n: usize) -> String {
    let mut next = 0;
    match shape {
        "wide" => {
            let leaves: Vec<String> = (0..n - 1).map(leaf).collect();
            format!("select {{ {} }}", leaves.join(", "))
        }
        "deep" => {
            // A spine 90 nodes deep (near the default limit of 100), the
            // leaves spread along it.
            let depth = 90;
            let per_level = (n - depth) / depth;
            let mut text = String::new();
            for level in 0..depth {
                let kind = ["sequence", "select", "reactive_sequence"][level % 3];
                text.push_str(kind);
                text.push_str(" { ");
                for _ in 0..per_level {
                    text.push_str(&leaf(next));
                    text.push_str(", ");
                    next += 1;
                }
            }
            text.push_str(&leaf(next));
            text.push_str(&" }".repeat(depth));
            text
        }
        _ => balanced(&mut next, n),
    }
}

/// Composites of four children, nested until the budget of nodes is spent.
fn balanced(next: &mut usize, budget: usize) -> String {
    if budget <= 1 {
        *next += 1;
        return leaf(*next);
    }
    let kinds = [
        "sequence",
        "select",
        "reactive_select",
        "parallel(success = 1)",
    ];
    let kind = kinds[*next % kinds.len()];
    // Up to four children sharing the rest of the budget: exactly
    // `budget` nodes in all.
    let rest = budget - 1;
    let count = rest.min(4);
    let children: Vec<String> = (0..count)
        .map(|k| balanced(next, rest / count + usize::from(k < rest % count)))
        .collect();
    format!("{kind} {{ {} }}", children.join(", "))
}

const LIB_PRELUDE: &str = r#"
use bt::prelude::*;

pub struct Agent { pub x: u32 }
impl Agent {
    pub fn ok(&self, i: u32) -> bool { self.x % (i + 2) == 0 }
    pub fn act(&mut self, i: u32) -> Status { self.x = self.x.wrapping_add(i); Status::Running }
}

pub struct Work { pub id: u32 }
impl Leaf<Agent> for Work {
    type Memory = u32;
    fn tick(&self, ticks: &mut u32, _: &mut Agent) -> Status {
        *ticks += 1;
        if *ticks > self.id % 3 { Status::Success } else { Status::Running }
    }
}
"#;

fn run(dir: &Path, target: &Path, args: &[&str], env: &[(&str, &str)]) -> (f64, String) {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg("cargo")
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .envs(env.iter().copied())
        .output()
        .expect("cargo runs");
    let secs = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "cargo {args:?} failed:\n{text}");
    (secs, text)
}

/// `Maximum resident set size (kbytes): N` from `/usr/bin/time -v`, in MB.
fn peak_mb(text: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Seconds of the `-Z time-passes` lines whose pass name is one of `names`.
fn pass_secs(text: &str, names: &[&str]) -> f64 {
    text.lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("time:")?.trim();
            let (secs, rest) = l.split_once(';')?;
            let name = rest.split_whitespace().last()?;
            names
                .contains(&name)
                .then(|| secs.trim().parse::<f64>().ok())?
        })
        .sum()
}

struct Row {
    /// Measured for the very wide nodes' table: checked, not released.
    very_wide: bool,
    shape: &'static str,
    nodes: usize,
    expand: f64,
    check: f64,
    release: f64,
    peak: f64,
    phases: [f64; 4],
}

fn main() {
    let root = std::env::temp_dir().join("bt-compile-cost");
    let target = root.join("target");
    let bt = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap();
    let mut rows = Vec::new();
    let cases = SHAPES
        .iter()
        .flat_map(|&shape| SIZES.iter().map(move |&n| (shape, n, false)))
        .chain(WIDE.iter().map(|&n| ("wide", n, true)));
    {
        for (shape, n, very_wide) in cases {
            // One node per line, as people and tools write trees (see the
            // report for what one very long line costs).
            let body = tree(shape, n).replace(", ", ",\n        ");
            // A binary that ticks the tree, so that its code is generated.
            let source = format!(
                "{LIB_PRELUDE}\nbehavior_tree! {{\n    pub tree Big(me: &mut Agent) {{ {body} }}\n}}\n\
                 fn main() {{\n    let (mut me, mut big) = (Agent {{ x: 1 }}, Big::default());\n    \
                 for _ in 0..8 {{\n        std::hint::black_box(big.tick(&mut me));\n    }}\n}}\n"
            );
            // Expansion, as the macro runs: this process is unoptimized.
            let input = format!("pub tree Big(me: &mut Agent) {{ {body} }}");
            let tokens: proc_macro2::TokenStream = input.parse().unwrap();
            let start = Instant::now();
            let out = bt_compiler::expand(tokens);
            let expand = start.elapsed().as_secs_f64();
            assert!(
                !out.to_string().contains("compile_error"),
                "{shape} {n} is valid"
            );

            let dir: PathBuf = root.join(format!("{shape}-{n}"));
            std::fs::create_dir_all(dir.join("src")).unwrap();
            std::fs::write(
                dir.join("Cargo.toml"),
                format!(
                    "[package]\nname = \"cost\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
                     [dependencies]\nbt = {{ package = \"arbortick\", path = {:?} }}\n[workspace]\n",
                    bt.display().to_string()
                ),
            )
            .unwrap();
            let lib = dir.join("src/main.rs");
            let _ = std::fs::remove_file(dir.join("src/lib.rs"));
            // Dependencies first, untimed, with a one-node tree.
            let tiny = source.replace(&body, "success");
            std::fs::write(&lib, &tiny).unwrap();
            run(&dir, &target, &["check", "-q"], &[]);
            if !very_wide {
                run(&dir, &target, &["build", "-q", "--release"], &[]);
            }
            std::fs::write(&lib, &source).unwrap();
            let (check, _) = run(&dir, &target, &["check", "-q"], &[]);
            // Very wide trees: rustc's phases of a check, no release build.
            let (release, text) = if very_wide {
                std::fs::write(&lib, format!("{source}\n")).unwrap();
                let (_, text) = run(
                    &dir,
                    &target,
                    &["rustc", "-q", "--profile=check", "--", "-Z", "time-passes"],
                    &[("RUSTC_BOOTSTRAP", "1")],
                );
                (f64::NAN, text)
            } else {
                run(
                    &dir,
                    &target,
                    &["rustc", "-q", "--release", "--", "-Z", "time-passes"],
                    &[("RUSTC_BOOTSTRAP", "1")],
                )
            };
            let front = [
                pass_secs(&text, &["expand_crate"]),
                pass_secs(&text, &["type_check_crate"]),
                pass_secs(&text, &["MIR_borrow_checking"]),
            ];
            // The rest of rustc's time: MIR, codegen, LLVM and linking.
            let rest = pass_secs(&text, &["total"]) - front.iter().sum::<f64>();
            let phases = [front[0], front[1], front[2], rest.max(0.0)];
            let row = Row {
                very_wide,
                shape,
                nodes: n,
                expand,
                check,
                release,
                peak: peak_mb(&text),
                phases,
            };
            eprintln!(
                "{shape} {n}: expand {:.2}s check {:.1}s release {:.1}s peak {:.0} MB phases {:?}",
                row.expand, row.check, row.release, row.peak, row.phases
            );
            rows.push(row);
        }
    }
    let mut md = String::from(
        "# Compile cost\n\nGenerated by `cargo run -p bt-bench --bin compile_cost`; do not edit by hand.\n\
         One tree per scratch crate, its dependencies built beforehand. *expand*: the macro alone, \
         unoptimized (as rustc runs a proc macro by default); *check*: `cargo check` after touching \
         the file; *release*: a release rebuild after touching it, with rustc's peak memory and its \
         phases from `-Z time-passes` (expansion includes the macro; *rest* is everything after \
         borrow checking: MIR passes, codegen, LLVM, linking). *x 1k*: the 5,000-node time over the \
         1,000-node time of the same shape (5 is linear). Trees are written one node per line. Written \
         on a single line instead, a tree costs rustc more than linear time in expansion: the macro \
         asks where each token starts, and rustc finds a column by scanning its line (a 5,000-node \
         balanced tree on one line spent about 27 s more there).\n\n\
         | shape | nodes | expand (s) | check (s) | release (s) | peak (MB) | expansion | type check | borrow check | rest |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows.iter().filter(|r| !r.very_wide) {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {:.1} | {:.1} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.shape,
            r.nodes,
            r.expand,
            r.check,
            r.release,
            r.peak,
            r.phases[0],
            r.phases[1],
            r.phases[2],
            r.phases[3]
        );
    }
    md.push_str("\n| shape | expand x 1k | check x 1k | release x 1k | expansion x 1k | type check x 1k | borrow check x 1k | rest x 1k |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for shape in SHAPES {
        let of = |n| {
            rows.iter()
                .find(|r| !r.very_wide && r.shape == shape && r.nodes == n)
                .unwrap()
        };
        let (a, b) = (of(1_000), of(5_000));
        let x = |p: f64, q: f64| if p > 0.0 { q / p } else { 0.0 };
        let _ = writeln!(
            md,
            "| {shape} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            x(a.expand, b.expand),
            x(a.check, b.check),
            x(a.release, b.release),
            x(a.phases[0], b.phases[0]),
            x(a.phases[1], b.phases[1]),
            x(a.phases[2], b.phases[2]),
            x(a.phases[3], b.phases[3]),
        );
    }
    md.push_str(
        "\n## Very wide nodes\n\nOne `select` over 5,000 to 40,000 leaves: the macro, `cargo check`, and \
         the phases of that check (*rest*: what follows borrow checking in a check: linting and \
         metadata). *per 5k*: each time over the 5,000-child time, divided by its size in 5,000s \
         (1.0 is linear).\n\n\
         | children | expand (s) | check (s) | peak (MB) | expansion | type check | borrow check | rest | expand per 5k | check per 5k | expansion per 5k |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let base = rows
        .iter()
        .find(|r| r.very_wide && r.nodes == 5_000)
        .unwrap();
    for r in rows.iter().filter(|r| r.very_wide) {
        let k = r.nodes as f64 / 5_000.0;
        let per = |p: f64, q: f64| if p > 0.0 { q / p / k } else { 0.0 };
        let _ = writeln!(
            md,
            "| {} | {:.2} | {:.1} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.nodes,
            r.expand,
            r.check,
            r.peak,
            r.phases[0],
            r.phases[1],
            r.phases[2],
            r.phases[3],
            per(base.expand, r.expand),
            per(base.check, r.check),
            per(base.phases[0], r.phases[0]),
        );
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-compile.md");
    std::fs::write(&path, md).unwrap();
    println!("wrote {}", path.display());
}
