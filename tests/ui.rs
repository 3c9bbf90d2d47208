//! Compile-time behaviour: every bad tree is a compile error on the token to
//! change (`ui/fail`, one file per mistake, with the expected `.stderr`), and
//! good trees compile (`ui/pass`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}

/// The reference's error table (`src/reference/errors.rs`) names every
/// failing case, so that each error the macro reports is documented.
#[test]
fn the_reference_lists_every_failing_case() {
    let reference = include_str!("../src/reference/errors.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/fail");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(dir).expect("tests/ui/fail exists") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let case = path.file_stem().unwrap().to_string_lossy().into_owned();
            if !reference.contains(&format!("`{case}`")) {
                missing.push(case);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in the reference's error table: {missing:?}"
    );
}
