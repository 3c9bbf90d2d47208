include!("../agent.rs");

behavior_tree! {
    tree Inner(me: &mut Agent, speed: f32) {
        action me.act()
    }

    tree Outer(me: &mut Agent) {
        sequence { cond me.ok(), Inner(me) }
    }
}
fn main() {}
