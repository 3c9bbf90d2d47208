//! A plugin built `traced()` with a Groot2 server as its `TreeTrace`: the
//! watched entity's tick stops at a breakpoint a client sets and goes on
//! when it is released, a replacement changes only the watched entity's
//! tree, and without the resource every agent ticks as before.

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use bt::prelude::*;
use bt::{Ctx, NoFlags, Trace};
use bt_bevy::{AgentTree, TracedAgentTree, TreeFinished, TreePlugin, TreeTrace};
use bt_groot::zmtp::{Req, Sub};
use bt_groot::{Groot2, Options};
use std::sync::{Arc, mpsc};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

#[derive(Component, Default)]
/// What a walker did.
pub struct Walker {
    looks: u32,
    steps: u32,
}

behavior_tree! {
    #[derive(Component)]
    pub tree Walk(me: &mut Walker, #[context] cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        sequence {
            'look: cond { me.looks += 1; true },
            'step: action { me.steps += 1; Status::Running },
        }
    }
}

// Uids: the sequence 1, 'look 2, 'step 3.

/// A hook that makes 'step fail without running.
const REPLACE_STEP: &str =
    r#"{"enabled":true,"uid":3,"mode":1,"once":false,"desired_status":"FAILURE","position":0}"#;

impl AgentTree for Walk {
    type Agent = Walker;
    type Shared = ();
    type Decision = NoFlags;
    type Stimuli = NoFlags;
    fn tick_agent(&mut self, me: &mut Walker, cx: &Ctx, _: &()) -> Status {
        self.tick(me, cx)
    }
    fn reset_agent(&mut self, _: &mut Walker, cx: &Ctx, _: &()) {
        self.reset(cx)
    }
}

impl TracedAgentTree for Walk {
    type Hook = Groot2;
    fn tick_traced(
        &mut self,
        me: &mut Walker,
        cx: &Ctx<NoFlags, NoFlags, &Groot2>,
        _: &(),
    ) -> Status {
        self.tick(me, cx)
    }
}

/// An app of four walkers, the third watched by a server on free ports.
fn app() -> (App, Vec<Entity>, Arc<Groot2>) {
    let mut app = App::new();
    app.init_resource::<Time>()
        .add_plugins(TreePlugin::<Walk>::new(Update).traced());
    let walkers: Vec<Entity> = (0..4)
        .map(|_| {
            app.world_mut()
                .spawn((Walker::default(), Walk::default()))
                .id()
        })
        .collect();
    let groot = Arc::new(Groot2::serve::<Walk>(Options::new().port(0)).unwrap());
    groot.watch(walkers[2].to_bits());
    app.insert_resource(TreeTrace::<Walk>(groot.clone()));
    (app, walkers, groot)
}

fn ask(req: &mut Req, kind: u8, payload: &str) {
    let header = [2, kind, 9, 0, 0, 0];
    let reply = req.request(&[&header, payload.as_bytes()]).unwrap();
    assert_eq!(reply[0].len(), 22, "{}", String::from_utf8_lossy(&reply[1]));
}

fn steps(app: &App, walkers: &[Entity]) -> Vec<u32> {
    walkers
        .iter()
        .map(|&e| app.world().get::<Walker>(e).unwrap().steps)
        .collect()
}

#[test]
fn a_replacement_changes_only_the_watched_entitys_tree() {
    let (mut app, walkers, groot) = app();
    let mut req = Req::connect(groot.address(), WAIT).unwrap();
    ask(&mut req, b'I', REPLACE_STEP);
    app.update();
    app.update();
    // The watched walker's step never runs; its tree fails each tick.
    assert_eq!(steps(&app, &walkers), [2, 2, 0, 2]);
    let failed: Vec<Entity> = app
        .world_mut()
        .resource_mut::<Messages<TreeFinished<Walk>>>()
        .drain()
        .map(|m| m.entity)
        .collect();
    assert_eq!(failed, [walkers[2], walkers[2]]);
}

#[test]
fn a_breakpoint_stops_the_frame_at_the_watched_entity_until_released() {
    let (mut app, walkers, groot) = app();
    let mut req = Req::connect(groot.address(), WAIT).unwrap();
    let mut sub = Sub::connect(groot.notifications(), WAIT).unwrap();
    assert!(groot.wait_for_subscriber(WAIT), "no subscription");
    ask(
        &mut req,
        b'I',
        r#"{"enabled":true,"uid":2,"mode":0,"once":true,"desired_status":"SKIPPED","position":0}"#,
    );
    let (done, updated) = mpsc::channel();
    // The app's schedule runs on another thread (its world moves there;
    // an `App` itself stays on its thread).
    let mut world = std::mem::take(app.world_mut());
    let frame = std::thread::spawn(move || {
        world.run_schedule(Update);
        done.send(()).unwrap();
        world
    });
    let note = sub.recv(WAIT).expect("the watched walker stops");
    assert_eq!(note[1], b"2");
    assert!(updated.try_recv().is_err(), "the frame waits");
    ask(
        &mut req,
        b'U',
        r#"{"uid":2,"desired_status":"SKIPPED","position":0,"remove_when_done":false}"#,
    );
    updated
        .recv_timeout(WAIT)
        .expect("released, the frame ends");
    *app.world_mut() = frame.join().unwrap();
    // Released without a status: 'look ran, and so did the step.
    assert_eq!(steps(&app, &walkers), [1, 1, 1, 1]);
    assert_eq!(app.world().get::<Walker>(walkers[2]).unwrap().looks, 1);
}

#[test]
fn without_the_resource_a_traced_plugin_ticks_every_agent_as_before() {
    let (mut app, walkers, groot) = app();
    let mut req = Req::connect(groot.address(), WAIT).unwrap();
    ask(&mut req, b'I', REPLACE_STEP);
    app.world_mut().remove_resource::<TreeTrace<Walk>>();
    app.update();
    assert_eq!(steps(&app, &walkers), [1, 1, 1, 1]);
}
