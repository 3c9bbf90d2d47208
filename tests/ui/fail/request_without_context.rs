include!("../agent.rs");
use bt::request::Requests;

struct FindPath;

behavior_tree! {
    tree T(me: &mut Agent, paths: &mut Requests<FindPath>) {
        sequence {
            cond me.ok(),
            request(paths, FindPath),
        }
    }
}

fn main() {}
