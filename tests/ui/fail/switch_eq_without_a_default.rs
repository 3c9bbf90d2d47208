include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent) {
        switch_eq(me.ok()) { true => action me.act(), false => success }
    }
    tree U(me: &mut Agent) {
        switch_eq(me.ok()) { true => success, _ => failure, false => success }
    }
}
fn main() {}
