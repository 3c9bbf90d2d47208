//! The hot-reload watcher: a copy of a source file is edited while a tree
//! read from it runs, and the running tree changes. Waits are bounded waits
//! for the watcher's report; every watcher is dropped (stopped) by its test.

use bt::Status;
use bt::hot::{At, Host, Input, Live, Program, Reload, Table, Watcher};
use std::path::PathBuf;
use std::sync::{Arc, mpsc};
use std::time::Duration;

const SOURCE: &str = "// A tree, as its file holds it.
behavior_tree! {
    tree Brain(me: &mut Me) {
        select { cond me.tired(), action me.walk(), action me.rest() }
    }
}
";

/// How long a test waits for the watcher at most.
const WAIT: Duration = Duration::from_secs(20);

/// A directory of its own for each test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("bt-hot-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `walk` and `rest` by name: which action ran.
struct Me(Vec<String>);

impl Host for Me {
    fn condition(&mut self, _: &At, _: &str) -> bool {
        false
    }
    fn action(&mut self, _: &At, expr: &str) -> Status {
        self.0.push(expr.replace(' ', ""));
        Status::Success
    }
}

fn live() -> Arc<Live> {
    let program = Program::parse_file(SOURCE, 2).unwrap();
    let table = Table::of(&program, "Brain").unwrap();
    Arc::new(Live::new(&program, "Brain", table).unwrap())
}

/// Saves `text` as editors do: written beside the file, then renamed over
/// it, so that the watcher never reads a half-written file.
fn save(path: &std::path::Path, text: &str) {
    let tmp = path.with_extension("rs.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Writes each edit, waits for the watcher's report of it, and ticks.
fn edit_and_tick(watch: impl Fn(Arc<Live>, PathBuf, mpsc::Sender<Reload>) -> Watcher, name: &str) {
    let scratch = Scratch::new(name);
    let path = scratch.0.join("brain.rs");
    std::fs::write(&path, SOURCE).unwrap();
    let live = live();
    let (tx, rx) = mpsc::channel();
    let watcher = watch(Arc::clone(&live), path.clone(), tx);
    let (mut me, mut agent) = (Me(Vec::new()), live.agent());
    live.tick(&mut agent, &mut me, Input::default());
    assert_eq!(me.0, ["me.walk()"]);

    // Reordered: applied.
    let swapped = SOURCE.replace(
        "action me.walk(), action me.rest()",
        "action me.rest(), action me.walk()",
    );
    save(&path, &swapped);
    let outcome = rx.recv_timeout(WAIT).expect("a report of the edit");
    assert!(
        matches!(outcome, Reload::Applied { version: 2, .. }),
        "{outcome}"
    );
    live.tick(&mut agent, &mut me, Input::default());
    assert_eq!(me.0, ["me.walk()", "me.rest()"], "the running tree changed");

    // A syntax error: reported, nothing changes.
    save(&path, &swapped.replace("select {", "select"));
    let outcome = rx.recv_timeout(WAIT).expect("a report of the broken edit");
    assert!(matches!(outcome, Reload::Invalid { .. }), "{outcome}");
    assert_eq!(live.version(), 2);

    // An expression the build lacks: refused, nothing changes.
    save(&path, &swapped.replace("me.rest()", "me.dance()"));
    let outcome = rx.recv_timeout(WAIT).expect("a report of the refused edit");
    assert_eq!(
        outcome.to_string(),
        "Brain: not reloaded: rebuild to use `me . dance ()` (line 4)"
    );
    assert_eq!(live.version(), 2);
    drop(watcher);
}

#[test]
fn the_watcher_reloads_the_tree_when_its_file_changes() {
    edit_and_tick(
        |live, path, tx| {
            Watcher::new(live, &path, 2, move |outcome| {
                let _ = tx.send(outcome);
            })
            .unwrap()
        },
        "events",
    );
}

#[test]
fn the_polling_watcher_reloads_the_tree_when_its_file_changes() {
    edit_and_tick(
        |live, path, tx| {
            let watcher =
                Watcher::polling(live, &path, 2, Duration::from_millis(20), move |outcome| {
                    let _ = tx.send(outcome);
                })
                .unwrap();
            assert!(watcher.is_polling());
            watcher
        },
        "polling",
    );
}

#[test]
fn a_file_that_cannot_be_watched_is_a_typed_error() {
    let missing = std::env::temp_dir()
        .join("bt-hot-no-such-dir")
        .join("brain.rs");
    let error =
        Watcher::polling(live(), &missing, 2, Duration::from_millis(20), |_| {}).unwrap_err();
    assert_eq!(error.path, missing);
    assert!(error.to_string().starts_with("cannot watch `"), "{error}");
}
