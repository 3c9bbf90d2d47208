//! Time in `f32`: durations of type `f32`, and a context built from an
//! `f32` clock, without casts.

mod common;

use bt::{Status, behavior_tree};
use common::World;

behavior_tree! {
    tree Paused(w: &mut World, cx: &bt::Ctx, pause: f32) {
        sequence { wait(pause), action w.act("go") }
    }
}

#[test]
fn durations_may_be_f32_and_a_context_takes_an_f32_clock() {
    let mut w = World::new(&[("go", "S")]);
    let mut state = Paused::default();
    let cx = |now: f32| bt::Ctx::new(now, 0.25_f32);
    assert_eq!(state.tick(&mut w, &cx(0.0), 0.5), Status::Running);
    assert_eq!(state.tick(&mut w, &cx(0.25), 0.5), Status::Running);
    assert_eq!(state.tick(&mut w, &cx(0.5), 0.5), Status::Success);
    assert_eq!(w.take_events(), "go=S");
    assert_eq!((cx(0.25).now_f32(), cx(0.25).dt_f32()), (0.25, 0.25));
}
