//! Finds headless Chromium for the browser tests of the recording page
//! (`tests/debugger.rs`) and the live page (`arbortick-live/tests/page.rs`).

use std::path::PathBuf;
use std::process::Command;

/// The Chromium to run, or `None` (the test is skipped) where none is
/// installed, unless `BT_REQUIRE_CHROMIUM` is set (as in CI): then a
/// missing Chromium fails the test.
pub fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let ok = Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(name.into());
        }
    }
    if std::env::var_os("BT_REQUIRE_CHROMIUM").is_some() {
        panic!("BT_REQUIRE_CHROMIUM is set, but no chromium is installed");
    }
    None
}
