//! # Ticking many agents
//!
//! A tree's state is one value per agent, and its tick a method on it, so
//! the plainest way to tick a population is a loop over `(state, agent)`
//! pairs. Three helpers tick a slice for you:
//!
//! - [`parallel::for_each_in_order`]:
//!   index order, on this thread;
//! - [`parallel::for_each_parallel`]
//!   (feature `rayon`): on rayon's thread pool;
//! - [`batch::Batch`]: in batches grouped by where
//!   each agent's tree resumes, on this thread or (feature `rayon`,
//!   [`par_tick`](crate::batch::Batch::par_tick)) on the pool.
//!
//! A batch ticks every agent once per call, with the same calls for each
//! agent as ticking it alone; only the order across agents differs. Within
//! each block of 4,096 consecutive agents, those whose trees resume in the
//! same node tick back to back: node ids ascending, idle trees last, index
//! order among equals (a block whose agents resume in fewer than 16 nodes
//! keeps index order, unless [`min_groups`](crate::batch::Batch::min_groups)
//! says otherwise). The grouping is redone every 8 calls (it stays
//! nearly right while a fraction of agents change branch), and
//! [`order`](crate::batch::Batch::order) says what it is. The rules are in
//! [`batch`].
//!
//! ```
//! use bt::{batch::Batch, prelude::*};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! pub struct Walker { steps: u32, rests: u32, tired: bool }
//!
//! behavior_tree! {
//!     tree Walk(me: &mut Walker) {
//!         select {
//!             'rest: sequence {
//!                 cond me.tired,
//!                 action { me.rests += 1; if me.rests % 3 == 0 { me.tired = false; Status::Success } else { Status::Running } },
//!             },
//!             'walk: action {
//!                 me.steps += 1;
//!                 if me.steps % 5 == 0 { me.tired = true; Status::Success } else { Status::Running }
//!             },
//!         }
//!     }
//! }
//!
//! let population = |n: u32| -> Vec<(Walk, Walker)> {
//!     (0..n).map(|i| (Walk::default(), Walker { steps: i % 5, rests: 0, tired: i % 7 == 0 })).collect()
//! };
//! let (mut one_by_one, mut batched) = (population(10_000), population(10_000));
//! // Scratch space for 10,000 agents: no call allocates after this.
//! // This tree has two places to resume: group them anyway (the default
//! // groups blocks whose agents spread over 16 nodes or more).
//! let mut batch = Batch::with_capacity::<Walk>(batched.len()).min_groups(1);
//! for _ in 0..50 {
//!     for (walk, me) in &mut one_by_one {
//!         walk.tick(me);
//!     }
//!     batch.tick(&mut batched, |(walk, _)| walk, |_index, (walk, me)| {
//!         walk.tick(me);
//!     });
//! }
//! // Agents do not depend on one another here, so the order across agents
//! // changes nothing: every agent ends as if ticked alone.
//! assert_eq!(
//!     batched.iter().map(|(_, me)| me).collect::<Vec<_>>(),
//!     one_by_one.iter().map(|(_, me)| me).collect::<Vec<_>>(),
//! );
//! // Each call ticks every agent once, in the order of the last grouping:
//! // per block, agents resting (the rest action, node 3) before agents
//! // walking (node 4), then idle agents (whose tree just finished), index
//! // order among equals.
//! let before: Vec<Option<usize>> = batched.iter().map(|(walk, _)| bt::batch::resume_node(walk)).collect();
//! batch.regroup();
//! let mut ticked = Vec::new();
//! batch.tick(&mut batched, |(walk, _)| walk, |index, (walk, me)| {
//!     ticked.push(index);
//!     walk.tick(me);
//! });
//! assert_eq!(ticked, batch.order().collect::<Vec<_>>());
//! let first_block: Vec<Option<usize>> = ticked[..4096].iter().map(|&i| before[i]).collect();
//! assert!(first_block.is_sorted_by_key(|node| node.unwrap_or(usize::MAX)));
//! let mut groups = first_block.clone();
//! groups.dedup();
//! assert_eq!(groups, [Some(3), Some(4), None]);
//! ```
//!
//! Whether grouping pays depends on the tree: it is measured beside
//! per-agent ticking and hand-written code in the benchmark crate's
//! `BENCHMARKS-batch.md`, and explained in its `ASSEMBLY.md`. Keep each
//! agent's state and data together (pairs, or one struct), as here: ticked
//! out of order, an agent spread over two `Vec`s costs two cache misses
//! where a pair costs one.
//!
//! Shared nodes (gates, global cooldowns, rendezvous, see
//! [synchronized trees](super::synchronized)) see agents in the batch's
//! order, so which agent gets a permit can differ from index order, as on
//! rayon's pool.

#[allow(unused_imports)]
use crate::*;
