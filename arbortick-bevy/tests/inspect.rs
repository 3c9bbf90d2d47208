//! The reflected view of a running tree (`TreeInspect`), read the way the
//! Bevy Remote Protocol's `world.get_components` reads a component: found
//! in the type registry by its type path, reflected from the entity and
//! serialized with the registry (`TypedReflectSerializer`) to JSON. What a
//! remote client sees is labels, kinds and statuses.

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_reflect::TypePath;
use bevy_reflect::serde::TypedReflectSerializer;
use bevy_time::Time;
use bt::prelude::*;
use bt::{Ctx, NoFlags};
use bt_bevy::{AgentTree, InspectedNode, TreeInspect, TreePlugin};
use serde_json::{Value, json};
use std::time::Duration;

#[derive(Component, Default)]
/// A guard: the agent.
pub struct Guard {
    /// Whether to stay on alarm.
    pub alarmed: bool,
}

behavior_tree! {
    /// Patrol out and back, unless alarmed.
    #[derive(Component)]
    #[bt(reflect, activation_times)]
    #[reflect(Component)]
    pub tree Watch(me: &mut Guard, #[context] cx: &Ctx) {
        'root: prioritized {
            'alarm: when me.alarmed => action Status::Running,
            'patrol: else => sequence { 'walk: wait(2.0), 'back: wait(1.0) },
        }
    }
}

impl AgentTree for Watch {
    type Agent = Guard;
    type Shared = ();
    type Decision = NoFlags;
    type Stimuli = NoFlags;
    fn tick_agent(&mut self, me: &mut Guard, cx: &Ctx, _: &()) -> Status {
        self.tick(me, cx)
    }
    fn reset_agent(&mut self, _: &mut Guard, _: &Ctx, _: &()) {
        self.reset()
    }
}

fn second(app: &mut App) {
    app.world_mut()
        .resource_mut::<Time>()
        .advance_by(Duration::from_secs(1));
    app.update();
}

/// `entity`'s view as a remote client gets it: by type path, reflected,
/// serialized with the registry.
fn remote_view(app: &App, entity: Entity) -> Value {
    let world = app.world();
    let registry = world.resource::<AppTypeRegistry>().read();
    let path = TreeInspect::<Watch>::type_path();
    let registration = registry
        .get_with_type_path(path)
        .unwrap_or_else(|| panic!("{path} is registered"));
    let component = registration
        .data::<ReflectComponent>()
        .expect("registered as a component")
        .reflect(world.entity(entity))
        .expect("the entity has it");
    let serializer = TypedReflectSerializer::new(component.as_partial_reflect(), &registry);
    serde_json::to_value(&serializer).expect("every field serializes")
}

fn node(label: &str, kind: &str, detail: &str, depth: u32, active_for: Option<f64>) -> Value {
    let id = Watch::NODES
        .iter()
        .position(|n| n.label == Some(label))
        .unwrap();
    json!({
        "id": id, "label": label, "kind": kind, "detail": detail, "depth": depth,
        "status": "running", "active_for": active_for,
    })
}

#[test]
fn a_remote_client_sees_the_active_path_by_label_kind_and_status() {
    let mut app = App::new();
    app.init_resource::<Time>()
        .add_plugins(TreePlugin::<Watch>::new(Update).inspected())
        .register_type::<Watch>();
    assert!(TreeInspect::<Watch>::type_path().starts_with("bt_bevy::TreeInspect<"));
    let shown = app
        .world_mut()
        .spawn((
            Guard::default(),
            Watch::default(),
            TreeInspect::<Watch>::default(),
        ))
        .id();
    let alarmed = app
        .world_mut()
        .spawn((
            Guard { alarmed: true },
            Watch::default(),
            TreeInspect::<Watch>::default(),
        ))
        .id();
    let hidden = app
        .world_mut()
        .spawn((Guard::default(), Watch::default()))
        .id();
    assert_eq!(
        remote_view(&app, shown),
        json!({"tree": "", "last": "not ticked", "active": []})
    );

    // t = 1: the patrol starts walking.
    second(&mut app);
    assert_eq!(
        remote_view(&app, shown),
        json!({"tree": "Watch", "last": "running", "active": [
            node("root", "prioritized", "prioritized", 0, None),
            node("patrol", "sequence", "sequence", 1, Some(0.0)),
            node("walk", "wait", "wait(2.0)", 2, Some(0.0)),
        ]})
    );
    assert_eq!(
        remote_view(&app, alarmed)["active"][1],
        node("alarm", "action", "action Status::Running", 1, Some(0.0))
    );
    assert!(app.world().get::<TreeInspect<Watch>>(hidden).is_none());

    // t = 3: walked for 2 s, walking back.
    second(&mut app);
    second(&mut app);
    let view = remote_view(&app, shown);
    assert_eq!(view["active"][1]["active_for"], 2.0);
    assert_eq!(
        view["active"][2],
        node("back", "wait", "wait(1.0)", 2, Some(0.0))
    );

    // Writing the view changes nothing: the next tick rewrites it, and the
    // tree went on as before (t = 4: back home, the tree succeeded).
    {
        let mut view = app
            .world_mut()
            .get_mut::<TreeInspect<Watch>>(shown)
            .unwrap();
        view.active.clear();
        view.active.push(InspectedNode::default());
        view.tree = "edited".into();
    }
    second(&mut app);
    assert_eq!(
        remote_view(&app, shown),
        json!({"tree": "Watch", "last": "success", "active": []})
    );
    // t = 5: the next patrol.
    second(&mut app);
    assert_eq!(remote_view(&app, shown)["active"][2]["label"], "walk");
    assert_eq!(remote_view(&app, shown)["last"], "running");
}
