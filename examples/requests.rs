//! Villagers that ask rather than act: their tree requests paths and
//! animations, and two systems answer every request of a frame in a batch.
//!
//! Each villager walks to a goal on a grid with walls. Its tree asks the
//! pathfinding system for a route (`request(paths, ..)`), walks it, then
//! asks the animation system to celebrate. When a wolf is near, a reactive
//! branch takes over: it asks for a cower animation, and the reactive
//! select halts whatever the villager was waiting for, which pushes a
//! cancellation the owning system acts on (the animation system stops the
//! clip; the pathfinding system drops the route). The pathfinding system
//! sorts its requests by destination row, so consecutive searches touch
//! the same part of the grid; the animation system keeps one table of
//! playing clips and answers the ones that ended.
//!
//! `cargo run --release --example requests [-- --agents N --frames F]`
//! (100,000 villagers and 200 frames by default). The output is the same
//! on every run.

use bt::Ctx;
use bt::Outcome;
use bt::prelude::*;
use bt::request::{Message, Requests, Stale, Ticket};
use std::collections::HashMap;

/// Grid side, in cells.
const SIDE: i32 = 256;

/// A route request: from where the villager stands to its goal.
#[derive(Clone, Copy, Debug)]
pub struct FindPath {
    from: (i32, i32),
    to: (i32, i32),
}

/// An animation request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anim {
    /// Played when a goal is reached: 3 frames.
    Celebrate,
    /// Played while a wolf is near: 2 frames.
    Cower,
}

impl Anim {
    fn frames(self) -> u32 {
        match self {
            Anim::Celebrate => 3,
            Anim::Cower => 2,
        }
    }
}

/// Cells a villager walks per frame.
const SPEED: i32 = 8;

/// One villager's own data: what the systems write into it and the tree's
/// leaves read.
#[derive(Clone, Debug, Default)]
pub struct Villager {
    id: u64,
    pos: (i32, i32),
    goal: (i32, i32),
    /// The waypoints the pathfinding system found, walked from the back.
    route: Vec<(i32, i32)>,
    wolf_near: bool,
    goals_tried: u32,
    goals_reached: u32,
    cowered: u32,
}

impl Villager {
    /// Up to `SPEED` cells along the route: `Running` until the goal.
    fn walk(&mut self) -> Status {
        let mut steps = SPEED;
        while let Some(&target) = self.route.last() {
            while steps > 0 && self.pos != target {
                if self.pos.0 != target.0 {
                    self.pos.0 += (target.0 - self.pos.0).signum();
                } else {
                    self.pos.1 += (target.1 - self.pos.1).signum();
                }
                steps -= 1;
            }
            if self.pos != target {
                return Status::Running;
            }
            self.route.pop();
        }
        Status::Success
    }

    /// Picks the next goal.
    fn new_goal(&mut self) {
        self.goals_tried += 1;
        let h = mix(self.id ^ (u64::from(self.goals_tried) << 40));
        self.goal = ((h % SIDE as u64) as i32, ((h >> 20) % SIDE as u64) as i32);
    }
}

behavior_tree! {
    /// Cower while a wolf is near; otherwise travel to the goal and
    /// celebrate there, or pick another goal if there is no way to it.
    pub tree Village(
        me: &mut Villager,
        paths: &mut Requests<FindPath>,
        anims: &mut Requests<Anim>,
        cx: &Ctx,
    ) {
        reactive_select {
            'cower: reactive_sequence {
                cond me.wolf_near,
                request(anims, Anim::Cower),
                action { me.cowered += 1; Status::Success },
            },
            'travel: sequence {
                request(paths, FindPath { from: me.pos, to: me.goal }),
                action me.walk(),
                request(anims, Anim::Celebrate),
                action { me.goals_reached += 1; me.new_goal(); Status::Success },
            },
            'give_up: action { me.new_goal(); Status::Success },
        }
    }
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The grid: a wall on every cell whose hash says so (about one in eight),
/// except on the borders of 16-cell blocks, so every goal is reachable.
struct Grid {
    walls: Vec<bool>,
}

impl Grid {
    fn new() -> Grid {
        let walls = (0..SIDE * SIDE)
            .map(|i| {
                let (x, y) = (i % SIDE, i / SIDE);
                x % 16 != 0 && y % 16 != 0 && mix(i as u64).is_multiple_of(8)
            })
            .collect();
        Grid { walls }
    }

    fn wall(&self, (x, y): (i32, i32)) -> bool {
        self.walls[(y * SIDE + x) as usize]
    }

    /// Whether the straight walk from `a` to `b` (along x, then along y)
    /// meets no wall.
    fn clear(&self, mut a: (i32, i32), b: (i32, i32)) -> bool {
        while a != b {
            if a.0 != b.0 {
                a.0 += (b.0 - a.0).signum();
            } else {
                a.1 += (b.1 - a.1).signum();
            }
            if self.wall(a) {
                return false;
            }
        }
        true
    }

    /// Waypoints: out of `from`'s block to the border row above it, along
    /// the borders (which have no walls) to the corner of the goal's block,
    /// and into it; `None` if a wall is in the way inside either block.
    /// Returned reversed, so walking pops from the back.
    fn route(&self, from: (i32, i32), to: (i32, i32)) -> Option<Vec<(i32, i32)>> {
        let border = |v: i32| v - v % 16;
        let out = (from.0, border(from.1));
        let corner = (border(to.0), border(to.1));
        if !self.clear(from, out) || !self.clear(corner, to) {
            return None;
        }
        Some(vec![to, corner, (corner.0, out.1), out])
    }
}

/// Counts of one frame, summed over a run.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    path_requests: u64,
    paths_found: u64,
    path_cancels: u64,
    anim_requests: u64,
    anim_cancels: u64,
    anims_finished: u64,
    stale: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.path_requests += o.path_requests;
        self.paths_found += o.paths_found;
        self.path_cancels += o.path_cancels;
        self.anim_requests += o.anim_requests;
        self.anim_cancels += o.anim_cancels;
        self.anims_finished += o.anims_finished;
        self.stale += o.stale;
    }
}

/// The animation system: clips playing, by ticket.
#[derive(Default)]
struct Animator {
    playing: HashMap<Ticket, u32>,
}

impl Animator {
    /// Takes this frame's requests, advances every clip, and returns the
    /// answers of the clips that ended, sorted by agent.
    fn run(&mut self, anims: &mut Requests<Anim>, counts: &mut Counts) -> Vec<(Ticket, Outcome)> {
        for message in anims.drain() {
            match message {
                Message::Start(ticket, anim) => {
                    counts.anim_requests += 1;
                    self.playing.insert(ticket, anim.frames());
                }
                Message::Cancel(ticket) => {
                    counts.anim_cancels += 1;
                    self.playing.remove(&ticket);
                }
            }
        }
        let mut ended = Vec::new();
        self.playing.retain(|ticket, left| {
            *left -= 1;
            if *left == 0 {
                ended.push((*ticket, Outcome::Success));
            }
            *left > 0
        });
        counts.anims_finished += ended.len() as u64;
        ended.sort_by_key(|(t, _)| t.agent);
        ended
    }
}

/// The pathfinding system: every request of the frame, sorted by the row
/// it goes to; the route goes into the villager, the outcome to its tree.
/// It answers in the frame it is asked, so a cancellation only ever names a
/// route already delivered (the villager was scared before its next tick
/// read the answer): it is counted, and the route is left to be replaced.
fn find_paths(
    grid: &Grid,
    paths: &mut Requests<FindPath>,
    villagers: &mut [Villager],
    counts: &mut Counts,
) -> Vec<(Ticket, Outcome)> {
    paths.messages_mut().sort_by_key(|m| match m {
        Message::Cancel(t) => (0, 0, t.agent),
        Message::Start(t, r) => (1, r.to.1, t.agent),
    });
    let mut answers = Vec::new();
    for message in paths.drain() {
        match message {
            Message::Cancel(_) => counts.path_cancels += 1,
            Message::Start(ticket, request) => {
                counts.path_requests += 1;
                let outcome = match grid.route(request.from, request.to) {
                    Some(route) => {
                        counts.paths_found += 1;
                        villagers[ticket.agent as usize].route = route;
                        Outcome::Success
                    }
                    None => Outcome::Failure,
                };
                answers.push((ticket, outcome));
            }
        }
    }
    answers
}

fn main() {
    let mut agents = 100_000usize;
    let mut frames = 200u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse::<u64>().ok());
        match (arg.as_str(), value) {
            ("--agents", Some(n)) => agents = n as usize,
            ("--frames", Some(n)) => frames = n as u32,
            _ => {
                eprintln!("usage: requests [--agents N] [--frames F]");
                std::process::exit(2);
            }
        }
    }
    let grid = Grid::new();
    let mut villagers: Vec<Villager> = (0..agents as u64)
        .map(|id| {
            let h = mix(id);
            let mut v = Villager {
                id,
                pos: (
                    (h % SIDE as u64) as i32 & !15,
                    ((h >> 16) % SIDE as u64) as i32 & !15,
                ),
                ..Villager::default()
            };
            v.new_goal();
            v
        })
        .collect();
    let mut states = vec![Village::default(); agents];
    let mut paths = Requests::for_agents::<Village>(agents);
    let mut anims = Requests::for_agents::<Village>(agents);
    let mut animator = Animator::default();
    let (mut total, mut second) = (Counts::default(), Counts::default());
    println!(
        "{agents} villagers, {} bytes of tree state each, at most {} requests per villager per frame",
        Village::STATE_SIZE,
        Village::MAX_REQUESTS_PER_TICK
    );
    for frame in 0..frames {
        let now = f64::from(frame) * 0.1;
        // Wolves roam: each villager has one near for 5 frames out of 40,
        // at its own phase.
        for (i, v) in villagers.iter_mut().enumerate() {
            v.wolf_near = (mix(i as u64 ^ 0xABCD) + u64::from(frame)) % 40 < 5;
        }
        for (i, (me, state)) in villagers.iter_mut().zip(&mut states).enumerate() {
            let cx = Ctx::new(now, 0.1).agent(i as u64);
            state.tick(me, &mut paths, &mut anims, &cx);
        }
        let mut counts = Counts::default();
        let mut answers = find_paths(&grid, &mut paths, &mut villagers, &mut counts);
        answers.extend(animator.run(&mut anims, &mut counts));
        let stale: Vec<Stale> = bt::request::deliver(&mut states, answers);
        counts.stale = stale.len() as u64;
        total += counts;
        second += counts;
        if (frame + 1) % 10 == 0 {
            let counts = std::mem::take(&mut second);
            let goals: u64 = villagers.iter().map(|v| u64::from(v.goals_reached)).sum();
            println!(
                "t={:>4.1}s  paths asked {:>7} found {:>7} cancelled {:>6}  clips asked {:>7} ended {:>7} cancelled {:>6}  stale {:>3}  goals reached {:>7}",
                now + 0.1,
                counts.path_requests,
                counts.paths_found,
                counts.path_cancels,
                counts.anim_requests,
                counts.anims_finished,
                counts.anim_cancels,
                counts.stale,
                goals,
            );
        }
    }
    let goals: u64 = villagers.iter().map(|v| u64::from(v.goals_reached)).sum();
    let cowered: u64 = villagers.iter().map(|v| u64::from(v.cowered)).sum();
    let checksum = villagers.iter().fold(0u64, |h, v| {
        mix(h ^ ((v.pos.0 as u64) << 32) ^ (v.pos.1 as u64) ^ (u64::from(v.goals_reached) << 48))
    });
    println!(
        "total: {} path requests ({} found, {} cancelled), {} clips ({} ended, {} cancelled), {} stale answers, {goals} goals reached, {cowered} cowers; checksum {checksum:016x}",
        total.path_requests,
        total.paths_found,
        total.path_cancels,
        total.anim_requests,
        total.anims_finished,
        total.anim_cancels,
        total.stale,
    );
}
