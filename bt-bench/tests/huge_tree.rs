//! A generated 1,000-node tree compiles as part of the test suite, and
//! ticks exactly like the boxed reference interpreter built from the same
//! spec, under every load.

use bt_bench::dyn_tree;
use bt_bench::ours::Act;
use bt_bench::spec;
use bt_bench::world::{Agent, Checksum, Scenario};

include!("generated/huge_ours.rs");

#[test]
fn the_huge_tree_has_a_thousand_nodes() {
    let nodes = <Huge as bt::BehaviorTree>::NODES.len();
    assert_eq!(nodes, spec::large(1000).nodes());
    assert!((950..=1050).contains(&nodes), "{nodes}");
}

#[test]
fn the_huge_tree_ticks_like_the_reference_interpreter() {
    let spec = spec::large(1000);
    for scenario in Scenario::ALL {
        let (mut ours, mut reference) = (Checksum::default(), Checksum::default());
        let mut agents = Agent::many(16, scenario);
        let mut ref_agents = agents.clone();
        let mut states = vec![Huge::default(); agents.len()];
        let mut trees: Vec<_> = agents.iter().map(|_| dyn_tree::build(&spec)).collect();
        for _ in 0..400 {
            for (s, a) in states.iter_mut().zip(&mut agents) {
                ours.root(s.tick(a));
                a.advance();
            }
            for (t, a) in trees.iter_mut().zip(&mut ref_agents) {
                reference.root(t.tick(a));
                a.advance();
            }
        }
        ours.agents(&agents, true);
        reference.agents(&ref_agents, true);
        assert_eq!(ours, reference, "{scenario:?}");
        assert!(ours.calls > 16 * 400, "{scenario:?}: {ours:?}");
    }
}
