//! Synchronized trees: gates, global cooldowns, rendezvous with roles and
//! `sync`, monitors and `switch`, as exact traces of several agents ticking
//! one tree with one shared state. See `common/mod.rs` for the notation.

mod common;

use bt::{BehaviorTree, Ctx, Status, behavior_tree};

const _: fn() = || {
    let _ = <Gated as BehaviorTree>::NAME;
};
use common::{L, World};

fn at(t: f64) -> Ctx {
    Ctx::new(t, 0.1)
}

behavior_tree! {
    tree Gated(w: &mut World, shared: &GatedShared) {
        select {
            'grenade: gate(1) { L { n: "throw" } },
            action w.act("charge"),
        }
    }

    tree Taunting(w: &mut World, cx: &Ctx, shared: &TauntingShared) {
        select {
            'taunt: global_cooldown(5) { L { n: "taunt" } },
            action w.act("wait"),
        }
    }
}

#[test]
fn a_gate_admits_n_agents_and_the_rest_fall_through() {
    let shared = GatedShared::new();
    let (mut a, mut b) = (Gated::default(), Gated::default());
    let mut w = World::new(&[("throw", "RRS"), ("charge", "RS")]);
    // a takes the permit; b finds the gate full and charges instead.
    assert_eq!(a.tick(&mut w, &shared), Status::Running);
    assert_eq!(b.tick(&mut w, &shared), Status::Running);
    assert_eq!(w.take_events(), "+throw=R charge=R");
    assert_eq!(shared.grenade.inside(), 1);
    // b's select resumes at `charge` (it is not reactive); a finishes.
    assert_eq!(a.tick(&mut w, &shared), Status::Running);
    assert_eq!(b.tick(&mut w, &shared), Status::Success);
    assert_eq!(a.tick(&mut w, &shared), Status::Success);
    assert_eq!(w.take_events(), ".throw=R charge=S .throw=S");
    assert_eq!(
        shared.grenade.inside(),
        0,
        "the permit came back on completion"
    );
}

#[test]
fn halting_or_resetting_gives_the_permit_back() {
    let shared = GatedShared::new();
    let mut a = Gated::default();
    let mut w = World::new(&[("throw", "R")]);
    a.tick(&mut w, &shared);
    assert_eq!(shared.grenade.inside(), 1);
    a.reset(&mut w, &shared);
    assert_eq!(w.take_events(), "+throw=R !throw");
    assert_eq!(shared.grenade.inside(), 0);
}

#[test]
fn a_global_cooldown_closes_the_branch_for_everyone_after_anyone_finishes() {
    let shared = TauntingShared::new();
    let (mut a, mut b) = (Taunting::default(), Taunting::default());
    let mut w = World::new(&[("taunt", "SS"), ("wait", "SS")]);
    assert_eq!(a.tick(&mut w, &at(1.0), &shared), Status::Success);
    // b may not taunt until 6.0.
    assert_eq!(b.tick(&mut w, &at(2.0), &shared), Status::Success);
    assert_eq!(b.tick(&mut w, &at(5.9), &shared), Status::Success);
    assert_eq!(b.tick(&mut w, &at(6.0), &shared), Status::Success);
    assert_eq!(w.take_events(), "+taunt=S wait=S wait=S +taunt=S");
    assert_eq!(shared.taunt.ready_at(), 11.0);
}

behavior_tree! {
    /// The seed's pair coordination: two agents meet, take roles, act, wait
    /// for each other, act again.
    tree Pair(w: &mut World, shared: &PairShared) {
        select {
            'flank: rendezvous(2) as role {
                sequence {
                    switch(role) { 0 => L { n: "a_go" }, _ => L { n: "b_go" } },
                    sync,
                    switch(role) { 0 => L { n: "a_shoot" }, _ => L { n: "b_shoot" } },
                }
            },
            action w.act("solo"),
        }
    }

    tree Watch(w: &mut World) {
        select {
            sequence { monitor(w.cond("noise")), L { n: "investigate" } },
            L { n: "smoke" },
        }
    }

    tree Armed(w: &mut World) {
        switch(w.act("which")) {
            Status::Success => L { n: "rifle" },
            Status::Running => L { n: "knife" },
            Status::Failure => action w.act("none"),
        }
    }
}

#[test]
fn a_pair_meets_takes_roles_acts_waits_for_each_other_and_acts_again() {
    let shared = PairShared::new();
    let (mut a, mut b, mut c) = (Pair::default(), Pair::default(), Pair::default());
    let mut w = World::new(&[
        ("a_go", "S"),
        ("b_go", "RS"),
        ("a_shoot", "S"),
        ("b_shoot", "RS"),
        ("solo", "S"),
    ]);
    let tick = |w: &mut World, who: &str, tree: &mut Pair| {
        let status = tree.tick(w, &shared);
        format!("{who} {}", w.take_line(status))
    };
    let lines = [
        tick(&mut w, "a", &mut a), // joins as role 0, waits
        tick(&mut w, "b", &mut b), // joins as role 1: complete
        tick(&mut w, "c", &mut c), // a pair is running: no room
        tick(&mut w, "a", &mut a),
        tick(&mut w, "b", &mut b),
        tick(&mut w, "a", &mut a),
        tick(&mut w, "b", &mut b),
        tick(&mut w, "b", &mut b),
    ];
    assert_eq!(
        lines,
        [
            "a R:",
            "b R: +b_go=R",
            "c S: solo=S",
            "a R: +a_go=S", // a arrives at sync first and waits
            "b R: .b_go=S +b_shoot=R",
            "a S: +a_shoot=S",
            "b S: .b_shoot=S",
            // the pair is over: b starts a new group, alone
            "b R:",
        ]
    );
    assert_eq!(shared.flank.members(), 1);
}

behavior_tree! {
    tree Trio(w: &mut World, shared: &TrioShared) {
        select {
            'meet: rendezvous(3) as role { action w.act(["r0", "r1", "r2"][role]) },
            action w.act("solo"),
        }
    }
}

#[test]
fn leaving_a_forming_group_dissolves_it_and_releases_the_others() {
    let shared = TrioShared::new();
    let (mut a, mut b, mut c) = (Trio::default(), Trio::default(), Trio::default());
    let mut w = World::new(&[("solo", "S"), ("r0", "S"), ("r1", "S"), ("r2", "S")]);
    assert_eq!(a.tick(&mut w, &shared), Status::Running);
    assert_eq!(b.tick(&mut w, &shared), Status::Running);
    assert_eq!(shared.meet.members(), 2);
    c.reset(&shared); // never joined: nothing changes
    assert_eq!(shared.meet.members(), 2);
    b.reset(&shared); // b leaves before the group is complete
    assert_eq!(shared.meet.members(), 0);
    // a was waiting in the dissolved group: its rendezvous fails.
    assert_eq!(a.tick(&mut w, &shared), Status::Success);
    assert_eq!(w.take_events(), "solo=S");
    // A new group forms with fresh roles, in joining order.
    for tree in [&mut b, &mut c] {
        assert_eq!(tree.tick(&mut w, &shared), Status::Running);
    }
    assert_eq!(a.tick(&mut w, &shared), Status::Success);
    assert_eq!(b.tick(&mut w, &shared), Status::Success);
    assert_eq!(c.tick(&mut w, &shared), Status::Success);
    assert_eq!(w.take_events(), "r2=S r0=S r1=S");
    assert_eq!(shared.meet.members(), 0);
}

#[test]
fn a_member_that_leaves_mid_way_does_not_hold_the_other_at_sync() {
    let shared = PairShared::new();
    let (mut a, mut b) = (Pair::default(), Pair::default());
    let mut w = World::new(&[("a_go", "S"), ("b_go", "R")]);
    a.tick(&mut w, &shared);
    b.tick(&mut w, &shared); // complete; b runs b_go
    a.tick(&mut w, &shared); // a waits at sync
    b.reset(&mut w, &shared); // b halted mid-way
    assert_eq!(w.take_events(), "+b_go=R +a_go=S !b_go");
    // a's sync can never be reached by b: it fails, and the select's
    // next child... is not reached: the rendezvous failed, the select moves on.
    let mut w2 = World::new(&[("solo", "S")]);
    assert_eq!(a.tick(&mut w2, &shared), Status::Success);
    assert_eq!(w2.take_events(), "solo=S");
    assert_eq!(shared.flank.members(), 0);
}

#[test]
fn a_monitor_that_fires_halts_the_active_branch_and_restarts_from_the_root() {
    let mut w = World::new(&[("noise", "FFSS"), ("smoke", "RR"), ("investigate", "RS")]);
    let mut tree = Watch::default();
    let lines = w.run(4, |w| tree.tick(w));
    assert_eq!(
        lines,
        [
            "R: ?noise=F +smoke=R",                       // armed
            "R: ?noise=F .smoke=R",                       // checked before the tree: quiet
            "R: ?noise=S !smoke ?noise=S +investigate=R", // fires: halt, restart
            "S: .investigate=S",                          // disarmed: not checked
        ]
    );
}

#[test]
fn switch_runs_the_matching_arm_and_halts_the_old_one_when_it_changes() {
    let mut w = World::new(&[
        ("which", "SSRF"),
        ("rifle", "RR"),
        ("knife", "R"),
        ("none", "S"),
    ]);
    let mut tree = Armed::default();
    let lines = w.run(4, |w| tree.tick(w));
    assert_eq!(
        lines,
        [
            "R: which=S +rifle=R",
            "R: which=S .rifle=R",
            "R: which=R !rifle +knife=R",
            "S: which=F !knife none=S",
        ]
    );
    assert!(!tree.is_active());
}

#[test]
fn a_finished_tree_disarms_its_monitors() {
    let mut w = World::new(&[("noise", "FF"), ("smoke", "SR")]);
    let mut tree = Watch::default();
    let lines = w.run(2, |w| tree.tick(w));
    // After the root finished, the next tick evaluates the monitor once, in
    // the tree, not first as an armed monitor.
    assert_eq!(lines, ["S: ?noise=F +smoke=S", "R: ?noise=F +smoke=R"]);
}

behavior_tree! {
    tree Workers(w: &mut World, shared: &WorkersShared) {
        prioritized {
            when w.cond("hurt") => sequence { 'repair: gate(1) { L { n: "repair" } } },
            else => L { n: "gather" },
        }
    }

    tree Pushy(w: &mut World, shared: &PushyShared) {
        prioritized(skip_blocked = false) {
            when w.cond("hurt") => sequence { 'repair: gate(1) { L { n: "repair" } } },
            else => L { n: "gather" },
        }
    }

    tree Asking(w: &mut World, shared: &AskingShared) {
        prioritized {
            room('bench) when w.cond("hurt") => sequence {
                L { n: "walk" },
                'bench: gate(1) { L { n: "repair" } },
            },
            else => L { n: "gather" },
        }
    }
}

#[test]
fn a_decider_passes_over_a_child_whose_first_step_is_a_full_gate_so_work_goes_on() {
    let shared = WorkersShared::new();
    let (mut a, mut b) = (Workers::default(), Workers::default());
    let mut wa = World::new(&[("hurt", "S"), ("repair", "RS")]);
    let mut wb = World::new(&[("hurt", "S"), ("gather", "RR"), ("repair", "R")]);
    assert_eq!(shared.repair.capacity(), 1);
    a.tick(&mut wa, &shared);
    assert_eq!(wa.take_events(), "?hurt=S +repair=R");
    assert!(shared.repair.is_full());
    // b's first child would fail at once: its guard is not even asked.
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), "+gather=R");
    // And it does not interrupt b's gathering while the gate is full.
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), ".gather=R");
    // a finishes and gives the permit back: now b is interrupted, and enters.
    a.tick(&mut wa, &shared);
    assert_eq!(wa.take_events(), ".repair=S");
    assert!(!shared.repair.is_full());
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), "?hurt=S !gather +repair=R");
}

#[test]
fn with_skip_blocked_false_a_full_gate_interrupts_and_restarts_the_running_child() {
    let shared = PushyShared::new();
    let (mut a, mut b) = (Pushy::default(), Pushy::default());
    let mut wa = World::new(&[("hurt", "S"), ("repair", "R")]);
    let mut wb = World::new(&[("hurt", "SS"), ("gather", "RR")]);
    a.tick(&mut wa, &shared);
    assert_eq!(wa.take_events(), "?hurt=S +repair=R");
    // The guard accepts, the gate refuses, the decider falls back to gather.
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), "?hurt=S +gather=R");
    // Each tick: gathering is interrupted, and starts again from scratch.
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), "?hurt=S !gather +gather=R");
}

#[test]
fn a_room_clause_asks_a_gate_that_is_not_the_first_step() {
    let shared = AskingShared::new();
    let (mut a, mut b) = (Asking::default(), Asking::default());
    let mut wa = World::new(&[("hurt", "S"), ("walk", "S"), ("repair", "RS")]);
    let mut wb = World::new(&[("hurt", "S"), ("gather", "RR"), ("walk", "R")]);
    a.tick(&mut wa, &shared);
    assert_eq!(wa.take_events(), "?hurt=S +walk=S +repair=R");
    // The bench is full: b does not walk to it, and gathers on.
    b.tick(&mut wb, &shared);
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), "+gather=R .gather=R");
    a.tick(&mut wa, &shared);
    assert_eq!(wa.take_events(), ".repair=S");
    b.tick(&mut wb, &shared);
    assert_eq!(wb.take_events(), "?hurt=S !gather +walk=R");
}
