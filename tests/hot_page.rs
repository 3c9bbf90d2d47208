//! The live page redraws a tree that hot reload changed, in a real
//! browser: a program serves the page of a tree running on the hot-reload
//! engine, the tree is reloaded with a node more, and the page, following
//! the agent, draws the new tree with the agent's statuses on it. Waits are
//! bounded waits for what the page draws (`bt-render`) or for the program's
//! frames.
//!
//! Skipped, with the reason, where no Chromium is installed, unless
//! `BT_REQUIRE_CHROMIUM` is set (as in CI).

#[path = "common/chromium.rs"]
mod chromium;
#[allow(dead_code)]
#[path = "common/devtools.rs"]
mod devtools;

use bt::prelude::*;
use bt_live::{LivePage, Options};
use devtools::{Browser, Finish, WAIT};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// A sentry: walks, then looks around for as long as it is left.
#[derive(Default)]
struct Sentry {
    looks: u32,
}

bt::behavior_tree! {
    tree Post(me: &mut Sentry, cx: &Ctx<bt::NoFlags, bt::NoFlags, impl bt::Trace>) {
        'round: sequence {
            'walk: action Status::Success,
            'look: action { me.looks += 1; Status::Running },
        }
    }
}

#[test]
fn the_live_page_redraws_a_tree_changed_by_hot_reload() {
    let Some(chromium) = chromium::chromium() else {
        return eprintln!("skipped: no chromium (Debian: apt-get install chromium)");
    };
    bt::hot::start_with(|_| {});
    let page = LivePage::serve::<Post>(1, Options::new().port(0).title("Reloaded post")).unwrap();
    let running = AtomicBool::new(true);
    let (frames, frame) = mpsc::channel();
    std::thread::scope(|scope| {
        let page = &page;
        let running = &running;
        scope.spawn(move || {
            let (mut post, mut sentry) = (Post::default(), Sentry::default());
            let mut t = 0u32;
            while running.load(Ordering::Relaxed) {
                if let Some(_frame) = page.frame() {
                    let cx = Ctx::new(f64::from(t) * 0.01, 0.01).trace(page);
                    post.tick(&mut sentry, &cx);
                    t += 1;
                }
                let _ = frames.send(t);
                // The pace of a program's frames (10 ms); the test waits
                // for frames and pages, not for this.
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
        let _finish = Finish { running, page };
        let mut browser = Browser::start(&chromium, "hot-page");
        browser.call("Page.enable", json!({}));
        browser.call("Page.navigate", json!({"url": page.url()}));
        browser.wait(
            "document.body.dataset.connection === 'live' && +document.body.dataset.frame >= 3",
        );
        // The tree as built: three nodes, the look running.
        let count = "document.querySelectorAll('li.node').length";
        assert_eq!(browser.eval(count), json!(3));
        browser
            .wait("document.querySelector('li.node[data-uid=\"3\"]').dataset.status === 'running'");

        // Reloaded: the look is guarded by a new node.
        let file = include_str!("hot_page.rs");
        let line = file
            .lines()
            .position(|l| l.starts_with("    tree Post("))
            .expect("the tree's invocation");
        let edited = file.replacen(
            "'look: action { me.looks += 1; Status::Running },\n        }",
            "'guarded: force_success { 'look: action { me.looks += 1; Status::Running } },\n        }",
            1,
        );
        assert_ne!(edited, file);
        let engine = Post::live().expect("the tree runs live");
        let outcome = engine.reload(&edited, line);
        assert!(
            outcome
                .to_string()
                .starts_with("Post: reloaded as version 2"),
            "{outcome}"
        );
        let reloaded_at = frame.recv_timeout(WAIT).expect("the program goes on");

        // The page draws the new tree: four nodes, the new one running
        // around the look, with the agent's history from the reload on.
        browser.wait(&format!("{count} === 4"));
        browser.wait(
            "document.querySelector('li.node[data-uid=\"3\"] .label').textContent === \"'guarded\" \
             && document.querySelector('li.node[data-uid=\"3\"]').dataset.status === 'running' \
             && document.querySelector('li.node[data-uid=\"4\"]').dataset.status === 'running'",
        );
        assert!(
            browser
                .eval("document.getElementById('summary').textContent")
                .as_str()
                .unwrap()
                .contains("4 nodes"),
        );
        // Ticks go on under the new tree.
        browser.wait(&format!(
            "+document.body.dataset.frame >= {}",
            reloaded_at + 3
        ));
        // The new node is one the program's controls know: forcing it to
        // fail is accepted, and its badge shows.
        browser.click("li.node[data-uid=\"3\"] .row");
        browser.click("#force-failure");
        browser
            .wait("document.querySelector('li.node[data-uid=\"3\"]').dataset.forced === 'failure'");
        assert_eq!(
            browser.eval("document.getElementById('live-error').textContent"),
            json!("")
        );

        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live");
        std::fs::create_dir_all(&dir).unwrap();
        browser.screenshot(&dir.join("hot-reload.png"));
    });
}
