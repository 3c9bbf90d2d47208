//! Compile-time behaviour: every bad tree is a compile error on the token to
//! change (`ui/fail`, one file per mistake, with the expected `.stderr`), and
//! good trees compile (`ui/pass`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
