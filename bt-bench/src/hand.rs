//! (b) The reference trees written by hand, the way an expert writes a
//! behavior tree without a library: a small state struct and straight-line
//! code that jumps back to the running action. The large tree is the same
//! style, emitted by [`crate::codegen::hand`] since no one types 300 nodes
//! twice.

use crate::spec::small_ids::*;
use crate::world::Agent;
use bt::Status;

/// The small tree by hand: the attack's ticks left double as "the attack
/// is running".
#[derive(Default, Clone, Debug)]
pub struct SmallHand {
    attack: u32,
}

impl SmallHand {
    /// Ticks the tree once.
    #[inline]
    pub fn tick(&mut self, a: &mut Agent) -> Status {
        let attack = if self.attack != 0 {
            a.act_tick(ATTACK, &mut self.attack)
        } else if a.sense(ENEMY_VISIBLE) {
            a.act_start(ATTACK, &mut self.attack)
        } else {
            Status::Failure
        };
        match attack {
            Status::Failure => a.act_now(IDLE),
            done_or_running => done_or_running,
        }
    }
}

/// The guard by hand. The priority branches are exclusive, so they share
/// one action slot.
#[derive(Default, Clone, Debug)]
pub struct GuardHand {
    /// `look_around` ticks left, 0 when not running.
    look: u32,
    /// Ticks left of the running branch's action.
    act: u32,
    /// Running branch, 1 to 5; 0 when none.
    branch: u8,
    /// Parallel: bit 0 when `look_around` is done, bit 1 when the
    /// priorities succeeded.
    done: u8,
}

impl GuardHand {
    /// Ticks the tree once.
    #[inline]
    pub fn tick(&mut self, a: &mut Agent) -> Status {
        if self.done & 1 == 0 {
            let look = if self.look == 0 {
                a.act_start(10, &mut self.look)
            } else {
                a.act_tick(10, &mut self.look)
            };
            // force_success: done either way.
            if look.is_done() {
                self.done |= 1;
            }
        }
        if self.done & 2 == 0 {
            match self.priorities(a) {
                Status::Success => self.done |= 2,
                Status::Failure => {
                    if self.done & 1 == 0 && self.look != 0 {
                        self.look = 0;
                        a.act_halt();
                    }
                    self.done = 0;
                    return Status::Failure;
                }
                Status::Running => {}
            }
        }
        if self.done == 3 {
            self.done = 0;
            Status::Success
        } else {
            Status::Running
        }
    }

    #[inline]
    fn priorities(&mut self, a: &mut Agent) -> Status {
        if a.sense(0) && !a.sense(1) {
            if let s @ (Status::Success | Status::Running) = self.run(1, 11, a) {
                return s;
            }
        } else {
            self.leave(1, a);
        }
        if a.sense(2) && a.sense(3) {
            if let s @ (Status::Success | Status::Running) = self.run(2, 12, a) {
                return s;
            }
        } else {
            self.leave(2, a);
        }
        if a.sense(2) {
            if let s @ (Status::Success | Status::Running) = self.run(3, 13, a) {
                return s;
            }
        } else {
            self.leave(3, a);
        }
        if a.sense(4) {
            if let s @ (Status::Success | Status::Running) = self.run(4, 14, a) {
                return s;
            }
        } else {
            self.leave(4, a);
        }
        self.run(5, 15, a)
    }

    /// Runs `branch`'s action `id`. Another running branch is halted only
    /// if this one does not fail at once (a failing branch preempts
    /// nothing), so a fresh start goes to a scratch slot first.
    #[inline]
    fn run(&mut self, branch: u8, id: u32, a: &mut Agent) -> Status {
        let status = if self.branch == branch {
            a.act_tick(id, &mut self.act)
        } else {
            let mut left = 0;
            let status = a.act_start(id, &mut left);
            if status.is_failure() {
                return status;
            }
            if self.branch != 0 {
                a.act_halt();
            }
            self.act = left;
            status
        };
        self.branch = if status.is_running() { branch } else { 0 };
        status
    }

    /// `branch`'s condition failed: halt its action if it was running.
    #[inline]
    fn leave(&mut self, branch: u8, a: &mut Agent) {
        if self.branch == branch {
            self.branch = 0;
            a.act_halt();
        }
    }
}

include!("generated/large_hand.rs");
