//! The example trees saved mid-run and loaded: the creature world carries on
//! exactly from a save every 50 ticks, trace event for trace event and
//! transition for transition; the squad carries on exactly with its shared
//! state (gates, global cooldown, rendezvous), and after loading, the
//! permits taken are the ones its soldiers hold.

#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/creature.rs"]
mod creature;
#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/squad.rs"]
mod squad;

use bt::record::{NodeStatus, Recorder};
use bt::replay::{Frame, Tape};
use bt::serde::{Deserialize, Serialize};
use bt::{BehaviorTree, TraceEvent, Tracer};
use std::cell::{Cell, RefCell};

/// What was saved before a tick: the world in both formats, and the
/// recorder's statuses (which a loaded run's recording resumes from).
struct Saved {
    tick: usize,
    json: String,
    postcard: Vec<u8>,
    statuses: Vec<Vec<NodeStatus>>,
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

#[test]
fn the_creature_world_carries_on_exactly_from_every_save() {
    use creature::{CreatureBrain, World};
    const CREATURES: u64 = 8;
    const TICKS: usize = 800; // 200 s: days and nights, fights, meals, play.
    let tick = Cell::new(0);
    let lines: RefCell<Vec<(usize, String)>> = RefCell::default();
    let tracer = Tracer::new(6, |e: &TraceEvent| {
        lines.borrow_mut().push((tick.get(), e.to_string()))
    });
    let recorder = Recorder::new::<CreatureBrain>(CREATURES as usize, 1 << 16);
    let mut world = World::new(CREATURES, 7);
    let mut tape = Tape::with_capacity(TICKS * CREATURES as usize);
    let mut saves = Vec::new();
    for t in 0..TICKS {
        if t > 0 && t % 50 == 0 {
            saves.push(Saved {
                tick: t,
                json: serde_json::to_string(&world).unwrap(),
                postcard: postcard::to_allocvec(&world).unwrap(),
                statuses: (0..CREATURES)
                    .map(|a| recorder.current_statuses(a).unwrap())
                    .collect(),
            });
        }
        tick.set(t);
        world.step(&(&tracer, &recorder), |_, cx| tape.record(cx));
    }
    let lines = lines.take();
    let end = serde_json::to_string(&world).unwrap();
    let kinds = ["'flee", "'fight", "'growl", "'eat", "'rest", "'play"];
    for kind in kinds {
        assert!(
            lines
                .iter()
                .any(|(_, l)| l.contains("activating") && l.contains(kind)),
            "no creature ever did {kind}"
        );
    }
    assert_eq!(saves.len(), TICKS / 50 - 1);

    for save in &saves {
        let loaded: [(&str, World); 2] = [
            ("JSON", serde_json::from_str(&save.json).unwrap()),
            ("postcard", postcard::from_bytes(&save.postcard).unwrap()),
        ];
        for (format, mut again) in loaded {
            let tick = Cell::new(save.tick);
            let lines_again: RefCell<Vec<(usize, String)>> = RefCell::default();
            let tracer = Tracer::new(6, |e: &TraceEvent| {
                lines_again.borrow_mut().push((tick.get(), e.to_string()))
            });
            let recorder_again = Recorder::new::<CreatureBrain>(CREATURES as usize, 1 << 16);
            for a in 0..CREATURES {
                recorder_again
                    .resume(a, &save.statuses[a as usize])
                    .unwrap();
            }
            // Each tick reads what the first run's did, as its tape has it.
            let mut frames = tape.frames()[save.tick * CREATURES as usize..].iter();
            for t in save.tick..TICKS {
                tick.set(t);
                again.step(&(&tracer, &recorder_again), |_, cx| {
                    assert_eq!(Some(&Frame::of(cx)), frames.next());
                });
            }
            let expected: Vec<_> = lines.iter().filter(|(t, _)| *t >= save.tick).collect();
            let lines_again = lines_again.take();
            assert!(
                lines_again.iter().eq(expected.iter().copied()),
                "{format} save before tick {}: the trace differs",
                save.tick
            );
            let saved_at = save.tick as f64 * creature::DT;
            for a in 0..CREATURES {
                assert!(
                    transitions_after(&recorder_again, a, saved_at)
                        == transitions_after(&recorder, a, saved_at),
                    "{format} save before tick {}: creature {a}'s transitions differ",
                    save.tick
                );
            }
            assert!(
                serde_json::to_string(&again).unwrap() == end,
                "{format} save before tick {}: the world ends elsewhere",
                save.tick
            );
        }
    }
}

/// The squad and its shared object, saved together between ticks.
#[derive(Serialize, Deserialize)]
#[serde(crate = "bt::serde")]
struct Squad {
    shared: squad::SoldierShared,
    soldiers: Vec<(squad::Trooper, squad::Soldier)>,
}

impl Squad {
    fn new(soldiers: u64) -> Squad {
        Squad {
            shared: squad::SoldierShared::new(),
            soldiers: (0..soldiers)
                .map(|id| (squad::Trooper::new(id, 11), squad::Soldier::default()))
                .collect(),
        }
    }

    /// Tick `t` of every soldier, in order.
    fn step(&mut self, t: usize) {
        let now = t as f64 * 0.1;
        for (me, state) in &mut self.soldiers {
            squad::tick_soldier(me, state, now, 0.1, &self.shared);
        }
    }

    /// Everything, as text: the soldiers, their states, the shared object.
    fn snapshot(&self) -> String {
        format!("{:?} {:?}", self.soldiers, self.shared)
    }

    /// Soldiers whose active path holds the node labelled `label`.
    fn inside(&self, label: &str) -> u32 {
        let id = squad::Soldier::NODES
            .iter()
            .position(|n| n.label == Some(label))
            .unwrap();
        let holds = |state: &squad::Soldier| {
            let mut found = false;
            state.visit_active(0, &mut |n| found |= n.info.id == id);
            found
        };
        self.soldiers.iter().filter(|(_, s)| holds(s)).count() as u32
    }
}

#[test]
fn the_squad_carries_on_exactly_with_its_shared_state() {
    const TICKS: usize = 600;
    let mut squad = Squad::new(50);
    let mut snapshots = Vec::with_capacity(TICKS);
    let mut saves = Vec::new();
    for t in 1..=TICKS {
        if t % 50 == 0 {
            saves.push((
                t,
                serde_json::to_string(&squad).unwrap(),
                postcard::to_allocvec(&squad).unwrap(),
            ));
        }
        squad.step(t);
        snapshots.push(squad.snapshot());
    }
    let (mut gates_held, mut pairs) = (0, 0);
    for (t, json, bytes) in &saves {
        let loaded: [(&str, Squad); 2] = [
            ("JSON", serde_json::from_str(json).unwrap()),
            ("postcard", postcard::from_bytes(bytes).unwrap()),
        ];
        for (format, mut again) in loaded {
            // The documented load path's check passes: the permits and
            // memberships loaded are the ones the loaded soldiers hold.
            let shared = &again.shared;
            assert_eq!(
                shared.check(again.soldiers.iter().map(|(_, s)| s)),
                Ok(()),
                "{format} save before tick {t}"
            );
            for (label, taken) in [
                ("grenade", shared.grenade.inside()),
                ("taunt", shared.taunt.inside()),
                ("shoot", shared.shoot.inside()),
            ] {
                assert_eq!(
                    taken,
                    again.inside(label),
                    "{format} save before tick {t}: gate {label}"
                );
                gates_held += taken;
            }
            assert_eq!(
                shared.flank.members(),
                again.inside("flank"),
                "{format}: rendezvous members"
            );
            pairs += shared.flank.members();
            for (i, expected) in snapshots.iter().enumerate().skip(t - 1) {
                again.step(i + 1);
                assert!(
                    again.snapshot() == *expected,
                    "{format} save before tick {t}: tick {} differs",
                    i + 1
                );
            }
        }
    }
    assert!(
        gates_held > 10 && pairs > 0,
        "the saves caught soldiers inside gates ({gates_held}) and rendezvous ({pairs})"
    );
}
