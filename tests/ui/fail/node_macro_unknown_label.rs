use bt::prelude::*;

behavior_tree! {
    tree Guard(me: &mut bool) { 'watch: cond *me }
}

// A label the tree does not have is an error on the label.
fn main() {
    let _ = bt::node!(Guard, 'wacth);
}
