//! Ticking a population in batches: agents whose trees resume in the same
//! node tick one after another, so that the same code runs many times in a
//! row.
//!
//! A program with many agents usually ticks them in index order, each
//! taking another path through its tree. [`Batch`] ticks every agent once
//! per call too, but in an order grouped by where each agent's tree resumes
//! (its [`resume_node`]): within each block of consecutive agents, those
//! that resume in node 3 tick first, then those in node 7, and so on, and
//! agents whose tree is idle last.
//!
//! Whether this is faster depends on the tree and the population, and it
//! is measured, not assumed: the benchmark `batch` has batch rows beside
//! per-agent ticking and hand-written code (`BENCHMARKS-batch.md` in the
//! benchmark crate, explained in its `ASSEMBLY.md`). Grouping pays where a
//! tree has many places to resume and agents spread over them (a 300-node
//! tree whose agents keep being preempted: 1.12 to 1.17 times as fast as
//! ticking one agent after another at 100,000 agents); a tree whose cost
//! is its conditions (fresh values per agent, which no order predicts)
//! gains nothing, which is why blocks over few resume nodes keep index
//! order (`min_groups`).
//!
//! # Order of calls
//!
//! - Each call ticks every item exactly once, and each agent's own calls
//!   (conditions, actions, leaves, trace events) are those of ticking it
//!   alone: `f` is the same per-agent tick.
//! - Items are taken block by block, blocks in index order
//!   ([`block`](Batch::block) items each, 4,096 unless set).
//! - Within a block, items are ordered by their resume node as of the last
//!   grouping: node ids ascending (the tree's depth-first order), idle
//!   trees last, items with the same node in index order. A block whose
//!   items resume in fewer than [`min_groups`](Batch::min_groups) nodes
//!   (16 unless set) keeps index order: a few paths are predicted as well
//!   in any order, and grouping them costs more than it saves. The grouping is
//!   redone every [`regroup_every`](Batch::regroup_every) calls (8 unless
//!   set), when the number of items or the tree changes, and after
//!   [`regroup`](Batch::regroup); in between, the last order is kept, since
//!   it stays nearly right when a fraction of agents change branch.
//! - [`order`](Batch::order) gives the order the next call (or the last,
//!   if no regrouping is due) takes.
//! - Grouping reads every state of a block in index order, to find its
//!   resume node; a call that does not group reads whether each tree is
//!   active, also in index order, so that the block's memory is fetched in
//!   order before it is ticked out of order. Neither calls anything of
//!   the program's. A block whose grouped order is index order (all its
//!   agents resume in one node, say) is ticked in index order directly,
//!   without that read.
//! - [`par_tick`](Batch::par_tick) (feature `rayon`) ticks blocks on
//!   rayon's pool, each block in the same order on one thread; blocks run
//!   at once.
//!
//! Nodes that agents share (gates, global cooldowns, rendezvous) see the
//! agents in this order, so which agent wins a permit can differ from
//! index-order ticking, as with
//! [`for_each_parallel`](crate::parallel::for_each_parallel). Where that
//! matters for a replay, tick in the order [`order`](Batch::order)
//! reports.
//!
//! # Memory
//!
//! The batch owns its scratch space: 8 bytes per item (the order and each
//! item's key) and 4 bytes per node of the tree per block. It grows when a
//! call has more items than ever before and is reused after that, so
//! ticking allocates nothing once the population's size is reached;
//! [`Batch::with_capacity`] reserves it up front.
//!
//! The `bt` crate's reference, "Ticking many agents", shows a population
//! ticked this way and on rayon's pool.

use crate::BehaviorTree;
use crate::node::NodeKind;
use std::vec::Vec;

/// The node an agent's tree resumes in on its next tick: the deepest node
/// of this tree on its active path (the last one
/// [`visit_active`](BehaviorTree::visit_active) reports, nodes of embedded
/// trees counting as the `subtree` node that embeds them), or `None` for
/// an idle tree.
///
/// This is the key [`Batch`] groups agents by.
pub fn resume_node<T: BehaviorTree>(state: &T) -> Option<usize> {
    let mut last = None;
    // Below a `subtree` node, the reported nodes are the embedded tree's.
    let mut inside: Option<usize> = None;
    state.visit_active(0, &mut |node| {
        if let Some(depth) = inside {
            if node.depth > depth {
                return;
            }
            inside = None;
        }
        last = Some(node.info.id);
        if node.info.kind == NodeKind::Subtree {
            inside = Some(node.depth);
        }
    });
    last
}

/// The grouping key: the resume node, or one past the last node for an
/// idle tree.
#[inline]
fn key<T: BehaviorTree>(state: &T) -> usize {
    resume_node(state).map_or(T::NODES.len(), |n| n.min(T::NODES.len()))
}

/// Reusable scratch space for ticking a population in batches grouped by
/// where each agent's tree resumes. See the [module docs](self) for the
/// order of calls and what it costs.
#[derive(Clone, Debug)]
pub struct Batch {
    block: usize,
    regroup_every: u32,
    min_groups: usize,
    /// Calls since the last grouping.
    since_grouped: u32,
    /// The number of items the order was made for, and the counters per
    /// block of their tree (`None`: no order yet).
    grouped: Option<(usize, usize)>,
    /// Per item: the index within its block of the item ticked at this
    /// place.
    order: Vec<u32>,
    /// Per item: its key at the last grouping.
    keys: Vec<u32>,
    /// Per block: one counter per key, and one more.
    counts: Vec<u32>,
    /// Per block: whether its order is index order (every item resumes
    /// where the one before it does, or later): then it is ticked in
    /// index order directly.
    in_order: Vec<bool>,
    /// The most items, and the counters per block, reserved for.
    reserved: (usize, usize),
}

impl Default for Batch {
    fn default() -> Self {
        Batch::new()
    }
}

/// The default [`Batch::block`].
const BLOCK: usize = 4096;
/// The default [`Batch::min_groups`].
const MIN_GROUPS: usize = 16;

impl Batch {
    /// An empty batch: blocks of 4,096 items, grouped again every 8 calls.
    /// Its scratch space is allocated on the first call.
    pub fn new() -> Batch {
        Batch {
            block: BLOCK,
            regroup_every: 8,
            min_groups: MIN_GROUPS,
            since_grouped: 0,
            grouped: None,
            order: Vec::new(),
            keys: Vec::new(),
            counts: Vec::new(),
            in_order: Vec::new(),
            reserved: (0, 0),
        }
    }

    /// A batch with scratch space for `items` agents of tree `T`, so that
    /// no call allocates while there are at most that many.
    pub fn with_capacity<T: BehaviorTree>(items: usize) -> Batch {
        let mut batch = Batch::new();
        batch.reserve::<T>(items);
        batch
    }

    /// Sets how many consecutive items are grouped together (at least 1):
    /// a block's states and agents should fit the processor's caches, since
    /// ticking them grouped visits them out of order.
    #[must_use]
    pub fn block(mut self, items: usize) -> Batch {
        self.block = items.clamp(1, u32::MAX as usize);
        self.grouped = None;
        // Room for as many items as before, in blocks of the new size.
        let (items, width) = self.reserved;
        self.reserve_counts(items, width);
        self
    }

    /// Sets how many resume nodes a block's agents must spread over for
    /// the block to be ticked grouped (at least 1; 16 unless set): a block
    /// whose agents resume in fewer nodes is ticked in index order, since
    /// the processor predicts a few paths as well in any order and
    /// grouping costs more than it saves (`1` groups every block).
    #[must_use]
    pub fn min_groups(mut self, nodes: usize) -> Batch {
        self.min_groups = nodes.max(1);
        self.grouped = None;
        self
    }

    /// Sets how often the grouping is redone: every `calls` calls (at
    /// least 1; 1 groups before every call).
    #[must_use]
    pub fn regroup_every(mut self, calls: u32) -> Batch {
        self.regroup_every = calls.max(1);
        self
    }

    /// Makes the next call group the items again (after a load, or when
    /// many agents changed branch at once).
    pub fn regroup(&mut self) {
        self.grouped = None;
    }

    /// The order of the last grouping: the item indices, in the order a
    /// call ticks them while no regrouping is due. Empty before the first
    /// call.
    pub fn order(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        let n = self.grouped.map_or(0, |(items, _)| items);
        let block = self.block;
        self.order[..n]
            .iter()
            .enumerate()
            .map(move |(at, &i)| at / block * block + i as usize)
    }

    fn reserve<T: BehaviorTree>(&mut self, items: usize) {
        if self.order.len() < items {
            self.order.resize(items, 0);
            self.keys.resize(items, 0);
        }
        self.reserve_counts(items, T::NODES.len() + 2);
    }

    fn reserve_counts(&mut self, items: usize, width: usize) {
        let blocks = items.div_ceil(self.block);
        if self.counts.len() < blocks * width {
            self.counts.resize(blocks * width, 0);
        }
        if self.in_order.len() < blocks {
            self.in_order.resize(blocks, false);
        }
        self.reserved = (self.reserved.0.max(items), width);
    }

    /// Whether this call groups the items (due, or another number of items
    /// or another tree than the last order was made for): makes room if so.
    fn start<T: BehaviorTree>(&mut self, items: usize) -> bool {
        let grouped = Some((items, T::NODES.len() + 2));
        let due = self.grouped != grouped || self.since_grouped >= self.regroup_every;
        if due {
            self.reserve::<T>(items);
            self.grouped = grouped;
            self.since_grouped = 0;
        }
        self.since_grouped += 1;
        due
    }

    /// Ticks every item once, grouped by where its tree resumes: `state`
    /// borrows an item's tree state, `f(index, item)` ticks it.
    pub fn tick<I, T, S, F>(&mut self, items: &mut [I], state: S, mut f: F)
    where
        T: BehaviorTree,
        S: Fn(&I) -> &T,
        F: FnMut(usize, &mut I),
    {
        let group = self.start::<T>(items.len());
        let (block, width) = (self.block, T::NODES.len() + 2);
        let scratch = self
            .order
            .chunks_mut(block)
            .zip(self.keys.chunks_mut(block))
            .zip(self.counts.chunks_mut(width))
            .zip(self.in_order.iter_mut());
        for (b, (items, scratch)) in items.chunks_mut(block).zip(scratch).enumerate() {
            let grouping = (group, self.min_groups);
            run_block(grouping, b * block, items, &state, scratch.into(), &mut f);
        }
    }

    /// [`tick`](Batch::tick) on rayon's thread pool: blocks at once, each
    /// block grouped and ticked on one thread.
    #[cfg(feature = "rayon")]
    pub fn par_tick<I, T, S, F>(&mut self, items: &mut [I], state: S, f: F)
    where
        I: Send,
        T: BehaviorTree,
        S: Fn(&I) -> &T + Sync,
        F: Fn(usize, &mut I) + Sync,
    {
        use rayon::prelude::*;
        let group = self.start::<T>(items.len());
        let (block, width, min_groups) = (self.block, T::NODES.len() + 2, self.min_groups);
        let scratch = self
            .order
            .par_chunks_mut(block)
            .zip(self.keys.par_chunks_mut(block))
            .zip(self.counts.par_chunks_mut(width))
            .zip(self.in_order.par_iter_mut());
        items
            .par_chunks_mut(block)
            .zip(scratch)
            .enumerate()
            .for_each(|(b, (items, scratch))| {
                let mut f = |i, item: &mut I| f(i, item);
                let grouping = (group, min_groups);
                run_block(grouping, b * block, items, &state, scratch.into(), &mut f);
            });
    }
}

/// One block's part of the batch's scratch space.
struct Scratch<'a> {
    order: &'a mut [u32],
    keys: &'a mut [u32],
    counts: &'a mut [u32],
    in_order: &'a mut bool,
}

/// A block's scratch space from its parts, as the batch's chunks are zipped.
type Parts<'a> = (
    ((&'a mut [u32], &'a mut [u32]), &'a mut [u32]),
    &'a mut bool,
);

impl<'a> From<Parts<'a>> for Scratch<'a> {
    fn from((((order, keys), counts), in_order): Parts<'a>) -> Self {
        Scratch {
            order,
            keys,
            counts,
            in_order,
        }
    }
}

/// Groups one block if `group`, else brings it into the cache; then ticks
/// it. `base` is the block's first index.
#[inline]
fn run_block<I, T: BehaviorTree>(
    (group, min_groups): (bool, usize),
    base: usize,
    items: &mut [I],
    state: &impl Fn(&I) -> &T,
    mut scratch: Scratch<'_>,
    f: &mut impl FnMut(usize, &mut I),
) {
    if group {
        *scratch.in_order = group_block(items, state, &mut scratch, min_groups);
    }
    if *scratch.in_order {
        for (i, item) in items.iter_mut().enumerate() {
            f(base + i, item);
        }
        return;
    }
    if !group {
        warm_block(items, state);
    }
    for &i in &scratch.order[..items.len()] {
        let i = i as usize;
        f(base + i, &mut items[i]);
    }
}

/// Orders one block's items by key into `order` (a counting sort: stable,
/// so equal keys keep index order), or in index order if they resume in
/// fewer than `min_groups` nodes; returns whether that is index order.
fn group_block<I, T: BehaviorTree>(
    items: &[I],
    state: &impl Fn(&I) -> &T,
    scratch: &mut Scratch<'_>,
    min_groups: usize,
) -> bool {
    let Scratch {
        order,
        keys,
        counts,
        ..
    } = scratch;
    counts.fill(0);
    let (mut last, mut in_order) = (0, true);
    for (item, k) in items.iter().zip(keys.iter_mut()) {
        let key = key(state(item));
        *k = key as u32;
        counts[key + 1] += 1;
        in_order &= key >= last;
        last = key;
    }
    if !in_order && counts.iter().filter(|&&n| n != 0).count() < min_groups {
        for (i, at) in order[..items.len()].iter_mut().enumerate() {
            *at = i as u32;
        }
        return true;
    }
    for k in 1..counts.len() {
        counts[k] += counts[k - 1];
    }
    for (i, &k) in keys[..items.len()].iter().enumerate() {
        let at = &mut counts[k as usize];
        order[*at as usize] = i as u32;
        *at += 1;
    }
    in_order
}

/// Reads each item's state in index order (whether its tree is active: its
/// first bytes), so that the processor fetches the block's memory in
/// order, as ticking in index order would, before it is ticked out of
/// order.
#[inline]
fn warm_block<I, T: BehaviorTree>(items: &[I], state: &impl Fn(&I) -> &T) {
    let mut active = 0u32;
    for item in items {
        active += u32::from(state(item).is_active());
    }
    core::hint::black_box(active);
}
