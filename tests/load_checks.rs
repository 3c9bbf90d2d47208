//! Loading refuses every value a tree's state can never hold, with a typed
//! error naming the node and the value: counts past their bounds,
//! positions past the last child, marks, masks, times that are not
//! numbers, `when let` values that no longer match, and shared objects
//! whose counters disagree with their agents or their layout.

use bt::prelude::*;
use bt::save::{Checked, InvalidState, LoadError, Problem};
use bt::{BehaviorTree, Ctx};
use serde_json::{Value, json};

/// An agent for small trees.
#[derive(Default)]
pub struct Bot {
    want: Option<u8>,
}

/// Runs for two ticks.
pub struct Two;

impl Leaf<Bot> for Two {
    type Memory = u8;
    fn tick(&self, ticks: &mut u8, _: &mut Bot) -> Status {
        *ticks = ticks.saturating_add(1);
        if *ticks >= 2 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

bt::behavior_tree! {
    #[bt(serde)]
    pub tree Rep(me: &mut Bot) { 'rep: repeat(3) { Two } }

    #[bt(serde)]
    pub tree Guarded(me: &mut Bot, cx: &Ctx) {
        prioritized { 'v: when let Some(_x): Option<u8> = me.want => Two, else => wait(1) }
    }

    #[bt(serde)]
    pub tree Timed(me: &mut Bot, cx: &Ctx) {
        sequence { 'cool: cooldown(1) { Two }, 'w: wait(2) }
    }

    #[bt(serde)]
    pub tree Par(me: &mut Bot, cx: &Ctx) {
        'par: parallel(success = 3, failure = 2) { Two, Two, wait(9), wait(9) }
    }

    #[bt(serde)]
    pub tree Memo(me: &mut Bot) {
        sequence {
            'once: run_once { Two },
            'memo: sequence_with_memory { Two, Two },
        }
    }

    #[bt(serde)]
    pub tree Each(me: &mut Bot) {
        'each: for_each(_n: u8 = me.want.take()) { Two }
    }

    #[bt(serde)]
    pub tree Door(me: &mut Bot, cx: &Ctx, shared: &DoorShared) {
        'door: gate(1) { sequence { Two, Two } }
    }
}

/// `tree`'s saved JSON with the value at `pointer` replaced.
fn edited<T: bt::serde::Serialize>(tree: &T, pointer: &str, value: Value) -> String {
    let mut json = serde_json::to_value(tree).unwrap();
    let text = json.to_string();
    *json
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in {text}")) = value;
    json.to_string()
}

/// The typed refusal of `json` as a `T`, which must also be the format's
/// error when loading `T` itself.
fn refusal<T>(json: &str) -> InvalidState
where
    T: bt::serde::de::DeserializeOwned + std::fmt::Debug,
    Checked<T>: bt::serde::de::DeserializeOwned,
{
    let message = serde_json::from_str::<T>(json).unwrap_err().to_string();
    match serde_json::from_str::<Checked<T>>(json).unwrap().0 {
        Err(LoadError::Invalid(invalid)) => {
            assert!(message.starts_with(&invalid.to_string()), "{message}");
            invalid
        }
        other => panic!("{json} gave {other:?}"),
    }
}

fn label(invalid: &InvalidState) -> Option<&'static str> {
    invalid.node.label
}

#[test]
fn a_count_past_its_bound_is_refused() {
    let (mut me, mut tree) = (Bot::default(), Rep::default());
    tree.tick(&mut me); // first run, 1 of 2 ticks
    tree.tick(&mut me); // first run done, second started: count 1
    let json = serde_json::to_value(&tree).unwrap();
    assert_eq!(json["active"]["root"]["count"], json!(1), "{json}");
    for count in [3, 255] {
        let invalid = refusal::<Rep>(&edited(&tree, "/active/root/count", json!(count)));
        assert_eq!(label(&invalid), Some("rep"));
        assert_eq!(
            invalid.problem,
            Problem::OutOfRange {
                field: "count",
                found: count,
                max: 2
            }
        );
    }
    // The largest count allowed loads.
    let loaded: Rep = serde_json::from_str(&edited(&tree, "/active/root/count", json!(2))).unwrap();
    let mut loaded = loaded;
    assert_eq!(loaded.tick(&mut me), Status::Success);
}

#[test]
fn a_for_each_item_held_while_the_loop_does_not_run_is_refused() {
    let mut me = Bot { want: Some(7) };
    let mut tree = Each::default();
    tree.tick(&mut me);
    let json = serde_json::to_value(&tree).unwrap();
    assert_eq!(json["active"]["root"]["item"], json!(7), "{json}");
    assert_eq!(json["active"]["root"]["active"], json!(true), "{json}");
    // The state as saved loads.
    let saved = json.to_string();
    assert!(
        serde_json::from_str::<Checked<Each>>(&saved)
            .unwrap()
            .0
            .is_ok()
    );
    // An item beside a loop that is not running is a state no tick makes.
    let invalid = refusal::<Each>(&edited(&tree, "/active/root/active", json!(false)));
    assert_eq!(
        (label(&invalid), invalid.problem),
        (
            Some("each"),
            Problem::OutOfRange {
                field: "item",
                found: 1,
                max: 0
            }
        )
    );
}

#[test]
fn a_when_let_value_that_no_longer_matches_is_refused() {
    let mut me = Bot { want: Some(3) };
    let mut tree = Guarded::default();
    tree.tick(&mut me, &Ctx::new(0.0, 0.1));
    let json = serde_json::to_value(&tree).unwrap();
    assert_eq!(json["active"]["root"]["N1"][1], json!(3), "{json}");
    let invalid = refusal::<Guarded>(&edited(&tree, "/active/root/N1/1", Value::Null));
    assert_eq!(
        (label(&invalid), invalid.problem),
        (Some("v"), Problem::NoMatch)
    );
    let message = invalid.to_string();
    assert!(
        message.contains("'v: sequence") || message.contains("'v: leaf"),
        "{message}"
    );
    assert!(
        message.contains("no longer matches its `when let` pattern"),
        "{message}"
    );
}

#[test]
fn a_time_that_is_not_a_number_is_refused() {
    let mut me = Bot::default();
    let mut tree = Timed::default();
    for t in 0..3 {
        tree.tick(&mut me, &Ctx::new(f64::from(t), 1.0));
    }
    let json = serde_json::to_value(&tree).unwrap();
    // Waiting since 1 s; the cooldown is closed until 2 s.
    assert_eq!(json["active"]["root"]["N3"], json!(1.0), "{json}");
    assert_eq!(json["keep"]["n1_ready"], json!(2.0), "{json}");
    let invalid = refusal::<Timed>(&edited(&tree, "/keep/n1_ready", json!("NaN")));
    assert_eq!(
        (label(&invalid), invalid.problem),
        (Some("cool"), Problem::NotANumber { field: "n1_ready" })
    );
    // Infinite deadlines are times: a cooldown that never ran is `-inf`.
    for t in ["inf", "-inf"] {
        let _: Timed = serde_json::from_str(&edited(&tree, "/keep/n1_ready", json!(t))).unwrap();
    }
    // In postcard, a NaN's bits where a time was.
    let nan_at = |at: f64| {
        let mut bytes = postcard::to_allocvec(&tree).unwrap();
        let i = bytes
            .windows(8)
            .position(|w| w == at.to_le_bytes())
            .unwrap();
        bytes[i..i + 8].copy_from_slice(&f64::NAN.to_le_bytes());
        match postcard::from_bytes::<Checked<Timed>>(&bytes).unwrap().0 {
            Err(LoadError::Invalid(invalid)) => (label(&invalid), invalid.problem),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        nan_at(1.0),
        (Some("w"), Problem::NotANumber { field: "started" })
    );
    assert_eq!(
        nan_at(2.0),
        (Some("cool"), Problem::NotANumber { field: "n1_ready" })
    );
}

#[test]
fn masks_outside_a_parallels_children_or_past_its_thresholds_are_refused() {
    let mut me = Bot::default();
    let mut tree = Par::default();
    tree.tick(&mut me, &Ctx::new(0.0, 1.0));
    tree.tick(&mut me, &Ctx::new(1.0, 1.0)); // both leaves succeeded
    let json = serde_json::to_value(&tree).unwrap();
    let root = &json["active"]["root"];
    assert_eq!(root["succeeded"], json!(0b0011), "{json}");
    let refused =
        |pointer: &str, value: Value| refusal::<Par>(&edited(&tree, pointer, value)).problem;
    // A fifth child.
    assert_eq!(
        refused("/active/root/succeeded", json!(0b1_0011)),
        Problem::Bits {
            field: "succeeded",
            found: 0b1_0011,
            allowed: 0b1111
        }
    );
    // A child that both succeeded and failed.
    assert_eq!(
        refused("/active/root/failed", json!(0b0001)),
        Problem::Bits {
            field: "failed",
            found: 0b0001,
            allowed: 0b1100
        }
    );
    // Three successes would have finished it.
    assert_eq!(
        refused("/active/root/succeeded", json!(0b0111)),
        Problem::OutOfRange {
            field: "children succeeded",
            found: 3,
            max: 2
        }
    );
    assert_eq!(
        refused("/active/root/failed", json!(0b1100)),
        Problem::OutOfRange {
            field: "children failed",
            found: 2,
            max: 1
        }
    );
}

#[test]
fn positions_and_marks_past_their_nodes_are_refused() {
    let mut me = Bot::default();
    let mut tree = Memo::default();
    for _ in 0..4 {
        tree.tick(&mut me);
    }
    let json = serde_json::to_value(&tree).unwrap();
    assert_eq!(json["keep"]["n1_once"], json!(1), "{json}");
    let invalid = refusal::<Memo>(&edited(&tree, "/keep/n1_once", json!(3)));
    assert_eq!(
        (label(&invalid), invalid.problem),
        (
            Some("once"),
            Problem::OutOfRange {
                field: "n1_once",
                found: 3,
                max: 2
            }
        )
    );
    let invalid = refusal::<Memo>(&edited(&tree, "/keep/n3_next", json!(2)));
    assert_eq!(
        (label(&invalid), invalid.problem),
        (
            Some("memo"),
            Problem::OutOfRange {
                field: "n3_next",
                found: 2,
                max: 1
            }
        )
    );
}

#[test]
fn a_shared_object_is_checked_against_its_layout_bounds_and_agents() {
    let shared = DoorShared::new();
    let cx = Ctx::new(0.0, 1.0);
    let mut agents: Vec<(Bot, Door)> = (0..3).map(|_| (Bot::default(), Door::default())).collect();
    for (me, tree) in &mut agents {
        tree.tick(me, &cx, &shared);
    }
    assert_eq!(shared.door.inside(), 1);
    let trees = || agents.iter().map(|(_, t)| t);
    assert_eq!(shared.check(trees()), Ok(()));

    // Saved with its tree's layout, in any key order.
    let json = serde_json::to_value(&shared).unwrap();
    assert_eq!(
        json,
        json!({ "layout": Door::LAYOUT_HASH, "counters": { "door": 1 } })
    );
    let reordered = format!(
        r#"{{"counters":{},"layout":{}}}"#,
        json["counters"], json["layout"]
    );
    let loaded: DoorShared = serde_json::from_str(&reordered).unwrap();
    assert_eq!(loaded.check(trees()), Ok(()));

    // A gate fuller than its capacity.
    let full = json!({ "layout": Door::LAYOUT_HASH, "counters": { "door": 2 } }).to_string();
    match serde_json::from_str::<Checked<DoorShared>>(&full)
        .unwrap()
        .0
    {
        Err(LoadError::Invalid(invalid)) => assert_eq!(
            invalid.problem,
            Problem::Shared {
                field: "permits taken",
                found: 2,
                expected: 1
            }
        ),
        other => panic!("{other:?}"),
    }
    // A fresh object under agents that hold a permit.
    let fresh = DoorShared::new();
    let invalid = fresh.check(trees()).unwrap_err();
    assert_eq!(label(&invalid), Some("door"));
    assert_eq!(
        invalid.problem,
        Problem::Shared {
            field: "permits taken",
            found: 0,
            expected: 1
        }
    );
    assert!(invalid.to_string().contains("0 permits taken"), "{invalid}");
    // Another tree's shared object.
    let other = json!({ "layout": Rep::LAYOUT_HASH, "counters": { "door": 0 } }).to_string();
    match serde_json::from_str::<Checked<DoorShared>>(&other)
        .unwrap()
        .0
    {
        Err(LoadError::Layout(m)) => {
            assert_eq!((m.found, m.expected), (Rep::LAYOUT_HASH, Door::LAYOUT_HASH))
        }
        other => panic!("{other:?}"),
    }
}
