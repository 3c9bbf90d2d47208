//! Saving and loading running trees (`#[bt(serde)]`): a tree with subtrees
//! and `when let` guards carries on exactly from every save, in JSON and in
//! postcard, re-run from a tape of its inputs; the layout hash changes with
//! the tree's shape and not with its expressions, and a mismatch is refused;
//! a parallel's running leaves stay running; stimuli stores and shared
//! objects load as they were saved.
//!
//! The example trees (the creature, the squad with its shared state) are
//! saved and replayed in `bt-difftest`'s `save` tests.

use bt::bitflags::bitflags;
use bt::record::{NodeStatus, Recorder};
use bt::replay::Tape;
use bt::save::{Checked, LayoutMismatch, LoadError};
use bt::serde::{Deserialize, Serialize};
use bt::{BehaviorTree, Ctx, Leaf, NoFlags, Status, Stimuli, Trace, TraceEvent, Tracer};
use std::cell::RefCell;

bitflags! {
    /// What a forager senses; scripted per tick by the test.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Senses: u8 {
        /// A predator is near.
        const DANGER = 1;
    }
}

/// An agent on a line: food appears and is eaten, it hides from danger.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(crate = "bt::serde")]
pub struct Forager {
    x: i32,
    seed: u64,
    food: Option<i32>,
    eaten: u32,
    greeted: u32,
    /// Walks halted before they arrived.
    halted: u32,
}

impl Forager {
    fn roll(&mut self, percent: u64) -> bool {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % 100 < percent
    }

    /// The world's turn: food appears now and then.
    fn world(&mut self) {
        if self.food.is_none() && self.roll(8) {
            self.food = Some((self.seed % 13) as i32 - 6);
        }
    }

    fn eat(&mut self, at: i32) -> Status {
        if self.food == Some(at) && self.x == at {
            self.food = None;
            self.eaten += 1;
            Status::Success
        } else {
            Status::Failure
        }
    }
}

/// Walks one step per tick toward `to`; its memory counts the steps.
pub struct Walk {
    to: i32,
}

impl Leaf<Forager> for Walk {
    type Memory = u16;
    fn start(&self, steps: &mut u16, me: &mut Forager) -> Status {
        *steps = 0;
        self.tick(steps, me)
    }
    fn tick(&self, steps: &mut u16, me: &mut Forager) -> Status {
        if me.x == self.to {
            return Status::Success;
        }
        me.x += (self.to - me.x).signum();
        *steps += 1;
        Status::Running
    }
    fn halt(_: &mut u16, me: &mut Forager) {
        me.halted += 1;
    }
}

/// Stands still for a while; its memory is `()`, which JSON alone cannot
/// tell from "not running".
pub struct Pause;

impl Leaf<Forager> for Pause {
    type Memory = ();
    fn start(&self, _: &mut (), _: &mut Forager) -> Status {
        Status::Running
    }
    fn tick(&self, _: &mut (), me: &mut Forager) -> Status {
        Status::from(me.roll(40)).or(Status::Running)
    }
}

trait OrRunning {
    fn or(self, other: Status) -> Status;
}

impl OrRunning for Status {
    fn or(self, other: Status) -> Status {
        if self == Status::Success { self } else { other }
    }
}

bt::behavior_tree! {
    /// Walks to the food and pauses there (embedded by `Foraging`).
    #[bt(serde)]
    pub tree Approach(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
        sequence {
            'walk: Walk { to: me.food.unwrap_or(me.x) },
            timeout(3) { Pause },
        }
    }

    /// Hides from danger, eats the food it sees, roams otherwise.
    #[bt(serde)]
    pub tree Foraging(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
        'root: prioritized {
            'hide: stimuli(any = Senses::DANGER) => sequence { Walk { to: 0 }, wait(1.5) },
            'eat: when let Some(at): Option<i32> = me.food => sequence {
                'approach: Approach(me, cx),
                action me.eat(*at),
            },
            'roam: else => sequential {
                cooldown(4) { Walk { to: 5 } },
                Walk { to: -5 },
                run_once { action { me.greeted += 1; Status::Success } },
            },
        }
    }
}

const AGENTS: u64 = 4;
const TICKS: usize = 400;
const DT: f64 = 0.25;

/// Every level-6 trace line (statuses, guard verdicts, activations) with
/// the tick it was emitted in.
type Lines = RefCell<Vec<(usize, String)>>;

fn tracer<'a>(
    lines: &'a Lines,
    tick: &'a std::cell::Cell<usize>,
) -> Tracer<impl Fn(&TraceEvent) + 'a> {
    Tracer::new(6, move |e: &TraceEvent| {
        lines.borrow_mut().push((tick.get(), e.to_string()))
    })
}

/// The scripted danger of agent `a` at tick `t`.
fn danger(a: u64, t: usize) -> Senses {
    if (t as u64 + 7 * a) % 97 < 9 {
        Senses::DANGER
    } else {
        Senses::empty()
    }
}

/// (time, uid, status) of each transition after `after` seconds.
fn transitions_after(recorder: &Recorder, agent: u64, after: f64) -> Vec<(f64, u16, NodeStatus)> {
    recorder
        .transitions(agent)
        .unwrap()
        .into_iter()
        .filter(|t| t.time > after)
        .map(|t| (t.time, t.uid, t.status))
        .collect()
}

/// What was saved before a tick.
struct Saved {
    tick: usize,
    json: String,
    postcard: Vec<u8>,
    statuses: Vec<Vec<NodeStatus>>,
}

#[test]
fn a_tree_with_subtrees_and_when_let_carries_on_exactly_from_every_save() {
    let tick = std::cell::Cell::new(0);
    let lines = Lines::default();
    let recorder = Recorder::new::<Foraging>(AGENTS as usize, 1 << 16);
    let trace = (tracer(&lines, &tick), &recorder);
    let mut agents: Vec<(Forager, Foraging)> = (0..AGENTS)
        .map(|a| {
            let forager = Forager {
                seed: 0x9E37_79B9 ^ (a + 1).wrapping_mul(0x2545_F491_4F6C_DD1D),
                ..Forager::default()
            };
            (forager, Foraging::default())
        })
        .collect();
    let mut tape = Tape::with_capacity(TICKS * AGENTS as usize);
    let mut saves = Vec::new();
    for t in 0..TICKS {
        if t > 0 && t % 50 == 0 {
            saves.push(Saved {
                tick: t,
                json: serde_json::to_string(&agents).unwrap(),
                postcard: postcard::to_allocvec(&agents).unwrap(),
                statuses: (0..AGENTS)
                    .map(|a| recorder.current_statuses(a).unwrap())
                    .collect(),
            });
        }
        tick.set(t);
        for (a, (forager, tree)) in agents.iter_mut().enumerate() {
            forager.world();
            let cx = Ctx::new((t + 1) as f64 * DT, DT)
                .stimuli(danger(a as u64, t))
                .agent(a as u64)
                .trace(&trace);
            tape.record(&cx);
            tree.tick(forager, &cx);
        }
    }
    let lines = lines.take();
    // The run went everywhere worth saving in: walks halted by danger,
    // meals, greetings, and saves made while the subtree ran.
    let total = |f: fn(&Forager) -> u32| agents.iter().map(|(f2, _)| f(f2)).sum::<u32>();
    assert!(total(|f| f.eaten) > 5 && total(|f| f.halted) > 3 && total(|f| f.greeted) == 4);
    let approach = Foraging::NODES
        .iter()
        .position(|n| n.label == Some("approach"))
        .unwrap();
    let in_subtree = saves
        .iter()
        .filter(|s| {
            let agents: Vec<(Forager, Foraging)> = serde_json::from_str(&s.json).unwrap();
            agents.iter().any(|(_, tree)| {
                let mut inside = false;
                tree.visit_active(0, &mut |n| inside |= n.info.id == approach);
                inside
            })
        })
        .count();
    assert!(
        in_subtree >= 2,
        "only {in_subtree} saves caught an agent inside the subtree"
    );

    for save in &saves {
        let json: Vec<(Forager, Foraging)> = serde_json::from_str(&save.json).unwrap();
        let compact: Vec<(Forager, Foraging)> = postcard::from_bytes(&save.postcard).unwrap();
        for (format, mut again) in [("JSON", json), ("postcard", compact)] {
            let tick = std::cell::Cell::new(save.tick);
            let lines_again = Lines::default();
            let recorder_again = Recorder::new::<Foraging>(AGENTS as usize, 1 << 16);
            for a in 0..AGENTS {
                recorder_again
                    .resume(a, &save.statuses[a as usize])
                    .unwrap();
            }
            let trace = (tracer(&lines_again, &tick), &recorder_again);
            let mut contexts: Vec<_> = (0..AGENTS)
                .map(|a| tape.replay(a, save.tick, &trace))
                .collect();
            for t in save.tick..TICKS {
                tick.set(t);
                for (a, (forager, tree)) in again.iter_mut().enumerate() {
                    forager.world();
                    let cx = contexts[a].next().expect("the tape has every tick");
                    tree.tick(forager, &cx);
                }
            }
            let expected: Vec<&(usize, String)> =
                lines.iter().filter(|(t, _)| *t >= save.tick).collect();
            let lines_again = lines_again.take();
            assert_eq!(
                lines_again.iter().collect::<Vec<_>>(),
                expected,
                "{format} save before tick {}: the trace differs",
                save.tick
            );
            let saved_at = save.tick as f64 * DT;
            for a in 0..AGENTS {
                let first = transitions_after(&recorder, a, saved_at);
                assert!(!first.is_empty());
                assert_eq!(
                    transitions_after(&recorder_again, a, saved_at),
                    first,
                    "{format} save before tick {}: agent {a}'s transitions differ",
                    save.tick
                );
            }
            assert_eq!(
                format!("{again:?}"),
                format!("{agents:?}"),
                "{format} save before tick {}: the agents end elsewhere",
                save.tick
            );
        }
    }
}

/// A tree as `Foraging` is shaped, under other expressions.
mod edited {
    use super::*;

    fn far(x: i32) -> bool {
        x.abs() > 2
    }

    bt::behavior_tree! {
        #[bt(serde)]
        pub tree Foraging(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
            'root: prioritized {
                'hide: stimuli(any = Senses::DANGER) => sequence { Walk { to: 1 }, wait(3) },
                'eat: when far(me.x) when let Some(at): Option<i32> = me.food.filter(|f| *f > -5) => sequence {
                    'approach: Approach(me, cx),
                    action { me.eat(*at) },
                },
                'roam: else => sequential {
                    cooldown(7.5) { Walk { to: 6 } },
                    Walk { to: -4 },
                    run_once { action { me.greeted += 2; Status::Success } },
                },
            }
        }
    }
}

/// Trees one change away from `Foraging`'s shape.
mod reshaped {
    use super::*;

    bt::behavior_tree! {
        /// A label renamed.
        pub tree Relabelled(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
            'root: prioritized {
                'flee: stimuli(any = Senses::DANGER) => sequence { Walk { to: 0 }, wait(1.5) },
                'eat: when let Some(at): Option<i32> = me.food => sequence {
                    'approach: Approach(me, cx),
                    action me.eat(*at),
                },
                'roam: else => sequential {
                    cooldown(4) { Walk { to: 5 } },
                    Walk { to: -5 },
                    run_once { action { me.greeted += 1; Status::Success } },
                },
            }
        }

        /// Another leaf type in a node.
        pub tree OtherLeaf(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
            'root: prioritized {
                'hide: stimuli(any = Senses::DANGER) => sequence { Walk { to: 0 }, wait(1.5) },
                'eat: when let Some(at): Option<i32> = me.food => sequence {
                    'approach: Approach(me, cx),
                    action me.eat(*at),
                },
                'roam: else => sequential {
                    cooldown(4) { Pause },
                    Walk { to: -5 },
                    run_once { action { me.greeted += 1; Status::Success } },
                },
            }
        }

        /// The `when let` binding another type.
        pub tree OtherBinding(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
            'root: prioritized {
                'hide: stimuli(any = Senses::DANGER) => sequence { Walk { to: 0 }, wait(1.5) },
                'eat: when let Some(at): Option<i64> = me.food.map(i64::from) => sequence {
                    'approach: Approach(me, cx),
                    action me.eat(*at as i32),
                },
                'roam: else => sequential {
                    cooldown(4) { Walk { to: 5 } },
                    Walk { to: -5 },
                    run_once { action { me.greeted += 1; Status::Success } },
                },
            }
        }

        /// A node more.
        pub tree Grown(me: &mut Forager, cx: &Ctx<NoFlags, Senses, impl Trace>) {
            'root: prioritized {
                'hide: stimuli(any = Senses::DANGER) => sequence { Walk { to: 0 }, wait(1.5) },
                'eat: when let Some(at): Option<i32> = me.food => sequence {
                    'approach: Approach(me, cx),
                    action me.eat(*at),
                },
                'roam: else => sequential {
                    cooldown(4) { Walk { to: 5 } },
                    Walk { to: -5 },
                    Walk { to: 0 },
                    run_once { action { me.greeted += 1; Status::Success } },
                },
            }
        }

        /// A count changed.
        pub tree Counted(me: &mut Forager) {
            repeat(3) { Walk { to: 2 } }
        }

        /// The same with another count.
        pub tree Recounted(me: &mut Forager) {
            repeat(4) { Walk { to: 2 } }
        }

        /// An embedded tree of another shape: `Counted` for `Approach`.
        pub tree EmbedsCounted(me: &mut Forager) {
            sequence { 'approach: Counted(me), action me.eat(0) }
        }

        /// The same, embedding `Recounted`.
        pub tree EmbedsRecounted(me: &mut Forager) {
            sequence { 'approach: Recounted(me), action me.eat(0) }
        }
    }
}

#[test]
fn the_layout_hash_follows_the_shape_and_not_the_expressions() {
    use reshaped::*;
    // Durations, guards, leaf fields, actions and arguments edited.
    assert_eq!(edited::Foraging::LAYOUT_HASH, Foraging::LAYOUT_HASH);
    let shapes = [
        ("a label", Relabelled::LAYOUT_HASH),
        ("a leaf type", OtherLeaf::LAYOUT_HASH),
        ("a `when let` type", OtherBinding::LAYOUT_HASH),
        ("a node added", Grown::LAYOUT_HASH),
    ];
    for (change, hash) in shapes {
        assert_ne!(hash, Foraging::LAYOUT_HASH, "{change} left the hash alone");
    }
    assert_ne!(Counted::LAYOUT_HASH, Recounted::LAYOUT_HASH, "a count");
    assert_ne!(
        EmbedsCounted::LAYOUT_HASH,
        EmbedsRecounted::LAYOUT_HASH,
        "an embedded tree's shape"
    );
    // The hash is the shape's, not the name's: these two differ only in
    // their names and what they embed, which have the same shape.
    assert_ne!(Approach::LAYOUT_HASH, Foraging::LAYOUT_HASH);
}

/// `Foraging`'s state after some ticks, an agent mid-walk.
fn running_foraging() -> (Forager, Foraging) {
    let mut me = Forager {
        seed: 99,
        ..Forager::default()
    };
    let mut tree = Foraging::default();
    for t in 0..3 {
        let cx = Ctx::new(f64::from(t), 1.0);
        tree.tick(&mut me, &cx.stimuli(Senses::empty()));
    }
    assert!(tree.is_active());
    (me, tree)
}

bt::behavior_tree! {
    /// Shaped unlike `Foraging`.
    #[bt(serde)]
    pub tree Other(me: &mut Forager) {
        sequence { Walk { to: 3 }, Walk { to: 0 } }
    }
}

#[test]
fn a_state_saved_by_a_tree_of_another_shape_is_refused() {
    let (_, tree) = running_foraging();
    let mismatch = LoadError::Layout(LayoutMismatch {
        tree: "Other",
        expected: Other::LAYOUT_HASH,
        found: Foraging::LAYOUT_HASH,
    });
    // As a typed error, from JSON and from postcard.
    let json = serde_json::to_string(&tree).unwrap();
    let checked: Checked<Other> = serde_json::from_str(&json).unwrap();
    assert_eq!(checked.into_result().unwrap_err(), mismatch);
    let bytes = postcard::to_allocvec(&tree).unwrap();
    let checked: Checked<Other> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(checked.0.unwrap_err(), mismatch);
    // In a list, each one is refused and JSON reads on.
    let list = serde_json::to_string(&[&tree, &tree]).unwrap();
    let checked: Vec<Checked<Other>> = serde_json::from_str(&list).unwrap();
    assert!(
        checked
            .iter()
            .all(|c| c.0.as_ref().err() == Some(&mismatch))
    );
    // As the format's error, when loading the tree type itself.
    let error = serde_json::from_str::<Other>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("tree `Other`") && error.contains("changed since"),
        "{error}"
    );
    assert!(postcard::from_bytes::<Other>(&bytes).is_err());
    // The same tree, and one only edited, load.
    let same: Checked<Foraging> = serde_json::from_str(&json).unwrap();
    assert_eq!(format!("{:?}", same.0.unwrap()), format!("{tree:?}"));
    let mut edited: edited::Foraging = serde_json::from_str(&json).unwrap();
    assert!(edited.is_active());
    // It carries on under the edited rules: its walk now goes to 6.
    let (mut me, _) = running_foraging();
    edited.tick(&mut me, &Ctx::new(3.0, 1.0).stimuli(Senses::empty()));
    let mut path = Vec::new();
    edited.visit_active(0, &mut |n| path.push(n.info.detail));
    assert_eq!(path.last(), Some(&"Walk { to: 6 }"), "{path:?}");
}

#[test]
fn a_state_loads_with_its_keys_in_any_order() {
    let (_, tree) = running_foraging();
    let expected = format!("{tree:?}");
    let json = serde_json::to_value(&tree).unwrap();
    let orders = [
        ["active", "layout", "keep"],
        ["keep", "active", "layout"],
        ["active", "keep", "layout"],
    ];
    for order in orders {
        let text = format!(
            r#"{{"{}":{},"{}":{},"{}":{}}}"#,
            order[0], json[order[0]], order[1], json[order[1]], order[2], json[order[2]]
        );
        let loaded: Foraging = serde_json::from_str(&text).unwrap();
        assert_eq!(format!("{loaded:?}"), expected, "keys in order {order:?}");
    }
    // serde_json's own `Value` sorts keys, as `jq -S` and `jsonb` do.
    let sorted = serde_json::to_string(&json).unwrap();
    assert!(sorted.starts_with(r#"{"active":"#), "{sorted}");
    let loaded: Foraging = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(format!("{loaded:?}"), expected);
    let loaded: Foraging = serde_json::from_str(&sorted).unwrap();
    assert_eq!(format!("{loaded:?}"), expected);

    // A layout that comes last is still checked before the parts are
    // read: another tree's parts give the typed mismatch, not the
    // format's error on a variant it does not know.
    let checked: Checked<Other> = serde_json::from_str(&sorted).unwrap();
    assert!(
        matches!(checked.0, Err(LoadError::Layout(m)) if m.found == Foraging::LAYOUT_HASH),
        "{:?}",
        checked.0
    );
    // A field twice is refused, before and after the layout.
    let twice = format!(
        r#"{{"active":{},"active":{},"layout":{},"keep":{}}}"#,
        json["active"], json["active"], json["layout"], json["keep"]
    );
    let error = serde_json::from_str::<Foraging>(&twice).unwrap_err();
    assert!(
        error.to_string().contains("duplicate field `active`"),
        "{error}"
    );
    let twice = format!(
        r#"{{"layout":{},"keep":{},"active":{},"keep":{}}}"#,
        json["layout"], json["keep"], json["active"], json["keep"]
    );
    let error = serde_json::from_str::<Foraging>(&twice).unwrap_err();
    assert!(
        error.to_string().contains("duplicate field `keep`"),
        "{error}"
    );
    // And a missing layout is named.
    let error = serde_json::from_str::<Foraging>(&format!(
        r#"{{"active":{},"keep":{}}}"#,
        json["active"], json["keep"]
    ))
    .unwrap_err();
    assert!(
        error.to_string().contains("missing field `layout`"),
        "{error}"
    );
}

#[test]
fn a_running_leaf_with_unit_memory_stays_running_through_json() {
    // `Pause` (memory `()`) running inside the embedded `Approach`.
    let mut me = Forager {
        seed: 5,
        food: Some(1),
        ..Forager::default()
    };
    let mut tree = Foraging::default();
    let cx = Ctx::new(0.0, 1.0).stimuli(Senses::empty());
    let mut paused = false;
    for t in 0..20 {
        tree.tick(
            &mut me,
            &Ctx {
                now: f64::from(t),
                ..cx
            },
        );
        let mut path = Vec::new();
        tree.visit_active(0, &mut |n| path.push(n.info.detail));
        if path.contains(&"Pause") {
            paused = true;
            break;
        }
    }
    assert!(paused, "the agent never paused");
    let loaded: Foraging = serde_json::from_str(&serde_json::to_string(&tree).unwrap()).unwrap();
    let path = |t: &Foraging| {
        let mut path = Vec::new();
        t.visit_active(0, &mut |n| path.push(n.info.detail));
        path
    };
    assert_eq!(path(&loaded), path(&tree));
    assert!(path(&loaded).contains(&"Pause"));
}

bt::behavior_tree! {
    /// Walks and pauses at once: the parallel holds both leaves' memories
    /// bare, with a bit each saying that they run.
    #[bt(serde)]
    pub tree WalkAndPause(me: &mut Forager) {
        parallel {
            force_success { Walk { to: 5 } },
            sequence { cond me.food.is_some(), Pause },
        }
    }
}

bt::behavior_tree! {
    /// Pauses while it walks to the food or, without food, west: the
    /// parallel holds which way it walks in a tag beside one `Walk` memory.
    #[bt(serde)]
    pub tree PauseAndWalk(me: &mut Forager) {
        parallel {
            force_success { Pause },
            reactive_select {
                reactive_sequence { cond me.food.is_some(), Walk { to: me.food.unwrap_or(0) } },
                Walk { to: -3 },
            },
        }
    }
}

/// The details of `tree`'s active nodes, root first.
fn active_details<T: BehaviorTree>(tree: &T) -> Vec<&'static str> {
    let mut path = Vec::new();
    tree.visit_active(0, &mut |n| path.push(n.info.detail));
    path
}

/// Saves `tree` in JSON and in postcard, and checks that each loaded copy
/// has the same active nodes and carries on as the saved one does.
fn carries_on_after_a_save<T>(tree: &T, me: &Forager, tick: fn(&mut T, &mut Forager) -> Status)
where
    T: BehaviorTree + Clone + Serialize + for<'de> Deserialize<'de>,
{
    let running = active_details(tree);
    let loaded = [
        (
            "JSON",
            serde_json::from_str::<T>(&serde_json::to_string(tree).unwrap()).unwrap(),
        ),
        (
            "postcard",
            postcard::from_bytes::<T>(&postcard::to_allocvec(tree).unwrap()).unwrap(),
        ),
    ];
    for (format, loaded) in loaded {
        assert_eq!(active_details(&loaded), running, "{format}");
        // The saved and the loaded tree carry on alike: resumed leaves, not
        // restarted ones.
        let (mut a, mut b) = (me.clone(), me.clone());
        let (mut saved, mut loaded) = (tree.clone(), loaded);
        for t in 0..12 {
            assert_eq!(
                tick(&mut saved, &mut a),
                tick(&mut loaded, &mut b),
                "{format}, tick {t}"
            );
            assert_eq!(a, b, "{format}, tick {t}");
        }
    }
}

#[test]
fn a_parallel_keeps_which_of_its_leaves_run_through_a_save() {
    let mut me = Forager {
        seed: 9,
        food: Some(0),
        ..Forager::default()
    };
    let mut tree = WalkAndPause::default();
    assert_eq!(tree.tick(&mut me), Status::Running);
    // Both leaves run; `Pause`'s memory is `()`, so only the running bit
    // says so.
    let running = active_details(&tree);
    assert!(running.iter().any(|d| d.starts_with("Walk")), "{running:?}");
    assert!(running.contains(&"Pause"), "{running:?}");
    carries_on_after_a_save(&tree, &me, WalkAndPause::tick);
}

#[test]
fn a_parallel_keeps_which_branch_runs_beside_the_shared_memory_through_a_save() {
    let mut me = Forager {
        seed: 9,
        food: Some(4),
        ..Forager::default()
    };
    let mut tree = PauseAndWalk::default();
    for _ in 0..2 {
        assert_eq!(tree.tick(&mut me), Status::Running);
    }
    assert_eq!(me.x, 2, "two steps toward the food");
    let running = active_details(&tree);
    assert!(
        running.contains(&"Walk { to: me.food.unwrap_or(0) }"),
        "{running:?}"
    );
    carries_on_after_a_save(&tree, &me, PauseAndWalk::tick);
    // The food is gone: the walk to it is halted and the other branch
    // walks west, in the same memory.
    me.food = None;
    assert_eq!(tree.tick(&mut me), Status::Running);
    assert_eq!((me.x, me.halted), (1, 1));
    let running = active_details(&tree);
    assert!(running.contains(&"Walk { to: -3 }"), "{running:?}");
    carries_on_after_a_save(&tree, &me, PauseAndWalk::tick);
}

#[test]
fn stimuli_load_into_the_same_slots_with_their_flags() {
    bitflags! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        struct Sense: u16 { const HIT = 1; const PLAY = 2; const FED = 256; }
    }
    let mut store: Stimuli<Sense, (u8, String), 4> = Stimuli::new();
    store.update(10.0);
    store.add(Sense::PLAY, 2.5, (7, "friend".into())).unwrap();
    store
        .add(Sense::FED, f64::INFINITY, (0, "forever".into()))
        .unwrap();
    store.add(Sense::HIT, 1.0, (1, String::new())).unwrap();
    store.remove(Sense::PLAY); // a hole in slot 0
    let json = serde_json::to_string(&store).unwrap();
    assert!(
        json.contains(r#""inf""#),
        "an endless stimulus is written so JSON can hold it: {json}"
    );
    let from_json: Stimuli<Sense, (u8, String), 4> = serde_json::from_str(&json).unwrap();
    let bytes = postcard::to_allocvec(&store).unwrap();
    let from_postcard: Stimuli<Sense, (u8, String), 4> = postcard::from_bytes(&bytes).unwrap();
    for mut loaded in [from_json, from_postcard] {
        assert_eq!(loaded.now(), 10.0);
        assert_eq!(loaded.flags(), Sense::HIT | Sense::FED);
        assert_eq!(
            loaded.iter().collect::<Vec<_>>(),
            store.iter().collect::<Vec<_>>()
        );
        // The next stimulus goes into the hole, as it would have.
        loaded.add(Sense::PLAY, 1.0, (2, "again".into())).unwrap();
        assert_eq!(loaded.iter().next().map(|s| s.flag), Some(Sense::PLAY));
        assert_eq!(loaded.update(10.5), Sense::HIT | Sense::PLAY | Sense::FED);
        assert_eq!(loaded.update(11.0), Sense::FED);
    }
    // A store of another capacity does not load.
    let error = serde_json::from_str::<Stimuli<Sense, (u8, String), 2>>(&json).unwrap_err();
    assert!(error.to_string().contains("invalid length"), "{error}");
}

#[test]
fn a_tape_keeps_what_each_tick_read_and_saves_it() {
    let mut tape: Tape<NoFlags, Senses> = Tape::new();
    for t in 0..6u32 {
        let cx = Ctx::new(f64::from(t) * 0.5, 0.5)
            .stimuli(danger(u64::from(t % 2), t as usize * 40))
            .agent(u64::from(t % 2));
        tape.record(&cx);
    }
    let agent1: Vec<(f64, Senses)> = tape
        .replay(1, 1, bt::NoTrace)
        .map(|cx| (cx.now, cx.stimuli))
        .collect();
    assert_eq!(
        agent1,
        vec![(1.5, danger(1, 120)), (2.5, danger(1, 200))],
        "agent 1's ticks after its first"
    );
    let json = serde_json::to_string(&tape).unwrap();
    assert_eq!(
        serde_json::from_str::<Tape<NoFlags, Senses>>(&json).unwrap(),
        tape
    );
    let bytes = postcard::to_allocvec(&tape).unwrap();
    assert_eq!(
        postcard::from_bytes::<Tape<NoFlags, Senses>>(&bytes).unwrap(),
        tape
    );
}
