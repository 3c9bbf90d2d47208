//! The Spore creature: guard the nest (fight, growl, patrol), flee when
//! badly hurt, eat what it finds, rest at night, and idle (play with a
//! friend, wander, sit) otherwise.
//!
//! A tiny one-dimensional world with the nest at `x = 0`: enemies come and
//! go, food appears, friends invite the creature to play. Everything random
//! comes from seeded generators, and time is the simulated clock passed in
//! the tick context, so every run prints the same thing.
//!
//! Prints creature 0's decisions at trace level 1 (activations only), a
//! summary of all creatures, and creature 0's active path at the end.
//! Every node's status transitions are recorded too: `--record` writes
//! creature 0's as a BehaviorTree.CPP `.btlog` file (Groot2 replays it),
//! `--jsonl` every creature's as JSON lines, `--html` a page to scrub
//! through them.
//!
//! The whole world saves and loads mid-run, brains included: `--save
//! state.json` writes it at the end, `--load state.json` starts from it, so
//! `--seconds 60 --save s.json` then `--load s.json --seconds 120` ends
//! exactly where one 120-second run does.
//!
//! Live, `--live 8765` serves the debugger page while the creatures run:
//! open `http://127.0.0.1:8765/` to follow any creature tick by tick, pause,
//! step, force a node's status or stop at a breakpoint (`--hz 60` ticks 60
//! times a second instead of 4, `--creatures 10000` for a crowd).
//!
//! `--groot 1667` serves Groot2's monitor protocol while the
//! creatures run in real time: open Groot2's monitor on `localhost:1667`
//! to follow creature 0 (`--watch N` for another), set breakpoints on its
//! nodes and replace their results.
//!
//! `cargo run --example creature -- [seed] [--record creature.btlog] [--jsonl creature.jsonl]
//! [--html creature.html] [--creatures N] [--seconds S] [--save F.json] [--load F.json]
//! [--groot PORT [--watch N]] [--live PORT [--hz N]]`

use bt::prelude::*;
use bt::record::Recorder;
use bt::{Ctx, Leaf, Stimuli, Trace, Tracer};
use bt_groot::{Groot2, Options};
use bt_live::LivePage;
use rand_pcg::Pcg32;
use rand_pcg::rand_core::{Rng, SeedableRng};

bt::bitflags::bitflags! {
    /// Decision flags, set by the game each tick.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Mode: u8 {
        /// It is night.
        const NIGHT = 1;
    }

    /// Stimuli: short-lived facts about the creature, with a timeout.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Senses: u8 {
        /// Something hit it.
        const TOOK_HIT = 1;
        /// A friend asked it to play (data: the friend's id).
        const INVITED = 2;
        /// It ate recently.
        const ATE = 4;
    }
}

/// One creature and its patch of world.
#[derive(bt::serde::Serialize, bt::serde::Deserialize)]
#[serde(crate = "bt::serde")]
pub struct Creature {
    id: u64,
    x: f32,
    hp: f32,
    hunger: f32,
    energy: f32,
    enemy: Option<f32>,
    food: Option<f32>,
    stimuli: Stimuli<Senses, u64, 4>,
    guarding: bool,
    world: Pcg32,
    /// How often each kind of thing happened.
    tally: Tally,
}

/// Counts for the summary.
#[derive(Default, Debug, bt::serde::Serialize, bt::serde::Deserialize)]
#[serde(crate = "bt::serde")]
pub struct Tally {
    fights_won: u32,
    hits_taken: u32,
    meals: u32,
    plays: u32,
    growls: u32,
    rests: u32,
}

impl Creature {
    fn new(id: u64, seed: u64) -> Creature {
        Creature {
            id,
            x: 0.0,
            hp: 100.0,
            hunger: 0.2,
            energy: 1.0,
            enemy: None,
            food: None,
            stimuli: Stimuli::new(),
            guarding: false,
            world: Pcg32::seed_from_u64(seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            tally: Tally::default(),
        }
    }

    fn chance(&mut self, p: f32) -> bool {
        (self.world.next_u32() as f32 / u32::MAX as f32) < p
    }

    /// The world moves on by `dt` seconds.
    fn simulate(&mut self, now: f64, dt: f32) {
        self.hunger = (self.hunger + 0.01 * dt).min(1.0);
        self.energy = (self.energy - 0.008 * dt).max(0.0);
        self.hp = (self.hp + 0.5 * dt).min(100.0);
        if self.enemy.is_none() && self.chance(0.004) {
            self.enemy = Some(12.0);
        }
        if let Some(mut e) = self.enemy {
            // Enemies walk toward the nest, unless growled at.
            e -= 0.6 * dt * e.signum();
            if (e - self.x).abs() < 1.5 && self.chance(0.08) {
                self.hp -= 12.0;
                self.tally.hits_taken += 1;
                self.stimuli.add_evicting(Senses::TOOK_HIT, 2.0, 0);
            }
            self.enemy = (e.abs() <= 20.0).then_some(e);
        }
        if self.food.is_none() && self.chance(0.006) {
            self.food = Some((self.world.next_u32() % 17) as f32 - 8.0);
        }
        if self.chance(0.004) {
            let friend = u64::from(self.world.next_u32() % 3);
            self.stimuli.add_evicting(Senses::INVITED, 6.0, friend);
        }
        let _ = now;
    }

    fn enemy_near_nest(&self) -> bool {
        self.enemy.is_some_and(|e| e.abs() < 8.0)
    }

    fn enemy_distance(&self) -> f32 {
        self.enemy.map_or(f32::INFINITY, |e| (e - self.x).abs())
    }

    fn step_toward(&mut self, target: f32, speed: f32) -> bool {
        let d = target - self.x;
        if d.abs() <= speed {
            self.x = target;
            true
        } else {
            self.x += speed * d.signum();
            false
        }
    }

    fn flee(&mut self, dt: f32) -> Status {
        let away = if self.enemy.unwrap_or(1.0) > self.x {
            -15.0
        } else {
            15.0
        };
        if self.step_toward(away, 3.0 * dt) || self.hp > 95.0 {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn fight(&mut self) -> Status {
        if self.chance(0.05) {
            self.enemy = None;
            self.tally.fights_won += 1;
            Status::Success
        } else {
            Status::Running
        }
    }

    fn growl(&mut self) -> Status {
        self.tally.growls += 1;
        if let Some(e) = self.enemy.as_mut() {
            *e += e.signum() * 2.0;
        }
        Status::Success
    }

    fn eat(&mut self) -> Status {
        self.food = None;
        self.hunger = 0.0;
        self.tally.meals += 1;
        self.stimuli.add_evicting(Senses::ATE, 20.0, 0);
        Status::Success
    }

    fn play(&mut self, dt: f32) -> Status {
        self.energy = (self.energy - 0.02 * dt).max(0.0);
        self.tally.plays += 1;
        Status::Running
    }

    fn wander(&mut self, dt: f32) -> Status {
        let target = if self.chance(0.5) { 3.0 } else { -3.0 };
        self.step_toward(target, dt);
        Status::Running
    }
}

/// Walks to `x`; succeeds on arrival.
pub struct MoveTo {
    x: f32,
    speed: f32,
}

impl Leaf<Creature> for MoveTo {
    type Memory = ();
    fn tick(&self, _: &mut (), me: &mut Creature) -> Status {
        Status::from_bool(me.step_toward(self.x, self.speed)).or_running()
    }
}

/// Walks back and forth in front of the nest, for as long as it is asked.
pub struct Patrol {
    speed: f32,
}

impl Leaf<Creature> for Patrol {
    /// Heading: +1 or -1.
    type Memory = i8;
    fn start(&self, heading: &mut i8, me: &mut Creature) -> Status {
        *heading = 1;
        self.tick(heading, me)
    }
    fn tick(&self, heading: &mut i8, me: &mut Creature) -> Status {
        // Any heading a loaded memory holds walks one way or the other.
        if me.step_toward(2.0 * f32::from(heading.signum()), self.speed) {
            *heading = if *heading > 0 { -1 } else { 1 };
        }
        Status::Running
    }
}

/// Sleeps until rested; waking up early is fine.
pub struct Rest {
    rate: f32,
}

impl Leaf<Creature> for Rest {
    type Memory = ();
    fn start(&self, _: &mut (), me: &mut Creature) -> Status {
        me.tally.rests += 1;
        self.tick(&mut (), me)
    }
    fn tick(&self, _: &mut (), me: &mut Creature) -> Status {
        me.energy = (me.energy + self.rate).min(1.0);
        if me.energy >= 1.0 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

/// `Success` stays `Success`; `Failure` becomes `Running` (keep walking).
trait OrRunning {
    fn or_running(self) -> Status;
}

impl OrRunning for Status {
    fn or_running(self) -> Status {
        if self.is_failure() {
            Status::Running
        } else {
            self
        }
    }
}

behavior_tree! {
    /// Figure 1 of the Spore behavior tree documentation, as a tree.
    #[bt(serde, activation_times)]
    pub tree CreatureBrain(me: &mut Creature, cx: &Ctx<Mode, Senses, impl Trace>, rng: &mut Pcg32) {
        'root: prioritized {
            'flee: stimuli(any = Senses::TOOK_HIT) when me.hp < 90.0 => action me.flee(cx.dt as f32),
            'guard_nest: when me.enemy_near_nest() => scope(
                enter = me.guarding = true,
                exit = me.guarding = false,
            ) {
                prioritized {
                    'fight: when me.enemy_distance() < 2.0 => action me.fight(),
                    'growl: every(3) when me.enemy_distance() < 6.0 => action me.growl(),
                    'patrol: else => Patrol { speed: 1.5 * cx.dt as f32 },
                }
            },
            'eat: stimuli(none = Senses::ATE) when let Some(at): Option<f32> = me.food => sequence {
                MoveTo { x: *at, speed: 2.0 * cx.dt as f32 },
                action me.eat(),
            },
            'rest: flags(any = Mode::NIGHT) when me.energy < 0.7 => Rest { rate: 0.05 * cx.dt as f32 },
            'idle: else => shuffle(rng) {
                'play: stimuli(any = Senses::INVITED) => force_success {
                    timeout(4) { action me.play(cx.dt as f32) }
                },
                'wander: force_success { timeout(3) { action me.wander(cx.dt as f32) } },
                'sit: wait(2),
            },
        }
    }
}

/// Everything a run is: the clock, every creature with its brain, and the
/// generator the brains' `shuffle` draws from. Saved and loaded whole.
#[derive(bt::serde::Serialize, bt::serde::Deserialize)]
#[serde(crate = "bt::serde")]
pub struct World {
    /// Simulated time, in seconds.
    pub now: f64,
    /// The creatures and their brains' states.
    pub creatures: Vec<(Creature, CreatureBrain)>,
    rng: Pcg32,
}

/// Seconds per tick.
pub const DT: f64 = 0.25;

impl World {
    /// `count` creatures at time 0, from `seed`.
    pub fn new(count: u64, seed: u64) -> World {
        World {
            now: 0.0,
            creatures: (0..count)
                .map(|id| (Creature::new(id, seed), CreatureBrain::default()))
                .collect(),
            rng: Pcg32::seed_from_u64(seed),
        }
    }

    /// One tick: the world moves on by [`DT`], then each creature's brain
    /// ticks with `trace` attached; `after` sees each creature after its
    /// tick, with the context it was ticked with.
    pub fn step<T: Trace>(
        &mut self,
        trace: &T,
        mut after: impl FnMut(&Creature, &Ctx<Mode, Senses, &T>),
    ) {
        self.now += DT;
        let now = self.now;
        let night = (now % 60.0) >= 40.0;
        for (creature, brain) in &mut self.creatures {
            creature.simulate(now, DT as f32);
            let senses = creature.stimuli.update(now);
            let mode = if night { Mode::NIGHT } else { Mode::empty() };
            let cx = Ctx::new(now, DT)
                .flags(mode)
                .stimuli(senses)
                .agent(creature.id)
                .trace(trace);
            brain.tick(creature, &cx, &mut self.rng);
            after(creature, &cx);
        }
    }

    /// Steps until the clock reaches `seconds`.
    pub fn run_until<T: Trace>(
        &mut self,
        seconds: f64,
        trace: &T,
        mut after: impl FnMut(&Creature, &Ctx<Mode, Senses, &T>),
    ) {
        while self.now < seconds {
            self.step(trace, &mut after);
        }
    }
}

/// Runs `count` creatures for `seconds` of simulated time, ticking their
/// brains with `trace` attached and calling `after` after each creature's
/// tick; returns them and the final time.
pub fn simulate(
    count: u64,
    seed: u64,
    seconds: f64,
    trace: &impl Trace,
    mut after: impl FnMut(&Creature),
) -> (Vec<(Creature, CreatureBrain)>, f64) {
    let mut world = World::new(count, seed);
    world.run_until(seconds, trace, |c, _| after(c));
    (world.creatures, world.now)
}

/// `creature [SEED] [--record FILE.btlog] [--jsonl FILE.jsonl]
/// [--html FILE.html] [--creatures N] [--seconds S] [--save FILE.json]
/// [--load FILE.json] [--hot] [--groot PORT [--watch N]] [--live PORT [--hz N]]`.
///
/// `--hot` runs the brains live (the `hot-reload` feature) in real time, a
/// tick every 0.25 s: edit the tree in this file and save, and the running
/// creatures change behaviour without a restart, each reload reported in
/// one line.
fn main() -> std::io::Result<()> {
    let mut seed = 7;
    let (mut btlog, mut jsonl, mut html) = (None, None, None);
    let (mut save, mut load) = (None, None);
    let (mut count, mut seconds) = (3u64, 120.0f64);
    let mut hot = false;
    let (mut groot, mut watch) = (None, 0u64);
    let (mut live, mut hz) = (None, 1.0 / DT);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().unwrap_or_else(|| panic!("{arg} takes {what}"));
        match arg.as_str() {
            "--record" => btlog = Some(value("a file name")),
            "--jsonl" => jsonl = Some(value("a file name")),
            "--html" => html = Some(value("a file name")),
            "--save" => save = Some(value("a file name")),
            "--load" => load = Some(value("a file name")),
            "--creatures" => count = value("a number").parse().expect("a number of creatures"),
            "--seconds" => seconds = value("a number").parse().expect("a number of seconds"),
            "--hot" => hot = true,
            "--groot" => groot = Some(value("a port").parse::<u16>().expect("a port number")),
            "--live" => live = Some(value("a port").parse::<u16>().expect("a port number")),
            "--hz" => {
                hz = value("ticks per second")
                    .parse()
                    .expect("a number of ticks per second")
            }
            "--watch" => watch = value("a creature").parse().expect("a creature's number"),
            _ => seed = arg.parse().expect("the seed is a number"),
        }
    }
    let mut world = match &load {
        Some(path) => {
            let file = std::io::BufReader::new(std::fs::File::open(path)?);
            serde_json::from_reader(file).map_err(std::io::Error::other)?
        }
        None => World::new(count, seed),
    };
    let count = world.creatures.len() as u64;
    // Level 1: transitions only, and only creature 0's.
    let tracer = Tracer::new(1, |e: &bt::TraceEvent| println!("{e}")).only_agent(0);
    // Every node's status, for every creature; for the page, with guard
    // verdicts and a value per tick, when there are few creatures.
    let ticks = ((seconds - world.now).max(0.0) / DT) as usize + 1;
    let detailed = html.is_some() && count <= 16;
    let mut recorder = Recorder::new::<CreatureBrain>(count as usize, 8 * ticks);
    if detailed {
        recorder = recorder.with_guards(16 * ticks).with_notes(ticks);
    }

    match &load {
        Some(path) => println!(
            "Spore creature: {count} creatures loaded from {path} at {} s, run until {seconds} s, \
             {} bytes of tree state each\n",
            world.now,
            CreatureBrain::STATE_SIZE
        ),
        None => println!(
            "Spore creature, seed {seed}: {count} creatures for {seconds} s, {} bytes of tree state each\n",
            CreatureBrain::STATE_SIZE
        ),
    }
    if let Some(port) = groot {
        let groot = Groot2::serve::<CreatureBrain>(Options::new().port(port))?;
        groot.watch(watch);
        println!(
            "Groot2: connect the monitor to {} (creature {watch}); ticking in real time \
             until {seconds} s\n",
            groot.address()
        );
        run_groot(&mut world, seconds, &groot, true, |w| {
            if ((w.now / DT) as u64).is_multiple_of(4) {
                let c = &w.creatures[watch as usize % w.creatures.len()].0;
                println!(
                    "t={:>5.1} creature {}: hp {:>5.1}, hunger {:.2}, energy {:.2}, x {:>6.1}",
                    w.now, c.id, c.hp, c.hunger, c.energy, c.x
                );
            }
        });
        return Ok(());
    }
    if let Some(port) = live {
        let options = bt_live::Options::new()
            .port(port)
            .notes(64)
            .title(format!("Spore creature, seed {seed}"));
        let page = LivePage::serve::<CreatureBrain>(count as usize, options)?;
        page.watch(watch).map_err(std::io::Error::other)?;
        println!(
            "the live page: open {} (creature {watch}); {hz} ticks a second until {seconds} s\n",
            page.url()
        );
        let pace = std::time::Duration::from_secs_f64(1.0 / hz);
        run_live_page(&mut world, &page, pace, |w, _| w.now < seconds);
        page.stop();
        return Ok(());
    }
    if hot {
        #[cfg(feature = "hot-reload")]
        return run_live(&mut world, seconds, &tracer);
        #[cfg(not(feature = "hot-reload"))]
        panic!(
            "--hot needs the `hot-reload` feature: cargo run --example creature --features hot-reload -- --hot"
        );
    }
    world.run_until(seconds, &(&tracer, &recorder), |c, _| {
        if detailed {
            let state = (
                c.hp.round(),
                (c.hunger * 100.0).round() / 100.0,
                c.x.round(),
            );
            // Every creature is recorded.
            let _ = recorder.note(c.id, 0, &format_args!("hp, hunger, x = {state:?}"));
        }
    });
    if let Some(path) = &save {
        let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
        serde_json::to_writer(&mut file, &world).map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut file)?;
        println!(
            "\nthe world at {} s, every brain mid-behaviour, saved to {path}",
            world.now
        );
    }
    let (creatures, now) = (&world.creatures, world.now);

    println!("\nafter {seconds} s:");
    for (c, _) in creatures.iter().take(3) {
        println!(
            "  creature {}: hp {:.0}, hunger {:.2}, energy {:.2}, x {:.1}, {:?}",
            c.id, c.hp, c.hunger, c.energy, c.x, c.tally
        );
    }
    let (first, brain) = &creatures[0];
    let mut state = String::new();
    brain
        .print_state(now, &mut state)
        .expect("writing to a String cannot fail");
    println!("\ncreature {} is doing, at {now} s:\n{state}", first.id);
    if let Some(path) = btlog {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        recorder.write_btlog(0, &mut file)?;
        println!(
            "creature 0's {} status transitions written to {path} (open it in Groot2's log replay)",
            recorder.transitions(0)?.len()
        );
    }
    if let Some(path) = jsonl {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        recorder.write_jsonl(0..count, &mut file)?;
        println!("every creature's transitions written to {path} as JSON lines");
    }
    if let Some(path) = html {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        let title = format!("Spore creature, seed {seed}");
        recorder.write_html(0..count, &title, &mut file)?;
        println!("a page of every creature's history written to {path}: open it in a browser");
    }
    Ok(())
}

#[cfg(feature = "hot-reload")]
/// `--hot`: the brains run live, in real time, until `seconds`; once a
/// second, a line per creature shows what it does.
fn run_live(world: &mut World, seconds: f64, tracer: &impl Trace) -> std::io::Result<()> {
    bt::hot::start();
    println!("edit the tree in examples/creature.rs and save: the creatures pick it up\n");
    while world.now < seconds {
        let until = world.now + DT;
        world.run_until(until, tracer, |_, _| {});
        if ((world.now / DT) as u64).is_multiple_of(4) {
            for (c, _) in world.creatures.iter().take(3) {
                println!(
                    "t={:>5.1} creature {}: hp {:>5.1}, hunger {:.2}, energy {:.2}, x {:>6.1}",
                    world.now, c.id, c.hp, c.hunger, c.energy, c.x
                );
            }
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(DT));
    }
    Ok(())
}

/// `--groot`: the creatures tick with `groot` attached until `seconds`
/// (in real time when `realtime`, a tick every [`DT`] seconds), the
/// watched creature's values shown in Groot2's blackboard view; `after`
/// sees the world after each step. A breakpoint Groot2 sets on the watched
/// creature stops the step it is in until Groot2 releases it.
pub fn run_groot(
    world: &mut World,
    seconds: f64,
    groot: &Groot2,
    realtime: bool,
    mut after: impl FnMut(&World),
) {
    while world.now < seconds {
        world.step(groot, |c, _| {
            if c.id == groot.watched() {
                groot.set_value("hp", f64::from(c.hp.round()));
                groot.set_value("hunger", f64::from((c.hunger * 100.0).round() / 100.0));
                groot.set_value("x", f64::from(c.x.round()));
            }
        });
        after(world);
        if realtime {
            std::thread::sleep(std::time::Duration::from_secs_f64(DT));
        }
    }
}

/// `--live`: the creatures tick with the live page attached, a frame every
/// `pace` (the world moves on by [`DT`] per frame), while `go_on` (seeing
/// the world and whether this frame ticked) says so. While the page has
/// the program paused, frames pass without ticking. The watched creature's
/// values are noted for the page.
pub fn run_live_page(
    world: &mut World,
    page: &LivePage,
    pace: std::time::Duration,
    mut go_on: impl FnMut(&World, bool) -> bool,
) {
    let mut next = std::time::Instant::now();
    loop {
        let ticked = if let Some(_frame) = page.frame() {
            world.step(page, |c, _| {
                if c.id == page.watched() {
                    let state = (
                        c.hp.round(),
                        (c.hunger * 100.0).round() / 100.0,
                        c.x.round(),
                    );
                    let _ =
                        page.recorder()
                            .note(c.id, 0, &format_args!("hp, hunger, x = {state:?}"));
                }
            });
            true
        } else {
            false
        };
        if !go_on(world, ticked) {
            break;
        }
        // A fixed rate: the next frame starts `pace` after this one did.
        next += pace;
        let now = std::time::Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        } else {
            next = now;
        }
    }
}
