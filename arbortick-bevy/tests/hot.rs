//! The plugin with hot reload (feature `hot-reload`): after
//! `bt::hot::start`, the entities' trees run live, a reload changes what
//! every entity runs at its next tick, and a despawned entity halts its
//! live tree's running leaf exactly once.

use bevy_app::App;
use bevy_ecs::prelude::*;
use bevy_time::Time;
use bt::prelude::*;
use bt::{Ctx, NoFlags};
use bt_bevy::{AgentTree, TreePlugin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Digs; counts its digs and the halts of its walk.
#[derive(Component, Default)]
pub struct Miner {
    dug: u32,
    walks: u32,
    halts: Arc<AtomicU32>,
}

/// A walk of two ticks to the face.
struct Walk;

impl Leaf<Miner> for Walk {
    type Memory = u32;
    fn start(&self, ticks: &mut u32, me: &mut Miner) -> Status {
        me.walks += 1;
        self.tick(ticks, me)
    }
    fn tick(&self, ticks: &mut u32, _: &mut Miner) -> Status {
        *ticks += 1;
        if *ticks >= 2 {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(_: &mut u32, me: &mut Miner) {
        me.halts.fetch_add(1, Ordering::Relaxed);
    }
}

behavior_tree! {
    #[derive(Component)]
    pub tree Dig(me: &mut Miner, #[context] cx: &Ctx) {
        sequence { 'walk: Walk, wait(1.0), action { me.dug += 1; Status::Success } }
    }
}

impl AgentTree for Dig {
    type Agent = Miner;
    type Shared = ();
    type Decision = NoFlags;
    type Stimuli = NoFlags;
    fn tick_agent(&mut self, me: &mut Miner, cx: &Ctx, _: &()) -> Status {
        self.tick(me, cx)
    }
    fn reset_agent(&mut self, me: &mut Miner, _: &Ctx, _: &()) {
        self.reset(me)
    }
}

/// Advances the app by `seconds` one-second updates.
fn run(app: &mut App, seconds: u32) {
    for _ in 0..seconds {
        let mut time = app.world_mut().resource_mut::<Time>();
        time.advance_by(Duration::from_secs(1));
        app.update();
    }
}

fn dug(app: &mut App) -> u32 {
    let world = app.world_mut();
    world.query::<&Miner>().iter(world).map(|m| m.dug).sum()
}

#[test]
fn entities_run_live_and_follow_reloads() {
    bt::hot::start_with(|_| {});
    let mut app = App::new();
    app.init_resource::<Time>()
        .add_plugins(TreePlugin::<Dig>::new(bevy_app::Update));
    let halts = Arc::new(AtomicU32::new(0));
    let miners: Vec<Entity> = (0..100)
        .map(|_| {
            let miner = Miner {
                halts: Arc::clone(&halts),
                ..Miner::default()
            };
            app.world_mut().spawn((miner, Dig::default())).id()
        })
        .collect();
    run(&mut app, 1);
    let engine = Dig::live().expect("the tree runs live");
    // A cycle is 3 ticks: the walk starts; it ends and the wait starts; the
    // wait ends and the miner digs. After 10 ticks, 3 digs each, and every
    // walk runs.
    run(&mut app, 9);
    assert_eq!(dug(&mut app), 300);
    assert_eq!(halts.load(Ordering::Relaxed), 0);

    // Reloaded without the walk: at its next tick, each entity halts its
    // running walk exactly once, and its sequence goes on at the wait.
    let file = include_str!("hot.rs");
    let line = 1 + file
        .lines()
        .position(|l| l.starts_with("behavior_tree! {"))
        .expect("the invocation");
    let edited = file.replacen(
        "sequence { 'walk: Walk, wait(1.0),",
        "sequence { wait(1.0),",
        1,
    );
    let outcome = engine.reload(&edited, line);
    assert_eq!(
        outcome.to_string(),
        "Dig: reloaded as version 2, 3 of 3 nodes kept their state"
    );
    run(&mut app, 1);
    assert_eq!(halts.load(Ordering::Relaxed), 100);
    // Then a cycle is 2 ticks: over 12 ticks, 6 digs each.
    run(&mut app, 11);
    assert_eq!(dug(&mut app), 300 + 600);
    let walks: u32 = {
        let world = app.world_mut();
        world.query::<&Miner>().iter(world).map(|m| m.walks).sum()
    };
    assert_eq!(walks, 400, "no walk started after the reload");

    // Despawning halts what runs: no walk, so no halt.
    for &m in &miners {
        app.world_mut().despawn(m);
    }
    assert_eq!(halts.load(Ordering::Relaxed), 100);
}
