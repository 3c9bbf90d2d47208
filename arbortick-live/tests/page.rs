//! The live page in a real browser while the creature example runs:
//! headless Chromium, driven through its DevTools protocol, opens the page
//! the running program serves and clicks its controls; the test checks the
//! page (its DOM) and the program (its frames, where its tick waits) after
//! each. Every wait is a bounded wait for an event: a message drawn by the
//! page (`bt-render`), a frame of the program's loop.
//!
//! Skipped, with the reason, where no Chromium is installed, unless
//! `BT_REQUIRE_CHROMIUM` is set (as in CI).

#[allow(dead_code, missing_docs, unused_imports, unexpected_cfgs)]
#[path = "../../examples/creature.rs"]
mod creature;

#[path = "../../tests/common/chromium.rs"]
mod chromium;
#[allow(dead_code)]
#[path = "../../tests/common/devtools.rs"]
mod devtools;

use bt_live::{LivePage, Options};
use chromium::chromium;
use devtools::{Browser, Finish, WAIT};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// What the program's loop reports after each frame: whether it ticked.
struct Program {
    frames: mpsc::Receiver<bool>,
}

impl Program {
    /// Waits for `n` frames of the loop that did not tick (it is paused or
    /// asked again after a step): proof that time passes for the program.
    fn idle_frames(&self, n: usize) {
        let mut idle = 0;
        while idle < n {
            if !self
                .frames
                .recv_timeout(WAIT)
                .expect("the program's loop goes on")
            {
                idle += 1;
            }
        }
    }
}

/// The page and program of every step below: three creatures, watched
/// creature 1, a frame every 10 ms.
#[test]
fn the_live_page_follows_pauses_steps_forces_breaks_and_switches_agents() {
    let Some(chromium) = chromium() else {
        return eprintln!("skipped: no chromium (Debian: apt-get install chromium)");
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live");
    std::fs::create_dir_all(&dir).unwrap();
    let page = LivePage::serve::<creature::CreatureBrain>(
        3,
        Options::new().port(0).notes(64).title("Live creatures"),
    )
    .unwrap();
    let root = page.recorder().uid_of("root").unwrap();
    let running = AtomicBool::new(true);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let page = &page;
        let running = &running;
        scope.spawn(move || {
            let mut world = creature::World::new(3, 7);
            creature::run_live_page(&mut world, page, Duration::from_millis(10), |_, ticked| {
                let _ = tx.send(ticked);
                running.load(Ordering::Relaxed)
            });
        });
        let _finish = Finish { running, page };
        let program = Program { frames: rx };
        // The program watches creature 1: the page opens on it.
        page.watch(1).unwrap();
        let mut browser = Browser::start(&chromium, "page");
        browser.call("Page.enable", json!({}));
        browser.call("Page.navigate", json!({"url": page.url()}));

        // It follows the running program: the tick counter advances.
        browser.wait(
            "document.body.dataset.connection === 'live' && +document.body.dataset.frame >= 3",
        );
        let frame: u64 = browser.body("frame").parse().unwrap();
        browser.wait(&format!("+document.body.dataset.frame >= {}", frame + 3));
        assert_eq!(browser.body("agent"), "1");

        // Pause: the program stops ticking, and the page says so.
        browser.click("#pause");
        browser.wait("document.body.dataset.paused === 'true'");
        program.idle_frames(5);
        let paused_at = page.frames();
        browser.wait(&format!("+document.body.dataset.frame === {paused_at}"));
        program.idle_frames(10);
        assert_eq!(page.frames(), paused_at, "paused, no frame ticks");
        let tick: u64 = browser.body("tick").parse().unwrap();

        // Step: exactly one tick, then paused again.
        browser.click("#step");
        browser.wait(&format!(
            "+document.body.dataset.frame === {} && +document.body.dataset.tick === {}",
            paused_at + 1,
            tick + 1
        ));
        program.idle_frames(10);
        assert_eq!(page.frames(), paused_at + 1, "a step is one frame");
        assert_eq!(browser.body("tick"), (tick + 1).to_string());

        // Force the root to fail: the next tick it returns failure without
        // running, so every node of the tree is idle after it and nothing
        // else changed but the root.
        browser.eval(&format!(
            "document.querySelector('li.node[data-uid=\"{root}\"] > .row').click()"
        ));
        browser.click("#force-failure");
        browser.wait(&format!(
            "document.querySelector('li.node[data-uid=\"{root}\"]').dataset.forced === 'failure'"
        ));
        browser.click("#step");
        browser.wait(&format!(
            "+document.body.dataset.frame === {}",
            paused_at + 2
        ));
        let changes = browser
            .eval("[...document.querySelectorAll('#transitions tr')].map((r) => r.textContent)");
        let changes: Vec<&str> = changes
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert!(
            changes
                .iter()
                .any(|c| c.starts_with(&format!("#{root}'root")) && c.ends_with("failure")),
            "the root's forced failure is in the tick's transitions: {changes:?}"
        );
        let statuses = browser
            .eval("[...document.querySelectorAll('li.node')].map((li) => li.dataset.status)");
        assert!(
            statuses.as_array().unwrap().iter().all(|s| s == "idle"),
            "nothing runs under a root forced to fail: {statuses}"
        );
        let forced = page.recorder().transitions(1).unwrap();
        let last = forced.last().unwrap();
        assert_eq!((last.uid, last.status.name()), (root, "idle"));
        browser.click("#unforce");
        browser.wait(&format!(
            "!document.querySelector('li.node[data-uid=\"{root}\"]').dataset.forced"
        ));

        // A breakpoint on the root: resumed, the program stops in the
        // watched creature's next tick (after creature 0's), and the page
        // shows where.
        browser.click("#break");
        browser.wait(&format!(
            "document.querySelector('li.node[data-uid=\"{root}\"]').dataset.breakpoint === 'true'"
        ));
        let before = page.frames();
        browser.click("#resume");
        browser.wait(&format!("document.body.dataset.stoppedAt === '{root}'"));
        assert_eq!(page.stopped_at(), Some((1, root)));
        assert_eq!(
            browser.node(root, "data-stopped"),
            json!("true"),
            "the node stopped at is marked"
        );
        let text = browser.eval("document.getElementById('live-state').textContent");
        assert!(
            text.as_str().unwrap().contains("stopped at 'root"),
            "{text}"
        );
        // Stopped in a tick, the program's loop waits: no frame ends.
        assert_eq!(page.frames(), before);
        // Step: that frame finishes, and the program pauses.
        browser.click("#step");
        browser.wait(&format!(
            "!document.body.dataset.stoppedAt && +document.body.dataset.frame === {}",
            before + 1
        ));
        assert_eq!(page.stopped_at(), None);
        program.idle_frames(5);
        assert_eq!(page.frames(), before + 1);
        browser.click("#break");
        browser.wait(&format!(
            "!document.querySelector('li.node[data-uid=\"{root}\"]').dataset.breakpoint"
        ));

        // Another agent: the picker switches the view and the agent the
        // controls act on.
        browser.eval(
            "(() => { const s = document.getElementById('agents'); s.value = '2'; s.dispatchEvent(new Event('change')); })()",
        );
        browser
            .wait("document.body.dataset.agent === '2' && document.body.dataset.watched === '2'");
        assert_eq!(page.watched(), 2);
        browser.click("#resume");
        let frame: u64 = page.frames();
        browser.wait(&format!("+document.body.dataset.frame >= {}", frame + 3));
        // Its history is creature 2's: the page's current tick's statuses
        // are the recorder's.
        browser.wait("document.querySelector('#notes td.note') !== null");

        browser.screenshot(&dir.join("live.png"));
        assert!(std::fs::metadata(dir.join("live.png")).unwrap().len() > 10_000);

        // The program stops: the page says so.
        running.store(false, Ordering::Relaxed);
        drop(program);
        page.stop();
        browser.wait("document.body.dataset.connection === 'stopped'");
        let text = browser.eval("document.getElementById('live-state').textContent");
        assert!(
            text.as_str().unwrap().contains("the program stopped"),
            "{text}"
        );
    });
}

/// Milliseconds at the given fraction of `values`, sorted.
fn percentile(values: &mut [f64], at: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * at).round() as usize]
}

/// A measurement, not a check: 10,000 creatures ticking at 60 Hz on one
/// thread with the page open on creature 0, for 600 frames. Writes
/// `BENCHMARKS-live.md` beside this crate's manifest:
/// `cargo test --release -p arbortick-live --test page -- --ignored`.
#[test]
#[ignore = "a measurement (writes BENCHMARKS-live.md): run it --release with --ignored"]
fn measure_ten_thousand_agents_at_60_hz() {
    const AGENTS: u64 = 10_000;
    const FRAMES: usize = 600;
    let Some(chromium) = chromium() else {
        return eprintln!("skipped: no chromium");
    };
    let page = LivePage::serve::<creature::CreatureBrain>(
        AGENTS as usize,
        Options::new().port(0).notes(64),
    )
    .unwrap();
    let running = AtomicBool::new(true);
    let mut ticks = Vec::new();
    let measured = std::thread::scope(|scope| {
        let page = &page;
        let running = &running;
        let program = scope.spawn(move || {
            let mut world = creature::World::new(AGENTS, 7);
            let pace = Duration::from_secs_f64(1.0 / 60.0);
            let mut next = std::time::Instant::now();
            let mut ticks = Vec::new();
            while running.load(Ordering::Relaxed) {
                let start = std::time::Instant::now();
                if let Some(_frame) = page.frame() {
                    world.step(page, |_, _| {});
                }
                ticks.push(start.elapsed().as_secs_f64() * 1e3);
                next += pace;
                let now = std::time::Instant::now();
                if next > now {
                    std::thread::sleep(next - now);
                } else {
                    next = now;
                }
            }
            ticks
        });
        let _finish = Finish { running, page };
        let mut browser = Browser::start(&chromium, "scale");
        browser.call("Page.navigate", json!({"url": page.url()}));
        browser.wait("document.body.dataset.connection === 'live'");
        browser.eval(
            "window.measured = { latency: [], render: [], frames: [] };
             document.addEventListener('bt-render', () => {
               measured.latency.push(+document.body.dataset.latencyMs);
               measured.render.push(+document.body.dataset.renderMs);
             });
             (() => { let last = performance.now();
               const f = (t) => { measured.frames.push(t - last); last = t; requestAnimationFrame(f); };
               requestAnimationFrame(f); })()",
        );
        browser.wait(&format!("measured.latency.length >= {FRAMES}"));
        // The page's newest frame, then the program's: the page is at most
        // this many frames behind.
        let shown = browser.body("frame").parse::<u64>().unwrap();
        let lag = page.frames().saturating_sub(shown);
        let measured = browser.eval("JSON.stringify(measured)");
        running.store(false, Ordering::Relaxed);
        ticks = program.join().unwrap();
        (measured, lag)
    });
    let (measured, lag) = measured;
    let measured: Value = serde_json::from_str(measured.as_str().unwrap()).unwrap();
    let series = |name: &str| -> Vec<f64> {
        measured[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap_or(0.0))
            .collect()
    };
    let (mut latency, mut render, mut frames) =
        (series("latency"), series("render"), series("frames"));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut rows = String::new();
    for (what, values) in [
        (
            "program: ticking 10,000 creatures, one frame (ms)",
            &mut ticks,
        ),
        (
            "page: end of the program's frame to the page drawn (ms)",
            &mut latency,
        ),
        ("page: drawing one message (ms)", &mut render),
        ("page: time between animation frames (ms)", &mut frames),
    ] {
        rows.push_str(&format!(
            "| {what} | {} | {:.2} | {:.2} | {:.2} | {:.2} |\n",
            values.len(),
            mean(values),
            percentile(values, 0.5),
            percentile(values, 0.99),
            percentile(values, 1.0),
        ));
    }
    let report = format!(
        "# The live page at scale\n\n\
         Written by `cargo test --release -p arbortick-live --test page -- --ignored` \
         (`measure_ten_thousand_agents_at_60_hz`): the creature example's world with \
         10,000 creatures ticking at 60 frames a second on one thread, every creature \
         recorded by the live page (`LivePage`, rings of 256 transitions, notes kept), \
         and headless Chromium showing creature 0 live, for {FRAMES} messages. The \
         page's latency is the time from the end of the program's frame (the server's \
         clock) to the page having drawn it (the browser's clock, same machine).\n\n\
         | measured | samples | mean | median | 99th percentile | max |\n\
         |---|---:|---:|---:|---:|---:|\n{rows}\n\
         When the page had drawn {FRAMES} messages it was at most {lag} frame(s) behind the program.\n"
    );
    print!("{report}");
    std::fs::write(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS-live.md"),
        report,
    )
    .unwrap();
}
