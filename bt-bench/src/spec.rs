//! The reference trees as data. Every implementation is built from (or,
//! for the macro and the hand-written code, generated from or checked
//! against) one [`Spec`], so they all describe the same tree.

/// A behavior tree node, implementation-neutral.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// Memory sequence: resumes at the running child.
    Seq(Vec<Spec>),
    /// Memory select (fallback): resumes at the running child.
    Sel(Vec<Spec>),
    /// Reactive sequence: re-checks earlier children every tick.
    RSeq(Vec<Spec>),
    /// Reactive select: a higher-priority child preempts the running one.
    RSel(Vec<Spec>),
    /// Parallel: succeeds when all children succeed, fails when one fails
    /// (the other running children are halted).
    ParAll(Vec<Spec>),
    /// Success and failure swapped.
    Invert(Box<Spec>),
    /// Failure turned into success.
    ForceSuccess(Box<Spec>),
    /// Condition `id` ([`Agent::sense`](crate::world::Agent::sense)).
    Cond(u32),
    /// Stateful action `id` that may run several ticks
    /// ([`Agent::act_start`](crate::world::Agent::act_start)).
    Act(u32),
    /// Instant action `id` ([`Agent::act_now`](crate::world::Agent::act_now)).
    Do(u32),
}

impl Spec {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        1 + self.children().iter().map(Spec::nodes).sum::<usize>()
    }

    /// The children, in order.
    pub fn children(&self) -> &[Spec] {
        match self {
            Spec::Seq(c) | Spec::Sel(c) | Spec::RSeq(c) | Spec::RSel(c) | Spec::ParAll(c) => c,
            Spec::Invert(c) | Spec::ForceSuccess(c) => std::slice::from_ref(c),
            Spec::Cond(_) | Spec::Act(_) | Spec::Do(_) => &[],
        }
    }

    /// True if the node or a descendant is reactive.
    pub fn has_reactive(&self) -> bool {
        matches!(self, Spec::RSeq(_) | Spec::RSel(_))
            || self.children().iter().any(Spec::has_reactive)
    }

    /// True if a memory node (sequence, select, parallel) sits below a
    /// reactive one: peers that rebuild a reactive node's children every
    /// tick cannot express that.
    pub fn memory_below_reactive(&self) -> bool {
        fn walk(s: &Spec, under_reactive: bool) -> bool {
            let reactive = matches!(s, Spec::RSeq(_) | Spec::RSel(_));
            let memory = matches!(s, Spec::Seq(_) | Spec::Sel(_) | Spec::ParAll(_));
            (memory && under_reactive)
                || s.children()
                    .iter()
                    .any(|c| walk(c, under_reactive || reactive))
        }
        walk(self, false)
    }
}

/// Leaf ids of the small tree.
pub mod small_ids {
    /// `cond enemy_visible`
    pub const ENEMY_VISIBLE: u32 = 0;
    /// `attack`, three ticks: Running, Running, Success.
    pub const ATTACK: u32 = 1;
    /// `idle`
    pub const IDLE: u32 = 2;
}

/// `select[ sequence[ cond enemy_visible, attack ], idle ]`.
pub fn small() -> Spec {
    use small_ids::*;
    Spec::Sel(vec![
        Spec::Seq(vec![Spec::Cond(ENEMY_VISIBLE), Spec::Act(ATTACK)]),
        Spec::Do(IDLE),
    ])
}

/// A 20-node guard: a parallel keeps looking around while a reactive
/// priority list picks flee / attack / chase / investigate / patrol.
///
/// ```text
/// parallel(all) {
///     force_success { look_around }
///     reactive_select {
///         reactive_sequence { cond low_health, invert { cond cornered }, flee }
///         reactive_sequence { cond enemy_visible, cond in_range, attack }
///         reactive_sequence { cond enemy_visible, chase }
///         reactive_sequence { cond heard_noise, investigate }
///         patrol
///     }
/// }
/// ```
pub fn guard() -> Spec {
    use Spec::*;
    let (low_health, cornered, enemy_visible, in_range, heard_noise) = (0, 1, 2, 3, 4);
    let (look_around, flee, attack, chase, investigate, patrol) = (10, 11, 12, 13, 14, 15);
    ParAll(vec![
        ForceSuccess(Box::new(Act(look_around))),
        RSel(vec![
            RSeq(vec![
                Cond(low_health),
                Invert(Box::new(Cond(cornered))),
                Act(flee),
            ]),
            RSeq(vec![Cond(enemy_visible), Cond(in_range), Act(attack)]),
            RSeq(vec![Cond(enemy_visible), Act(chase)]),
            RSeq(vec![Cond(heard_noise), Act(investigate)]),
            Act(patrol),
        ]),
    ])
}

/// A deterministic generated tree of about `target` nodes: memory
/// sequences and selects nested four deep (five above 600 nodes) (so a running action is resumed
/// through every level of memory), with small reactive groups, decorators
/// and parallels at the bottom. Reactive nodes only hold conditions,
/// actions and other reactive nodes, so the peers that have reactive nodes
/// can express it exactly.
pub fn large(target: usize) -> Spec {
    let mut g = Gen {
        next_id: 0,
        seed: 0x5eed_1234,
    };
    let depth = if target > 600 { 5 } else { 4 };
    let mut tree = g.memory(0, depth);
    // Top up with more groups under randomly chosen bottom memory nodes.
    while tree.nodes() + 3 < target {
        let group = g.group();
        let mut node = &mut tree;
        for _ in 0..depth - 1 {
            let (Spec::Seq(children) | Spec::Sel(children)) = node else {
                unreachable!()
            };
            let pick = g.rand(children.len() as u32) as usize;
            node = &mut children[pick];
        }
        let (Spec::Seq(children) | Spec::Sel(children)) = node else {
            unreachable!()
        };
        children.push(group);
    }
    tree
}

struct Gen {
    next_id: u32,
    seed: u32,
}

impl Gen {
    fn rand(&mut self, n: u32) -> u32 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 17;
        self.seed ^= self.seed << 5;
        self.seed % n
    }

    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    /// A memory composite at `depth` of `levels`, alternating select and sequence so
    /// both resume paths are exercised.
    fn memory(&mut self, depth: usize, levels: usize) -> Spec {
        let children = (0..3)
            .map(|_| {
                if depth + 1 == levels {
                    self.group()
                } else {
                    self.memory(depth + 1, levels)
                }
            })
            .collect();
        if depth.is_multiple_of(2) {
            Spec::Sel(children)
        } else {
            Spec::Seq(children)
        }
    }

    /// A bottom group of 1 to 6 nodes.
    fn group(&mut self) -> Spec {
        use Spec::*;
        match self.rand(7) {
            0 => Act(self.id()),
            1 => RSeq(vec![Cond(self.id()), Act(self.id())]),
            2 => RSel(vec![
                RSeq(vec![Cond(self.id()), Act(self.id())]),
                Act(self.id()),
            ]),
            3 => RSeq(vec![
                Invert(Box::new(Cond(self.id()))),
                Cond(self.id()),
                Act(self.id()),
            ]),
            4 => ParAll(vec![Act(self.id()), ForceSuccess(Box::new(Act(self.id())))]),
            5 => Seq(vec![Cond(self.id()), Do(self.id())]),
            _ => ForceSuccess(Box::new(Act(self.id()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_trees_have_the_stated_sizes() {
        assert_eq!(small().nodes(), 5);
        assert_eq!(guard().nodes(), 20);
        let large = large(300);
        assert!((280..=320).contains(&large.nodes()), "{}", large.nodes());
        let huge = super::large(1000);
        assert!((950..=1050).contains(&huge.nodes()), "{}", huge.nodes());
    }

    #[test]
    fn peers_with_reactive_nodes_can_express_guard_and_large() {
        assert!(!guard().memory_below_reactive());
        assert!(!large(300).memory_below_reactive());
        assert!(Spec::RSel(vec![Spec::Seq(vec![Spec::Act(1)])]).memory_below_reactive());
    }
}
