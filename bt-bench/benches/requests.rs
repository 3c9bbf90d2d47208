//! `cargo bench -p bt-bench --bench requests`: the same behaviour with an
//! immediate action, which reads a large world inside each agent's tick,
//! and with a deferred request, which the tick pushes and one system
//! answers for every agent in a batch, sorted by where in the world it
//! reads. Writes `BENCHMARKS-requests.md` on an unfiltered run.
//!
//! Each agent, every tick, looks at the world along a short line from
//! where it stands (16 cells of a 64 MiB grid, one cache line apart) and
//! learns whether the sum is even; then it moves somewhere else. Immediate:
//! `keep_running_until_failure { action me.look(world) }` (one look per
//! tick). Deferred: `repeat(forever) { request(looks, me.ask()) }` (each
//! tick reads the previous tick's answer and asks again), and the look
//! system drains the stream, sorts it by row, reads the world and delivers.

use bt::Outcome;
use bt::request::{Message, Requests, Ticket};
use bt::{Ctx, Status};
use bt_bench::report::{machine, mean_ns};
use bt_bench::world::mix;
use criterion::Criterion;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// World side: 8192 × 8192 bytes, 64 MiB.
const SIDE: usize = 8192;
/// Cells one look reads, one cache line apart along a row.
const CELLS: usize = 16;

/// A large world structure: what actions work on.
struct World {
    cells: Vec<u8>,
}

impl World {
    fn new() -> World {
        World {
            cells: (0..SIDE * SIDE).map(|i| mix(i as u64, 1) as u8).collect(),
        }
    }

    /// The look: is the sum of the cells along the line from `at` even?
    #[inline]
    fn look(&self, at: u32) -> bool {
        let (row, col) = (at as usize / SIDE, at as usize % (SIDE - CELLS * 64));
        let base = row * SIDE + col;
        let sum: u32 = (0..CELLS)
            .map(|k| u32::from(self.cells[base + k * 64]))
            .sum();
        sum.is_multiple_of(2)
    }
}

/// One agent: where it stands, and what its looks added up to.
#[derive(Clone, Debug)]
struct Walker {
    at: u32,
    step: u64,
    id: u64,
    even: u64,
    looks: u64,
    /// The deferred form's answer, written by the look system (a request's
    /// result data goes to the agent; its tree learns only that it is
    /// there).
    even_answer: bool,
}

impl Walker {
    fn new(id: u64) -> Walker {
        let mut w = Walker {
            at: 0,
            step: 0,
            id,
            even: 0,
            looks: 0,
            even_answer: false,
        };
        w.advance();
        w
    }

    /// Moves somewhere else in the world (the same walk in both forms).
    fn advance(&mut self) {
        self.step += 1;
        self.at = (mix(self.id, self.step) % (SIDE * SIDE) as u64) as u32;
    }

    fn note(&mut self, even: bool) {
        self.looks += 1;
        self.even += u64::from(even);
    }

    /// The immediate action.
    #[inline]
    fn look(&mut self, world: &World) -> Status {
        let even = world.look(self.at);
        self.note(even);
        Status::Success
    }
}

/// A look request: where to look from.
#[derive(Clone, Copy, Debug)]
struct Look {
    at: u32,
}

bt::behavior_tree! {
    /// Looks every tick, inside the tick.
    tree Immediate(me: &mut Walker, world: &World) {
        keep_running_until_failure { action me.look(world) }
    }

    /// Asks every tick; reads the previous tick's answer.
    tree Deferred(me: &mut Walker, looks: &mut Requests<Look>, cx: &Ctx) {
        repeat(forever) {
            sequence {
                request(looks, Look { at: me.at }),
                action { me.note(me.even_answer); Status::Success },
            }
        }
    }
}

/// The two populations.
struct Bench {
    world: World,
    immediate: Vec<(Walker, Immediate)>,
    deferred: Vec<(Walker, Deferred)>,
    looks: Requests<Look>,
    answers: Vec<(Ticket, bool)>,
    /// Time spent in the ticks and in the batch, over the frames run.
    traversal: Duration,
    batch: Duration,
}

/// Agents per rayon task.
const CHUNK: usize = 4096;

impl Bench {
    fn new(world: World, agents: usize) -> Bench {
        Bench {
            world,
            immediate: (0..agents as u64)
                .map(|i| (Walker::new(i), Immediate::default()))
                .collect(),
            deferred: (0..agents as u64)
                .map(|i| (Walker::new(i), Deferred::default()))
                .collect(),
            looks: Requests::for_agents::<Deferred>(agents),
            answers: Vec::with_capacity(agents),
            traversal: Duration::ZERO,
            batch: Duration::ZERO,
        }
    }

    fn immediate_frame(&mut self) {
        for (me, tree) in &mut self.immediate {
            tree.tick(me, &self.world);
            me.advance();
        }
    }

    /// The immediate form on rayon's pool (the world is only read).
    fn immediate_frame_parallel(&mut self) {
        let world = &self.world;
        bt::parallel::for_each_parallel(&mut self.immediate, CHUNK, |_, (me, tree)| {
            tree.tick(me, world);
            me.advance();
        });
    }

    /// The deferred form with the look system on rayon's pool: the ticks
    /// push into one stream on this thread, the sort and the world reads
    /// run in parallel, the delivery on this thread.
    fn deferred_frame_parallel(&mut self) {
        use rayon::prelude::*;
        let start = Instant::now();
        self.tick_deferred();
        let ticked = Instant::now();
        let world = &self.world;
        self.looks
            .messages_mut()
            .par_sort_unstable_by_key(|m| match m {
                Message::Start(_, look) => look.at,
                Message::Cancel(_) => 0,
            });
        self.answers
            .par_extend(self.looks.messages().par_iter().filter_map(|m| match m {
                Message::Start(ticket, look) => Some((*ticket, world.look(look.at))),
                Message::Cancel(_) => None,
            }));
        self.looks.drain();
        self.deliver();
        self.traversal += ticked - start;
        self.batch += ticked.elapsed();
    }

    /// The share of the deferred frames' time spent in the ticks since the
    /// last call; starts counting afresh.
    fn split(&mut self) -> f64 {
        let total = (self.traversal + self.batch).as_secs_f64();
        let share = if total > 0.0 {
            self.traversal.as_secs_f64() / total
        } else {
            0.0
        };
        (self.traversal, self.batch) = (Duration::ZERO, Duration::ZERO);
        share
    }

    fn tick_deferred(&mut self) {
        for (i, (me, tree)) in self.deferred.iter_mut().enumerate() {
            tree.tick(me, &mut self.looks, &Ctx::new(0.0, 0.1).agent(i as u64));
            me.advance();
        }
    }

    /// To each agent's state and data.
    fn deliver(&mut self) {
        for &(ticket, even) in &self.answers {
            let (me, tree) = &mut self.deferred[ticket.agent as usize];
            me.even_answer = even;
            tree.answer(ticket, Outcome::Success)
                .expect("every answer is for the request in flight");
        }
        self.answers.clear();
    }

    fn deferred_frame(&mut self) {
        let start = Instant::now();
        self.tick_deferred();
        let ticked = Instant::now();
        // The look system: by row, so that neighbouring looks share pages.
        self.looks.messages_mut().sort_unstable_by_key(|m| match m {
            Message::Start(_, look) => look.at,
            Message::Cancel(_) => 0,
        });
        for message in self.looks.drain() {
            if let Message::Start(ticket, look) = message {
                self.answers.push((ticket, self.world.look(look.at)));
            }
        }
        self.deliver();
        self.traversal += ticked - start;
        self.batch += ticked.elapsed();
    }
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bt-bench-criterion");
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    let mut c = Criterion::default()
        .output_directory(&out)
        .configure_from_args();
    let mut world = Some(World::new());
    let mut rows = Vec::new();
    for agents in [1_000usize, 100_000] {
        let mut bench = Bench::new(world.take().expect("one world"), agents);
        // The same looks in both forms: the deferred walker reads each
        // answer one tick later, so after n + 1 frames it has read what the
        // immediate walker saw in n.
        for _ in 0..20 {
            bench.immediate_frame();
        }
        for _ in 0..21 {
            bench.deferred_frame();
        }
        for ((a, _), (b, _)) in bench.immediate.iter().zip(&bench.deferred) {
            assert_eq!(
                (a.looks, a.even),
                (b.looks, b.even),
                "the two forms disagree"
            );
        }
        let mut g = c.benchmark_group(format!("requests-{agents}"));
        g.sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        g.bench_function("immediate", |b| b.iter(|| bench.immediate_frame()));
        bench.split();
        g.bench_function("deferred", |b| b.iter(|| bench.deferred_frame()));
        let one = bench.split();
        g.bench_function("immediate-parallel", |b| {
            b.iter(|| bench.immediate_frame_parallel())
        });
        g.bench_function("deferred-parallel", |b| {
            b.iter(|| bench.deferred_frame_parallel())
        });
        let parallel = bench.split();
        g.finish();
        rows.push((agents, one, parallel));
        world = Some(bench.world);
    }
    c.final_summary();
    if !filtered {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-requests.md");
        std::fs::write(&path, report(&out, &rows)).expect("write BENCHMARKS-requests.md");
        println!("wrote {}", path.display());
    }
}

fn report(dir: &Path, rows: &[(usize, f64, f64)]) -> String {
    let mut o = String::new();
    writeln!(o, "# Immediate actions against deferred requests\n").unwrap();
    writeln!(
        o,
        "Written by `cargo bench -p bt-bench --bench requests` (`bt-bench/benches/requests.rs`); do not edit by hand."
    )
    .unwrap();
    writeln!(o, "Machine: {}.\n", machine()).unwrap();
    writeln!(
        o,
        "Every tick, each agent looks at a 64 MiB world along a short line from where it stands (16 \
         cells, a cache line apart) and moves on. *Immediate*: the look is an `action` inside the tick. \
         *Deferred*: the tick pushes `request(looks, Look {{ at }})` and reads the previous tick's \
         answer; one system then sorts the frame's requests by where they look, reads the world, and \
         delivers the answers with `answer`. Both forms make the same looks (checked before timing). \
         The deferred time is split into the ticks (*traversal*) and the system (*batch*: sort, \
         world reads, delivery), measured over the timed frames.\n"
    )
    .unwrap();
    writeln!(
        o,
        "*Parallel*: the immediate ticks on rayon's pool (`bt::parallel::for_each_parallel`, the \
         world is only read); the deferred ticks on one thread (they push into one stream), and the \
         look system sorts and reads the world on rayon's pool, then delivers on one thread. \
         Nanoseconds per agent-tick, the mean of each frame over the agents:\n"
    )
    .unwrap();
    writeln!(
        o,
        "| agents | threads | immediate | deferred | traversal | batch | deferred / immediate |"
    )
    .unwrap();
    writeln!(o, "|---:|---|---:|---:|---:|---:|---:|").unwrap();
    for &(agents, one, parallel) in rows {
        let group = format!("requests-{agents}");
        let per = |bench: &str| mean_ns(dir, &group, bench).map(|ns| ns / agents as f64);
        for (threads, suffix, split) in [("1", "", one), ("2 (rayon)", "-parallel", parallel)] {
            match (
                per(&format!("immediate{suffix}")),
                per(&format!("deferred{suffix}")),
            ) {
                (Some(i), Some(d)) => writeln!(
                    o,
                    "| {agents} | {threads} | {i:.1} | {d:.1} | {:.1} | {:.1} | {:.2} |",
                    d * split,
                    d * (1.0 - split),
                    d / i
                )
                .unwrap(),
                _ => writeln!(o, "| {agents} | {threads} | n/a | n/a | n/a | n/a | n/a |").unwrap(),
            }
        }
    }
    o
}
