//! The naive baseline: a classic object-oriented tree of boxed `dyn Node`s,
//! one heap object per node per agent, built from a [`Spec`] at run time.
//!
//! It implements the same semantics as `behavior_tree!` (BehaviorTree.CPP
//! 4.x), halts included, so it doubles as the reference interpreter the
//! tests compare generated trees against.

use crate::spec::Spec;
use crate::world::Agent;
use bt::Status;

/// A node of the object-oriented tree.
pub trait Node {
    /// Ticks the node once.
    fn tick(&mut self, agent: &mut Agent) -> Status;
    /// Abandons the node if it is running; resets its memory either way.
    fn halt(&mut self, agent: &mut Agent);
}

/// A boxed node, the unit of the baseline tree.
pub type BoxedNode = Box<dyn Node>;

/// Builds the tree for one agent.
pub fn build(spec: &Spec) -> BoxedNode {
    let kids = |c: &[Spec]| c.iter().map(build).collect::<Vec<_>>();
    match spec {
        Spec::Seq(c) => Box::new(Memory {
            children: kids(c),
            current: 0,
            select: false,
        }),
        Spec::Sel(c) => Box::new(Memory {
            children: kids(c),
            current: 0,
            select: true,
        }),
        Spec::RSeq(c) => Box::new(Reactive {
            children: kids(c),
            running: None,
            select: false,
        }),
        Spec::RSel(c) => Box::new(Reactive {
            children: kids(c),
            running: None,
            select: true,
        }),
        Spec::ParAll(c) => {
            let children = kids(c);
            let done = vec![false; children.len()];
            Box::new(ParAll { children, done })
        }
        Spec::Invert(c) => Box::new(Invert(build(c))),
        Spec::ForceSuccess(c) => Box::new(ForceSuccess(build(c))),
        Spec::Cond(id) => Box::new(Cond(*id)),
        Spec::Act(id) => Box::new(Act { id: *id, left: 0 }),
        Spec::Do(id) => Box::new(Do(*id)),
    }
}

/// The status that makes a sequence (`Failure`) or a select (`Success`)
/// stop early.
fn decisive(select: bool) -> Status {
    if select {
        Status::Success
    } else {
        Status::Failure
    }
}

struct Memory {
    children: Vec<BoxedNode>,
    current: usize,
    select: bool,
}

impl Node for Memory {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        while self.current < self.children.len() {
            match self.children[self.current].tick(agent) {
                Status::Running => return Status::Running,
                s if s == decisive(self.select) => {
                    self.current = 0;
                    return s;
                }
                _ => self.current += 1,
            }
        }
        self.current = 0;
        decisive(self.select).invert()
    }

    fn halt(&mut self, agent: &mut Agent) {
        if let Some(child) = self.children.get_mut(self.current) {
            child.halt(agent);
        }
        self.current = 0;
    }
}

struct Reactive {
    children: Vec<BoxedNode>,
    running: Option<usize>,
    select: bool,
}

impl Node for Reactive {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        for i in 0..self.children.len() {
            let status = self.children[i].tick(agent);
            if status == Status::Running || status == decisive(self.select) {
                // The child that ran this tick is done or running; any other
                // running child is abandoned after it.
                if let Some(j) = self.running.filter(|&j| j != i) {
                    self.children[j].halt(agent);
                }
                self.running = status.is_running().then_some(i);
                return status;
            }
            if self.running == Some(i) {
                self.running = None;
            }
        }
        decisive(self.select).invert()
    }

    fn halt(&mut self, agent: &mut Agent) {
        if let Some(j) = self.running.take() {
            self.children[j].halt(agent);
        }
    }
}

struct ParAll {
    children: Vec<BoxedNode>,
    done: Vec<bool>,
}

impl Node for ParAll {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        let mut succeeded = 0;
        for i in 0..self.children.len() {
            if self.done[i] {
                succeeded += 1;
                continue;
            }
            match self.children[i].tick(agent) {
                Status::Running => {}
                Status::Success => {
                    self.done[i] = true;
                    succeeded += 1;
                }
                Status::Failure => {
                    self.done[i] = true;
                    self.halt(agent);
                    return Status::Failure;
                }
            }
        }
        if succeeded == self.children.len() {
            self.done.fill(false);
            Status::Success
        } else {
            Status::Running
        }
    }

    fn halt(&mut self, agent: &mut Agent) {
        for (child, done) in self.children.iter_mut().zip(&mut self.done) {
            if !*done {
                child.halt(agent);
            }
            *done = false;
        }
    }
}

struct Invert(BoxedNode);

impl Node for Invert {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        self.0.tick(agent).invert()
    }
    fn halt(&mut self, agent: &mut Agent) {
        self.0.halt(agent);
    }
}

struct ForceSuccess(BoxedNode);

impl Node for ForceSuccess {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        match self.0.tick(agent) {
            Status::Running => Status::Running,
            _ => Status::Success,
        }
    }
    fn halt(&mut self, agent: &mut Agent) {
        self.0.halt(agent);
    }
}

struct Cond(u32);

impl Node for Cond {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        Status::from(agent.sense(self.0))
    }
    fn halt(&mut self, _: &mut Agent) {}
}

struct Act {
    id: u32,
    /// Ticks left; 0 when not running.
    left: u32,
}

impl Node for Act {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        if self.left == 0 {
            agent.act_start(self.id, &mut self.left)
        } else {
            agent.act_tick(self.id, &mut self.left)
        }
    }
    fn halt(&mut self, agent: &mut Agent) {
        if self.left != 0 {
            self.left = 0;
            agent.act_halt();
        }
    }
}

struct Do(u32);

impl Node for Do {
    fn tick(&mut self, agent: &mut Agent) -> Status {
        agent.act_now(self.0)
    }
    fn halt(&mut self, _: &mut Agent) {}
}
