//! Writes to a tree's state from outside, made the way the Bevy Remote
//! Protocol makes them (`world.mutate_components`: `reflect_mut` by type
//! path, then a path write; `world.insert_components`: `insert_reflect`) and
//! the way scenes do (`apply_or_insert_mapped`). Unguarded, an in-place
//! write abandons a running branch without halting it: a gate permit leaks.
//! With `TreePlugin::reflect_guarded`, in-place writes are refused and
//! replacements halt the old state exactly once.

use bevy_app::{App, Update};
use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_ecs::relationship::RelationshipHookMode;
use bevy_reflect::serde::TypedReflectSerializer;
use bevy_reflect::{GetPath, PartialReflect, TypePath};
use bevy_time::Time;
use bt::prelude::*;
use bt::{Ctx, NoFlags};
use bt_bevy::{AgentTree, TreePlugin, TreeShared};
use std::time::Duration;

/// A miner: counts the digs started and halted.
#[derive(Component, Default)]
pub struct Miner {
    /// Digs started.
    pub started: u32,
    /// Digs halted.
    pub halted: u32,
}

/// Digs until halted.
pub struct Dig;

impl Leaf<Miner> for Dig {
    type Memory = ();

    fn start(&self, _: &mut (), me: &mut Miner) -> Status {
        me.started += 1;
        Status::Running
    }

    fn tick(&self, _: &mut (), _: &mut Miner) -> Status {
        Status::Running
    }

    fn halt(_: &mut (), me: &mut Miner) {
        me.halted += 1;
    }
}

behavior_tree! {
    /// One miner at a time digs in the shaft; the others wait outside.
    #[derive(Component)]
    #[bt(reflect)]
    #[reflect(Component)]
    pub tree Mine(me: &mut Miner, #[context] cx: &Ctx, shared: &MineShared) {
        'root: select {
            'shaft: gate(1) { 'dig: Dig },
            'outside: wait(100.0),
        }
    }
}

impl AgentTree for Mine {
    type Agent = Miner;
    type Shared = MineShared;
    type Decision = NoFlags;
    type Stimuli = NoFlags;
    fn tick_agent(&mut self, me: &mut Miner, cx: &Ctx, shared: &MineShared) -> Status {
        self.tick(me, cx, shared)
    }
    fn reset_agent(&mut self, me: &mut Miner, _: &Ctx, shared: &MineShared) {
        self.reset(me, shared)
    }
}

/// An app whose first miner is in the shaft and second outside, after one
/// tick. `guarded` builds the plugin with `reflect_guarded`; the state's
/// type is registered (with its `#[reflect(Component)]`) before the plugin
/// is added, as a program that registers its types first does.
fn mine(guarded: bool) -> (App, Entity, Entity) {
    let mut app = App::new();
    app.init_resource::<Time>().register_type::<Mine>();
    let plugin = TreePlugin::<Mine>::new(Update);
    app.add_plugins(if guarded {
        plugin.reflect_guarded()
    } else {
        plugin
    });
    let inside = app
        .world_mut()
        .spawn((Miner::default(), Mine::default()))
        .id();
    let outside = app
        .world_mut()
        .spawn((Miner::default(), Mine::default()))
        .id();
    app.world_mut()
        .resource_mut::<Time>()
        .advance_by(Duration::from_secs(1));
    app.update();
    assert_eq!(inside_shaft(&app), 1);
    assert_eq!(app.world().get::<Miner>(inside).unwrap().started, 1);
    assert_eq!(app.world().get::<Miner>(outside).unwrap().started, 0);
    (app, inside, outside)
}

fn inside_shaft(app: &App) -> u32 {
    app.world().resource::<TreeShared<Mine>>().shaft.inside()
}

fn reflect_component(app: &App) -> ReflectComponent {
    let registry = app.world().resource::<AppTypeRegistry>().read();
    registry
        .get_with_type_path(Mine::type_path())
        .expect("the state is registered")
        .data::<ReflectComponent>()
        .expect("as a component")
        .clone()
}

/// The state of `of`, reflected, as a remote client reads it.
fn read(app: &App, of: Entity) -> serde_json::Value {
    let reflect = reflect_component(app);
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let state = reflect
        .reflect(app.world().entity(of))
        .expect("the entity has a state");
    let serializer = TypedReflectSerializer::new(state.as_partial_reflect(), &registry);
    serde_json::to_value(&serializer).unwrap()
}

/// `world.mutate_components` on `of`'s state, path `""` (the whole
/// state), with `value`: what the remote protocol does. `Err` as it
/// answers when the component cannot be reflected mutably.
fn mutate(app: &mut App, of: Entity, value: &dyn PartialReflect) -> Result<(), &'static str> {
    let reflect = reflect_component(app);
    let world = app.world_mut();
    let mut state = reflect
        .reflect_mut(world.entity_mut(of))
        .ok_or("Cannot reflect component")?;
    state
        .reflect_path_mut("")
        .map_err(|_| "bad path")?
        .try_apply(value)
        .map_err(|_| "bad value")
}

#[test]
fn unguarded_an_in_place_write_leaks_the_permit_of_the_branch_it_abandons() {
    // What the guard is for: this write is accepted, the dig is never
    // halted, and the shaft stays taken by a miner who is not in it.
    let (mut app, inside, outside) = mine(false);
    let outside_state = app.world().get::<Mine>(outside).unwrap().clone();
    assert!(reflects_unchecked_mut(&mut app, inside).is_some());
    mutate(&mut app, inside, &outside_state).expect("an unguarded state is writable");
    let miner = app.world().get::<Miner>(inside).unwrap();
    assert_eq!(miner.halted, 0);
    assert_eq!(inside_shaft(&app), 1);
}

#[test]
fn guarded_the_state_reads_as_before_and_refuses_writes_in_place() {
    let (mut app, inside, outside) = mine(true);
    // Read: the running gate and its leaf, by node number.
    let shown = read(&app, inside).to_string();
    let gate = Mine::NODES.iter().position(|n| n.label == Some("shaft"));
    assert!(
        shown.contains(&format!("\"N{}\"", gate.unwrap())),
        "{shown}"
    );

    let before = format!("{:?}", app.world().get::<Mine>(inside).unwrap());
    let outside_state = app.world().get::<Mine>(outside).unwrap().clone();
    assert_eq!(
        mutate(&mut app, inside, &outside_state),
        Err("Cannot reflect component")
    );
    assert!(reflects_unchecked_mut(&mut app, inside).is_none());

    assert_eq!(
        format!("{:?}", app.world().get::<Mine>(inside).unwrap()),
        before
    );
    assert_eq!(inside_shaft(&app), 1);
    assert_eq!(app.world().get::<Miner>(inside).unwrap().halted, 0);
}

/// `reflect_unchecked_mut` of `of`'s state, as inspectors write it: `Some`
/// if it hands out the state to write.
#[allow(unsafe_code)]
fn reflects_unchecked_mut(app: &mut App, of: Entity) -> Option<()> {
    let reflect = reflect_component(app);
    let cell = app.world_mut().as_unsafe_world_cell().get_entity(of).ok()?;
    // SAFETY: the world is borrowed mutably here and nothing else touches
    // it while the state is reflected.
    unsafe { reflect.reflect_unchecked_mut(cell) }.map(|_| ())
}

#[test]
fn guarded_a_remote_insert_halts_the_old_state_once_and_gives_the_permit_back() {
    let (mut app, inside, outside) = mine(true);
    let outside_state = app.world().get::<Mine>(outside).unwrap().clone();
    // `world.insert_components`: deserialized, then `insert_reflect`.
    app.world_mut()
        .entity_mut(inside)
        .insert_reflect(Box::new(outside_state.clone()));
    assert_eq!(app.world().get::<Miner>(inside).unwrap().halted, 1);
    assert_eq!(inside_shaft(&app), 0);
    assert_eq!(
        format!("{:?}", app.world().get::<Mine>(inside).unwrap()),
        format!("{outside_state:?}")
    );

    // The next tick: the second miner, still waiting outside, is not
    // moved; the first is now outside too; the shaft is free, and nobody
    // was halted twice.
    app.world_mut()
        .resource_mut::<Time>()
        .advance_by(Duration::from_secs(1));
    app.update();
    assert_eq!(app.world().get::<Miner>(inside).unwrap().halted, 1);
    assert_eq!(inside_shaft(&app), 0);
}

#[test]
fn guarded_a_scene_applied_over_the_state_replaces_it_and_halts_the_old_once() {
    let (mut app, inside, outside) = mine(true);
    let reflect = reflect_component(&app);
    let outside_state = app.world().get::<Mine>(outside).unwrap().clone();
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let mut map = EntityHashMap::<Entity>::default();
    reflect.apply_or_insert_mapped(
        &mut app.world_mut().entity_mut(inside),
        &outside_state,
        &registry,
        &mut map,
        RelationshipHookMode::Run,
    );
    assert_eq!(app.world().get::<Miner>(inside).unwrap().halted, 1);
    assert_eq!(inside_shaft(&app), 0);
}

#[test]
fn guarded_apply_writes_only_over_a_state_with_nothing_to_halt() {
    let (mut app, inside, outside) = mine(true);
    let reflect = reflect_component(&app);
    let inside_state = app.world().get::<Mine>(inside).unwrap().clone();
    let outside_state = app.world().get::<Mine>(outside).unwrap().clone();

    // Over the running dig: left as it is, nothing halted or leaked.
    reflect.apply(app.world_mut().entity_mut(inside), &outside_state);
    assert_eq!(
        format!("{:?}", app.world().get::<Mine>(inside).unwrap()),
        format!("{inside_state:?}")
    );
    assert_eq!(inside_shaft(&app), 1);

    // A fresh state (nothing running) takes the value.
    let fresh = app
        .world_mut()
        .spawn((Miner::default(), Mine::default()))
        .id();
    reflect.apply(app.world_mut().entity_mut(fresh), &outside_state);
    assert_eq!(
        format!("{:?}", app.world().get::<Mine>(fresh).unwrap()),
        format!("{outside_state:?}")
    );
}
