//! 300 guards share one behavior tree. Each keeps only its own tiny state.
//!
//! A guard patrols between two posts. When an intruder comes close it walks
//! up and strikes it three times; when badly hurt it retreats to heal, which
//! preempts whatever it was doing. The first three guards are printed tick
//! by tick with their active path.
//!
//! Run with `cargo run --example guards`.

use bt::prelude::*;

/// One guard of the world. The tree reads and changes it through `me`.
struct Guard {
    pos: i32,
    hp: i32,
    post: i32,
    intruder: Option<i32>,
    strikes: u32,
    rng: u64,
}

impl Guard {
    fn new(i: u64) -> Guard {
        let post = (i as i32 % 20) * 5;
        Guard {
            pos: post,
            hp: 100,
            post,
            intruder: None,
            strikes: 0,
            rng: 0x2545_f491_4f6c_dd1d ^ i,
        }
    }

    /// A small deterministic random source (xorshift), so runs replay exactly.
    fn roll(&mut self, one_in: u64) -> bool {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng.is_multiple_of(one_in)
    }

    /// The world moves on: intruders appear, fights hurt.
    fn world_step(&mut self) {
        if self.intruder.is_none() && self.roll(6) {
            self.intruder = Some(self.pos + if self.roll(2) { 3 } else { -3 });
        }
        if self.intruder.is_some_and(|at| (at - self.pos).abs() <= 1) && self.roll(2) {
            self.hp -= 15;
        }
    }

    fn strike(&mut self) -> Status {
        self.strikes += 1;
        if self.roll(3) {
            self.intruder = None;
        }
        Status::Success
    }
}

/// Walks one step per tick towards `to`; succeeds on arrival.
struct WalkTo {
    to: i32,
}

impl Leaf<Guard> for WalkTo {
    /// Steps taken in this walk.
    type Memory = u16;

    fn tick(&self, steps: &mut u16, me: &mut Guard) -> Status {
        if me.pos == self.to {
            return Status::Success;
        }
        me.pos += (self.to - me.pos).signum();
        *steps += 1;
        Status::Running
    }
}

/// Heals 10 hp per tick until full.
struct Heal;

impl Leaf<Guard> for Heal {
    type Memory = ();

    fn tick(&self, _: &mut (), me: &mut Guard) -> Status {
        me.hp = (me.hp + 10).min(100);
        if me.hp == 100 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

behavior_tree! {
    /// Walk to the far post and back.
    tree Patrol(me: &mut Guard) {
        sequence { 'out: WalkTo { to: me.post + 4 }, 'back: WalkTo { to: me.post } }
    }

    /// What every guard runs.
    pub tree GuardDuty(me: &mut Guard) {
        'duty: reactive_select {
            'retreat: sequence { cond me.hp < 40, 'go_home: WalkTo { to: me.post }, 'heal: Heal },
            'fight: sequence {
                cond me.intruder.is_some(),
                'approach: WalkTo { to: me.intruder.unwrap_or(me.pos) },
                'strike: repeat(3) { action me.strike() },
            },
            'patrol: Patrol(me),
        }
    }
}

fn main() {
    const GUARDS: u64 = 300;
    const TICKS: usize = 200;
    let mut guards: Vec<(Guard, GuardDuty)> = (0..GUARDS)
        .map(|i| (Guard::new(i), GuardDuty::default()))
        .collect();

    println!(
        "{GUARDS} guards share one tree of {} nodes; each keeps {} bytes of tree state \
         (branches share bytes: the embedded `Patrol` tree alone needs {}).\n",
        GuardDuty::NODES.len(),
        GuardDuty::STATE_SIZE,
        Patrol::STATE_SIZE,
    );

    let mut finished = [0usize; 3];
    for tick in 0..TICKS {
        for (i, (guard, state)) in guards.iter_mut().enumerate() {
            guard.world_step();
            let status = state.tick(guard);
            finished[status as usize] += 1;
            if i < 3 && tick < 12 {
                let path: Vec<&str> = state.active_path().iter().map(|n| n.info.name()).collect();
                println!(
                    "tick {tick:2} guard {i}: {status:7} pos {:3} hp {:3}  {}",
                    guard.pos,
                    guard.hp,
                    if path.is_empty() {
                        "-".to_string()
                    } else {
                        path.join(" > ")
                    }
                );
            }
        }
        if tick < 12 {
            println!();
        }
    }

    let strikes: u32 = guards.iter().map(|(g, _)| g.strikes).sum();
    let hurt = guards.iter().filter(|(g, _)| g.hp < 100).count();
    println!(
        "after {TICKS} ticks: {} agent-ticks ended in Success, {} in Failure, {} Running",
        finished[0], finished[1], finished[2]
    );
    println!("{strikes} strikes in all; {hurt} guards still hurt");

    for (guard, state) in &mut guards {
        state.reset(guard);
    }
    assert!(guards.iter().all(|(_, state)| !state.is_active()));
}
