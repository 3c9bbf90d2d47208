//! Where a recorder's full block of staged codes should go, measured
//! before building it (`ASSEMBLY.md`, "Recording: where a full staged
//! block goes, probed").
//!
//! A model of the ticking thread of `bt::record::Recorder` at scale: each
//! agent has a 128-byte header (counters in one line, 16 staged codes in
//! the next) read and written every tick in agent order, and a xorshift
//! state of its own; about 0.31 ticks in 1 write a code, as the decider's
//! do. When a code starts a new block, the full block of 16 codes moves
//! out of the header, to one of:
//!
//! - `none`: one line that stays in the cache (the cost of everything but
//!   the move);
//! - `ring`: the agent's own ring of 16 lines, at the next of them (what
//!   the recorder does);
//! - `pool`: the next line of one pool shared by all agents, written in
//!   order, with the block's owner and the owner's previous block in a
//!   side array beside it, and the block's place in the agent's header.
//!
//! `ring+fold` and `pool+fold` add what reading those blocks back costs
//! the ticking thread: every 16 blocks, the agent's blocks are read (the
//! ring's 16 lines, whose places are known at once; the pool's, one after
//! another down the chain of previous blocks), as the recorder folds a
//! full log.
//!
//! Every round runs each mode once over the same agents (a quarter of the
//! ticks untimed first) and prints its time per agent-tick; the summary is
//! each mode's median time and its median ratio to `none` in the same
//! round.
//!
//! ```sh
//! cargo build --release -p bt-bench --bin move_probe
//! target/release/move_probe <agents> <ticks> <rounds>
//! target/release/move_probe 100000 400 6
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Codes in a block, and blocks in a ring.
const STAGED: usize = 16;

/// An agent's counters and staged codes, as the recorder lays them out.
#[repr(C, align(128))]
struct Header {
    head: AtomicU32,
    /// The pool line of the agent's newest block moved (`pool` modes).
    newest: AtomicU32,
    /// Stand-ins for the other counters a tick reads and writes.
    fields: [AtomicU64; 7],
    staged: [AtomicU32; STAGED],
}

/// One block of codes: a cache line.
#[repr(C, align(64))]
struct Line([AtomicU32; STAGED]);

impl Line {
    fn new() -> Line {
        Line([const { AtomicU32::new(0) }; STAGED])
    }
}

/// Where a pool line's block came from.
#[derive(Default)]
struct Meta {
    owner: AtomicU32,
    /// The owner's block before this one, or `u32::MAX`.
    prev: AtomicU32,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    None,
    Ring,
    Pool,
    RingFold,
    PoolFold,
}

const MODES: [(Mode, &str); 5] = [
    (Mode::None, "none"),
    (Mode::Ring, "ring"),
    (Mode::Pool, "pool"),
    (Mode::RingFold, "ring+fold"),
    (Mode::PoolFold, "pool+fold"),
];

struct World {
    headers: Vec<Header>,
    rng: Vec<u64>,
    hot: Line,
    rings: Vec<Line>,
    pool: Vec<Line>,
    meta: Vec<Meta>,
    cursor: usize,
    /// What the folds read, so that they are not optimized away.
    folded: u64,
}

impl World {
    fn new(agents: usize) -> World {
        World {
            headers: (0..agents)
                .map(|_| Header {
                    head: AtomicU32::new(0),
                    newest: AtomicU32::new(u32::MAX),
                    fields: Default::default(),
                    staged: [const { AtomicU32::new(0) }; STAGED],
                })
                .collect(),
            rng: (0..agents as u64)
                .map(|i| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect(),
            hot: Line::new(),
            rings: (0..agents * STAGED).map(|_| Line::new()).collect(),
            pool: (0..agents * STAGED).map(|_| Line::new()).collect(),
            meta: (0..agents * STAGED).map(|_| Meta::default()).collect(),
            cursor: 0,
            folded: 0,
        }
    }

    /// Moves agent `i`'s full staged block (block number `block` of its
    /// codes) out of its header.
    #[inline(never)]
    fn move_block(&mut self, mode: Mode, i: usize, block: u32) {
        let header = &self.headers[i];
        let to = match mode {
            Mode::None => &self.hot,
            Mode::Ring | Mode::RingFold => &self.rings[i * STAGED + block as usize % STAGED],
            Mode::Pool | Mode::PoolFold => {
                let at = self.cursor;
                self.cursor = (at + 1) % self.pool.len();
                let meta = &self.meta[at];
                meta.owner.store(i as u32, Relaxed);
                meta.prev.store(header.newest.load(Relaxed), Relaxed);
                header.newest.store(at as u32, Relaxed);
                &self.pool[at]
            }
        };
        for (slot, code) in to.0.iter().zip(&header.staged) {
            slot.store(code.load(Relaxed), Relaxed);
        }
        if block as usize % STAGED == STAGED - 1 {
            self.fold(mode, i);
        }
    }

    /// Reads agent `i`'s 16 blocks back, as a fold of its full log does.
    #[inline(never)]
    fn fold(&mut self, mode: Mode, i: usize) {
        let mut sum = 0u64;
        match mode {
            Mode::RingFold => {
                for line in &self.rings[i * STAGED..(i + 1) * STAGED] {
                    sum = sum.wrapping_add(u64::from(line.0[0].load(Relaxed)));
                }
            }
            Mode::PoolFold => {
                let mut at = self.headers[i].newest.load(Relaxed);
                for _ in 0..STAGED {
                    if at == u32::MAX {
                        break;
                    }
                    sum = sum.wrapping_add(u64::from(self.pool[at as usize].0[0].load(Relaxed)));
                    at = self.meta[at as usize].prev.load(Relaxed);
                }
                self.headers[i].newest.store(u32::MAX, Relaxed);
            }
            _ => {}
        }
        self.folded = self.folded.wrapping_add(sum);
    }

    /// Every agent ticks once.
    fn tick(&mut self, mode: Mode) {
        for i in 0..self.headers.len() {
            let mut x = self.rng[i];
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.rng[i] = x;
            let header = &self.headers[i];
            let field = &header.fields[(x % 7) as usize];
            field.store(field.load(Relaxed).wrapping_add(x), Relaxed);
            // About 0.31 codes an agent-tick.
            if x >> 40 & 15 < 5 {
                let head = header.head.load(Relaxed);
                let k = head as usize % STAGED;
                if k == 0 && head > 0 {
                    self.move_block(mode, i, head / STAGED as u32 - 1);
                }
                let header = &self.headers[i];
                header.staged[k].store(x as u32, Relaxed);
                header.head.store(head + 1, Relaxed);
            }
        }
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("usage: move_probe <agents> <ticks> <rounds>")
        })
        .collect();
    let [agents, ticks, rounds] = args[..] else {
        panic!("usage: move_probe <agents> <ticks> <rounds>");
    };
    let mut world = World::new(agents);
    let mut times = vec![Vec::new(); MODES.len()];
    let mut ratios = vec![Vec::new(); MODES.len()];
    for round in 0..rounds {
        let mut row = Vec::new();
        for (mode, _) in MODES {
            for _ in 0..ticks / 4 {
                world.tick(mode);
            }
            let start = Instant::now();
            for _ in 0..ticks {
                world.tick(mode);
            }
            row.push(start.elapsed().as_nanos() as f64 / (agents * ticks) as f64);
        }
        println!(
            "round {round}: {}",
            row.iter()
                .map(|t| format!("{t:.2}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for (k, t) in row.iter().enumerate() {
            times[k].push(*t);
            ratios[k].push(t / row[0]);
        }
    }
    black_box(world.folded);
    for (k, (_, name)) in MODES.iter().enumerate() {
        println!(
            "{name:<10} {:6.2} ns per agent-tick, {:.3} x none",
            median(times[k].clone()),
            median(ratios[k].clone())
        );
    }
}
