include!("../agent.rs");
use bt::Ctx;
use bt::request::Requests;

struct FindPath;

behavior_tree! {
    tree Walk(paths: &mut Requests<FindPath>, cx: &Ctx) {
        request(paths, FindPath)
    }

    tree Patrol(me: &mut Agent, paths: &mut Requests<FindPath>, cx: &Ctx) {
        sequence {
            cond me.ok(),
            Walk(paths, cx),
        }
    }
}

fn main() {}
