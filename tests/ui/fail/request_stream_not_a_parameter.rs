include!("../agent.rs");
use bt::Ctx;
use bt::request::Requests;

struct FindPath;

behavior_tree! {
    tree T(me: &mut Agent, cx: &Ctx) {
        sequence {
            cond me.ok(),
            request(paths, FindPath),
        }
    }
}

#[allow(dead_code)]
fn unused(_: Requests<FindPath>) {}

fn main() {}
