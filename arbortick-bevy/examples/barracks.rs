//! 10,000 guards in a headless Bevy app, each running one behavior tree
//! whose state is a component, ticked in parallel by `TreePlugin`.
//!
//! A guard patrols around its post, rests at night, and runs to noises it
//! hears (a stimulus that fades after three seconds) to fire three shots.
//! Out of ammunition, it goes to the armory: a `gate` of the tree's shared
//! state lets 30 guards in at a time, across Bevy's threads (a guard that
//! finds it full patrols and tries again on the next tick). Every
//! second some guards fall (their entities are despawned mid-action: their
//! running leaves are halted, armory permits come back) and recruits take
//! their place. Once per simulated second the app prints what the guards
//! are doing.
//!
//! Run with `cargo run --release -p arbortick-bevy --example barracks`
//! (`-- --agents N --seconds S` to change the size). With `--groot PORT`
//! the app serves Groot2's monitor on `localhost:PORT` and runs in real
//! time: Groot2 follows the first guard recruited (`--watch N` for the
//! N-th), stops it at breakpoints and replaces its nodes' results.

use bevy_app::{App, TaskPoolPlugin, Update};
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::ReflectComponent;
use bevy_time::{Time, TimePlugin, TimeUpdateStrategy};
use bt::prelude::*;
use bt::{ActiveNode, Ctx, Trace};
use bt_bevy::{
    AgentTree, DecisionFlags, Senses, StimuliFlags, TracedAgentTree, TreeFinished, TreePlugin,
    TreeShared, TreeSystems, TreeTrace, expire_stimuli,
};
use bt_groot::{Groot2, Options};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Frames per simulated second.
const HZ: u32 = 60;
/// Guards allowed in the armory at once.
const ARMORY: u32 = 30;

bt::bitflags::bitflags! {
    /// The watch's decision flags.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Shift: u8 {
        /// Guards rest at night.
        const NIGHT = 1;
    }
    /// What a guard perceives.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Alert: u8 {
        /// A noise was heard; the stimulus's data is where.
        const NOISE = 1;
    }
}

/// One guard: the data its tree reads and changes.
#[derive(Component)]
pub struct Guard {
    pos: f32,
    post: f32,
    /// Where the last noise came from, and the last one it answered.
    noise: f32,
    answered: f32,
    ammo: u32,
    shots: u64,
    rng: u64,
}

impl Guard {
    fn new(seed: u64) -> Guard {
        let post = (seed % 1000) as f32;
        Guard {
            pos: post,
            post,
            noise: post,
            answered: post,
            ammo: 6,
            shots: 0,
            rng: 0x2545_f491_4f6c_dd1d ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        }
    }

    /// A small deterministic random source (xorshift).
    fn roll(&mut self, one_in: u64) -> bool {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng.is_multiple_of(one_in)
    }

    fn fire(&mut self) -> Status {
        self.ammo = self.ammo.saturating_sub(1);
        self.shots += 1;
        Status::Success
    }
}

/// What a guard hears: noises, with where they came from, fade after
/// three seconds.
type Ears = Senses<Alert, f32, 2>;

/// Moves 4 units per second towards `to`; succeeds on arrival.
struct MoveTo {
    to: f32,
}

/// Moves abandoned halfway (halted), over the whole run.
static HALTED_MOVES: AtomicU64 = AtomicU64::new(0);

impl Leaf<Guard> for MoveTo {
    /// Frames spent walking.
    type Memory = u32;

    fn tick(&self, frames: &mut u32, me: &mut Guard) -> Status {
        let step = 4.0 / HZ as f32;
        let gap = self.to - me.pos;
        if gap.abs() <= step {
            me.pos = self.to;
            return Status::Success;
        }
        me.pos += step * gap.signum();
        *frames += 1;
        Status::Running
    }

    fn halt(_: &mut u32, _: &mut Guard) {
        HALTED_MOVES.fetch_add(1, Ordering::Relaxed);
    }
}

behavior_tree! {
    /// What every guard runs.
    #[derive(Component)]
    #[bt(reflect)]
    #[reflect(Component)]
    pub tree Duty(me: &mut Guard, #[context] cx: &Ctx<Shift, Alert, impl Trace>, shared: &DutyShared) {
        prioritized {
            'respond: stimuli(any = Alert::NOISE) when me.ammo > 0 && me.noise != me.answered => sequence {
                'approach: MoveTo { to: me.noise },
                'fire: repeat(3) { action me.fire() },
                action { me.answered = me.noise; Status::Success },
            },
            'armory: when me.ammo == 0 => gate(30) {
                sequence { wait(0.5), action { me.ammo = 6; Status::Success } }
            },
            'rest: flags(any = Shift::NIGHT) => wait(1.0),
            'patrol: else => sequence {
                'out: MoveTo { to: me.post + 3.0 },
                'back: MoveTo { to: me.post },
            },
        }
    }
}

impl AgentTree for Duty {
    type Agent = Guard;
    type Shared = DutyShared;
    type Decision = Shift;
    type Stimuli = Alert;

    fn tick_agent(
        &mut self,
        me: &mut Guard,
        cx: &Ctx<Shift, Alert>,
        shared: &DutyShared,
    ) -> Status {
        self.tick(me, cx, shared)
    }

    fn reset_agent(&mut self, me: &mut Guard, cx: &Ctx<Shift, Alert>, shared: &DutyShared) {
        self.reset(me, cx, shared)
    }
}

/// With `--groot`, the watched guard ticks with the Groot2 server attached.
impl TracedAgentTree for Duty {
    type Hook = Groot2;

    fn tick_traced(
        &mut self,
        me: &mut Guard,
        cx: &Ctx<Shift, Alert, &Groot2>,
        shared: &DutyShared,
    ) -> Status {
        self.tick(me, cx, shared)
    }
}

/// Before the trees tick: noises are heard (`expire_stimuli`, chained
/// after this system, then drops the old ones and sets the flags), and
/// the night falls every other ten seconds.
fn hear(time: Res<Time>, mut guards: Query<(&mut Guard, &mut Ears, &mut DecisionFlags<Shift>)>) {
    let night = (time.elapsed_secs_f64() as u64 / 10) % 2 == 1;
    guards
        .par_iter_mut()
        .for_each(|(mut guard, mut ears, mut shift)| {
            if guard.roll(60 * HZ as u64) {
                let at = guard.pos + if guard.roll(2) { 2.0 } else { -2.0 };
                ears.add_evicting(Alert::NOISE, 3.0, at);
            }
            if let Some(&at) = ears.data(Alert::NOISE) {
                guard.noise = at;
            }
            shift.set_if_neq(DecisionFlags(if night {
                Shift::NIGHT
            } else {
                Shift::empty()
            }));
        });
}

/// A guard with everything it needs.
fn recruit(seed: u64) -> (Guard, Ears, StimuliFlags<Alert>, DecisionFlags<Shift>, Duty) {
    (
        Guard::new(seed),
        Ears::default(),
        StimuliFlags(Alert::empty()),
        DecisionFlags(Shift::empty()),
        Duty::default(),
    )
}

/// The run's totals.
#[derive(Resource, Default)]
struct Tally {
    succeeded: u64,
    failed: u64,
    fallen: u64,
    recruits: u64,
}

/// After the trees tick: count the trees that finished.
fn count_finished(mut finished: MessageReader<TreeFinished<Duty>>, mut tally: ResMut<Tally>) {
    for m in finished.read() {
        match m.status {
            Status::Success => tally.succeeded += 1,
            _ => tally.failed += 1,
        }
    }
}

/// Which branch of the decider an agent is in, from its active path.
fn branch(state: &Duty) -> Option<&'static str> {
    let mut found = None;
    state.visit_active(0, &mut |node: ActiveNode| {
        if node.depth == 1 {
            found = node.info.label;
        }
    });
    found
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut agents, mut seconds, mut hot) = (10_000u64, 20u32, false);
    let (mut groot, mut watch) = (None, 0u64);
    while let Some(arg) = args.next() {
        if arg == "--hot" {
            hot = true;
            continue;
        }
        let value = args.next().and_then(|v| v.parse::<u64>().ok());
        match (arg.as_str(), value) {
            ("--agents", Some(n)) => agents = n,
            ("--seconds", Some(n)) => seconds = n as u32,
            ("--groot", Some(port)) => groot = Some(port as u16),
            ("--watch", Some(n)) => watch = n,
            _ => {
                eprintln!(
                    "usage: barracks [--agents N] [--seconds S] [--hot] [--groot PORT [--watch N]]"
                );
                std::process::exit(2);
            }
        }
    }
    // `--hot` (feature `hot-reload`): the guards' trees run live, in real
    // time; edit `Duty` in this file and save, and every guard follows.
    if hot {
        #[cfg(feature = "hot-reload")]
        bt::hot::start();
        #[cfg(not(feature = "hot-reload"))]
        {
            eprintln!(
                "--hot needs the `hot-reload` feature: \
                 cargo run -p arbortick-bevy --example barracks --features hot-reload -- --hot"
            );
            std::process::exit(2);
        }
    }

    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), TimePlugin))
        // Simulated time: every update is one 60th of a second.
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            Duration::from_secs(1) / HZ,
        ))
        .add_plugins(TreePlugin::<Duty>::new(Update).traced())
        .register_type::<Duty>()
        .init_resource::<Tally>()
        .add_systems(
            Update,
            (hear, expire_stimuli::<Alert, f32, 2>)
                .chain()
                .in_set(TreeSystems::Sense),
        )
        .add_systems(Update, count_finished.after(TreeSystems::Tick));
    let recruited: Vec<Entity> = app
        .world_mut()
        .spawn_batch((0..agents).map(recruit))
        .collect();
    let mut next_seed = agents;
    if let Some(port) = groot {
        let server = Groot2::serve::<Duty>(Options::new().port(port)).expect("the port is free");
        let guard = recruited[(watch as usize).min(recruited.len() - 1)];
        server.watch(guard.to_bits());
        println!(
            "Groot2: connect the monitor to {} (guard {guard}); real time\n",
            server.address()
        );
        app.insert_resource(TreeTrace::<Duty>(Arc::new(server)));
    }
    let realtime = hot || groot.is_some();

    println!(
        "{agents} guards, {} bytes of tree state each ({} nodes); the armory takes {ARMORY} at a time\n",
        Duty::STATE_SIZE,
        Duty::NODES.len()
    );
    let started = Instant::now();
    let mut busy = Duration::ZERO;
    for second in 1..=seconds {
        let wall = Instant::now();
        for _ in 0..HZ {
            let frame = Instant::now();
            app.update();
            busy += frame.elapsed();
        }
        if realtime {
            // Live or watched: a simulated second takes a second.
            std::thread::sleep(Duration::from_secs(1).saturating_sub(wall.elapsed()));
        }
        // Casualties: one guard in a hundred falls, mid-action or not, and
        // is replaced. Despawning halts what its tree was running.
        let world = app.world_mut();
        let fallen: Vec<Entity> = world
            .query_filtered::<Entity, With<Duty>>()
            .iter(world)
            .filter(|e| e.index_u32().is_multiple_of(100 + second))
            .collect();
        for &e in &fallen {
            world.despawn(e);
        }
        world.spawn_batch((next_seed..next_seed + fallen.len() as u64).map(recruit));
        next_seed += fallen.len() as u64;

        let mut branches = [0usize; 5];
        let names = ["respond", "armory", "rest", "patrol"];
        for state in world.query::<&Duty>().iter(world) {
            let i = branch(state)
                .and_then(|b| names.iter().position(|n| *n == b))
                .unwrap_or(4);
            branches[i] += 1;
        }
        let shots: u64 = world.query::<&Guard>().iter(world).map(|g| g.shots).sum();
        let inside = world.resource::<TreeShared<Duty>>().armory.inside();
        let mut tally = world.resource_mut::<Tally>();
        tally.fallen += fallen.len() as u64;
        tally.recruits += fallen.len() as u64;
        println!(
            "t={second:3}s patrol {:5} respond {:5} armory {:3} (inside {inside:2}/{ARMORY}) rest {:5} idle {:4} | \
             finished {:6} ok {:6} failed | fallen {:4}, moves halted {:5} | shots {shots:7} | {:.3} ms/frame",
            branches[3],
            branches[0],
            branches[1],
            branches[2],
            branches[4],
            tally.succeeded,
            tally.failed,
            tally.fallen,
            HALTED_MOVES.load(Ordering::Relaxed),
            busy.as_secs_f64() * 1e3 / (second * HZ) as f64,
        );
    }
    let world = app.world_mut();
    let tally = world.resource::<Tally>();
    println!(
        "\n{seconds} simulated seconds in {:.2} s of wall time; {} recruits replaced the fallen",
        started.elapsed().as_secs_f64(),
        tally.recruits
    );

    // The level ends: despawning every guard halts every running node, so
    // the armory is empty again.
    let all: Vec<Entity> = world
        .query_filtered::<Entity, With<Duty>>()
        .iter(world)
        .collect();
    for e in all {
        world.despawn(e);
    }
    assert_eq!(world.resource::<TreeShared<Duty>>().armory.inside(), 0);
    println!("all guards gone; the armory is empty");
}
