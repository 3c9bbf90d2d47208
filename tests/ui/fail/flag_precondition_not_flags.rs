include!("../agent.rs");

bt::bitflags::bitflags! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Mode: u8 { const NIGHT = 1; }
}

behavior_tree! {
    tree T(me: &mut Agent, cx: &bt::Ctx<Mode>) {
        prioritized {
            flags(any = 1u8) => action me.act(),
            else => success,
        }
    }
}
fn main() {}
