//! (c) bonsai-bt and (d) bhv, built from a [`Spec`] with each crate's own
//! node types. Where a crate cannot express a tree, the builder says why
//! instead of approximating it.

use crate::spec::Spec;
use crate::world::Agent;
use bt::Status;

/// Why a peer cannot express a tree.
pub type Unsupported = &'static str;

/// bonsai-bt 0.14.
pub mod bonsai {
    use super::*;
    use bonsai_bt::{
        AlwaysSucceed, BT, Behavior, Event, Invert, Select, Sequence, UpdateArgs, WhenAll,
    };

    /// A leaf as a bonsai action value.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Leaf {
        /// `Agent::sense(id)`
        Cond(u32),
        /// `Agent::act_start` / `act_tick`
        Act(u32),
        /// `Agent::act_now`
        Do(u32),
    }

    /// Per-leaf memory kept in the blackboard. bonsai actions are not told
    /// when they start or are abandoned, so a stateful action treats a call
    /// as a fresh start unless it was running on the previous tick: exactly
    /// the cases where the other implementations call `start`.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct LeafMemory {
        left: u32,
        /// The tick at which a resume is expected; 0 when not running.
        resume_at: u32,
    }

    /// One agent's tree.
    pub type Tree = BT<Leaf, Vec<LeafMemory>>;

    fn behavior(spec: &Spec, max_id: &mut u32) -> Behavior<Leaf> {
        let mut all = |c: &[Spec]| c.iter().map(|c| behavior(c, max_id)).collect::<Vec<_>>();
        match spec {
            Spec::Seq(c) => Sequence(all(c)),
            Spec::Sel(c) => Select(all(c)),
            Spec::RSeq(c) => Sequence(all(c)).memory(false),
            Spec::RSel(c) => Select(all(c)).memory(false),
            Spec::ParAll(c) => WhenAll(all(c)),
            Spec::Invert(c) => Invert(Box::new(behavior(c, max_id))),
            Spec::ForceSuccess(c) => AlwaysSucceed(Box::new(behavior(c, max_id))),
            Spec::Cond(id) => Behavior::Action(Leaf::Cond(*id)),
            Spec::Act(id) => {
                *max_id = (*max_id).max(*id);
                Behavior::Action(Leaf::Act(*id))
            }
            Spec::Do(id) => Behavior::Action(Leaf::Do(*id)),
        }
    }

    /// Builds one agent's tree, or says why bonsai cannot express `spec`.
    pub fn build(spec: &Spec) -> Result<Tree, Unsupported> {
        if spec.memory_below_reactive() {
            return Err(
                "its reactive nodes (`memory(false)`) rebuild their children's state every \
                        tick, so a memory sequence, select or parallel under one restarts each tick",
            );
        }
        let mut max_id = 0;
        let b = behavior(spec, &mut max_id);
        Ok(BT::new(b, vec![LeafMemory::default(); max_id as usize + 1]))
    }

    /// Ticks one agent; a finished tree is restarted first, as bonsai
    /// requires (`reset_bt`), with its leaves' memory cleared (a parallel
    /// may have abandoned a leaf in the tick it was last called).
    #[inline]
    pub fn tick(tree: &mut Tree, agent: &mut Agent) -> Status {
        if tree.is_finished() {
            tree.reset_bt();
            tree.blackboard_mut().fill(LeafMemory::default());
        }
        let event: Event = UpdateArgs { dt: 0.0 }.into();
        let (status, _) = tree
            .tick(&event, &mut |args, memory: &mut Vec<LeafMemory>| {
                let status = match *args.action {
                    Leaf::Cond(id) => Status::from(agent.sense(id)),
                    Leaf::Do(id) => agent.act_now(id),
                    Leaf::Act(id) => {
                        let m = &mut memory[id as usize];
                        let status = if m.left != 0 && m.resume_at == agent.tick {
                            agent.act_tick(id, &mut m.left)
                        } else {
                            agent.act_start(id, &mut m.left)
                        };
                        m.resume_at = if status.is_running() {
                            agent.tick + 1
                        } else {
                            0
                        };
                        status
                    }
                };
                let status = match status {
                    Status::Success => bonsai_bt::Success,
                    Status::Failure => bonsai_bt::Failure,
                    Status::Running => bonsai_bt::Running,
                };
                (status, 0.0)
            })
            .expect("a finished tree was reset above");
        match status {
            bonsai_bt::Success => Status::Success,
            bonsai_bt::Failure => Status::Failure,
            bonsai_bt::Running => Status::Running,
        }
    }
}

/// bhv 0.4.
pub mod bhv {
    use super::*;
    use ::bhv::{Bhv, BhvExt, Sel, Seq};

    /// One agent's tree.
    pub type Tree = Box<dyn Bhv<Context = Agent>>;

    fn map(s: ::bhv::Status) -> Status {
        match s {
            ::bhv::Status::Success => Status::Success,
            ::bhv::Status::Failure => Status::Failure,
            ::bhv::Status::Running => Status::Running,
        }
    }

    fn unmap(s: Status) -> ::bhv::Status {
        match s {
            Status::Success => ::bhv::Status::Success,
            Status::Failure => ::bhv::Status::Failure,
            Status::Running => ::bhv::Status::Running,
        }
    }

    /// A boxed subtree as a value the decorator adapters accept.
    struct Boxed(Tree);
    impl Bhv for Boxed {
        type Context = Agent;
        fn update(&mut self, agent: &mut Agent) -> ::bhv::Status {
            self.0.update(agent)
        }
        fn reset(&mut self, status: ::bhv::Status) {
            self.0.reset(status)
        }
    }

    struct Cond(u32);
    impl Bhv for Cond {
        type Context = Agent;
        fn update(&mut self, agent: &mut Agent) -> ::bhv::Status {
            unmap(Status::from(agent.sense(self.0)))
        }
    }

    struct Act {
        id: u32,
        left: u32,
    }
    impl Bhv for Act {
        type Context = Agent;
        fn update(&mut self, agent: &mut Agent) -> ::bhv::Status {
            unmap(if self.left == 0 {
                agent.act_start(self.id, &mut self.left)
            } else {
                agent.act_tick(self.id, &mut self.left)
            })
        }
    }

    struct Do(u32);
    impl Bhv for Do {
        type Context = Agent;
        fn update(&mut self, agent: &mut Agent) -> ::bhv::Status {
            unmap(agent.act_now(self.0))
        }
    }

    /// Builds one agent's tree, or says why bhv cannot express `spec`.
    pub fn build(spec: &Spec) -> Result<Tree, Unsupported> {
        let all = |c: &[Spec]| c.iter().map(build).collect::<Result<Vec<_>, _>>();
        Ok(match spec {
            Spec::Seq(c) => Box::new(Seq::with_nodes(all(c)?)),
            Spec::Sel(c) => Box::new(Sel::with_nodes(all(c)?)),
            Spec::RSeq(_) | Spec::RSel(_) => {
                return Err(
                    "it has no reactive sequence or select (no node re-checks earlier \
                            children while a later one runs, and nothing is halted)",
                );
            }
            Spec::ParAll(_) => {
                return Err(
                    "its `WhenAll` ticks finished children again on later ticks and \
                            halts nothing, unlike a parallel node",
                );
            }
            Spec::Invert(c) => Box::new(Boxed(build(c)?).inv()),
            Spec::ForceSuccess(c) => Box::new(Boxed(build(c)?).pass()),
            Spec::Cond(id) => Box::new(Cond(*id)),
            Spec::Act(id) => Box::new(Act { id: *id, left: 0 }),
            Spec::Do(id) => Box::new(Do(*id)),
        })
    }

    /// Ticks one agent (bhv's composites restart themselves when done).
    #[inline]
    pub fn tick(tree: &mut Tree, agent: &mut Agent) -> Status {
        map(tree.update(agent))
    }
}
