//! Fuzzing the whole macro, [`bt_compiler::expand`]: random trees built
//! from the DSL's vocabulary, and mutations of every tree written in the
//! project's tests and examples. For every input: no panic, no hang (an
//! input the macro does not answer within [`HANG`] ends the run, naming
//! it), and either the output holds `compile_error!` (rejected) or it
//! parses as Rust items (accepted).
//!
//! The test suite runs a bounded, seeded batch (2,500 inputs). A long run
//! (200,000 inputs take about 90 s optimized):
//!
//! ```text
//! BT_FUZZ_CASES=200000 BT_FUZZ_SEED=7 cargo test --release -p arbortick-compiler --test fuzz
//! ```

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::io::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

mod common;

use common::Rng;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Words and punctuation a tree is made of, with some that are wrong.
const WORDS: &[&str] = &[
    "sequence",
    "select",
    "reactive_sequence",
    "reactive_select",
    "sequence_with_memory",
    "if_then_else",
    "while_do_else",
    "parallel",
    "parallel_all",
    "invert",
    "force_success",
    "force_failure",
    "keep_running_until_failure",
    "repeat",
    "retry",
    "prioritized",
    "sequential",
    "random",
    "shuffle",
    "scored",
    "scope",
    "after",
    "skip_if",
    "success_if",
    "failure_if",
    "run_while",
    "wait",
    "timeout",
    "delay",
    "cooldown",
    "every",
    "run_once",
    "gate",
    "global_cooldown",
    "rendezvous",
    "sync",
    "monitor",
    "switch",
    "cond",
    "action",
    "instant",
    "success",
    "failure",
    "running",
    "when",
    "let",
    "else",
    "score",
    "flags",
    "stimuli",
    "as",
    "forever",
    "true",
    "false",
    "me",
    "cx",
    "shared",
    "rng",
    "role",
    "Walk",
    "Patrol",
    "fallback",
    "tree",
    "T",
    "U",
];
const PUNCT: &[&str] = &[",", "=>", "=", ":", ";", "'a", "-", "!", ".", "&", "|", "*"];
const LITERALS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "128",
    "129",
    "4294967296",
    "0.5",
    "\"s\"",
];
/// Keywords that take children, and how many.
const COMPOSITES: &[&str] = &[
    "sequence",
    "select",
    "reactive_sequence",
    "reactive_select",
    "sequence_with_memory",
    "parallel",
    "parallel_all",
    "if_then_else",
    "while_do_else",
];
const DECORATORS: &[&str] = &[
    "invert",
    "force_success",
    "force_failure",
    "keep_running_until_failure",
    "repeat(2)",
    "retry(forever)",
    "repeat(forever)",
    "run_once",
    "timeout(1)",
    "timeout(0)",
    "delay(0.5)",
    "cooldown(2)",
    "every(1)",
    "success_if(me.ok())",
    "failure_if(me.ok())",
    "after(success = me.act(), halted = ())",
    "scope(enter = me.ok(), exit = ())",
    "gate(2)",
    "global_cooldown(3)",
];
const DECIDERS: &[&str] = &[
    "prioritized",
    "sequential",
    "random(rng)",
    "shuffle(rng)",
    "scored",
];
const LEAVES: &[&str] = &[
    "success",
    "failure",
    "running",
    "cond me.ok()",
    "action me.act()",
    "Walk",
    "wait(1)",
    "monitor(me.ok())",
    "Walk { speed: 2 }",
    "U(me, cx, rng, shared)",
];
const GUARDS: &[&str] = &[
    "when me.ok() =>",
    "else =>",
    "every(1) =>",
    "score 1.0 =>",
    "when let Some(x): Option<u8> = me.get() =>",
    "flags(any = F::A) =>",
];

/// Decorators that skip their node: only a sequence or select child.
const SKIPPING: &[&str] = &[
    "skip_if(me.ok())",
    "run_while(me.ok())",
    "run_once(then_skip = true)",
];

/// A random tree, mostly well formed. `skippable`: the parent is a
/// sequence or a select.
fn random_node(rng: &mut Rng, depth: usize, skippable: bool, out: &mut String) {
    if rng.chance(3) {
        // Mostly plain labels, some raw keywords (`'r#loop` is the label
        // `loop`).
        let label = match rng.below(10) {
            0 => rng.pick(&["'r#loop", "'r#type", "'r#match"]).to_string(),
            _ => format!("'l{}", rng.below(1000)),
        };
        out.push_str(&format!("{label}: "));
    }
    if skippable && rng.chance(10) {
        out.push_str(rng.pick(SKIPPING));
        out.push_str(" { ");
        random_node(rng, depth + 1, false, out);
        out.push_str(" }");
        return;
    }
    let roll = if depth > 3 { 9 } else { rng.below(10) };
    match roll {
        0..=2 => {
            let kind = rng.pick(COMPOSITES);
            out.push_str(kind);
            if kind == "parallel" && rng.chance(50) {
                out.push_str(rng.pick(&["(success = 1)", "(failure = -1)"]));
            } else if kind == "parallel_all" && rng.chance(50) {
                out.push_str("(max_failures = 1)");
            }
            let children = if kind.contains("_else") {
                2 + rng.below(2)
            } else {
                1 + rng.below(4)
            };
            let skippable = kind.contains("sequence") || kind.contains("select");
            out.push_str(" { ");
            for i in 0..children {
                if i > 0 {
                    out.push_str(", ");
                }
                random_node(rng, depth + 1, skippable, out);
            }
            out.push_str(" }");
        }
        3..=4 => {
            out.push_str(rng.pick(DECORATORS));
            out.push_str(" { ");
            random_node(rng, depth + 1, false, out);
            out.push_str(" }");
        }
        5 => {
            out.push_str(rng.pick(DECIDERS));
            out.push_str(" { ");
            for i in 0..rng.below(4) + 1 {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(rng.pick(GUARDS));
                out.push(' ');
                random_node(rng, depth + 1, false, out);
            }
            out.push_str(" }");
        }
        6 => {
            out.push_str("rendezvous(2) as role { sequence { ");
            random_node(rng, depth + 1, true, out);
            out.push_str(", sync } }");
        }
        7 => {
            out.push_str("switch(me.k()) { 0 => ");
            random_node(rng, depth + 1, false, out);
            out.push_str(", _ => success }");
        }
        _ => out.push_str(rng.pick(LEAVES)),
    }
}

fn random_invocation(rng: &mut Rng) -> String {
    let mut out = String::new();
    for t in 0..rng.below(2) + 1 {
        let full = "(me: &mut A, cx: &Ctx, rng: &mut R, shared: &TShared)";
        let header = if rng.chance(70) {
            full
        } else {
            rng.pick(&["(me: &mut A)", "(me: &mut A, cx: &Ctx)", "(me: &A)", "()"])
        };
        let name = if t == 0 {
            "T"
        } else {
            rng.pick(&["U", "T", "V"])
        };
        let header = header.replace("TShared", &format!("{name}Shared"));
        out.push_str(&format!("tree {name}{header} {{ "));
        random_node(rng, 0, false, &mut out);
        out.push_str(" } ");
    }
    out
}

/// The bodies of every `behavior_tree! { .. }` in the project's tests and
/// examples.
fn corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "tests",
        "tests/ui/pass",
        "tests/ui/fail",
        "examples",
        "src",
        "bt-bench/src",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(std::fs::read_to_string(path).unwrap_or_default());
            }
        }
    }
    let mut bodies = Vec::new();
    for text in files {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("behavior_tree! {") {
            rest = &rest[at + "behavior_tree! ".len()..];
            let mut depth = 0usize;
            let end = rest.char_indices().find_map(|(i, c)| {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                    _ => {}
                }
                None
            });
            if let Some(end) = end {
                // Doc-comment lines of the surrounding file (`//! `) are
                // taken as they are: they lex as comments.
                bodies.push(rest[1..end].to_string());
            }
        }
    }
    bodies
}

/// Token-level pieces of a stream: groups opened and closed explicitly, so
/// that mutations can unbalance them (the lexer then rejects the text).
fn atoms(stream: TokenStream, out: &mut Vec<String>) {
    for tree in stream {
        match tree {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push(open.to_string());
                atoms(g.stream(), out);
                out.push(close.to_string());
            }
            other => out.push(other.to_string()),
        }
    }
}

fn mutate(rng: &mut Rng, body: &str) -> Option<String> {
    let stream: TokenStream = body.parse().ok()?;
    let mut list = Vec::new();
    atoms(stream, &mut list);
    if list.is_empty() {
        return None;
    }
    for _ in 0..rng.below(3) + 1 {
        let at = rng.below(list.len());
        match rng.below(7) {
            0 => {
                list.remove(at);
            }
            1 => {
                let copy = list[at].clone();
                list.insert(at, copy);
            }
            2 => list[at] = rng.pick(WORDS).to_string(),
            3 => list.insert(at, rng.pick(PUNCT).to_string()),
            4 => list[at] = rng.pick(LITERALS).to_string(),
            5 => list.truncate(at.max(1)),
            _ => {
                let other = rng.below(list.len());
                list.swap(at, other);
            }
        }
        if list.is_empty() {
            return None;
        }
    }
    Some(list.join(" "))
}

/// Expands `text`: `Ok(true)` if accepted, `Ok(false)` if rejected; a
/// panic or an output that is neither an error nor Rust items is returned
/// as a failure.
fn check(text: &str) -> Result<bool, String> {
    let Ok(tokens) = text.parse::<TokenStream>() else {
        return Ok(false); // not lexable: rustc would reject it before the macro
    };
    let output = catch_unwind(AssertUnwindSafe(|| bt_compiler::expand(tokens)))
        .map_err(|_| format!("panic on: {text}"))?;
    // Rejected: the expansion starts with `::core::compile_error!`.
    let rejected = output
        .clone()
        .into_iter()
        .any(|t| matches!(&t, TokenTree::Ident(i) if i == "compile_error"));
    if rejected {
        return Ok(false);
    }
    syn::parse2::<syn::File>(output)
        .map(|_| true)
        .map_err(|e| format!("accepted but not Rust ({e}) for: {text}"))
}

/// Longer than any input takes, by three orders of magnitude: past it, the
/// macro is taken to hang on the input.
const HANG: std::time::Duration = std::time::Duration::from_secs(20);

/// Watches the inputs sent to it: if the next one does not come within
/// [`HANG`], the last one hangs, and the process ends naming it (a hung
/// thread cannot be stopped, and a test that never ends reports nothing).
fn watchdog() -> std::sync::mpsc::Sender<String> {
    let (send, receive) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut last = String::new();
        loop {
            match receive.recv_timeout(HANG) {
                Ok(input) => last = input,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    // Past the test harness' capture, which dies with the process.
                    let _ = writeln!(
                        std::io::stderr(),
                        "the macro has not answered for {HANG:?} on: {last}"
                    );
                    std::process::exit(101);
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
    });
    send
}

/// Runs `f` on a thread with the stack rustc gives proc macros (8 MiB).
fn with_rustc_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn random_and_mutated_trees_never_panic_and_expand_to_errors_or_rust() {
    with_rustc_stack(fuzz);
}

fn fuzz() {
    // Unoptimized, as the test suite builds it, a case takes about 6 ms.
    let cases = env("BT_FUZZ_CASES", 2_500) as usize;
    let mut rng = Rng(env("BT_FUZZ_SEED", 0x5EED_0FB7).max(1));
    // Mutations of the large trees (a thousand nodes) cost a thousand small
    // ones; those are expanded whole by the other test.
    let corpus: Vec<String> = corpus().into_iter().filter(|b| b.len() < 8_000).collect();
    assert!(
        corpus.len() > 30,
        "the corpus has the project's trees: {}",
        corpus.len()
    );
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut outcomes = (0usize, 0usize);
    let watch = watchdog();
    for case in 0..cases {
        let text = if case % 2 == 0 {
            random_invocation(&mut rng)
        } else {
            let body = &corpus[rng.below(corpus.len())];
            match mutate(&mut rng, body) {
                Some(text) => text,
                None => continue,
            }
        };
        watch.send(text.clone()).expect("the watchdog runs");
        match check(&text) {
            Ok(true) => outcomes.0 += 1,
            Ok(false) => outcomes.1 += 1,
            Err(failure) => {
                failures.push(failure);
                if failures.len() >= 5 {
                    break;
                }
            }
        }
    }
    let _ = std::panic::take_hook();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Both outcomes are exercised, not only one.
    let (accepted, rejected) = outcomes;
    eprintln!("fuzz: {accepted} accepted, {rejected} rejected");
    assert!(
        accepted * 5 > cases && rejected * 5 > cases,
        "{accepted} / {rejected}"
    );
}

#[test]
fn the_project_trees_expand_to_errors_or_rust() {
    with_rustc_stack(|| {
        for body in corpus() {
            check(&body).unwrap();
        }
    });
}
