//! Regenerates the large reference trees in `src/generated/` and the
//! 1,000-node compile-time tree in `tests/generated/`.

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, text) in bt_bench::codegen::files() {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        println!("wrote {}", path.display());
    }
}
