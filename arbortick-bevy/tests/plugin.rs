//! The plugin in a real `App`: ticking in parallel equals ticking in a
//! plain loop, flags and stimuli reach the context, finished trees write
//! messages, systems order around the tick, leaving agents halt their
//! running nodes exactly once, and reflection shows the running node.

use bevy_app::App;
use bevy_ecs::batching::BatchingStrategy;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_ecs::schedule::ScheduleLabel;
use bevy_reflect::ReflectRef;
use bevy_time::Time;
use bt::prelude::*;
use bt::{Ctx, NoFlags};
use bt_bevy::{
    AgentTree, DecisionFlags, StimuliFlags, TreeFinished, TreePlugin, TreeShared, TreeSystems,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

bt::bitflags::bitflags! {
    /// Decision flags of the test trees.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Mode: u8 {
        /// Sentries rest at night.
        const NIGHT = 1;
    }
    /// Stimuli flags of the test trees.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Senses: u8 {
        /// A noise raises the alarm.
        const NOISE = 1;
    }
}

/// The agent component of both test trees.
#[derive(Component, Clone, Debug, Default)]
pub struct Sentry {
    /// Ticks a patrol takes.
    post: u32,
    /// Patrols started, finished, and alarms raised.
    starts: u32,
    done: u32,
    alarms: u32,
    /// Halts of this agent's patrol leaf; shared with the test, so that it
    /// can be read after the entity is gone.
    halts: Arc<AtomicU32>,
    /// Written before the tick by a sense system, copied by the tree.
    seen: u64,
    copied: u64,
}

impl PartialEq for Sentry {
    fn eq(&self, other: &Self) -> bool {
        (
            self.post,
            self.starts,
            self.done,
            self.alarms,
            self.seen,
            self.copied,
        ) == (
            other.post,
            other.starts,
            other.done,
            other.alarms,
            other.seen,
            other.copied,
        ) && self.halts.load(Ordering::Relaxed) == other.halts.load(Ordering::Relaxed)
    }
}

/// Runs for `me.post` ticks; counts its halts.
struct Patrol;

impl Leaf<Sentry> for Patrol {
    type Memory = u32;

    fn start(&self, ticks: &mut u32, me: &mut Sentry) -> Status {
        me.starts += 1;
        *ticks = 0;
        self.tick(ticks, me)
    }

    fn tick(&self, ticks: &mut u32, me: &mut Sentry) -> Status {
        *ticks += 1;
        if *ticks >= me.post {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn halt(_: &mut u32, me: &mut Sentry) {
        me.halts.fetch_add(1, Ordering::Relaxed);
    }
}

behavior_tree! {
    /// Alarms preempt resting, which preempts work; work succeeds on even
    /// posts and fails on odd ones.
    #[derive(Component)]
    #[bt(reflect)]
    #[reflect(Component)]
    pub tree Duty(me: &mut Sentry, #[context] cx: &Ctx<Mode, Senses>) {
        prioritized {
            'alarm: stimuli(any = Senses::NOISE) => action { me.alarms += 1; Status::Running },
            'rest: flags(any = Mode::NIGHT) => wait(1.5),
            'work: else => sequence {
                action { me.copied = me.seen; Status::Success },
                'patrol: Patrol,
                action { me.done += 1; if me.post % 2 == 0 { Status::Success } else { Status::Failure } },
            },
        }
    }

    /// Three at a time in the tower.
    #[derive(Component)]
    pub tree Tower(me: &mut Sentry, shared: &TowerShared) {
        'tower: gate(3) { Patrol }
    }
}

behavior_tree! {
    /// Every shared node at once: pairs meet, five at a time hold the post,
    /// and a drill runs at most every 0.3 s across all agents.
    #[derive(Component)]
    pub tree Squad(me: &mut Sentry, #[context] cx: &Ctx, shared: &SquadShared) {
        select {
            'pair: rendezvous(2) as role {
                sequence {
                    action { me.alarms += 1 + role as u32; Status::Success },
                    sync,
                    wait(0.3),
                }
            },
            'post: gate(5) { wait(1.0) },
            'drill: global_cooldown(0.3) { action { me.done += 1; Status::Success } },
        }
    }
}

impl AgentTree for Squad {
    type Agent = Sentry;
    type Shared = SquadShared;
    type Decision = NoFlags;
    type Stimuli = NoFlags;
    fn tick_agent(&mut self, me: &mut Sentry, cx: &Ctx, shared: &SquadShared) -> Status {
        self.tick(me, cx, shared)
    }
    fn reset_agent(&mut self, _: &mut Sentry, _: &Ctx, shared: &SquadShared) {
        self.reset(shared)
    }
}

impl AgentTree for Duty {
    type Agent = Sentry;
    type Shared = ();
    type Decision = Mode;
    type Stimuli = Senses;
    fn tick_agent(&mut self, me: &mut Sentry, cx: &Ctx<Mode, Senses>, _: &()) -> Status {
        self.tick(me, cx)
    }
    fn reset_agent(&mut self, me: &mut Sentry, _: &Ctx<Mode, Senses>, _: &()) {
        self.reset(me)
    }
}

impl AgentTree for Tower {
    type Agent = Sentry;
    type Shared = TowerShared;
    type Decision = NoFlags;
    type Stimuli = NoFlags;
    fn tick_agent(&mut self, me: &mut Sentry, _: &Ctx, shared: &TowerShared) -> Status {
        self.tick(me, shared)
    }
    fn reset_agent(&mut self, me: &mut Sentry, _: &Ctx, shared: &TowerShared) {
        self.reset(me, shared)
    }
}

/// An app with a clock the test advances, and `plugin`.
fn app<T: AgentTree>(plugin: TreePlugin<T>) -> App {
    let mut app = App::new();
    app.init_resource::<Time>().add_plugins(plugin);
    app
}

/// Advances the clock by `dt` seconds and runs `Update`.
fn frame(app: &mut App, dt: f64) {
    app.world_mut()
        .resource_mut::<Time>()
        .advance_by(Duration::from_secs_f64(dt));
    app.update();
}

/// The messages written since the last call, by entity.
fn finished<T: AgentTree>(app: &mut App) -> HashMap<Entity, Status> {
    let mut messages = app.world_mut().resource_mut::<Messages<TreeFinished<T>>>();
    let drained: Vec<TreeFinished<T>> = messages.drain().collect();
    let map: HashMap<Entity, Status> = drained.iter().map(|m| (m.entity, m.status)).collect();
    assert_eq!(map.len(), drained.len(), "one message per agent and tick");
    map
}

/// A small deterministic generator (splitmix64), so runs repeat exactly.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn the_plugin_ticks_like_a_plain_loop_with_the_same_contexts() {
    const AGENTS: u64 = 5_000;
    const FRAMES: u64 = 40;
    const DT: f64 = 0.25;
    let mut app = app(TreePlugin::<Duty>::default());
    // The same agents, ticked by hand beside the app.
    let mut plain: Vec<(Entity, Sentry, Duty)> = (0..AGENTS)
        .map(|i| {
            let sentry = Sentry {
                post: 1 + (mix(i) % 5) as u32,
                ..Sentry::default()
            };
            let entity = app
                .world_mut()
                .spawn((sentry.clone(), Duty::default()))
                .id();
            (entity, sentry, Duty::default())
        })
        .collect();
    let mut statuses = [0usize; 3];
    for f in 0..FRAMES {
        // Flags and stimuli change from frame to frame, per agent; an agent
        // without the components ticks with none set.
        let mut contexts = Vec::with_capacity(plain.len());
        for (i, (entity, _, _)) in plain.iter().enumerate() {
            let roll = mix(f * AGENTS + i as u64);
            let mode = if roll.is_multiple_of(7) {
                Mode::NIGHT
            } else {
                Mode::empty()
            };
            let senses = if roll.is_multiple_of(11) {
                Senses::NOISE
            } else {
                Senses::empty()
            };
            let mut agent = app.world_mut().entity_mut(*entity);
            if roll.is_multiple_of(3) {
                agent.remove::<(DecisionFlags<Mode>, StimuliFlags<Senses>)>();
                contexts.push((Mode::empty(), Senses::empty()));
            } else {
                agent.insert((DecisionFlags(mode), StimuliFlags(senses)));
                contexts.push((mode, senses));
            }
        }
        frame(&mut app, DT);
        let now = (f + 1) as f64 * DT;
        let messages = finished::<Duty>(&mut app);
        for ((entity, sentry, duty), (mode, senses)) in plain.iter_mut().zip(contexts) {
            let cx = Ctx::new(now, DT)
                .flags(mode)
                .stimuli(senses)
                .agent(entity.to_bits());
            let status = duty.tick(sentry, &cx);
            statuses[status as usize] += 1;
            assert_eq!(
                messages.get(entity).copied(),
                status.is_done().then_some(status)
            );
            let world = app.world();
            assert_eq!(world.get::<Sentry>(*entity), Some(&*sentry));
            assert_eq!(
                format!("{:?}", world.get::<Duty>(*entity).unwrap()),
                format!("{duty:?}")
            );
        }
    }
    // Every branch ran: trees succeeded, failed and were left running.
    assert!(statuses.iter().all(|&n| n > 1_000), "{statuses:?}");
    let alarms: u32 = plain.iter().map(|(_, s, _)| s.alarms).sum();
    assert!(alarms > 1_000);
}

#[test]
fn leaving_agents_halt_their_running_leaves_exactly_once_and_return_permits() {
    let mut app = app(TreePlugin::<Tower>::default());
    let spawn = |app: &mut App| {
        let sentry = Sentry {
            post: 100,
            ..Sentry::default()
        };
        let halts = sentry.halts.clone();
        let entity = app.world_mut().spawn((sentry, Tower::default())).id();
        (entity, halts)
    };
    let agents: Vec<(Entity, Arc<AtomicU32>)> = (0..12).map(|_| spawn(&mut app)).collect();
    let inside = |app: &App| app.world().resource::<TreeShared<Tower>>().tower.inside();
    let running = |app: &App| -> Vec<Entity> {
        agents
            .iter()
            .map(|(e, _)| *e)
            .filter(|&e| app.world().get::<Tower>(e).is_some_and(|t| t.is_active()))
            .collect()
    };
    frame(&mut app, 0.1);
    assert_eq!(inside(&app), 3);
    let first = running(&app);
    assert_eq!(first.len(), 3);
    let halts_of = |e: Entity| {
        agents
            .iter()
            .find(|(a, _)| *a == e)
            .unwrap()
            .1
            .load(Ordering::Relaxed)
    };

    // The three ways to leave: despawn, remove the state, remove the agent.
    app.world_mut().despawn(first[0]);
    app.world_mut().entity_mut(first[1]).remove::<Tower>();
    app.world_mut().entity_mut(first[2]).remove::<Sentry>();
    for &e in &first {
        assert_eq!(halts_of(e), 1, "{e} halted once");
    }
    assert_eq!(inside(&app), 0);
    // What is left of them is idle: despawning it halts nothing more.
    app.world_mut().despawn(first[1]);
    app.world_mut().despawn(first[2]);
    for &e in &first {
        assert_eq!(halts_of(e), 1);
    }

    // Three others get in; a new state inserted over a running one halts
    // the old one.
    frame(&mut app, 0.1);
    let second = running(&app);
    assert_eq!(second.len(), 3);
    assert!(second.iter().all(|e| !first.contains(e)));
    app.world_mut()
        .entity_mut(second[0])
        .insert(Tower::default());
    assert_eq!(halts_of(second[0]), 1);
    assert_eq!(inside(&app), 2);

    // Idle agents never halted anything; despawning everyone returns the
    // rest of the permits, and every running leaf was halted exactly once.
    let idle: Vec<Entity> = agents
        .iter()
        .map(|(e, _)| *e)
        .filter(|e| !first.contains(e) && !second.contains(e))
        .collect();
    assert!(idle.iter().all(|&e| halts_of(e) == 0));
    for &(e, _) in &agents {
        if app.world().get_entity(e).is_ok() {
            app.world_mut().despawn(e);
        }
    }
    assert_eq!(inside(&app), 0);
    for &e in &second {
        assert_eq!(halts_of(e), 1);
    }
    assert!(idle.iter().all(|&e| halts_of(e) == 0));
}

#[test]
fn despawning_thousands_of_running_agents_halts_each_once() {
    let mut app = app(TreePlugin::<Duty>::default());
    let agents: Vec<(Entity, Arc<AtomicU32>)> = (0..4_000)
        .map(|i| {
            let sentry = Sentry {
                post: 10 + i % 3,
                ..Sentry::default()
            };
            let halts = sentry.halts.clone();
            (app.world_mut().spawn((sentry, Duty::default())).id(), halts)
        })
        .collect();
    frame(&mut app, 0.1);
    frame(&mut app, 0.1);
    let mut commands_despawned = 0;
    for (i, (e, _)) in agents.iter().enumerate() {
        if i % 2 == 0 {
            app.world_mut().commands().entity(*e).despawn();
            commands_despawned += 1;
        }
    }
    // Despawns through commands apply at the next sync point: here, the
    // next frame's end, after the others ticked once more.
    frame(&mut app, 0.1);
    let halted = agents
        .iter()
        .filter(|(_, h)| h.load(Ordering::Relaxed) == 1)
        .count();
    assert_eq!(halted, commands_despawned);
    assert!(agents.iter().all(|(_, h)| h.load(Ordering::Relaxed) <= 1));
}

#[test]
fn finished_trees_write_one_message_with_their_status() {
    let mut app = app(TreePlugin::<Duty>::default());
    let even = app
        .world_mut()
        .spawn((
            Sentry {
                post: 2,
                ..Sentry::default()
            },
            Duty::default(),
        ))
        .id();
    let odd = app
        .world_mut()
        .spawn((
            Sentry {
                post: 3,
                ..Sentry::default()
            },
            Duty::default(),
        ))
        .id();
    // Patrols of 2 and 3 ticks: the even one succeeds on frames 2, 4, 6,
    // the odd one fails on frames 3, 6.
    let mut seen = Vec::new();
    for f in 1..=6 {
        frame(&mut app, 0.1);
        let mut messages: Vec<(Entity, Status)> = finished::<Duty>(&mut app).into_iter().collect();
        messages.sort_by_key(|(e, _)| (*e == odd, *e));
        for (e, status) in messages {
            seen.push((f, e == even, status));
        }
    }
    assert_eq!(
        seen,
        [
            (2, true, Status::Success),
            (3, false, Status::Failure),
            (4, true, Status::Success),
            (6, true, Status::Success),
            (6, false, Status::Failure),
        ]
    );
}

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Think;

#[derive(Resource, Default)]
struct Frame(u64);

/// Counts frames and shows each agent the frame number.
fn sense(mut frame: ResMut<Frame>, mut sentries: Query<&mut Sentry>) {
    frame.0 += 1;
    for mut s in &mut sentries {
        s.seen = frame.0;
    }
}

/// Checks that the trees saw this frame's number.
fn act(frame: Res<Frame>, sentries: Query<&Sentry>) {
    for s in &sentries {
        assert_eq!(s.copied, frame.0);
    }
}

#[test]
fn sense_and_act_systems_order_around_the_tick_in_the_chosen_schedule() {
    let mut app = App::new();
    app.init_resource::<Time>()
        .init_resource::<Frame>()
        .add_plugins(TreePlugin::<Duty>::new(Think))
        .add_systems(Think, sense.in_set(TreeSystems::Sense))
        .add_systems(Think, act.after(TreeSystems::Tick));
    // Patrols of one tick: every frame starts over and copies `seen`.
    for _ in 0..50 {
        app.world_mut().spawn((
            Sentry {
                post: 1,
                ..Sentry::default()
            },
            Duty::default(),
        ));
    }
    for _ in 0..5 {
        app.world_mut().run_schedule(Think);
    }
    assert_eq!(app.world().resource::<Frame>().0, 5);
    // `Update` does not tick this tree.
    app.update();
    let copied: Vec<u64> = app
        .world_mut()
        .query::<&Sentry>()
        .iter(app.world())
        .map(|s| s.copied)
        .collect();
    assert!(copied.iter().all(|&c| c == 5));
}

#[test]
fn reflection_shows_the_running_node_through_the_type_registry() {
    let mut app = app(TreePlugin::<Duty>::default());
    app.register_type::<Duty>();
    let agent = app
        .world_mut()
        .spawn((
            Sentry {
                post: 10,
                ..Sentry::default()
            },
            Duty::default(),
        ))
        .id();
    // What an inspector does: find the component's reflection data in the
    // registry by the type's name, and read the entity's component.
    let active_child = |app: &App| -> String {
        let world = app.world();
        let registry = world.resource::<AppTypeRegistry>().read();
        let registration = registry
            .get_with_short_type_path("Duty")
            .expect("the tree type is registered");
        let reflect = registration
            .data::<ReflectComponent>()
            .expect("#[reflect(Component)]");
        let state = reflect.reflect(world.entity(agent)).unwrap();
        let ReflectRef::Struct(state) = state.reflect_ref() else {
            panic!("a tree state is a struct")
        };
        let ReflectRef::Struct(active) = state.field("active").unwrap().reflect_ref() else {
            panic!("its active part is a struct")
        };
        let ReflectRef::Enum(root) = active.field("root").unwrap().reflect_ref() else {
            panic!("a decider's state is an enum")
        };
        root.variant_name().to_string()
    };
    assert_eq!(active_child(&app), "Idle");
    // Registering the tree registers every type inside its state, which an
    // inspector or the remote protocol needs to show or send the state.
    {
        let registry = app.world().resource::<AppTypeRegistry>().read();
        let inner: Vec<&str> = registry
            .iter()
            .map(|r| r.type_info().type_path_table().short_path())
            .filter(|path| path.starts_with("__Duty"))
            .collect();
        assert!(inner.contains(&"__DutyActive"), "{inner:?}");
        assert!(inner.len() >= 3, "{inner:?}");
    }
    frame(&mut app, 0.1);
    // `N<k>` is node `k` of the node table.
    let work = Duty::NODES
        .iter()
        .position(|n| n.label == Some("work"))
        .unwrap();
    assert_eq!(active_child(&app), format!("N{work}"));
    let rest = Duty::NODES
        .iter()
        .position(|n| n.label == Some("rest"))
        .unwrap();
    app.world_mut()
        .entity_mut(agent)
        .insert(DecisionFlags(Mode::NIGHT));
    frame(&mut app, 0.1);
    assert_eq!(active_child(&app), format!("N{rest}"));
}

/// Agents whose `Sentry` changed since this system last ran.
#[derive(Resource, Default)]
struct ChangedCount(usize);

fn count_changed(changed: Query<(), Changed<Sentry>>, mut count: ResMut<ChangedCount>) {
    count.0 = changed.iter().count();
}

#[test]
fn ticks_mark_agents_changed_unless_the_plugin_is_told_not_to() {
    for (plugin, expected) in [
        (TreePlugin::<Duty>::default(), 30),
        (TreePlugin::<Duty>::default().without_change_detection(), 0),
    ] {
        let mut app = app(plugin);
        app.init_resource::<ChangedCount>()
            .add_systems(bevy_app::Update, count_changed.after(TreeSystems::Tick));
        for _ in 0..30 {
            app.world_mut().spawn((
                Sentry {
                    post: 5,
                    ..Sentry::default()
                },
                Duty::default(),
            ));
        }
        // The first frame sees them added; from the second on, only the
        // trees' ticks can have changed them.
        frame(&mut app, 0.1);
        frame(&mut app, 0.1);
        assert_eq!(app.world().resource::<ChangedCount>().0, expected);
    }
}

#[test]
fn shared_nodes_hold_their_limits_across_bevys_threads_and_leaving_agents_let_go() {
    // Batches of 64, so that the 1,000 agents tick on every thread.
    let mut app =
        app(TreePlugin::<Squad>::default().batching(BatchingStrategy::new().min_batch_size(64)));
    let agents: Vec<Entity> = (0..1_000)
        .map(|_| {
            app.world_mut()
                .spawn((Sentry::default(), Squad::default()))
                .id()
        })
        .collect();
    let (mut drills, mut last_drill, mut drill_frames) = (0, None, 0);
    for f in 0..60 {
        frame(&mut app, 0.1);
        let world = app.world_mut();
        // Which branch each agent is in, from its active path.
        let mut in_post = 0;
        let mut in_pair = 0;
        for state in world.query::<&Squad>().iter(world) {
            let path = state.active_path();
            let labels: Vec<_> = path.iter().filter_map(|n| n.info.label).collect();
            in_post += labels.contains(&"post") as u32;
            in_pair += labels.contains(&"pair") as u32;
        }
        let shared = world.resource::<TreeShared<Squad>>();
        assert_eq!(shared.post.inside(), in_post, "frame {f}");
        assert!(in_post <= 5);
        // A pair's members are the agents inside it; a group that met and
        // finished leaves nobody behind.
        assert!(shared.pair.members() <= 2);
        assert!(in_pair <= 2);
        let done: u32 = world.query::<&Sentry>().iter(world).map(|s| s.done).sum();
        // After a drill finishes, nobody starts one for 0.3 s, over all
        // agents and threads. (Agents on different threads may start in
        // the same tick, before either finished: the cooldown limits how
        // often, not how many.)
        if done > drills {
            if let Some(last) = last_drill {
                assert!(f - last >= 3, "drills at frames {last} and {f}");
            }
            last_drill = Some(f);
            drill_frames += 1;
        }
        drills = done;
    }
    assert!(drill_frames >= 10, "the drill ran in {drill_frames} frames");
    let paired: u32 = app
        .world_mut()
        .query::<&Sentry>()
        .iter(app.world())
        .map(|s| s.alarms)
        .sum();
    assert!(paired > 0, "pairs met");
    // Everyone leaves mid-way: permits and memberships come back.
    for e in agents {
        app.world_mut().despawn(e);
    }
    let shared = app.world().resource::<TreeShared<Squad>>();
    assert_eq!(shared.post.inside(), 0);
    assert_eq!(shared.pair.members(), 0);
}

#[test]
fn stimuli_held_in_senses_reach_the_tree_until_they_expire() {
    use bt_bevy::{Senses as Store, expire_stimuli};
    let mut app = app(TreePlugin::<Duty>::default());
    app.add_systems(
        bevy_app::Update,
        expire_stimuli::<Senses, (), 8>.in_set(TreeSystems::Sense),
    );
    let agent = app
        .world_mut()
        .spawn((
            Sentry {
                post: 100,
                ..Sentry::default()
            },
            Duty::default(),
            Store::<Senses>::default(),
            StimuliFlags(Senses::empty()),
        ))
        .id();
    let alarms = |app: &App| app.world().get::<Sentry>(agent).unwrap().alarms;
    let flags = |app: &App| app.world().get::<StimuliFlags<Senses>>(agent).unwrap().0;
    frame(&mut app, 0.1);
    assert_eq!((flags(&app), alarms(&app)), (Senses::empty(), 0));
    // Heard at 0.1 (the store's time), for 0.25 s: held at 0.2 and 0.3,
    // gone at 0.4. The tree raises the alarm on the first tick that sees
    // it (and, as a decider does, stays in that branch while it runs).
    let mut store = app.world_mut().get_mut::<Store<Senses>>(agent).unwrap();
    store.add(Senses::NOISE, 0.25, ()).unwrap();
    frame(&mut app, 0.1);
    assert_eq!((flags(&app), alarms(&app)), (Senses::NOISE, 1));
    frame(&mut app, 0.1);
    assert_eq!(flags(&app), Senses::NOISE);
    frame(&mut app, 0.1);
    assert_eq!(flags(&app), Senses::empty());
    assert!(app.world().get::<Store<Senses>>(agent).unwrap().is_empty());
}
