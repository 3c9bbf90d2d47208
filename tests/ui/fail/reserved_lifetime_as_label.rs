include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent, shared: &TShared) {
        sequence {
            'static: gate(1) { cond me.ok() },
            '_: gate(2) { action me.act() },
        }
    }
}

fn main() {
    let _ = TShared::new();
}
