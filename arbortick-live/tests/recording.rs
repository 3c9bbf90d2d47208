//! What the live page records: every agent's transitions exactly as a
//! recorder fed each status on its own records them (the page takes a
//! tick's statuses gathered, as a `Recorder` does), and a node forced from
//! the page inside a tree embedded twice is forced in the instance the
//! tick is in, and only there; agents the page does not hook record the
//! same while a node is forced for the watched one.

use bt::prelude::*;
use bt::record::{NodeStatus, Recorder};
use bt::trace::TraceEvent;
use bt::{NoFlags, NodeInfo, Trace};
use bt_live::{LivePage, Options};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// What an agent's actions did.
#[derive(Clone, Debug, Default)]
struct Chores {
    /// Each embedded instance's `work` calls.
    worked: [u32; 2],
    /// `last` calls.
    finished: u32,
    /// Drives which actions succeed, fail or run on.
    bits: u64,
}

impl Chores {
    /// The next pseudo-random outcome of agent `self`'s stream.
    fn roll(&mut self) -> u64 {
        self.bits ^= self.bits << 13;
        self.bits ^= self.bits >> 7;
        self.bits ^= self.bits << 17;
        self.bits % 4
    }
}

bt::behavior_tree! {
    /// Embedded twice: `which` says which instance.
    tree Chore(me: &mut Chores, cx: &Ctx<NoFlags, NoFlags, impl Trace>, which: usize) {
        'chore: sequence {
            'work: action {
                me.worked[which] += 1;
                match me.roll() {
                    0 => Status::Failure,
                    1 => Status::Running,
                    _ => Status::Success,
                }
            },
            'pause: wait(0.2),
        }
    }

    tree Day(me: &mut Chores, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'day: reactive_select {
            'morning: sequence {
                Chore(me, cx, 0),
                Chore(me, cx, 1),
                'last: action { me.finished += 1; Status::Success },
            },
            'rest: action { if me.roll() == 0 { Status::Running } else { Status::Success } },
        }
    }
}

bt::behavior_tree! {
    /// Without embedded trees, of few nodes: the page logs its ticks whole.
    tree Errand(me: &mut Chores, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'errand: reactive_select {
            'go: sequence {
                'work: action {
                    me.worked[0] += 1;
                    match me.roll() {
                        0 => Status::Failure,
                        1 => Status::Running,
                        _ => Status::Success,
                    }
                },
                'pause: wait(0.2),
                'last: action { me.finished += 1; Status::Success },
            },
            'rest: action { if me.roll() == 0 { Status::Running } else { Status::Success } },
        }
    }
}

/// A recorder fed status by status: `Trace::GATHERS` left `false`.
struct OneByOne<'a>(&'a Recorder);

impl Trace for OneByOne<'_> {
    fn level(&self, agent: u64) -> u8 {
        self.0.level(agent)
    }
    fn statuses(&self, agent: u64) -> bool {
        self.0.statuses(agent)
    }
    fn event(&self, event: &TraceEvent) {
        self.0.event(event)
    }
    fn returned(&self, agent: u64, now: f64, node: &'static NodeInfo, status: Status) {
        self.0.returned(agent, now, node, status)
    }
}

const AGENTS: usize = 64;
const RING: usize = 256;

fn herd() -> Vec<(Day, Chores)> {
    (0..AGENTS as u64)
        .map(|i| {
            let chores = Chores {
                bits: 0x9E37_79B9_7F4A_7C15 ^ (i + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
                ..Chores::default()
            };
            (Day::default(), chores)
        })
        .collect()
}

#[test]
fn the_page_records_every_agent_as_a_recorder_fed_each_status_does() {
    let page = LivePage::serve::<Day>(AGENTS, Options::new().port(0).capacity(RING)).unwrap();
    let reference = Recorder::new::<Day>(AGENTS, RING);
    let (mut live, mut plain) = (herd(), herd());
    for frame in 0..400 {
        let now = f64::from(frame) * 0.05;
        let _frame = page.frame().expect("no page holds the program");
        for (i, ((tree, me), (plain_tree, plain_me))) in
            live.iter_mut().zip(plain.iter_mut()).enumerate()
        {
            let cx = Ctx::new(now, 0.05).agent(i as u64);
            let status = tree.tick(me, &cx.trace(&page));
            let plain_status = plain_tree.tick(plain_me, &cx.trace(OneByOne(&reference)));
            assert_eq!(status, plain_status, "agent {i}, frame {frame}");
        }
    }
    let recorded = page.recorder();
    let mut transitions = 0;
    for agent in 0..AGENTS as u64 {
        let ours = recorded.transitions(agent).unwrap();
        assert_eq!(ours, reference.transitions(agent).unwrap(), "agent {agent}");
        assert_eq!(recorded.ticks(agent).unwrap(), 400);
        assert_eq!(
            recorded.current_statuses(agent).unwrap(),
            reference.current_statuses(agent).unwrap()
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        recorded.write_btlog(agent, &mut a).unwrap();
        reference.write_btlog(agent, &mut b).unwrap();
        assert_eq!(a, b, "agent {agent}'s .btlog");
        transitions += ours.len();
    }
    // Every agent's ring filled: the comparison covers folds and drops.
    assert!(transitions >= AGENTS * RING, "{transitions} transitions");
    assert!((0..AGENTS as u64).all(|a| recorded.dropped(a).unwrap() > 0));
    page.stop();
}

/// `POST /control` with `body`; the answer's status.
fn control(address: SocketAddr, body: &str) -> u16 {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stream,
        "POST /control HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer[9..12].parse().unwrap()
}

#[test]
fn a_node_forced_in_the_second_embedded_instance_is_forced_there_only() {
    let page = LivePage::serve::<Day>(2, Options::new().port(0)).unwrap();
    let recorder = page.recorder();
    // `work` is at two uids, one per instance of `Chore`, in tree order.
    let works: Vec<u16> = (0..=recorder.nodes() as u16)
        .filter(|&uid| recorder.node(uid).is_some_and(|n| n.label == Some("work")))
        .collect();
    assert_eq!(works.len(), 2, "{works:?}");
    let last = recorder.uid_of("last").unwrap();
    page.watch(1).unwrap();
    let body = format!(
        r#"{{"action":"force","uid":{},"status":"failure"}}"#,
        works[1]
    );
    assert_eq!(control(page.address(), &body), 200);

    // Agent 0 is not watched: nothing is forced for it. Agent 1's second
    // `work` fails without running, so `last` never runs.
    let mut agents = [Chores::default(), Chores::default()];
    agents.iter_mut().for_each(|c| c.bits = 3);
    let mut trees = [Day::default(), Day::default()];
    for frame in 0..40 {
        let _frame = page.frame().unwrap();
        let now = f64::from(frame) * 0.1;
        for (i, (tree, me)) in trees.iter_mut().zip(agents.iter_mut()).enumerate() {
            tree.tick(me, &Ctx::new(now, 0.1).agent(i as u64).trace(&page));
        }
    }
    assert!(
        agents[0].worked[1] > 0 && agents[0].finished > 0,
        "{:?}",
        agents[0]
    );
    assert!(agents[1].worked[0] > 0, "{:?}", agents[1]);
    assert_eq!((agents[1].worked[1], agents[1].finished), (0, 0));

    let forced: Vec<_> = recorder
        .transitions(1)
        .unwrap()
        .into_iter()
        .filter(|t| t.uid == works[1])
        .collect();
    assert!(
        forced
            .iter()
            .all(|t| t.status == NodeStatus::Failure || t.status == NodeStatus::Idle),
        "{forced:?}"
    );
    assert!(forced.iter().any(|t| t.status == NodeStatus::Failure));
    assert!(
        recorder
            .transitions(1)
            .unwrap()
            .iter()
            .all(|t| t.uid != last)
    );
    // The first instance's `work` ran, and is recorded at its own uid.
    assert!(
        recorder
            .transitions(1)
            .unwrap()
            .iter()
            .any(|t| t.uid == works[0] && t.status == NodeStatus::Success)
    );
    page.stop();
}

/// While a node is forced for the watched agent, the others' ticks (which
/// the hooks leave alone, and which the generated tick runs without the
/// hook points) record exactly what a recorder fed each status records;
/// the watched agent's forced node is recorded as forced.
#[test]
fn agents_not_hooked_record_as_a_recorder_does_while_the_watched_one_is_forced() {
    const WATCHED: u64 = 5;
    let page = LivePage::serve::<Errand>(AGENTS, Options::new().port(0).capacity(RING)).unwrap();
    let recorded = page.recorder();
    let reference = Recorder::new::<Errand>(AGENTS, RING);
    let work = recorded.uid_of("work").unwrap();
    let last = recorded.uid_of("last").unwrap();
    page.watch(WATCHED).unwrap();
    let body = format!(r#"{{"action":"force","uid":{work},"status":"failure"}}"#);
    assert_eq!(control(page.address(), &body), 200);
    let herd = || -> Vec<(Errand, Chores)> {
        herd()
            .into_iter()
            .map(|(_, me)| (Errand::default(), me))
            .collect()
    };
    let (mut live, mut plain) = (herd(), herd());
    for frame in 0..400 {
        let now = f64::from(frame) * 0.05;
        let _frame = page.frame().expect("no page holds the program");
        for (i, ((tree, me), (plain_tree, plain_me))) in
            live.iter_mut().zip(plain.iter_mut()).enumerate()
        {
            let cx = Ctx::new(now, 0.05).agent(i as u64);
            let status = tree.tick(me, &cx.trace(&page));
            let plain_status = plain_tree.tick(plain_me, &cx.trace(OneByOne(&reference)));
            if i as u64 != WATCHED {
                assert_eq!(status, plain_status, "agent {i}, frame {frame}");
            }
        }
    }
    for agent in (0..AGENTS as u64).filter(|&a| a != WATCHED) {
        assert_eq!(
            recorded.transitions(agent).unwrap(),
            reference.transitions(agent).unwrap(),
            "agent {agent}"
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        recorded.write_btlog(agent, &mut a).unwrap();
        reference.write_btlog(agent, &mut b).unwrap();
        assert_eq!(a, b, "agent {agent}'s .btlog");
        assert!(live[agent as usize].1.finished > 0, "agent {agent}");
    }
    // The watched agent's `work` never ran: it failed, forced, every
    // time, so `last` never ran either.
    let watched = &live[WATCHED as usize].1;
    assert_eq!((watched.worked[0], watched.finished), (0, 0), "{watched:?}");
    let transitions = recorded.transitions(WATCHED).unwrap();
    assert!(
        transitions
            .iter()
            .any(|t| t.uid == work && t.status == NodeStatus::Failure)
    );
    assert!(transitions.iter().all(|t| t.uid != last));
    assert_eq!(recorded.ticks(WATCHED).unwrap(), 400);
    page.stop();
}
