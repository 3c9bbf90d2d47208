//! A saved tree embedding a tree that is not saved: the error points at the
//! embedded tree, in the same invocation or from another.

use bt::prelude::*;

pub struct Bot;

behavior_tree! {
    pub tree Step(me: &mut Bot) {
        sequence { action Status::Running, action Status::Success }
    }

    #[bt(serde)]
    pub tree Walk(me: &mut Bot) {
        repeat(3) { Step(me) }
    }
}

mod elsewhere {
    use super::*;

    behavior_tree! {
        #[bt(serde)]
        pub tree Run(me: &mut Bot) {
            repeat(3) { Step(me) }
        }
    }
}

fn main() {}
