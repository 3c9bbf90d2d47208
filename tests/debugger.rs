//! The recording's HTML page, in a real browser: headless Chromium loads a
//! page written by `Recorder::write_html`, the page's own scripts run, and
//! the DOM must show the statuses this file works out by hand, switch
//! agents through the picker, list guard verdicts and notes, and mark the
//! node that never ran. A screenshot is saved beside the page
//! (`target/tmp/debugger/`).
//!
//! Skipped, with the reason, where no Chromium is installed, unless
//! `BT_REQUIRE_CHROMIUM` is set (as in CI).

use bt::record::Recorder;
use bt::{BehaviorTree, Ctx, Leaf, NoFlags, Status, Trace};
#[path = "common/chromium.rs"]
mod chromium;

use chromium::chromium;
use std::path::Path;
use std::process::Command;

struct Bot {
    sees: bool,
    steps: u32,
}

/// Runs `n` ticks: `Running` until the `n`-th, which succeeds.
struct Steps {
    n: u32,
}

impl Leaf<Bot> for Steps {
    type Memory = u32;
    fn start(&self, m: &mut u32, bot: &mut Bot) -> Status {
        *m = 0;
        self.tick(m, bot)
    }
    fn tick(&self, m: &mut u32, bot: &mut Bot) -> Status {
        *m += 1;
        bot.steps += 1;
        if *m >= self.n {
            Status::Success
        } else {
            Status::Running
        }
    }
}

bt::behavior_tree! {
    tree Page(me: &mut Bot, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: prioritized {
            'never: when cx.now < 0.0 => action Status::Success,
            'work: else => sequence {
                'walk: Steps { n: 3 },
                'choose: select { 'look: cond me.sees, 'rest: Steps { n: 2 } },
            },
        }
    }
}

/// Agent 0 sees, agent 1 does not; 8 ticks each, with a note per tick.
fn recording() -> Recorder {
    let recorder = Recorder::new::<Page>(2, 1024)
        .with_guards(1024)
        .with_notes(64);
    let walk = recorder.uid_of("walk").unwrap();
    for agent in 0..2u64 {
        let mut bot = Bot {
            sees: agent == 0,
            steps: 0,
        };
        let mut page = Page::default();
        for tick in 0..8 {
            let cx = Ctx::new(f64::from(tick) * 0.5, 0.5)
                .agent(agent)
                .trace(&recorder);
            page.tick(&mut bot, &cx);
            recorder
                .note(agent, walk, &format!("steps = {}", bot.steps))
                .unwrap();
        }
    }
    recorder
}

fn browser(chromium: &Path, page: &Path, fragment: &str, args: &[&str]) -> String {
    let url = format!("file://{}#{fragment}", page.display());
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
        ])
        .args(args)
        .arg(&url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The attributes of every `<li ...>` of the tree, by `data-uid`.
fn nodes(dom: &str) -> Vec<(u16, Vec<(String, String)>)> {
    dom.split("<li ")
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let mut attrs = Vec::new();
            for part in tag.split("\" ") {
                if let Some((k, v)) = part.split_once("=\"") {
                    attrs.push((k.trim().to_owned(), v.trim_end_matches('"').to_owned()));
                }
            }
            let uid = attrs
                .iter()
                .find(|(k, _)| k == "data-uid")
                .unwrap()
                .1
                .parse()
                .unwrap();
            (uid, attrs)
        })
        .collect()
}

fn attr<'a>(nodes: &'a [(u16, Vec<(String, String)>)], uid: u16, name: &str) -> Option<&'a str> {
    let (_, attrs) = nodes.iter().find(|(u, _)| *u == uid)?;
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn body_attr<'a>(dom: &'a str, name: &str) -> &'a str {
    let body = &dom[dom.find("<body").unwrap()..];
    let start = body.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
    &body[start..start + body[start..].find('"').unwrap()]
}

#[test]
fn the_recording_is_recorded_per_tick() {
    let recorder = recording();
    assert_eq!(
        (recorder.ticks(0).unwrap(), recorder.ticks(1).unwrap()),
        (8, 8)
    );
    let uid = |label| recorder.uid_of(label).unwrap();
    // Agent 1 at tick 2: the walk succeeded, the select started, looking
    // failed, resting runs.
    let at2: Vec<(u16, bt::record::NodeStatus)> = recorder
        .transitions(1)
        .unwrap()
        .iter()
        .filter(|t| t.tick == 2)
        .map(|t| (t.uid, t.status))
        .collect();
    use bt::record::NodeStatus::*;
    assert_eq!(
        at2,
        [
            (uid("walk"), Success),
            (uid("choose"), Running),
            (uid("look"), Failure),
            (uid("rest"), Running)
        ]
    );
    // The higher guard is checked, and rejects, on every tick.
    let checks = recorder.guard_checks(1).unwrap();
    assert!(checks.iter().any(|g| g.tick == 5
        && g.child == uid("never")
        && g.rejected_at == Some("when cx.now < 0.0")));
    let notes = recorder.notes(0).unwrap();
    assert_eq!(notes.len(), 8);
    assert_eq!(
        (notes[2].tick, notes[2].uid, notes[2].text()),
        (2, uid("walk"), "\"steps = 3\"")
    );
    // Long values are cut.
    let long = Recorder::new::<Page>(1, 4).with_notes(1);
    long.note(0, 0, &"x".repeat(200)).unwrap();
    let text = long.notes(0).unwrap()[0].text().to_owned();
    assert!(
        text.len() <= bt::record::Note::CAPACITY && text.ends_with('…'),
        "{text}"
    );
}

#[test]
fn the_page_shows_each_tick_in_a_real_browser() {
    let Some(chromium) = chromium() else {
        return eprintln!("skipped: no chromium (Debian: apt-get install chromium)");
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debugger");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("page.html");
    let recorder = recording();
    let mut html = Vec::new();
    recorder.write_html([0, 1], "Page test", &mut html).unwrap();
    std::fs::write(&page, &html).unwrap();
    let html = String::from_utf8(html).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains(" src="),
        "the page loads nothing from elsewhere"
    );
    let uid = |label| recorder.uid_of(label).unwrap();

    // Agent 1 at tick 2: walk succeeded (the sequence keeps it), look
    // failed (the select keeps it), rest runs, the root and its path run.
    let dom = browser(&chromium, &page, "agent=1&tick=2", &["--dump-dom"]);
    let n = nodes(&dom);
    assert_eq!(n.len(), Page::NODES.len());
    assert_eq!(
        (body_attr(&dom, "data-agent"), body_attr(&dom, "data-tick")),
        ("1", "2")
    );
    for (label, status) in [
        ("walk", "success"),
        ("look", "failure"),
        ("rest", "running"),
        ("choose", "running"),
        ("work", "running"),
        ("root", "running"),
        ("never", "idle"),
    ] {
        assert_eq!(
            attr(&n, uid(label), "data-status"),
            Some(status),
            "'{label} at agent 1, tick 2"
        );
    }
    // The guard that never accepts: its node never ran, the others did.
    assert_eq!(attr(&n, uid("never"), "data-never-ran"), Some("true"));
    assert_eq!(attr(&n, uid("walk"), "data-never-ran"), None);
    // The tick's guard verdict and note.
    assert!(
        dom.contains("rejected at when cx.now &lt; 0.0"),
        "guard verdicts are listed"
    );
    // Three steps of walking, one of resting.
    assert!(dom.contains("\"steps = 4\""), "the note of tick 2");

    // Agent 0 at tick 1: still walking; nothing has failed.
    let dom = browser(&chromium, &page, "agent=0&tick=1", &["--dump-dom"]);
    let n = nodes(&dom);
    assert_eq!(attr(&n, uid("walk"), "data-status"), Some("running"));
    assert_eq!(attr(&n, uid("look"), "data-status"), Some("idle"));

    // The controls, clicked by the page's own handlers: from agent 0 at
    // tick 0, two steps forward, then the picker switches to agent 1
    // (agent 1 at tick 2, as above), then the next change of the active
    // path (tick 3: rest finishes, everything returns to idle).
    let dom = browser(
        &chromium,
        &page,
        "agent=0&tick=0&play=next,next,agent:1",
        &["--dump-dom"],
    );
    let n = nodes(&dom);
    assert_eq!(
        (body_attr(&dom, "data-agent"), body_attr(&dom, "data-tick")),
        ("1", "2")
    );
    assert_eq!(attr(&n, uid("look"), "data-status"), Some("failure"));
    let dom = browser(
        &chromium,
        &page,
        "agent=1&tick=2&play=next-change",
        &["--dump-dom"],
    );
    assert_eq!(body_attr(&dom, "data-tick"), "3");
    assert!(
        nodes(&dom)
            .iter()
            .all(|(u, _)| attr(&nodes(&dom), *u, "data-status") == Some("idle"))
    );
    // Searching the agent list filters it.
    let dom = browser(
        &chromium,
        &page,
        "agent=0&tick=0&play=search:1",
        &["--dump-dom"],
    );
    let picker = &dom[dom.find("id=\"agents\"").unwrap()..];
    let picker = &picker[..picker.find("</select>").unwrap()];
    assert_eq!(picker.matches("<option").count(), 1, "{picker}");

    // A picture of agent 1 at tick 2, kept with the page.
    let shot = dir.join("page.png");
    browser(
        &chromium,
        &page,
        "agent=1&tick=2",
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1400,700",
        ],
    );
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
}
