//! `bt::batch`: the resume node of trees with subtrees and parallels, and
//! batches at their edges (no agents, one agent, blocks of one, a
//! population that grows and shrinks, thousands of agents on several
//! threads). The random trees of `bt-difftest` check the order of calls
//! against ticking agents one at a time.

use bt::batch::{Batch, resume_node};
use bt::prelude::*;

/// An agent whose action `k` runs for `left[k]` ticks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mover {
    id: u32,
    left: [u32; 5],
    /// Which actions ran, in order.
    log: Vec<u8>,
}

impl Mover {
    /// Runs for 2 to 4 ticks, depending on the agent and the action.
    fn act(&mut self, k: u8) -> Status {
        self.log.push(k);
        let left = &mut self.left[usize::from(k)];
        if *left == 0 {
            *left = 2 + (self.id + u32::from(k)) % 3;
        }
        *left -= 1;
        if *left == 0 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

/// Action `k` as a stateful leaf: its memory is the ticks left.
pub struct Act {
    k: u8,
}

impl Leaf<Mover> for Act {
    type Memory = u32;
    fn tick(&self, left: &mut u32, me: &mut Mover) -> Status {
        me.left[usize::from(self.k)] = *left;
        let status = me.act(self.k);
        *left = me.left[usize::from(self.k)];
        status
    }
}

behavior_tree! {
    pub tree Legs(me: &mut Mover) {
        sequence { 'step: action me.act(1), 'turn: action me.act(2) }
    }

    pub tree Body(me: &mut Mover) {
        select {
            sequence { cond me.id % 2 == 0, 'walk: Legs(me) },
            parallel(success = 2) { 'look: Act { k: 3 }, 'listen: Act { k: 4 } },
        }
    }
}

fn movers(n: u32) -> Vec<(Body, Mover)> {
    (0..n)
        .map(|id| {
            (
                Body::default(),
                Mover {
                    id,
                    ..Mover::default()
                },
            )
        })
        .collect()
}

fn node(label: &str) -> usize {
    Body::NODES
        .iter()
        .find(|n| n.label == Some(label))
        .unwrap_or_else(|| panic!("no node '{label}"))
        .id
}

#[test]
fn the_resume_node_is_the_deepest_running_node_of_the_tree_itself() {
    let (mut even, mut odd) = (movers(2).remove(0), movers(2).remove(1));
    assert_eq!(resume_node(&even.0), None, "an idle tree resumes nowhere");
    even.0.tick(&mut even.1);
    // Inside the embedded tree, at `'step`: the `subtree` node of `Body`,
    // not node ids of `Legs`.
    assert_eq!(
        even.0.active_path().last().map(|n| n.info.tree),
        Some("Legs")
    );
    assert_eq!(resume_node(&even.0), Some(node("walk")));
    // Both children of the parallel run: the last one reported.
    odd.0.tick(&mut odd.1);
    let running: Vec<_> = odd.0.active_path().iter().map(|n| n.info.id).collect();
    assert!(running.contains(&node("look")) && running.contains(&node("listen")));
    assert_eq!(resume_node(&odd.0), Some(node("listen")));
}

/// The agents and their trees' states, to compare.
fn same(agents: &[(Body, Mover)]) -> Vec<(String, &Mover)> {
    agents
        .iter()
        .map(|(body, me)| (format!("{body:?}"), me))
        .collect()
}

/// Ticks `agents` one at a time, in index order.
fn tick_each(agents: &mut [(Body, Mover)]) {
    for (body, me) in agents {
        body.tick(me);
    }
}

#[test]
fn a_batch_ticks_every_agent_once_at_any_size() {
    for n in [0, 1, 2, 7, 64, 1000] {
        for block in [1, 3, 64, 4096] {
            let (mut expected, mut got) = (movers(n), movers(n));
            let mut batch = Batch::new().block(block).regroup_every(2).min_groups(1);
            assert_eq!(batch.order().len(), 0, "no order before the first call");
            for _ in 0..12 {
                tick_each(&mut expected);
                let mut ticked = vec![0; n as usize];
                batch.tick(
                    &mut got,
                    |(body, _)| body,
                    |i, (body, me)| {
                        ticked[i] += 1;
                        body.tick(me);
                    },
                );
                assert!(
                    ticked.iter().all(|&t| t == 1),
                    "n {n}, block {block}: {ticked:?}"
                );
                assert_eq!(batch.order().len(), n as usize);
            }
            assert_eq!(same(&got), same(&expected), "n {n}, block {block}");
        }
    }
}

/// Ticks every agent once in `batch`; returns the indices in the order
/// they ticked.
fn step(batch: &mut Batch, agents: &mut [(Body, Mover)]) -> Vec<usize> {
    let mut ticked = Vec::new();
    batch.tick(
        agents,
        |(body, _)| body,
        |i, (body, me)| {
            ticked.push(i);
            body.tick(me);
        },
    );
    ticked
}

/// The documented order with `min_groups(1)`: per block, by resume node
/// (idle last), index order among equals.
fn grouped(agents: &[(Body, Mover)], block: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..agents.len()).collect();
    for chunk in order.chunks_mut(block) {
        chunk.sort_by_key(|&i| resume_node(&agents[i].0).unwrap_or(usize::MAX));
    }
    order
}

#[test]
fn a_batch_groups_again_when_asked_and_when_the_population_changes() {
    let mut agents = movers(10);
    let mut batch = Batch::new().block(4).regroup_every(1000).min_groups(1);
    let first = step(&mut batch, &mut agents);
    assert_eq!(first, (0..10).collect::<Vec<_>>(), "all idle: index order");
    // Not due: the same order.
    assert_eq!(step(&mut batch, &mut agents), first);
    // Asked: even agents walk (node 'walk), odd ones look and listen (node
    // 'listen, later in the tree): per block of 4, evens first.
    batch.regroup();
    assert_eq!(
        step(&mut batch, &mut agents),
        [0, 2, 1, 3, 4, 6, 5, 7, 8, 9]
    );
    // More agents: grouped again, the new ones idle, so last in their block.
    agents.extend(movers(13).into_iter().skip(10));
    let expected = grouped(&agents, 4);
    assert_eq!(&expected[8..], [8, 9, 10, 11, 12]);
    assert_eq!(step(&mut batch, &mut agents), expected);
    // Fewer agents: grouped again.
    agents.truncate(5);
    let expected = grouped(&agents, 4);
    assert_eq!(step(&mut batch, &mut agents), expected);
    assert_eq!(batch.order().collect::<Vec<_>>(), expected);
}

#[test]
fn a_batch_on_threads_ends_where_ticking_one_at_a_time_does() {
    // 20,000 agents in blocks of 500 on rayon's pool, grouped every third
    // tick, against index order.
    let (mut expected, mut got) = (movers(20_000), movers(20_000));
    let mut batch = Batch::with_capacity::<Body>(got.len())
        .block(500)
        .regroup_every(3)
        .min_groups(1);
    for _ in 0..30 {
        tick_each(&mut expected);
        batch.par_tick(
            &mut got,
            |(body, _)| body,
            |_, (body, me)| {
                body.tick(me);
            },
        );
    }
    assert_eq!(same(&got), same(&expected));
    // The agents did run every branch.
    let ran = |k| got.iter().filter(|(_, me)| me.log.contains(&k)).count();
    assert!(
        (1..=4).all(|k| ran(k) >= 5_000),
        "{:?}",
        (1..=4).map(ran).collect::<Vec<_>>()
    );
}

#[test]
fn one_batch_can_tick_populations_of_different_trees() {
    // The same number of agents, first of a 3-node tree, then of a larger
    // one: every agent of each ticks once per call.
    let mut legs: Vec<(Legs, Mover)> = (0..100)
        .map(|id| {
            (
                Legs::default(),
                Mover {
                    id,
                    ..Mover::default()
                },
            )
        })
        .collect();
    let mut bodies = movers(100);
    let mut batch = Batch::new().block(4).regroup_every(1000);
    for _ in 0..3 {
        for population in 0..2 {
            let mut ticked = vec![0; 100];
            if population == 0 {
                batch.tick(
                    &mut legs,
                    |(tree, _)| tree,
                    |i, (tree, me)| {
                        ticked[i] += 1;
                        tree.tick(me);
                    },
                );
            } else {
                batch.tick(
                    &mut bodies,
                    |(tree, _)| tree,
                    |i, (tree, me)| {
                        ticked[i] += 1;
                        tree.tick(me);
                    },
                );
            }
            assert_eq!(ticked, vec![1; 100], "population {population}");
        }
    }
    assert!(Body::NODES.len() > Legs::NODES.len());
}

#[test]
fn a_block_over_fewer_resume_nodes_than_min_groups_keeps_index_order() {
    // After one tick, even agents resume in 'walk and odd ones in 'listen:
    // two nodes per block.
    let mut agents = movers(12);
    for (body, me) in &mut agents {
        body.tick(me);
    }
    let nodes = |agents: &[(Body, Mover)]| {
        let mut nodes: Vec<_> = agents.iter().map(|(b, _)| resume_node(b)).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    };
    assert_eq!(nodes(&agents), [Some(node("walk")), Some(node("listen"))]);
    for (min_groups, grouped) in [(3, false), (2, true), (1, true)] {
        let mut batch = Batch::new().block(6).min_groups(min_groups);
        let expected = if grouped {
            vec![0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11]
        } else {
            (0..12).collect()
        };
        let mut copy: Vec<(Body, Mover)> = agents.clone();
        assert_eq!(
            step(&mut batch, &mut copy),
            expected,
            "min_groups {min_groups}"
        );
        assert_eq!(batch.order().collect::<Vec<_>>(), expected);
    }
    // The default is 16.
    let mut batch = Batch::new().block(6);
    assert_eq!(step(&mut batch, &mut agents), (0..12).collect::<Vec<_>>());
}
