include!("../agent.rs");
use bt::Ctx;
use bt::request::Requests;

struct FindPath {
    #[allow(dead_code)]
    to: u32,
}

behavior_tree! {
    tree T(me: &mut Agent, paths: &mut Requests<FindPath>, cx: &Ctx) {
        sequence {
            cond me.ok(),
            request(paths, 42),
        }
    }
}

fn main() {}
