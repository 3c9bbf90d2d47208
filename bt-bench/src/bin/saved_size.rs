//! Prints the `## Saved state` section of `BENCHMARKS.md`: bytes of one
//! agent's saved tree state, in JSON and in postcard, for the reference
//! trees.
//!
//! `cargo run --release -p bt-bench --bin saved_size`

fn main() {
    print!("{}", bt_bench::saved::section());
}
