//! Bytes of one agent's saved tree state, in JSON and in postcard, for the
//! reference trees (`#[bt(serde)]`): 1,000 agents ticked 100 times per
//! scenario, then every state saved.

use crate::harness::TreeId;
use crate::ours;
use crate::world::Agent;
use bt::BehaviorTree;
use bt::serde::Serialize;
use std::fmt::Write;

const AGENTS: usize = 1000;
const TICKS: usize = 100;

/// (mean, max) bytes of each agent's saved state in JSON, then in postcard.
fn sizes<T: BehaviorTree + Serialize>(
    mut agents: Vec<Agent>,
    tick: impl Fn(&mut T, &mut Agent) -> bt::Status,
) -> [(f64, usize); 2] {
    let mut states: Vec<T> = (0..agents.len()).map(|_| T::default()).collect();
    for _ in 0..TICKS {
        for (s, a) in states.iter_mut().zip(&mut agents) {
            tick(s, a);
            a.advance();
        }
    }
    let json: Vec<usize> = states
        .iter()
        .map(|s| serde_json::to_vec(s).unwrap().len())
        .collect();
    let postcard: Vec<usize> = states
        .iter()
        .map(|s| postcard::to_allocvec(s).unwrap().len())
        .collect();
    [json, postcard].map(|sizes| {
        let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
        (mean, sizes.into_iter().max().unwrap_or(0))
    })
}

/// The `## Saved state` section of `BENCHMARKS.md`.
pub fn section() -> String {
    let mut o = String::new();
    writeln!(o, "## Saved state\n").unwrap();
    writeln!(o, "Bytes of one agent's tree state saved with serde (`#[bt(serde)]`), after 100 ticks of 1,000 agents per").unwrap();
    writeln!(o, "scenario: mean over the agents (largest in parentheses). Each saved state carries the tree's 8-byte").unwrap();
    writeln!(o, "layout hash (10 bytes as postcard's variable-length integer, up to 20 digits in JSON). Reproduce with").unwrap();
    writeln!(o, "`cargo run --release -p bt-bench --bin saved_size`.\n").unwrap();
    writeln!(o, "| tree | scenario | in memory | JSON | postcard |").unwrap();
    writeln!(o, "|---|---|---:|---:|---:|").unwrap();
    for tree in TreeId::ALL {
        for &scenario in tree.scenarios() {
            let agents = tree.agents(scenario, AGENTS);
            let (size, [json, compact]) = match tree {
                TreeId::Small => (ours::Small::STATE_SIZE, sizes(agents, ours::Small::tick)),
                TreeId::Guard => (ours::Guard::STATE_SIZE, sizes(agents, ours::Guard::tick)),
                TreeId::Large => (ours::Large::STATE_SIZE, sizes(agents, ours::Large::tick)),
            };
            writeln!(
                o,
                "| {} | {} | {size} | {:.1} ({}) | {:.1} ({}) |",
                tree.name(),
                scenario.name(),
                json.0,
                json.1,
                compact.0,
                compact.1
            )
            .unwrap();
        }
    }
    o
}
