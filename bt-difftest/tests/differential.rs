//! Every generated tree, compiled and interpreted, through the same
//! episodes: the logs of calls must be equal, line for line.

use bt_compiler::interpret::Program;
use bt_compiler::kinds::KINDS;
use bt_difftest::{Driven, Episode, Order, interpret};
use trees::{CASES, SEED, SOURCE};

/// The generated trees; a tree that ignores its world is legal.
#[allow(unused_variables)]
mod trees {
    use bt::Trace;
    use bt_difftest::{
        Ctx, Driven, Episode, F, L, Order, OrderedRunner, Runner, W, drive, drive_in, outcome,
    };
    include!(concat!(env!("OUT_DIR"), "/trees.rs"));
}

#[test]
fn the_generated_trees_use_every_node_kind() {
    let program = Program::parse(SOURCE).expect("the generated trees are valid");
    let used: std::collections::HashSet<_> =
        program.trees().iter().flat_map(|t| t.kinds()).collect();
    // `request` waits for answers from systems outside the tree, which the
    // interpreter does not model; tests/requests.rs checks it (exact
    // message streams, and the exactly-once rule under random preemption).
    for row in KINDS.iter().filter(|row| row.keyword != "request") {
        assert!(
            used.contains(&row.kind),
            "no generated tree uses `{}`",
            row.keyword
        );
    }
}

#[test]
fn the_generated_trees_include_ticks_split_into_functions() {
    // Large nodes get functions of their own, wide composites run their
    // children in chunks: the comparison covers that code too.
    let expansion = bt_compiler::expand(SOURCE.parse().expect("tokens")).to_string();
    let chunks = expansion.matches("_from_").count();
    let outlined = expansion.matches("fn __tick_n").count() - chunks / 2;
    println!("{outlined} outlined nodes, {} chunks", chunks / 2);
    assert!(
        outlined >= 10 && chunks >= 20,
        "seed {SEED} makes too few large trees: {outlined} outlined nodes, {} chunk functions",
        chunks / 2
    );
}

#[test]
fn the_generated_trees_include_nodes_held_as_their_leafs_memory() {
    // A node that runs exactly when a stateful leaf below it runs (a small
    // sequence or select whose only child that can run leads to it, or a
    // status-mapping decorator over it) keeps just the leaf's memory in
    // its parent's variant: the comparison covers each pairing of such a
    // node with the sequence or select holding it.
    let expansion = bt_compiler::expand(SOURCE.parse().expect("tokens")).to_string();
    let held = "which runs exactly when it does: this is its memory.";
    let held_by = |holder: &str, node: &str| {
        expansion
            .split("# [doc = \" State of n")
            .filter(|state| {
                state
                    .split_once(' ')
                    .is_some_and(|(_, rest)| rest.starts_with(&format!("{holder} ")))
            })
            .flat_map(|state| state.split("# [doc = \"").skip(1))
            .filter(|variant| variant.contains(held))
            .filter(|variant| {
                variant
                    .trim_start()
                    .split_once(' ')
                    .is_some_and(|(_, rest)| rest.starts_with(&format!("{node} ")))
            })
            .count()
    };
    let plain = ["sequence", "select", "sequence_with_memory"];
    let reactive = ["reactive_sequence", "reactive_select"];
    // Every composite under every holder.
    for holder in plain.iter().chain(&reactive) {
        for node in ["sequence", "select", "reactive_sequence", "reactive_select"] {
            assert!(
                held_by(holder, node) > 0,
                "seed {SEED}: no {node} held as its leaf's memory by a {holder}"
            );
        }
    }
    // Every decorator under a plain and under a reactive holder.
    for node in ["invert", "force_success", "force_failure"] {
        for holders in [&plain[..], &reactive[..]] {
            let found: usize = holders.iter().map(|h| held_by(h, node)).sum();
            assert!(
                found > 0,
                "seed {SEED}: no {node} held as its leaf's memory by any of {holders:?}"
            );
        }
    }
    // A parallel holds such nodes, and leaves, in fields with a running bit.
    let in_parallel =
        |node: &str| states_documented(&expansion, node, "while its bit in `running` is set");
    for node in [
        "L",
        "invert",
        "force_success",
        "force_failure",
        "sequence",
        "select",
        "reactive_sequence",
        "reactive_select",
    ] {
        assert!(
            in_parallel(node) > 0,
            "seed {SEED}: no {node} held by a parallel with a running bit"
        );
    }
}

/// How many states in `expansion` belong to a `node` (a keyword) and say
/// `text` in their first doc line.
fn states_documented(expansion: &str, node: &str, text: &str) -> usize {
    expansion
        .split("# [doc = \" State of n")
        .filter_map(|state| state.split_once(' '))
        .filter(|(_, rest)| rest.starts_with(&format!("{node} ")))
        .filter(|(_, rest)| {
            rest.split_once('"')
                .is_some_and(|(doc, _)| doc.contains(text))
        })
        .count()
}

#[test]
fn the_generated_trees_include_tags_beside_one_memory() {
    // A sequence or select in a parallel whose branches with state all run
    // one leaf type keeps which branch runs in a tag, with one memory beside
    // it in the parallel's record: the comparison covers each kind so laid.
    let expansion = bt_compiler::expand(SOURCE.parse().expect("tokens")).to_string();
    let tagged = |node: &str| states_documented(&expansion, node, "The memory beside it");
    for node in ["sequence", "select", "reactive_sequence", "reactive_select"] {
        assert!(
            tagged(node) > 0,
            "seed {SEED}: no {node} keeps a tag beside one memory"
        );
    }
}

#[test]
fn compiled_trees_match_the_interpreter() {
    let program = Program::parse(SOURCE)
        .unwrap_or_else(|e| panic!("the interpreter rejects the generated trees: {e:?}"));
    let episodes: u64 = std::env::var("BT_DIFF_EPISODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut checked = 0;
    // What the compared logs contain, to show the comparison is not vacuous.
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    let marks = [
        ("leaf start", " +L"),
        ("leaf halt", " !L"),
        ("hook", " h"),
        ("rendezvous role", "@"),
        ("monitor fired", "fired"),
        ("interrupt", "interrupt"),
        ("redecide limit", "Err("),
        ("trace level 1", " T1 "),
        ("trace level 2", " T2 "),
        ("trace level 3", " T3 "),
        ("trace level 4", " T4 "),
        ("trace level 5", " T5 "),
        ("trace level 6", " T6 "),
        ("reset", " reset:"),
        ("child passed over for a full gate", "is full"),
        ("halted leaf traced", " halted"),
        ("node replaced by a hook", "replaced by"),
        ("status changed by a hook", " made "),
        ("leaf held running by a hook, then ticked", "#0="),
    ];
    for (index, (name, run)) in CASES.iter().enumerate() {
        // Each episode runs twice: as it is, and with random node hooks.
        for e in 0..episodes * 2 {
            let episode = Episode::new(SEED ^ ((index as u64) << 20) ^ (e / 2), 3, 30);
            let episode = if e % 2 == 1 {
                episode.hooked()
            } else {
                episode
            };
            let compiled = run(&episode);
            let interpreted = interpret(&program, name, &episode);
            if let Some(at) = (0..compiled.len().max(interpreted.len()))
                .find(|&i| compiled.get(i) != interpreted.get(i))
            {
                let tree = SOURCE
                    .split("tree ")
                    .find(|t| t.starts_with(&format!("{name}(")))
                    .unwrap_or("");
                // The same agent's earlier lines (equal on both sides).
                let agent = compiled
                    .get(at)
                    .or(interpreted.get(at))
                    .and_then(|l| l.split(' ').nth(1))
                    .unwrap_or("");
                let before: Vec<&String> = compiled[..at]
                    .iter()
                    .filter(|l| l.split(' ').nth(1) == Some(agent))
                    .collect();
                panic!(
                    "tree {name} (seed {SEED}, episode {e}) differs at line {at}:\n\
                     compiled:    {:?}\ninterpreted: {:?}\nbefore, {agent}: {before:#?}\ntree {tree}",
                    compiled.get(at),
                    interpreted.get(at),
                );
            }
            for (what, mark) in marks {
                *seen.entry(what).or_default() +=
                    compiled.iter().filter(|l| l.contains(mark)).count();
            }
            checked += 1;
        }
    }
    assert!(checked >= 300, "only {checked} runs");
    for (what, _) in marks {
        assert!(
            seen[what] >= 10,
            "only {} lines with a {what}: {seen:?}",
            seen[what]
        );
    }
    println!("{checked} runs compared; lines with: {seen:?}");
}

/// The first line where two runs differ, with the tree, for a failure.
fn first_difference(name: &str, what: &str, expected: &[String], got: &[String]) {
    if let Some(at) = (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i)) {
        let tree = SOURCE
            .split("tree ")
            .find(|t| t.starts_with(&format!("{name}(")))
            .unwrap_or("");
        panic!(
            "tree {name} (seed {SEED}), {what}, differs at line {at}:\n\
             expected: {:?}\ngot:      {:?}\ntree {tree}",
            expected.get(at),
            got.get(at)
        );
    }
}

/// The order a batch of `agents` agents in blocks of `block` takes when
/// it groups: per block, by resume node (idle last), index order among
/// equals; index order for a block whose agents resume in fewer than
/// `min_groups` nodes.
fn grouped_order(resumed: &[Option<usize>], block: usize, min_groups: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..resumed.len()).collect();
    for chunk in order.chunks_mut(block) {
        let nodes: std::collections::HashSet<_> = chunk.iter().map(|&i| resumed[i]).collect();
        if nodes.len() >= min_groups {
            chunk.sort_by_key(|&i| resumed[i].unwrap_or(usize::MAX));
        }
    }
    order
}

/// Ticking agents in batches grouped by where their trees resume
/// (`bt::batch::Batch`): each tick's order is the documented one (grouped
/// when a grouping is due, the last order otherwise), and every call, trace
/// event and status is what ticking the agents one at a time in that order
/// gives; for trees whose agents share nothing, what index order gives.
#[test]
fn batched_ticking_matches_ticking_agents_one_at_a_time() {
    let (agents, ticks, block) = (23, 24, 5);
    let mut checked = 0;
    let (mut reordered, mut kept) = (0, 0);
    for (index, &(name, shared, run)) in trees::ORDERED.iter().enumerate() {
        for e in 0..2u64 {
            let episode = Episode::new(SEED ^ ((index as u64) << 20) ^ (e << 8), agents, ticks);
            let episode = if e == 1 { episode.hooked() } else { episode };
            // Every block grouped, or only those over 3 resume nodes.
            let (regroup_every, min_groups) = [(1, 1), (3, 3)][e as usize];
            let batched = run(
                &episode,
                &Order::Batch {
                    block,
                    regroup_every,
                    min_groups,
                },
            );
            let Driven {
                orders, resumed, ..
            } = &batched;
            for (t, order) in orders.iter().enumerate() {
                let expected = if t % regroup_every as usize == 0 {
                    grouped_order(&resumed[t], block, min_groups)
                } else {
                    orders[t - 1].clone()
                };
                assert_eq!(order, &expected, "tree {name}, tick {t}: the batch's order");
                reordered += usize::from(order.windows(2).any(|w| w[0] > w[1]));
                // Blocks left in index order for spreading over too few
                // resume nodes, though not sorted by them.
                if t % regroup_every as usize == 0 && min_groups > 1 {
                    kept += resumed[t]
                        .chunks(block)
                        .filter(|nodes| {
                            let key = |n: &Option<usize>| n.unwrap_or(usize::MAX);
                            nodes.windows(2).any(|w| key(&w[0]) > key(&w[1]))
                                && nodes.iter().collect::<std::collections::HashSet<_>>().len()
                                    < min_groups
                        })
                        .count();
                }
            }
            let one_at_a_time = run(&episode, &Order::Given(orders.clone()));
            first_difference(
                name,
                "one at a time in the batch's order",
                &one_at_a_time.lines,
                &batched.lines,
            );
            if !shared {
                let in_index_order = run(&episode, &Order::Index);
                first_difference(
                    name,
                    "in index order",
                    &in_index_order.lines,
                    &batched.lines,
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 600, "only {checked} runs");
    // Many ticks put some agent before one of lower index, and many blocks
    // kept index order for their few resume nodes.
    assert!(
        reordered >= checked * ticks / 3,
        "only {reordered} ticks reordered"
    );
    assert!(kept >= 200, "only {kept} blocks kept in index order");
    println!(
        "{checked} batched runs compared, {reordered} ticks reordered, \
         {kept} blocks kept in index order"
    );
}

/// `Batch::par_tick`, blocks at once on rayon's pool: every agent ticks
/// once per tick, and for trees whose agents share nothing, every call,
/// trace event and status is what index order gives. (Agents that share
/// gates meet in an order that depends on the threads; they still end
/// every leaf run they start, which the driver checks.)
#[test]
fn batched_ticking_on_threads_matches_ticking_agents_one_at_a_time() {
    let (agents, ticks, block) = (40, 20, 3);
    let mut checked = 0;
    for (index, &(name, shared, run)) in trees::ORDERED.iter().enumerate() {
        let episode = Episode::new(SEED ^ ((index as u64) << 20) ^ 0xba7c, agents, ticks);
        let batched = run(&episode, &Order::ParBatch { block });
        for (t, order) in batched.orders.iter().enumerate() {
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(
                sorted,
                (0..agents).collect::<Vec<_>>(),
                "tree {name}, tick {t}"
            );
        }
        if !shared {
            let in_index_order = run(&episode, &Order::Index);
            first_difference(name, "on threads", &in_index_order.lines, &batched.lines);
            checked += 1;
        }
    }
    assert!(checked >= 200, "only {checked} runs");
}

#[test]
fn every_generated_tree_exports_valid_behaviortree_cpp_xml() {
    // Every node kind, nested in every other, with embedded library trees.
    for (view, definition, instance) in trees::VIEWS {
        if let Err(e) = bt_difftest::xml_check::check(view, definition, instance) {
            panic!("tree {}: {e}\n{definition}\n{instance}", view.name);
        }
    }
    // The tested trees and the 12 library trees they embed.
    assert_eq!(trees::VIEWS.len(), trees::CASES.len() + 12);
}

/// With hot reload started (feature `hot-reload`), a tree's agents run on
/// the interpreter calling the build's compiled expressions by index: call
/// for call, trace event for trace event, and under the same node hooks,
/// what the compiled tree does.
#[test]
#[cfg(feature = "hot-reload")]
fn live_trees_match_compiled_ones() {
    use std::sync::{Arc, Mutex};
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&lines);
    bt::hot::start_with(move |line| seen.lock().unwrap().push(line));
    let mut checked = 0;
    for (index, ((name, compiled), (live_name, live))) in CASES.iter().zip(trees::LIVE).enumerate()
    {
        assert_eq!(name, live_name);
        // A live tree's shared state is one per process, where compiled
        // agents share their `Shared` value: only the first episode starts
        // both fresh.
        let shared = SOURCE.contains(&format!("sh: &{name}Shared"));
        for e in 0..if shared { 1 } else { 4 } {
            // As above: as it is, and with random node hooks.
            let episode = Episode::new(SEED ^ ((index as u64) << 20) ^ (e / 2), 3, 30);
            let episode = if e % 2 == 1 {
                episode.hooked()
            } else {
                episode
            };
            let (expected, got) = (compiled(&episode), live(&episode));
            if let Some(at) =
                (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i))
            {
                let tree = SOURCE
                    .split("tree ")
                    .find(|t| t.starts_with(&format!("{name}(")))
                    .unwrap_or("");
                panic!(
                    "tree {name} (seed {SEED}, episode {e}) differs at line {at}:\n\
                     compiled: {:?}\nlive:     {:?}\ntree {tree}",
                    expected.get(at),
                    got.get(at)
                );
            }
            checked += 1;
        }
    }
    let lines = lines.lock().unwrap();
    let live = lines
        .iter()
        .filter(|l| l.contains("runs on the interpreter"))
        .count();
    let compiled: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("stays compiled"))
        .collect();
    println!(
        "{checked} runs compared; {live} trees live, {} compiled: {compiled:#?}",
        compiled.len()
    );
    assert!(
        live * 4 >= CASES.len() * 3,
        "only {live} of {} trees ran live: {compiled:#?}",
        CASES.len()
    );
}
