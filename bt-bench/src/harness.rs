//! Populations of agents ticked by each implementation, the scripted
//! checksum run, and the memory and allocation measurements.

use crate::alloc::{self, Usage};
use crate::peers::{self, Unsupported};
use crate::spec::{self, Spec};
use crate::world::{Agent, Checksum, Scenario};
use crate::{dyn_tree, hand, interpreted, ours};
use bt::Status;
use bt::record::Recorder;

/// A reference tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeId {
    /// [`spec::small`], 5 nodes.
    Small,
    /// [`spec::guard`], 20 nodes.
    Guard,
    /// [`spec::large`]`(300)`.
    Large,
}

impl TreeId {
    /// Every tree, in report order.
    pub const ALL: [TreeId; 3] = [TreeId::Small, TreeId::Guard, TreeId::Large];

    /// Short name used in benchmark ids and the report.
    pub fn name(self) -> &'static str {
        match self {
            TreeId::Small => "small",
            TreeId::Guard => "guard",
            TreeId::Large => "large",
        }
    }

    /// The tree as data.
    pub fn spec(self) -> Spec {
        match self {
            TreeId::Small => spec::small(),
            TreeId::Guard => spec::guard(),
            TreeId::Large => spec::large(300),
        }
    }

    /// The scenarios that mean something for this tree: the small tree has
    /// no reactive node, so nothing can preempt in it.
    pub fn scenarios(self) -> &'static [Scenario] {
        match self {
            TreeId::Small => &[Scenario::Steady, Scenario::Restarts],
            _ => &Scenario::ALL,
        }
    }

    /// Agents for this tree under `scenario`. In the small tree's restart
    /// scenario `attack` runs exactly three ticks (Running, Running,
    /// Success), as the tree is specified.
    pub fn agents(self, scenario: Scenario, count: usize) -> Vec<Agent> {
        let mut agents = Agent::many(count, scenario);
        if (self, scenario) == (TreeId::Small, Scenario::Restarts) {
            for a in &mut agents {
                a.fixed_duration = 3;
            }
        }
        agents
    }
}

/// An implementation under comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Imp {
    /// `behavior_tree!`.
    Ours,
    /// Hand-written Rust.
    Hand,
    /// bonsai-bt 0.14.
    Bonsai,
    /// bhv 0.4.
    Bhv,
    /// Boxed `dyn Node` objects.
    Dyn,
    /// The interpreter with compiled expressions, as hot reload runs trees.
    Interpreted,
    /// `behavior_tree!` with a tick context and a `bt::record::Recorder`
    /// recording every agent (a ring of [`RING`] transitions each).
    Recorded,
}

/// Transitions each agent's ring keeps in [`Imp::Recorded`].
pub const RING: usize = 16;

impl Imp {
    /// Every implementation, in report order.
    pub const ALL: [Imp; 7] = [
        Imp::Ours,
        Imp::Hand,
        Imp::Bonsai,
        Imp::Bhv,
        Imp::Dyn,
        Imp::Interpreted,
        Imp::Recorded,
    ];

    /// Short name used in benchmark ids and the report.
    pub fn name(self) -> &'static str {
        match self {
            Imp::Ours => "bt",
            Imp::Hand => "hand-written",
            Imp::Bonsai => "bonsai-bt",
            Imp::Bhv => "bhv",
            Imp::Dyn => "boxed-dyn",
            Imp::Interpreted => "interpreted",
            Imp::Recorded => "bt+recorder",
        }
    }

    /// Whether its leaves are told when they are abandoned.
    pub fn has_halts(self) -> bool {
        matches!(
            self,
            Imp::Ours | Imp::Hand | Imp::Dyn | Imp::Interpreted | Imp::Recorded
        )
    }
}

/// Agents and their tree states, ticked together.
pub trait Population {
    /// Ticks every agent once; returns a value to keep the work observable.
    fn step(&mut self) -> u64;
    /// Ticks every agent once, adding the root results to `sum`.
    fn step_into(&mut self, sum: &mut Checksum);
    /// The agents.
    fn agents(&self) -> &[Agent];
    /// Bytes of one agent's tree state: inline, and on the heap.
    fn bytes_per_agent(&self) -> (usize, usize);
}

struct Pop<S, F> {
    states: Vec<S>,
    agents: Vec<Agent>,
    tick: F,
    heap_per_agent: usize,
}

impl<S, F: Fn(&mut S, &mut Agent) -> Status> Population for Pop<S, F> {
    #[inline(never)]
    fn step(&mut self) -> u64 {
        let mut acc = 0;
        for (s, a) in self.states.iter_mut().zip(&mut self.agents) {
            acc += (self.tick)(s, a) as u64;
            a.advance();
        }
        acc
    }

    fn step_into(&mut self, sum: &mut Checksum) {
        for (s, a) in self.states.iter_mut().zip(&mut self.agents) {
            sum.root((self.tick)(s, a));
            a.advance();
        }
    }

    fn agents(&self) -> &[Agent] {
        &self.agents
    }

    fn bytes_per_agent(&self) -> (usize, usize) {
        (std::mem::size_of::<S>(), self.heap_per_agent)
    }
}

fn pop<S: 'static, F: Fn(&mut S, &mut Agent) -> Status + 'static>(
    agents: Vec<Agent>,
    make: impl Fn() -> S,
    tick: F,
) -> Box<dyn Population> {
    let n = agents.len().max(1);
    let (states, usage): (Vec<S>, Usage) =
        alloc::measure(|| (0..agents.len()).map(|_| make()).collect());
    // The state vector itself is the inline part.
    let heap =
        (usage.live_bytes.max(0) as usize).saturating_sub(agents.len() * std::mem::size_of::<S>());
    Box::new(Pop {
        states,
        agents,
        tick,
        heap_per_agent: heap / n,
    })
}

/// The tick context of [`Imp::Recorded`].
type RecordingCx<'a> = bt::Ctx<bt::NoFlags, bt::NoFlags, &'a Recorder>;

/// Agents of a tree with a tick context, every one recorded.
struct Recorded<S, F> {
    states: Vec<S>,
    agents: Vec<Agent>,
    recorder: Recorder,
    tick: F,
    ticks: u64,
}

impl<S, F: Fn(&mut S, &mut Agent, &RecordingCx) -> Status> Recorded<S, F> {
    #[inline]
    fn each(&mut self, mut root: impl FnMut(Status)) {
        let now = self.ticks as f64 * 0.05;
        self.ticks += 1;
        for (i, (s, a)) in self.states.iter_mut().zip(&mut self.agents).enumerate() {
            let cx = bt::Ctx::new(now, 0.05)
                .agent(i as u64)
                .trace(&self.recorder);
            root((self.tick)(s, a, &cx));
            a.advance();
        }
    }
}

impl<S, F: Fn(&mut S, &mut Agent, &RecordingCx) -> Status> Population for Recorded<S, F> {
    #[inline(never)]
    fn step(&mut self) -> u64 {
        let mut acc = 0;
        self.each(|status| acc += status as u64);
        acc
    }

    fn step_into(&mut self, sum: &mut Checksum) {
        self.each(|status| sum.root(status));
    }

    fn agents(&self) -> &[Agent] {
        &self.agents
    }

    fn bytes_per_agent(&self) -> (usize, usize) {
        (std::mem::size_of::<S>(), self.recorder.bytes_per_agent())
    }
}

fn recorded<T: bt::BehaviorTree + Default + 'static>(
    agents: Vec<Agent>,
    tick: impl Fn(&mut T, &mut Agent, &RecordingCx) -> Status + 'static,
) -> Box<dyn Population> {
    Box::new(Recorded {
        states: (0..agents.len()).map(|_| T::default()).collect(),
        recorder: Recorder::new::<T>(agents.len(), RING),
        agents,
        tick,
        ticks: 0,
    })
}

/// `count` agents of `imp` ticking `tree` under `scenario`, or why `imp`
/// cannot express `tree`.
pub fn population(
    imp: Imp,
    tree: TreeId,
    scenario: Scenario,
    count: usize,
) -> Result<Box<dyn Population>, Unsupported> {
    let agents = tree.agents(scenario, count);
    let spec = tree.spec();
    Ok(match (imp, tree) {
        (Imp::Ours, TreeId::Small) => pop(agents, ours::Small::default, ours::Small::tick),
        (Imp::Ours, TreeId::Guard) => pop(agents, ours::Guard::default, ours::Guard::tick),
        (Imp::Ours, TreeId::Large) => pop(agents, ours::Large::default, ours::Large::tick),
        (Imp::Recorded, TreeId::Small) => {
            recorded(agents, |s: &mut ours::SmallTraced, a, cx| s.tick(a, cx))
        }
        (Imp::Recorded, TreeId::Guard) => {
            recorded(agents, |s: &mut ours::GuardTraced, a, cx| s.tick(a, cx))
        }
        (Imp::Recorded, TreeId::Large) => {
            recorded(agents, |s: &mut ours::LargeTraced, a, cx| s.tick(a, cx))
        }
        (Imp::Hand, TreeId::Small) => pop(agents, hand::SmallHand::default, hand::SmallHand::tick),
        (Imp::Hand, TreeId::Guard) => pop(agents, hand::GuardHand::default, hand::GuardHand::tick),
        (Imp::Hand, TreeId::Large) => pop(agents, hand::LargeHand::default, hand::LargeHand::tick),
        (Imp::Interpreted, _) => {
            let tree = std::sync::Arc::new(interpreted::Tree::new(match tree {
                TreeId::Small => "Small",
                TreeId::Guard => "Guard",
                TreeId::Large => "Large",
            }));
            let make = std::sync::Arc::clone(&tree);
            pop(agents, move || make.state(), move |s, a| tree.tick(s, a))
        }
        (Imp::Dyn, _) => pop(
            agents,
            move || dyn_tree::build(&spec),
            |s: &mut dyn_tree::BoxedNode, a| s.tick(a),
        ),
        (Imp::Bonsai, _) => {
            peers::bonsai::build(&spec)?;
            pop(
                agents,
                move || peers::bonsai::build(&spec).unwrap(),
                peers::bonsai::tick,
            )
        }
        (Imp::Bhv, _) => {
            peers::bhv::build(&spec)?;
            pop(
                agents,
                move || peers::bhv::build(&spec).unwrap(),
                peers::bhv::tick,
            )
        }
    })
}

/// `count` agents of the `behavior_tree!` trees running live (hot reload,
/// feature `hot-reload`): on the interpreter with the build's compiled
/// expressions. Starts hot reload for the process, so that agents made
/// after it of any tree run live: one population per process.
#[cfg(feature = "hot-reload")]
pub fn live_population(tree: TreeId, scenario: Scenario, count: usize) -> Box<dyn Population> {
    bt::hot::start_with(|_| {});
    let agents = tree.agents(scenario, count);
    match tree {
        TreeId::Small => pop(agents, ours::Small::default, ours::Small::tick),
        TreeId::Guard => pop(agents, ours::Guard::default, ours::Guard::tick),
        TreeId::Large => pop(agents, ours::Large::default, ours::Large::tick),
    }
}

/// The scripted run every implementation must agree on before it is timed:
/// `agents` agents for `ticks` ticks.
pub fn checksum(
    imp: Imp,
    tree: TreeId,
    scenario: Scenario,
    agents: usize,
    ticks: usize,
) -> Result<Checksum, Unsupported> {
    let mut p = population(imp, tree, scenario, agents)?;
    let mut sum = Checksum::default();
    for _ in 0..ticks {
        p.step_into(&mut sum);
    }
    sum.agents(p.agents(), imp.has_halts());
    Ok(sum)
}

/// Allocations per agent-tick over `ticks` ticks of `agents` agents, after
/// one warm-up tick.
pub fn allocations_per_tick(
    imp: Imp,
    tree: TreeId,
    scenario: Scenario,
    agents: usize,
    ticks: usize,
) -> Result<f64, Unsupported> {
    let mut p = population(imp, tree, scenario, agents)?;
    p.step();
    let (_, usage) = alloc::measure(|| {
        for _ in 0..ticks {
            p.step();
        }
    });
    Ok(usage.allocations as f64 / (agents * ticks) as f64)
}
