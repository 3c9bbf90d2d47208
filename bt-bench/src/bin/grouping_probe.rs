//! What ticking agents grouped by where their trees resume would buy,
//! measured before building it (`ASSEMBLY.md`, "Ticking agents grouped by
//! where their trees resume").
//!
//! Ways to tick the same population of the guard or the large tree:
//! `per-agent` (the `behavior_tree!` tree, agents in index order),
//! `grouped` (the same tree; in blocks of `block` consecutive agents, each
//! agent's resume node is found, the deepest node of its active path by
//! `BehaviorTree::visit_active`, and the block is ticked ordered by it, a
//! counting sort), `batched` (what shipped: `bt::batch::Batch`, grouped every
//! 8 ticks, every block grouped: `min_groups(1)`) and `hand-written` (index order); `run` also takes
//! `per-agent-pairs`, `batched-pairs` and `hand-written-pairs`, the states
//! and agents in one `Vec` of pairs as `benches/batch.rs` keeps them. Every agent is ticked
//! once per tick either way, and the probe checks that the grouped states
//! and agents end as the per-agent ones do.
//!
//! ```sh
//! cargo build --release -p bt-bench --bin grouping_probe
//! # times per agent-tick, the three side by side (ticking only, and the
//! # grouping's own cost), every scenario
//! target/release/grouping_probe compare <guard|large> <agents> <ticks> [block]
//! # one way only, for `valgrind --tool=cachegrind --branch-sim=yes`
//! target/release/grouping_probe run <guard|large> <scenario> <per-agent|grouped|batched|hand-written> <agents> <ticks> [block]
//! ```

use bt::{BehaviorTree, Status};
use bt_bench::hand::{GuardHand, LargeHand};
use bt_bench::ours::{Guard, Large};
use bt_bench::world::{Agent, Scenario};
use std::hint::black_box;
use std::time::Instant;

/// A tree and its hand-written twin.
trait Pair {
    type Ours: BehaviorTree + Default + core::fmt::Debug;
    type Hand: Default;
    fn ours(state: &mut Self::Ours, agent: &mut Agent) -> Status;
    fn hand(state: &mut Self::Hand, agent: &mut Agent) -> Status;
}

struct GuardPair;
impl Pair for GuardPair {
    type Ours = Guard;
    type Hand = GuardHand;
    #[inline]
    fn ours(state: &mut Guard, agent: &mut Agent) -> Status {
        state.tick(agent)
    }
    #[inline]
    fn hand(state: &mut GuardHand, agent: &mut Agent) -> Status {
        state.tick(agent)
    }
}

struct LargePair;
impl Pair for LargePair {
    type Ours = Large;
    type Hand = LargeHand;
    #[inline]
    fn ours(state: &mut Large, agent: &mut Agent) -> Status {
        state.tick(agent)
    }
    #[inline]
    fn hand(state: &mut LargeHand, agent: &mut Agent) -> Status {
        state.tick(agent)
    }
}

/// The node a state resumes in: the deepest node of its active path (the
/// last one `visit_active` reports), or one past the last node when idle.
#[inline]
fn resume_node<T: BehaviorTree>(state: &T) -> usize {
    let mut last = T::NODES.len();
    state.visit_active(0, &mut |n| last = n.info.id);
    last
}

/// Scratch space of the grouped ticking, reused every tick.
struct Grouping {
    block: usize,
    keys: Vec<u16>,
    order: Vec<u32>,
    counts: Vec<u32>,
}

impl Grouping {
    fn new<T: BehaviorTree>(block: usize) -> Grouping {
        Grouping {
            block,
            keys: vec![0; block],
            order: vec![0; block],
            counts: vec![0; T::NODES.len() + 2],
        }
    }

    /// Orders block `states` by resume node into `self.order`.
    #[inline]
    fn group<T: BehaviorTree>(&mut self, states: &[T]) {
        self.counts.fill(0);
        for (i, s) in states.iter().enumerate() {
            let k = resume_node(s);
            self.keys[i] = k as u16;
            self.counts[k + 1] += 1;
        }
        for k in 1..self.counts.len() {
            self.counts[k] += self.counts[k - 1];
        }
        for i in 0..states.len() {
            let k = self.keys[i] as usize;
            self.order[self.counts[k] as usize] = i as u32;
            self.counts[k] += 1;
        }
    }
}

/// Ticks every agent once, in index order.
#[inline(never)]
fn per_agent<P: Pair>(states: &mut [P::Ours], agents: &mut [Agent]) {
    for (s, a) in states.iter_mut().zip(agents.iter_mut()) {
        black_box(P::ours(s, a));
        a.advance();
    }
}

/// Ticks every agent once with the hand-written tree, in index order.
#[inline(never)]
fn hand<P: Pair>(states: &mut [P::Hand], agents: &mut [Agent]) {
    for (s, a) in states.iter_mut().zip(agents.iter_mut()) {
        black_box(P::hand(s, a));
        a.advance();
    }
}

/// [`per_agent`] over `(state, agent)` pairs.
#[inline(never)]
fn per_agent_pairs<P: Pair>(pairs: &mut [(P::Ours, Agent)]) {
    for (s, a) in pairs {
        black_box(P::ours(s, a));
        a.advance();
    }
}

/// [`hand`] over `(state, agent)` pairs.
#[inline(never)]
fn hand_pairs<P: Pair>(pairs: &mut [(P::Hand, Agent)]) {
    for (s, a) in pairs {
        black_box(P::hand(s, a));
        a.advance();
    }
}

/// [`batched`] over `(state, agent)` pairs.
#[inline(never)]
fn batched_pairs<P: Pair>(batch: &mut bt::batch::Batch, pairs: &mut [(P::Ours, Agent)]) {
    batch.tick(
        pairs,
        |(s, _)| s,
        |_, (s, a)| {
            black_box(P::ours(s, a));
            a.advance();
        },
    );
}

/// Ticks every agent once with `bt::batch::Batch` as shipped.
#[inline(never)]
fn batched<P: Pair>(batch: &mut bt::batch::Batch, states: &mut [P::Ours], agents: &mut [Agent]) {
    batch.tick(
        states,
        |s| s,
        |i, s| {
            black_box(P::ours(s, &mut agents[i]));
            agents[i].advance();
        },
    );
}

/// Ticks every agent once, block by block, each block in the order of
/// its agents' resume nodes; returns the seconds spent grouping.
#[inline(never)]
fn grouped<P: Pair>(g: &mut Grouping, states: &mut [P::Ours], agents: &mut [Agent]) -> f64 {
    let mut grouping = 0.0;
    let block = g.block;
    for (sb, ab) in states.chunks_mut(block).zip(agents.chunks_mut(block)) {
        let t = Instant::now();
        g.group(sb);
        grouping += t.elapsed().as_secs_f64();
        for &i in &g.order[..sb.len()] {
            let i = i as usize;
            black_box(P::ours(&mut sb[i], &mut ab[i]));
            ab[i].advance();
        }
    }
    grouping
}

fn scenario(name: &str) -> Scenario {
    Scenario::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .unwrap_or_else(|| panic!("scenarios: steady, restarts, preemption"))
}

fn compare<P: Pair>(tree: &str, n: usize, ticks: u32, block: usize) {
    println!(
        "| tree | scenario | agents | per-agent | grouped | ticking only | grouping only | batched | hand-written | per-agent / grouped | hand / grouped | per-agent / batched | hand / batched | groups per block |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for scenario in Scenario::ALL {
        let mut a1 = Agent::many(n, scenario);
        let mut a2 = Agent::many(n, scenario);
        let mut a3 = Agent::many(n, scenario);
        let mut a4 = Agent::many(n, scenario);
        let mut s4: Vec<P::Ours> = (0..n).map(|_| P::Ours::default()).collect();
        let mut batch = bt::batch::Batch::with_capacity::<P::Ours>(n)
            .block(block)
            .min_groups(1);
        let mut s1: Vec<P::Ours> = (0..n).map(|_| P::Ours::default()).collect();
        let mut s2: Vec<P::Ours> = (0..n).map(|_| P::Ours::default()).collect();
        let mut s3: Vec<P::Hand> = (0..n).map(|_| P::Hand::default()).collect();
        let mut g = Grouping::new::<P::Ours>(block);
        let (mut t1, mut t2, mut tg, mut t3, mut t4) = (0.0, 0.0, 0.0, 0.0, 0.0);
        // The first ticks warm up (and leave the start, where every agent
        // is idle); the three ways alternate, tick by tick.
        let warm = 5;
        for round in 0..warm + ticks {
            let t = Instant::now();
            per_agent::<P>(&mut s1, &mut a1);
            let e1 = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let eg = grouped::<P>(&mut g, &mut s2, &mut a2);
            let e2 = t.elapsed().as_secs_f64();
            let t = Instant::now();
            hand::<P>(&mut s3, &mut a3);
            let e3 = t.elapsed().as_secs_f64();
            let t = Instant::now();
            batched::<P>(&mut batch, &mut s4, &mut a4);
            let e4 = t.elapsed().as_secs_f64();
            if round >= warm {
                (t1, t2, tg, t3, t4) = (t1 + e1, t2 + e2, tg + eg, t3 + e3, t4 + e4);
            }
        }
        let same = s1
            .iter()
            .zip(&s2)
            .all(|(a, b)| format!("{a:?}") == format!("{b:?}"))
            && a1
                .iter()
                .zip(&a2)
                .all(|(a, b)| (a.sum, a.calls, a.halts) == (b.sum, b.calls, b.halts));
        assert!(same, "grouped ticking ends where per-agent ticking does");
        assert!(
            a1.iter()
                .zip(&a4)
                .all(|(a, b)| (a.sum, a.calls, a.halts) == (b.sum, b.calls, b.halts)),
            "batched ticking ends where per-agent ticking does"
        );
        let mut groups = 0;
        for sb in s2.chunks(block) {
            let mut seen = vec![false; P::Ours::NODES.len() + 1];
            for s in sb {
                seen[resume_node(s)] = true;
            }
            groups += seen.iter().filter(|&&s| s).count();
        }
        let per = |t: f64| t / (f64::from(ticks) * n as f64) * 1e9;
        println!(
            "| {tree} | {} | {n} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} |",
            scenario.name(),
            per(t1),
            per(t2),
            per(t2 - tg),
            per(tg),
            per(t4),
            per(t3),
            t1 / t2,
            t3 / t2,
            t1 / t4,
            t3 / t4,
            groups as f64 / n.div_ceil(block) as f64,
        );
    }
}

fn run<P: Pair>(scenario: Scenario, how: &str, n: usize, ticks: u32, block: usize) {
    let mut agents = Agent::many(n, scenario);
    match how {
        "per-agent" => {
            let mut s: Vec<P::Ours> = (0..n).map(|_| P::Ours::default()).collect();
            for _ in 0..ticks {
                per_agent::<P>(&mut s, &mut agents);
            }
        }
        "grouped" => {
            let mut s: Vec<P::Ours> = (0..n).map(|_| P::Ours::default()).collect();
            let mut g = Grouping::new::<P::Ours>(block);
            for _ in 0..ticks {
                grouped::<P>(&mut g, &mut s, &mut agents);
            }
        }
        "batched" => {
            // `bt::batch::Batch` as shipped: grouped every 8 ticks.
            let mut s: Vec<P::Ours> = (0..n).map(|_| P::Ours::default()).collect();
            let mut batch = bt::batch::Batch::with_capacity::<P::Ours>(n)
                .block(block)
                .min_groups(1);
            for _ in 0..ticks {
                batched::<P>(&mut batch, &mut s, &mut agents);
            }
        }
        // `(state, agent)` pairs in one `Vec`, as `benches/batch.rs` keeps them.
        "per-agent-pairs" | "batched-pairs" | "hand-written-pairs" => {
            let mut ours: Vec<(P::Ours, Agent)> = (0..n as u32)
                .map(|id| (P::Ours::default(), Agent::new(id, scenario)))
                .collect();
            let mut hand: Vec<(P::Hand, Agent)> = (0..n as u32)
                .map(|id| (P::Hand::default(), Agent::new(id, scenario)))
                .collect();
            let mut batch = bt::batch::Batch::with_capacity::<P::Ours>(n)
                .block(block)
                .min_groups(1);
            for _ in 0..ticks {
                match how {
                    "per-agent-pairs" => per_agent_pairs::<P>(&mut ours),
                    "batched-pairs" => batched_pairs::<P>(&mut batch, &mut ours),
                    _ => hand_pairs::<P>(&mut hand),
                }
            }
            agents = if how == "hand-written-pairs" {
                hand.into_iter().map(|(_, a)| a).collect()
            } else {
                ours.into_iter().map(|(_, a)| a).collect()
            };
        }
        "hand-written" => {
            let mut s: Vec<P::Hand> = (0..n).map(|_| P::Hand::default()).collect();
            for _ in 0..ticks {
                hand::<P>(&mut s, &mut agents);
            }
        }
        _ => panic!(
            "ways: per-agent, grouped, batched, hand-written, per-agent-pairs, batched-pairs, hand-written-pairs"
        ),
    }
    println!("{}", agents.iter().map(|a| a.sum).fold(0u64, |x, s| x ^ s));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_default();
    let number = |i: usize| -> usize { arg(i).parse().expect("a number") };
    match (arg(0), arg(1)) {
        ("compare", tree) => {
            let block = args.get(4).map_or(4096, |_| number(4));
            match tree {
                "guard" => compare::<GuardPair>(tree, number(2), number(3) as u32, block),
                "large" => compare::<LargePair>(tree, number(2), number(3) as u32, block),
                _ => panic!("trees: guard, large"),
            }
        }
        ("run", tree) => {
            let block = args.get(6).map_or(4096, |_| number(6));
            let (s, how, n, ticks) = (scenario(arg(2)), arg(3), number(4), number(5) as u32);
            match tree {
                "guard" => run::<GuardPair>(s, how, n, ticks, block),
                "large" => run::<LargePair>(s, how, n, ticks, block),
                _ => panic!("trees: guard, large"),
            }
        }
        _ => panic!(
            "usage: grouping_probe compare <guard|large> <agents> <ticks> [block] \
             | grouping_probe run <guard|large> <scenario> <way> <agents> <ticks> [block]"
        ),
    }
}
