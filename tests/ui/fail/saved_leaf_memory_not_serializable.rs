//! A saved tree's leaf whose memory type cannot be saved: the error names
//! the leaf.

use bt::prelude::*;

pub struct Bot;

/// Not `Serialize`.
#[derive(Clone, Debug, Default)]
pub struct Route(Vec<u32>);

pub struct Follow;

impl Leaf<Bot> for Follow {
    type Memory = Route;
    fn tick(&self, _: &mut Route, _: &mut Bot) -> Status {
        Status::Running
    }
}

behavior_tree! {
    #[bt(serde)]
    pub tree Patrol(me: &mut Bot) {
        sequence { Follow, action Status::Success }
    }
}

fn main() {}
