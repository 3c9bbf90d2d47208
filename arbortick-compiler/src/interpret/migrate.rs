//! Moving agents from one version of a tree to another: what hot reload
//! does between two ticks. See [`Migration`].

use super::*;
use std::collections::HashMap;

/// How the places of one laid-out tree correspond to another's: worked out
/// once per pair of versions ([`Interpreter::migration`]), used for every
/// agent ([`Interpreter::migrate`]).
///
/// **Identity.** A node of the new tree is the same node as one of the old
/// when both have the same identity:
/// - a labelled node: its label, in its tree instance (the root tree, or
///   the `subtree` node that embeds it), and for a leaf its type, for a
///   `subtree` node the tree it embeds;
/// - any other node: the nearest enclosing labelled node (or `subtree`
///   node, or the instance's top), its kind, what it evaluates when that
///   names it (a condition's, action's or instant's text, a leaf's type, an
///   embedded tree's name), and how many nodes of that kind and text come
///   before it under that same anchor, in source order.
///
/// Numbers are not part of identity: a `timeout(3)` edited to `timeout(4)`
/// is the same node, and keeps its start time. Nodes of different kinds are
/// never the same. Reordering children keeps identities unless two
/// unlabelled siblings of the same kind and text swap places; a label pins
/// a node's identity anywhere in its tree.
///
/// **What moves.** Every node that is the same keeps what outlives
/// activity (cooldowns, `run_once` marks, `every` periods, a `sequential`
/// or `shuffle` group's place in its round). A running node keeps its
/// running state when its counterpart can run in the new tree: its new
/// ancestors are running with it, either because they are the same nodes
/// (and were running), or because the edit put them there and entering
/// them has no effect of its own (composites, status decorators,
/// `timeout`, `delay`, `run_while`, `after`, a `scope` without an `enter`
/// hook, `repeat`, `retry`, and `if_then_else` around its condition). A node
/// whose new parent can run only one child at a time and would run two
/// keeps the first, in source order.
///
/// **What is halted.** Every running node of the old tree whose state does
/// not move is halted exactly once, deepest first, before the new tree
/// ticks: a leaf's `halt`, a scope's `exit` hook, an `after`'s `halted`
/// hook, a gate's permit and a rendezvous place given back. Its
/// descendants whose state moves are not halted.
#[derive(Clone, Debug)]
pub struct Migration {
    /// The new place of each old place that is the same node.
    to: Vec<Option<usize>>,
    /// The old place of each new place that is the same node.
    from: Vec<Option<usize>>,
}

impl Migration {
    /// The new place that is the same node as old place `old`.
    pub fn to(&self, old: usize) -> Option<usize> {
        self.to.get(old).copied().flatten()
    }

    /// The old place that is the same node as new place `new`.
    pub fn from(&self, new: usize) -> Option<usize> {
        self.from.get(new).copied().flatten()
    }

    /// How many nodes of the new tree have a counterpart in the old.
    pub fn kept(&self) -> usize {
        self.from.iter().flatten().count()
    }
}

/// A node's identity within its layout (see [`Migration`]).
fn identities(layout: &Interpreter) -> Vec<String> {
    let n = layout.places.len();
    let parent = &layout.parent;
    let node = |p: usize| {
        let place = &layout.places[p];
        &layout.trees[place.tree].nodes[place.node]
    };
    let is_subtree = |p: usize| matches!(node(p).step, Step::Subtree);
    let mut keys: Vec<String> = Vec::with_capacity(n);
    let mut counts: HashMap<String, usize> = HashMap::new();
    for p in 0..n {
        // The instance's scope: the key of the subtree node above, if any.
        let mut up = parent[p];
        while let Some(q) = up
            && !is_subtree(q)
        {
            up = parent[q];
        }
        let scope = up.map_or("", |q| keys[q].as_str()).to_string();
        let nd = node(p);
        let key = if let Some(label) = &nd.label {
            // A leaf's memory is its type's; an embedded tree's state, its
            // tree's.
            let of = match nd.step {
                Step::Leaf | Step::Subtree => nd.what.as_str(),
                _ => "",
            };
            format!("{scope}'{label}:{of}")
        } else {
            let mut up = parent[p];
            while let Some(q) = up
                && node(q).label.is_none()
                && !is_subtree(q)
            {
                up = parent[q];
            }
            let anchor = up.map_or("", |q| keys[q].as_str());
            let what = &nd.what;
            let signature = format!("{anchor}/{:?}:{what}", nd.row);
            let count = counts.entry(signature.clone()).or_default();
            *count += 1;
            format!("{signature}#{count}")
        };
        keys.push(key);
    }
    keys
}

/// Whether the edit may put a node of this kind around a running node
/// without halting it: entering the node has no effect of its own. `child`
/// is the position of the running child.
fn enters_freely(step: Step, child: usize) -> bool {
    match step {
        Step::Sequence
        | Step::SequenceWithMemory
        | Step::Select
        | Step::AsyncSequence
        | Step::AsyncSelect
        | Step::TryCatch
        | Step::ReactiveSequence
        | Step::ReactiveSelect
        | Step::WhileDoElse
        | Step::Parallel { .. }
        | Step::ParallelAll { .. }
        | Step::Switch
        | Step::Invert
        | Step::ForceSuccess
        | Step::ForceFailure
        | Step::KeepRunningUntilFailure
        | Step::Repeat(_)
        | Step::Retry(_)
        | Step::Cooldown
        | Step::RunOnce { .. }
        | Step::Latch(
            Latch::Timeout | Latch::Delay | Latch::RunWhile { .. } | Latch::After { .. },
        ) => true,
        Step::Latch(Latch::Scope { enter, .. }) => !enter,
        Step::IfThenElse => child == 0,
        // A guard, a condition, a permit, a period, an item or a place
        // would have to be checked or taken.
        Step::Decider { .. }
        | Step::Latch(
            Latch::Precondition { .. } | Latch::Every | Latch::Gate(_) | Latch::GlobalCooldown,
        )
        | Step::Rendezvous { .. }
        | Step::ForEach { .. }
        | Step::Subtree => false,
        Step::Wait
        | Step::Sync
        | Step::Monitor { .. }
        | Step::Cond
        | Step::Action
        | Step::Instant
        | Step::Constant(_)
        | Step::Leaf => false,
    }
}

/// Kinds that run at most one child at a time.
fn one_child(step: Step) -> bool {
    !matches!(step, Step::Parallel { .. } | Step::ParallelAll { .. })
}

/// Child positions of old place `o` as positions among the children of new
/// place `q`: what a node's state names its children by.
struct Positions<'a> {
    old: &'a [usize],
    new: &'a [usize],
    migration: &'a Migration,
}

impl Positions<'_> {
    fn of(&self, i: usize) -> Option<usize> {
        let c = self.migration.to(*self.old.get(i)?)?;
        self.new.iter().position(|&x| x == c)
    }

    /// A set of children, as bits.
    fn bits(&self, mut old_bits: u128) -> u128 {
        let mut bits = 0;
        while old_bits != 0 {
            let i = old_bits.trailing_zeros() as usize;
            old_bits &= old_bits - 1;
            if let Some(i) = self.of(i) {
                bits |= 1 << i;
            }
        }
        bits
    }
}

impl Interpreter {
    fn step(&self, p: usize) -> Step {
        let place = &self.places[p];
        self.trees[place.tree].nodes[place.node].step
    }

    fn row(&self, p: usize) -> kinds::Kind {
        let place = &self.places[p];
        self.trees[place.tree].nodes[place.node].row
    }

    /// Which places of this tree are the same nodes as places of `old`
    /// (see [`Migration`] for the rule).
    pub fn migration(&self, old: &Interpreter) -> Migration {
        let new_keys = identities(self);
        let by_key: HashMap<&str, usize> = (new_keys.iter().enumerate())
            .map(|(q, k)| (k.as_str(), q))
            .collect();
        let mut to = vec![None; old.places.len()];
        let mut from = vec![None; self.places.len()];
        for (o, key) in identities(old).iter().enumerate() {
            if let Some(&q) = by_key.get(key.as_str())
                && old.row(o) == self.row(q)
            {
                to[o] = Some(q);
                from[q] = Some(o);
            }
        }
        Migration { to, from }
    }

    /// Shared state for this tree that keeps `old`'s gates, global
    /// cooldowns and rendezvous where they are the same nodes: agents of
    /// both versions count in the same objects while they migrate.
    pub fn migrate_shared(
        &self,
        migration: &Migration,
        old: &Interpreter,
        shared: &Shared,
    ) -> Shared {
        let mut fresh = self.shared();
        for (q, o) in migration.from.iter().enumerate() {
            let Some(o) = *o else { continue };
            let (op, qp) = (&old.places[o], &self.places[q]);
            let old_index = old.offsets[op.tree] + op.node;
            let new_index = self.offsets[qp.tree] + qp.node;
            if !matches!(*shared.nodes[old_index], SharedNode::None) {
                fresh.nodes[new_index] = std::sync::Arc::clone(&shared.nodes[old_index]);
            }
        }
        fresh
    }

    /// Which places of `agent` hold running state: a node is live when it
    /// runs (as its parent or its own state says).
    fn live(&self, agent: &Agent) -> Vec<bool> {
        let mut live = vec![false; self.places.len()];
        self.walk(agent, 0, false, &mut live);
        live
    }

    fn walk(&self, agent: &Agent, p: usize, claimed: bool, live: &mut [bool]) -> bool {
        let s = &agent.slots[p];
        let children = self.children_of(p);
        let each = |live: &mut [bool], claim: &dyn Fn(usize) -> bool| {
            let mut any = false;
            for (i, &c) in children.iter().enumerate() {
                any |= self.walk(agent, c, claim(i), live);
            }
            any
        };
        let is = match self.step(p) {
            Step::Cond | Step::Action | Step::Instant | Step::Constant(_) => claimed,
            Step::Monitor { .. } => false,
            Step::Leaf => s.active,
            Step::Wait => s.started.is_some(),
            Step::Sync => s.arrived || claimed,
            Step::Invert
            | Step::ForceSuccess
            | Step::ForceFailure
            | Step::KeepRunningUntilFailure
            | Step::Cooldown
            | Step::RunOnce { .. } => {
                let below = each(live, &|_| claimed);
                claimed || below
            }
            Step::Repeat(_) | Step::Retry(_) => {
                let below = each(live, &|_| claimed);
                claimed || below || s.count > 0 || s.active || s.running
            }
            Step::Parallel { .. } | Step::ParallelAll { .. } => {
                let entered = claimed || (s.succeeded | s.failed) != 0;
                let done = s.succeeded | s.failed;
                let below = each(live, &|i| entered && done & (1 << i) == 0);
                entered || below
            }
            Step::Latch(Latch::Delay) => {
                each(live, &|_| s.active && s.passed);
                s.active
            }
            Step::Latch(_) | Step::Subtree => {
                each(live, &|_| s.active);
                s.active
            }
            Step::ForEach { .. } => {
                each(live, &|_| s.child.is_some());
                s.active
            }
            Step::Rendezvous { .. } => {
                each(live, &|_| s.member.phase == rt::Phase::Meeting);
                s.member.phase != rt::Phase::Idle
            }
            Step::Sequence
            | Step::SequenceWithMemory
            | Step::Select
            | Step::AsyncSequence
            | Step::AsyncSelect
            | Step::TryCatch
            | Step::ReactiveSequence
            | Step::ReactiveSelect
            | Step::IfThenElse
            | Step::WhileDoElse
            | Step::Switch
            | Step::Decider { .. } => {
                let running = s.child;
                each(live, &|i| running == Some(i));
                running.is_some() || s.start != 0
            }
        };
        live[p] = is;
        is
    }

    /// Moves `agent`, a state of `old`, to this tree, as [`Migration`]
    /// says which nodes are the same (see [`Migration`]): first
    /// halts, in `old` with `old_shared`, each running node whose state
    /// does not move, deepest first; then returns the new state and each
    /// pair of places (old, new) whose running state moved, for a host
    /// that keeps state per place (a leaf's memory). `now` is when the
    /// move happens: what the edit puts around a running node counts as
    /// entered then.
    pub fn migrate(
        &self,
        migration: &Migration,
        old: &Interpreter,
        agent: &mut Agent,
        old_shared: &Shared,
        host: &mut impl Host,
        now: f64,
    ) -> (Agent, Vec<(usize, usize)>) {
        let live_old = old.live(agent);
        let n = self.places.len();
        let parent = &self.parent;
        // The new places whose old counterparts run.
        let mut wanted: Vec<bool> = (0..n)
            .map(|q| migration.from(q).is_some_and(|o| live_old[o]))
            .collect();
        // Running in the new tree: the wanted places and their ancestors,
        // less what cannot run there; repeated until nothing is dropped.
        let live = loop {
            let mut live = vec![false; n];
            for q in (0..n).filter(|&q| wanted[q]) {
                let mut up = Some(q);
                while let Some(r) = up
                    && !live[r]
                {
                    live[r] = true;
                    up = parent[r];
                }
            }
            let mut dropped = false;
            for q in (0..n).filter(|&q| live[q]) {
                let children = self.children_of(q);
                let running: Vec<usize> =
                    (0..children.len()).filter(|&i| live[children[i]]).collect();
                let moved = migration.from(q).is_some_and(|o| live_old[o]);
                let drop_from = if !moved
                    && let Some(&first) = running.first()
                    && !enters_freely(self.step(q), first)
                {
                    Some(0)
                } else if one_child(self.step(q)) && running.len() > 1 {
                    Some(1)
                } else {
                    None
                };
                if let Some(from) = drop_from {
                    for &i in &running[from..] {
                        self.unwant(children[i], &mut wanted);
                    }
                    dropped = true;
                }
            }
            if !dropped {
                break live;
            }
        };
        // Halt what does not move, deepest first.
        let mut run = Run {
            layout: old,
            agent,
            shared: old_shared,
            host,
            input: Input {
                now,
                ..Input::default()
            },
            roles: Vec::new(),
            limit: None,
            hooks: false,
        };
        for o in (0..old.places.len()).rev() {
            if live_old[o] && !migration.to(o).is_some_and(|q| live[q]) {
                run.release_own(o);
            }
        }
        // The new state.
        let mut fresh = self.agent();
        let mut moved = Vec::new();
        for q in 0..n {
            let o = migration.from(q);
            let slot = &mut fresh.slots[q];
            let positions = |o: usize| Positions {
                old: old.children_of(o),
                new: self.children_of(q),
                migration,
            };
            if let Some(o) = o {
                // What outlives activity names children by position.
                let at = positions(o);
                slot.keep = agent.slots[o].keep.clone();
                if slot.keep.next != 0 {
                    slot.keep.next = at.of(slot.keep.next).unwrap_or(0);
                }
                slot.keep.used = at.bits(slot.keep.used);
            }
            if !live[q] {
                continue;
            }
            let children = self.children_of(q);
            let running = (0..children.len()).find(|&i| live[children[i]]);
            match o.filter(|&o| live_old[o]) {
                Some(o) => {
                    moved.push((o, q));
                    let keep = core::mem::take(&mut slot.keep);
                    *slot = agent.slots[o].clone();
                    slot.keep = keep;
                    let at = positions(o);
                    if slot.child.is_some() {
                        slot.child = running;
                    }
                    if slot.start != 0 {
                        slot.start = at.of(slot.start).unwrap_or(0);
                    }
                    slot.succeeded = at.bits(slot.succeeded);
                    slot.failed = at.bits(slot.failed);
                }
                None => {
                    // Put around a running node by the edit: entered now.
                    slot.since = now;
                    match self.step(q) {
                        Step::Parallel { .. } | Step::ParallelAll { .. } => {}
                        Step::Repeat(None) | Step::Retry(None) => {
                            slot.active = true;
                            slot.running = true;
                        }
                        Step::SequenceWithMemory => {
                            slot.child = running;
                            slot.keep.next = running.unwrap_or(0);
                        }
                        Step::Latch(Latch::Delay) => {
                            slot.active = true;
                            slot.passed = true;
                        }
                        _ => {
                            slot.child = running;
                            slot.active = true;
                        }
                    }
                }
            }
        }
        // Armed monitors.
        for o in 0..old.places.len() {
            if let Step::Monitor { index } = old.step(o)
                && agent.armed[old.places[o].instance] & (1 << index) != 0
                && let Some(q) = migration.to(o)
                && let Step::Monitor { index: new } = self.step(q)
            {
                fresh.armed[self.places[q].instance] |= 1 << new;
            }
        }
        (fresh, moved)
    }

    /// The wanted places at and below `q` are not wanted any more.
    fn unwant(&self, q: usize, wanted: &mut [bool]) {
        wanted[q] = false;
        for &c in self.children_of(q) {
            self.unwant(c, wanted);
        }
    }
}

impl<H: Host> Run<'_, H> {
    /// Gives back what the node at place `p` holds itself, leaving its
    /// children as they are: halting one node of a tree whose other nodes
    /// move on.
    fn release_own(&mut self, p: usize) {
        match self.node(p).step {
            Step::Leaf => self.halt_leaf(p),
            Step::Rendezvous { n } => self.leave(p, n),
            Step::Latch(latch) if self.slot(p).active => {
                self.slot(p).active = false;
                self.release(p, latch, true);
            }
            _ => {}
        }
    }
}
