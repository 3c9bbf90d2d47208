//! A squad of 50 soldiers sharing one tree and one shared state: one
//! grenade thrower at a time (`gate(1)`), at most three shooters
//! (`gate(3)`), one taunt at a time and none within 4 seconds of the last
//! (`gate(1) { global_cooldown(4) { .. } }`), and pairs that flank together (`rendezvous(2)`
//! with roles and a `sync`). Ticked on rayon's thread pool; prints one line
//! per simulated second with the most soldiers seen in each limited branch.
//!
//! `cargo run --example squad --features rayon [-- --in-order]`
//! (`--in-order` ticks on one thread, so the output replays exactly).

use bt::prelude::*;
use bt::{Ctx, Leaf};

/// What a soldier is in the middle of after this tick (set by a leaf that
/// returned `Running`, so it still holds whatever permit it took).
#[derive(Clone, Copy, Debug, PartialEq, Eq, bt::serde::Serialize, bt::serde::Deserialize)]
#[serde(crate = "bt::serde")]
pub enum Doing {
    /// No leaf ran (waiting for a partner, or between tasks).
    Nothing,
    /// Throwing a grenade.
    Throwing,
    /// Shooting.
    Shooting,
    /// Taunting the enemy.
    Taunting,
    /// Moving to a flank position, with this role.
    FlankMove(u8),
    /// Attacking from the flank, with this role.
    FlankAttack(u8),
    /// Charging.
    Charging,
}

/// One soldier.
#[derive(Debug, bt::serde::Serialize, bt::serde::Deserialize)]
#[serde(crate = "bt::serde")]
pub struct Trooper {
    id: u64,
    rng: u64,
    grenades: u32,
    doing: Doing,
    /// The task that finished this tick, if one did.
    finished: Option<Doing>,
}

impl Trooper {
    /// Soldier `id` of the squad made from `seed`.
    pub fn new(id: u64, seed: u64) -> Trooper {
        Trooper {
            id,
            rng: (seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1,
            grenades: 3,
            doing: Doing::Nothing,
            finished: None,
        }
    }

    fn roll(&mut self, percent: u64) -> bool {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % 100 < percent
    }
}

/// Does `what` for `ticks` ticks, then succeeds.
pub struct Task {
    what: Doing,
    ticks: u32,
}

impl Leaf<Trooper> for Task {
    /// Ticks done.
    type Memory = u32;
    fn tick(&self, done: &mut u32, me: &mut Trooper) -> Status {
        // Saturating: a loaded memory can hold any value.
        *done = done.saturating_add(1);
        if *done >= self.ticks {
            me.finished = Some(self.what);
            Status::Success
        } else {
            me.doing = self.what;
            Status::Running
        }
    }
}

behavior_tree! {
    /// Every soldier runs this; the limits hold across the whole squad.
    #[bt(serde)]
    pub tree Soldier(me: &mut Trooper, cx: &Ctx, shared: &SoldierShared) {
        prioritized {
            'grenade: when me.grenades > 0 && me.roll(3) => gate(1) {
                sequence {
                    Task { what: Doing::Throwing, ticks: 15 },
                    action { me.grenades = me.grenades.saturating_sub(1); Status::Success },
                }
            },
            'flank: when me.roll(2) => rendezvous(2) as role {
                sequence {
                    Task { what: Doing::FlankMove(role as u8), ticks: 10 + 5 * role as u32 },
                    sync,
                    Task { what: Doing::FlankAttack(role as u8), ticks: 8 },
                }
            },
            'taunt: when me.roll(5) => gate(1) {
                'taunt_cooldown: global_cooldown(4) { Task { what: Doing::Taunting, ticks: 5 } }
            },
            'shoot: when me.roll(30) => gate(3) { Task { what: Doing::Shooting, ticks: 6 } },
            'charge: else => Task { what: Doing::Charging, ticks: 4 },
        }
    }
}

/// One soldier's tick at `now`.
pub fn tick_soldier(
    me: &mut Trooper,
    state: &mut Soldier,
    now: f64,
    dt: f64,
    shared: &SoldierShared,
) {
    me.doing = Doing::Nothing;
    me.finished = None;
    state.tick(me, &Ctx::new(now, dt).agent(me.id), shared);
}

/// The most soldiers seen doing each limited thing in one tick.
#[derive(Default)]
struct Peak {
    throwing: usize,
    shooting: usize,
    taunts_started: usize,
    flank_attacks: usize,
    pairs_with_both_roles: usize,
}

fn main() {
    let in_order = std::env::args().any(|a| a == "--in-order");
    let seed = 11;
    let dt = 0.1;
    let shared = SoldierShared::new();
    let mut squad: Vec<(Trooper, Soldier)> = (0..50)
        .map(|id| (Trooper::new(id, seed), Soldier::default()))
        .collect();
    println!(
        "50 soldiers, {} bytes of tree state each, ticked {}",
        Soldier::STATE_SIZE,
        if in_order {
            "in order on one thread"
        } else {
            "on rayon's thread pool"
        }
    );
    println!("limits: 1 thrower, 3 shooters, a taunt at most every 4 s, flanking in pairs\n");
    let mut peak = Peak::default();
    let mut last_taunt: Option<f64> = None;
    let mut taunt_ended: Option<f64> = None;
    let mut was_taunting = vec![false; squad.len()];
    for tick in 1..=200u32 {
        let now = f64::from(tick) * dt;
        let step = |_: usize, (me, state): &mut (Trooper, Soldier)| {
            tick_soldier(me, state, now, dt, &shared)
        };
        if in_order {
            bt::parallel::for_each_in_order(&mut squad, step);
        } else {
            bt::parallel::for_each_parallel(&mut squad, 8, step);
        }

        let count = |f: &dyn Fn(Doing) -> bool| squad.iter().filter(|(m, _)| f(m.doing)).count();
        let throwing = count(&|d| d == Doing::Throwing);
        let shooting = count(&|d| d == Doing::Shooting);
        let attacks: Vec<u8> = squad
            .iter()
            .filter_map(|(m, _)| match m.doing {
                Doing::FlankAttack(role) => Some(role),
                _ => None,
            })
            .collect();
        assert!(throwing <= 1, "gate(1) admitted {throwing}");
        assert!(shooting <= 3, "gate(3) admitted {shooting}");
        assert_eq!(shared.grenade.inside() as usize, throwing);
        let taunting = count(&|d| d == Doing::Taunting);
        assert!(taunting <= 1, "{taunting} taunting at once");
        for (i, (m, _)) in squad.iter().enumerate() {
            let now_taunting = m.doing == Doing::Taunting;
            if now_taunting && !was_taunting[i] {
                // The cooldown runs from the last taunt that was finished
                // (an interrupted one does not count).
                if let Some(end) = taunt_ended {
                    assert!(
                        now - end >= 4.0 - 1e-9,
                        "taunt at {now}, the last finished {end}"
                    );
                }
                last_taunt = Some(now);
                peak.taunts_started += 1;
            }
            if m.finished == Some(Doing::Taunting) {
                taunt_ended = Some(now);
            }
            was_taunting[i] = now_taunting;
        }
        peak.throwing = peak.throwing.max(throwing);
        peak.shooting = peak.shooting.max(shooting);
        peak.flank_attacks = peak.flank_attacks.max(attacks.len());
        if attacks.contains(&0) && attacks.contains(&1) {
            peak.pairs_with_both_roles += 1;
        }

        if tick % 10 == 0 {
            println!(
                "t={:>4.1}s  throwing max {}/1  shooting max {}/3  taunts {} (last at {})  \
                 flank attackers max {} (ticks with both roles: {})  waiting to pair: {}",
                now,
                peak.throwing,
                peak.shooting,
                peak.taunts_started,
                last_taunt.map_or("-".into(), |t| format!("{t:.1}s")),
                peak.flank_attacks,
                peak.pairs_with_both_roles,
                shared.flank.members(),
            );
            peak = Peak::default();
        }
    }
    let grenades: u32 = squad.iter().map(|(m, _)| m.grenades).sum();
    for (me, state) in &mut squad {
        state.reset(me, &shared);
    }
    println!(
        "\n{} grenades left; after every soldier's reset the gates hold {} and {} permits",
        grenades,
        shared.grenade.inside(),
        shared.shoot.inside() + shared.taunt.inside()
    );
}
