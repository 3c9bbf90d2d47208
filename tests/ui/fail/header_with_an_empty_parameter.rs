include!("../agent.rs");

behavior_tree! {
    tree T(me: &mut Agent,, times: u8) {
        cond me.ok() && times > 0
    }
}

fn main() {
    // The other parameters are kept: this call reports nothing.
    let _ = T::default().tick(&mut Agent, 3);
}
