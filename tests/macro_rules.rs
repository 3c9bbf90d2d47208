//! Trees written by `macro_rules!`: every fragment kind substitutes where a
//! token of its kind is allowed (`literal` counts, thresholds and
//! durations, `path` leaves and subtrees, `expr` conditions and actions,
//! `ty` parameters and `when let` types, `ident` names and keywords,
//! `lifetime` labels, `tt` anything), and the tree runs as written by hand.

use bt::prelude::*;
use bt::{BehaviorTree, Ctx};

/// An agent that counts what its leaves did.
pub struct Bot {
    n: u32,
}

/// Adds one and succeeds.
pub struct Step;

impl Leaf<Bot> for Step {
    type Memory = u8;
    fn tick(&self, _: &mut u8, me: &mut Bot) -> Status {
        me.n += 1;
        Status::Success
    }
}

/// Leaves under another name.
pub mod ai {
    pub use super::Step as Go;
}

behavior_tree! {
    /// Embedded through a `path` fragment.
    pub tree Twice(me: &mut Bot) { sequence { Step, Step } }
}

/// Writes a tree from one of each fragment kind.
macro_rules! tree_of {
    (
        $name:ident, $count:literal, $seconds:literal, $leaf:path, $other:path, $tree:path,
        $cond:expr,
        $agent:ty, $value:ty, $label:lifetime, $constant:tt, $composite:ident
    ) => {
        behavior_tree! {
            pub tree $name(me: &mut $agent, cx: &Ctx) {
                $label: repeat($count) {
                    $composite {
                        $leaf,
                        $other,
                        $tree(me),
                        cond $cond,
                        $constant,
                        wait($seconds),
                        parallel(success = $count, failure = 1) { success, success, success },
                        prioritized {
                            when let Some(k): Option<$value> = Some($count) => action { me.n += k; Status::Success },
                            else => failure,
                        },
                    }
                }
            }
        }
    };
}

tree_of!(Made, 3, 0, Step, ai::Go, Twice, 1 + 1 == 2, Bot, u32, 'made, success, sequence);

behavior_tree! {
    /// The same tree, by hand.
    pub tree Written(me: &mut Bot, cx: &Ctx) {
        'made: repeat(3) {
            sequence {
                Step,
                ai::Go,
                Twice(me),
                cond 1 + 1 == 2,
                success,
                wait(0),
                parallel(success = 3, failure = 1) { success, success, success },
                prioritized {
                    when let Some(k): Option<u32> = Some(3) => action { me.n += k; Status::Success },
                    else => failure,
                },
            }
        }
    }
}

#[test]
fn a_tree_from_every_fragment_kind_runs_as_written_by_hand() {
    let cx = Ctx::new(0.0, 1.0);
    let (mut made, mut written) = (Bot { n: 0 }, Bot { n: 0 });
    assert_eq!(Made::default().tick(&mut made, &cx), Status::Success);
    assert_eq!(Written::default().tick(&mut written, &cx), Status::Success);
    // Three runs of: 1 + 1 + 2 + 3.
    assert_eq!((made.n, written.n), (21, 21));
    assert_eq!(Made::LAYOUT_HASH, Written::LAYOUT_HASH);
    assert_eq!(Made::NODES.len(), Written::NODES.len());
    assert_eq!(Made::NODES[0].label, Some("made"));
}
