/// A leaf, not a tree.
struct Wait {
    ticks: u32,
}

fn main() {
    let wait = Wait { ticks: 3 };
    let _ = wait.ticks;
    let _ = bt::batch::resume_node(&wait);
}
