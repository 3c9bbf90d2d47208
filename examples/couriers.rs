//! Couriers whose routes are planned by a service on another thread: each
//! courier's tree asks for a route with a future leaf (`bt::future`), waits
//! for it tick by tick, and drops the request when a threat preempts it;
//! the planner skips requests dropped before it reached them and discards
//! answers nobody waits for any more.
//!
//! The trees tick at a fixed rate, 20 times a second of the wall clock;
//! `--fast` ticks them as fast as the machine goes (the planner then falls
//! behind, and more requests are dropped before they are served).
//!
//! `cargo run --example couriers [-- --couriers N --seconds S --fast]`

use bt::future::FutureLeaf;
use bt::{Outcome, Status};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The grid the couriers cross: `#` is a wall.
const MAP: [&str; 8] = [
    "..........#.........",
    ".######...#..#####..",
    ".#....#......#...#..",
    ".#.##.####.###.#.#..",
    "...#.........#.#....",
    "####.#######.#.####.",
    "......#....#........",
    ".####...##...######.",
];

type Cell = (i32, i32);

/// One answer, shared by the planner (who fills it) and the courier's
/// future (who waits for it). Dropping the future marks it abandoned.
#[derive(Default)]
struct Slot {
    route: Mutex<Option<Vec<Cell>>>,
    abandoned: AtomicBool,
}

/// What a courier waits for: its route, polled once per tick.
struct Reply {
    slot: Arc<Slot>,
    stats: Arc<Stats>,
    ready: bool,
}

impl Future for Reply {
    type Output = Vec<Cell>;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Vec<Cell>> {
        let this = self.get_mut();
        match this.slot.route.lock().unwrap().take() {
            Some(route) => {
                this.ready = true;
                Poll::Ready(route)
            }
            None => Poll::Pending,
        }
    }
}

impl Drop for Reply {
    /// Cancellation: a reply dropped before it was ready tells the planner
    /// nobody waits for it.
    fn drop(&mut self) {
        if !self.ready {
            self.slot.abandoned.store(true, Ordering::Release);
            self.stats.dropped_in_flight.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Counters both sides keep.
#[derive(Default)]
struct Stats {
    requested: AtomicU64,
    planned: AtomicU64,
    skipped: AtomicU64,
    discarded: AtomicU64,
    dropped_in_flight: AtomicU64,
    delivered: AtomicU64,
}

/// A request to the planner.
struct Job {
    from: Cell,
    to: Cell,
    slot: Arc<Slot>,
}

/// The planner: answers jobs in order, breadth-first over the map.
fn planner(jobs: mpsc::Receiver<Job>, stats: Arc<Stats>) {
    let walls: Vec<Vec<bool>> = MAP
        .iter()
        .map(|row| row.bytes().map(|b| b == b'#').collect())
        .collect();
    for job in jobs {
        if job.slot.abandoned.load(Ordering::Acquire) {
            stats.skipped.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let route = route(&walls, job.from, job.to);
        stats.planned.fetch_add(1, Ordering::Relaxed);
        *job.slot.route.lock().unwrap() = Some(route);
        if job.slot.abandoned.load(Ordering::Acquire) {
            stats.discarded.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The shortest route from `from` to `to` (excluding `from`); empty if
/// there is none.
fn route(walls: &[Vec<bool>], from: Cell, to: Cell) -> Vec<Cell> {
    let (h, w) = (walls.len() as i32, walls[0].len() as i32);
    let mut came = vec![None; (h * w) as usize];
    let index = |(x, y): Cell| (y * w + x) as usize;
    let mut queue = VecDeque::from([from]);
    came[index(from)] = Some(from);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![at];
            let mut c = at;
            while let Some(prev) = came[index(c)].filter(|&p| p != c) {
                if prev == from {
                    break;
                }
                path.push(prev);
                c = prev;
            }
            path.reverse();
            return path;
        }
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let next = (at.0 + dx, at.1 + dy);
            if next.0 >= 0
                && next.1 >= 0
                && next.0 < w
                && next.1 < h
                && !walls[next.1 as usize][next.0 as usize]
                && came[index(next)].is_none()
            {
                came[index(next)] = Some(at);
                queue.push_back(next);
            }
        }
    }
    Vec::new()
}

/// A courier: where it is, where it goes, and what it senses.
struct Courier {
    at: Cell,
    target: Cell,
    route: VecDeque<Cell>,
    threat: bool,
    seed: u64,
    jobs: mpsc::Sender<Job>,
    stats: Arc<Stats>,
}

impl Courier {
    fn random(&mut self) -> u64 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed
    }

    /// A free cell picked at random.
    fn pick(&mut self) -> Cell {
        loop {
            let r = self.random();
            let (x, y) = ((r % 20) as i32, ((r >> 8) % 8) as i32);
            if MAP[y as usize].as_bytes()[x as usize] != b'#' {
                return (x, y);
            }
        }
    }

    /// The world moves on: threats come and go.
    fn sense(&mut self) {
        let r = self.random();
        self.threat = if self.threat {
            !r.is_multiple_of(4)
        } else {
            r.is_multiple_of(40)
        };
    }

    /// One step along the route; done when it is walked.
    fn follow(&mut self) -> Status {
        match self.route.pop_front() {
            Some(next) => {
                self.at = next;
                Status::Running
            }
            None if self.at == self.target => {
                self.stats.delivered.fetch_add(1, Ordering::Relaxed);
                self.target = self.pick();
                Status::Success
            }
            None => Status::Failure,
        }
    }

    /// Holds still while the threat lasts.
    fn hide(&mut self) -> Status {
        Status::Running
    }
}

/// Asks the planner for a route to the courier's target.
struct PlanRoute;

impl FutureLeaf<Courier> for PlanRoute {
    type Future = Reply;

    fn start(&self, me: &mut Courier) -> Reply {
        let slot = Arc::new(Slot::default());
        me.stats.requested.fetch_add(1, Ordering::Relaxed);
        let job = Job {
            from: me.at,
            to: me.target,
            slot: Arc::clone(&slot),
        };
        // A planner that is gone leaves the future pending; the threat
        // that preempts it drops it.
        let _ = me.jobs.send(job);
        Reply {
            slot,
            stats: Arc::clone(&me.stats),
            ready: false,
        }
    }

    fn finish(&self, route: Vec<Cell>, me: &mut Courier) -> Outcome {
        me.route = route.into();
        Outcome::from_bool(!me.route.is_empty() || me.at == me.target)
    }
}

bt::behavior_tree! {
    /// Hide from threats; otherwise plan a route to the target and walk it.
    tree Deliver(me: &mut Courier) {
        reactive_select {
            'hide: reactive_sequence { cond me.threat, action me.hide() },
            'deliver: sequence { 'plan: PlanRoute, 'walk: action me.follow() },
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut couriers, mut seconds, mut realtime) = (200usize, 3.0f64, true);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--couriers" => couriers = value().parse().expect("--couriers N"),
            "--seconds" => seconds = value().parse().expect("--seconds S"),
            "--fast" => realtime = false,
            other => panic!("unknown argument {other}"),
        }
    }
    let stats = Arc::new(Stats::default());
    let (jobs, inbox) = mpsc::channel();
    let worker = {
        let stats = Arc::clone(&stats);
        std::thread::spawn(move || planner(inbox, stats))
    };
    let mut fleet: Vec<(Deliver, Courier)> = (0..couriers)
        .map(|i| {
            let mut c = Courier {
                at: (0, 0),
                target: (0, 0),
                route: VecDeque::new(),
                threat: false,
                seed: 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
                jobs: jobs.clone(),
                stats: Arc::clone(&stats),
            };
            c.at = c.pick();
            c.target = c.pick();
            (Deliver::default(), c)
        })
        .collect();
    drop(jobs);
    let hz = 20.0;
    let ticks = (seconds * hz) as u64;
    let started = Instant::now();
    for tick in 0..ticks {
        for (tree, courier) in &mut fleet {
            courier.sense();
            tree.tick(courier);
        }
        if realtime {
            let due = started + Duration::from_secs_f64((tick + 1) as f64 / hz);
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
    }
    // Stopping: every tree is reset, which drops the futures in flight.
    for (tree, courier) in &mut fleet {
        tree.reset(courier);
    }
    drop(fleet);
    worker
        .join()
        .expect("the planner ends when the couriers are gone");
    let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
    println!(
        "{couriers} couriers, {ticks} ticks at {hz} Hz: {} deliveries; {} routes asked for, \
         {} planned, {} dropped in flight by a threat or the end ({} skipped by the planner, \
         {} answered too late)",
        n(&stats.delivered),
        n(&stats.requested),
        n(&stats.planned),
        n(&stats.dropped_in_flight),
        n(&stats.skipped),
        n(&stats.discarded),
    );
    assert_eq!(
        n(&stats.requested),
        n(&stats.planned) + n(&stats.skipped),
        "the planner saw every request once"
    );
}
