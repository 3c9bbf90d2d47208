//! The one-tick leaf of the trees at the size limits (`scale.rs`,
//! `deep300.rs`).

use bt::{Leaf, Status};

/// Counts starts, ticks and halts.
#[derive(Default)]
pub struct Counter {
    pub starts: u32,
    pub halts: u32,
    /// `Step`s fail while this is set.
    pub fail: bool,
}

/// Runs for one tick, then succeeds (or fails, when the counter says so).
pub struct Step;

impl Leaf<Counter> for Step {
    type Memory = ();
    fn start(&self, _: &mut (), c: &mut Counter) -> Status {
        c.starts += 1;
        Status::Running
    }
    fn tick(&self, _: &mut (), c: &mut Counter) -> Status {
        Status::from(!c.fail)
    }
    fn halt(_: &mut (), c: &mut Counter) {
        c.halts += 1;
    }
}
