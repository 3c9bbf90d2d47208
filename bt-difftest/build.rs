//! Writes the random trees the differential tests compile: one
//! `behavior_tree!` invocation holding them all, its source text for the
//! interpreter, and a runner per tree.

#[path = "src/btcpp_gen.rs"]
#[allow(dead_code)]
mod btcpp_gen;
#[path = "src/generator.rs"]
#[allow(dead_code)]
mod generator;

use std::fmt::Write;

fn main() {
    println!("cargo::rerun-if-changed=src/generator.rs");
    println!("cargo::rerun-if-env-changed=BT_DIFF_SEED");
    println!("cargo::rerun-if-env-changed=BT_DIFF_TREES");
    let seed: u64 = env_or("BT_DIFF_SEED", 1);
    let trees: usize = env_or("BT_DIFF_TREES", 400);
    let program = generator::Generator::new(seed).program(12, trees);
    // Built for hot reload: each tree also gets a live runner.
    let hot = std::env::var_os("CARGO_FEATURE_HOT_RELOAD").is_some();
    let source: String = program.iter().map(|t| t.text.as_str()).collect();
    let mut out = String::new();
    writeln!(out, "/// Seed the trees were generated from.").unwrap();
    writeln!(out, "pub const SEED: u64 = {seed};").unwrap();
    writeln!(
        out,
        "/// Every tree, as the macro and the interpreter read it."
    )
    .unwrap();
    writeln!(out, "pub const SOURCE: &str = r####\"{source}\"####;").unwrap();
    writeln!(out, "bt::behavior_tree! {{\n{source}}}").unwrap();
    writeln!(out, "/// Each tested tree's name and compiled runner.").unwrap();
    writeln!(out, "pub const CASES: &[(&str, Runner)] = &[").unwrap();
    for tree in program.iter().filter(|t| !t.library) {
        writeln!(
            out,
            "    (\"{0}\", run_{1}),",
            tree.name,
            tree.name.to_lowercase()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "/// Each tested tree's name, whether its agents share state, and its\n\
         /// runner in a given order."
    )
    .unwrap();
    writeln!(
        out,
        "pub const ORDERED: &[(&str, bool, OrderedRunner)] = &["
    )
    .unwrap();
    for tree in program.iter().filter(|t| !t.library) {
        writeln!(
            out,
            "    (\"{0}\", {2}, ordered_{1}),",
            tree.name,
            tree.name.to_lowercase(),
            tree.shared
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "/// Each tested tree's name and live runner (after `bt::hot::start`)."
    )
    .unwrap();
    writeln!(
        out,
        "#[allow(dead_code)]\npub const LIVE: &[(&str, Runner)] = &["
    )
    .unwrap();
    for tree in program.iter().filter(|t| !t.library && hot) {
        writeln!(
            out,
            "    (\"{0}\", live_{1}),",
            tree.name,
            tree.name.to_lowercase()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    let compiled = bt_compiler::interpret::Program::parse(&source)
        .unwrap_or_else(|e| panic!("the generated trees are valid: {e:?}"));
    for tree in program.iter().filter(|t| !t.library) {
        let name = &tree.name;
        // `reset` takes the bindings halting uses.
        let reset_args = compiled
            .tree(name)
            .expect("every generated tree is in the program")
            .reset_bindings()
            .iter()
            .map(|b| match b.as_str() {
                "sh" => "&sh",
                b => b,
            })
            .collect::<Vec<_>>()
            .join(", ");
        let lower = name.to_lowercase();
        let (decl, arg) = if tree.shared {
            (format!("let sh = {name}Shared::new();"), ", &sh")
        } else {
            (String::new(), "")
        };
        // Compiled, and live (on the interpreter, once `bt::hot::start`
        // was called): the same tree and episode.
        let runners: &[(&str, &str)] = if hot {
            &[("run", "compiled"), ("live", "default")]
        } else {
            &[("run", "default")]
        };
        writeln!(
            out,
            "fn ordered_{lower}(episode: &Episode, order: &Order) -> Driven {{\n    {decl}\n    \
             drive_in::<{name}>(episode, order, {name}::default, |s, w, cx| outcome(s.try_tick(w, cx{arg})), \
             |s, w, cx| {{ let _ = (&w, &cx); s.reset({reset_args}) }})\n}}"
        )
        .unwrap();
        for (prefix, make) in runners {
            writeln!(
                out,
                "fn {prefix}_{lower}(episode: &Episode) -> Vec<String> {{\n    {decl}\n    \
                 drive::<{name}>(episode, {name}::{make}, |s, w, cx| outcome(s.try_tick(w, cx{arg})), \
                 |s, w, cx| {{ let _ = (&w, &cx); s.reset({reset_args}) }})\n}}"
            )
            .unwrap();
        }
    }
    views(&mut out, program.iter().map(|t| t.name.as_str()));
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("trees.rs");
    std::fs::write(path, out).unwrap();
    btcpp_trees();
}

/// `VIEWS`: each tree's view with its two XML forms.
fn views<'a>(out: &mut String, names: impl Iterator<Item = &'a str>) {
    writeln!(
        out,
        "/// Every tree's view, definition XML and instance XML."
    )
    .unwrap();
    writeln!(
        out,
        "pub const VIEWS: &[(&bt::view::TreeView<'static>, &str, &str)] = &["
    )
    .unwrap();
    for name in names {
        writeln!(
            out,
            "    (<{name} as bt::BehaviorTree>::VIEW, <{name} as bt::BehaviorTree>::BTCPP_XML, \
             <{name} as bt::BehaviorTree>::BTCPP_INSTANCE_XML),"
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
}

/// The trees compared with BehaviorTree.CPP: `btcpp_trees.rs`.
fn btcpp_trees() {
    println!("cargo::rerun-if-changed=src/btcpp_gen.rs");
    println!("cargo::rerun-if-env-changed=BT_BTCPP_SEED");
    println!("cargo::rerun-if-env-changed=BT_BTCPP_TREES");
    let seed: u64 = env_or("BT_BTCPP_SEED", 1);
    let trees: usize = env_or("BT_BTCPP_TREES", 100);
    let (program, leaves) = btcpp_gen::program(seed, trees);
    let source: String = program.iter().map(|t| t.text.as_str()).collect();
    let mut out = String::new();
    writeln!(out, "/// Seed the trees were generated from.").unwrap();
    writeln!(out, "pub const SEED: u64 = {seed};").unwrap();
    writeln!(out, "/// Leaves of all trees, numbered from 1.").unwrap();
    writeln!(out, "pub const LEAVES: usize = {leaves};").unwrap();
    writeln!(out, "bt::behavior_tree! {{\n{source}}}").unwrap();
    writeln!(
        out,
        "/// Each tested tree: name, source, XML and compiled runner."
    )
    .unwrap();
    writeln!(out, "pub const CASES: &[Case] = &[").unwrap();
    for tree in program.iter().filter(|t| !t.library) {
        let name = &tree.name;
        writeln!(
            out,
            "    Case {{ name: \"{name}\", source: r#\"{}\"#, xml: <{name} as bt::BehaviorTree>::BTCPP_XML, \
             run: |ticks| drive::<{name}>(ticks, SEED, LEAVES, |s, w, cx| s.tick(w, cx)) }},",
            tree.text.trim()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    views(&mut out, program.iter().map(|t| t.name.as_str()));
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("btcpp_trees.rs");
    std::fs::write(path, out).unwrap();
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
