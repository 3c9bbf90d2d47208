//! The server through its wire protocol, with the crate's own ZeroMQ
//! clients: what the comparison with BehaviorTree.CPP's publisher cannot
//! show (malformed and random requests, post hooks, many agents, the
//! watched agent changing, stopping with a tick waiting).

use bt::{BehaviorTree, Ctx, Leaf, NoFlags, Status};
use bt_groot::zmtp::{Message, Req, Sub};
use bt_groot::{Groot2, Options};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// An agent: what its leaves did.
#[derive(Default)]
struct Guard {
    log: Vec<String>,
    alert: bool,
}

/// Walks for two ticks, then arrives.
struct Walk;

impl Leaf<Guard> for Walk {
    type Memory = u8;
    fn start(&self, steps: &mut u8, g: &mut Guard) -> Status {
        g.log.push("start walk".into());
        *steps = 0;
        Status::Running
    }
    fn tick(&self, steps: &mut u8, g: &mut Guard) -> Status {
        g.log.push("tick walk".into());
        *steps += 1;
        if *steps >= 2 {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn halt(_: &mut u8, g: &mut Guard) {
        g.log.push("halt walk".into());
    }
}

bt::behavior_tree! {
    tree Patrol(g: &mut Guard, cx: &Ctx<NoFlags, NoFlags, &Groot2>) {
        sequence { 'calm: cond { g.log.push("calm".into()); !g.alert }, 'walk: Walk }
    }
}

// Uids: the sequence 1, 'calm 2, 'walk 3.
const CALM: u16 = 2;
const WALK: u16 = 3;

/// A server on two free ports.
fn serve() -> Groot2 {
    Groot2::serve::<Patrol>(Options::new().port(0)).unwrap()
}

fn client(groot: &Groot2) -> Req {
    Req::connect(groot.address(), WAIT).unwrap()
}

/// A subscriber the server knows about (a bounded wait for its
/// subscription to arrive).
fn subscriber(groot: &Groot2) -> Sub {
    let sub = Sub::connect(groot.notifications(), WAIT).unwrap();
    assert!(groot.wait_for_subscriber(WAIT), "no subscription");
    sub
}

fn header(kind: u8, id: u32) -> Vec<u8> {
    let mut h = vec![2, kind];
    h.extend_from_slice(&id.to_le_bytes());
    h
}

fn ask(req: &mut Req, kind: u8, payload: Option<&str>) -> Message {
    let h = header(kind, 77);
    match payload {
        Some(p) => req.request(&[&h, p.as_bytes()]),
        None => req.request(&[&h]),
    }
    .unwrap()
}

fn is_ok(reply: &Message, kind: u8) -> bool {
    reply[0].len() == 22 && reply[0][..6] == header(kind, 77)[..]
}

fn error(reply: &Message) -> Option<String> {
    (reply[0] == b"error").then(|| String::from_utf8_lossy(&reply[1]).into_owned())
}

fn hook(uid: u16, mode: u8, desired: &str, position: u8) -> String {
    format!(
        r#"{{"enabled":true,"uid":{uid},"mode":{mode},"once":false,"desired_status":"{desired}","position":{position}}}"#
    )
}

fn unlock(uid: u16, desired: &str, position: u8) -> String {
    format!(
        r#"{{"uid":{uid},"desired_status":"{desired}","position":{position},"remove_when_done":false}}"#
    )
}

/// The status byte of `uid` in an `S` reply.
fn status_of(reply: &Message, uid: u16) -> u8 {
    reply[1]
        .chunks(3)
        .find(|c| u16::from_le_bytes([c[0], c[1]]) == uid)
        .expect("every uid is in the reply")[2]
}

/// A server, a client and a subscriber, with `hook` set.
fn hooked(hook: &str) -> (std::sync::Arc<Groot2>, Req, Sub) {
    let groot = std::sync::Arc::new(serve());
    let mut req = client(&groot);
    let sub = subscriber(&groot);
    assert!(is_ok(&ask(&mut req, b'I', Some(hook)), b'I'));
    (groot, req, sub)
}

/// Ticks `agent` on a thread; the statuses come back through the channel.
fn tick_on_thread(
    groot: &std::sync::Arc<Groot2>,
    agent: u64,
    state: Patrol,
    mut guard: Guard,
    ticks: usize,
) -> mpsc::Receiver<(Status, Vec<String>)> {
    let (tx, rx) = mpsc::channel();
    let groot = groot.clone();
    thread::spawn(move || {
        let mut state = state;
        for k in 0..ticks {
            let cx = Ctx::new(k as f64, 1.0).agent(agent).trace(&*groot);
            let status = state.tick(&mut guard, &cx);
            if tx.send((status, std::mem::take(&mut guard.log))).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn the_server_listens_on_localhost_unless_told_otherwise() {
    let groot = serve();
    assert!(groot.address().ip().is_loopback());
    assert_eq!(
        groot.notifications().port(),
        groot.address().port() + 1,
        "notifications on the next port, as Groot2 expects"
    );
    // A port taken is an error, not a panic.
    let taken = Groot2::serve::<Patrol>(Options::new().port(groot.address().port()));
    let why = taken.unwrap_err().to_string();
    assert!(why.contains(&groot.address().to_string()), "{why}");
}

#[test]
fn malformed_requests_get_error_replies_and_the_server_goes_on() {
    let groot = serve();
    let mut req = client(&groot);
    let cases: Vec<(Vec<Vec<u8>>, &str)> = vec![
        (vec![b"abc".to_vec()], "wrong request header"),
        (vec![vec![2; 7]], "wrong request header"),
        (vec![header(b'Z', 1)], "Request not recognized"),
        (vec![header(b'I', 1)], "must be 2 parts message"),
        (vec![header(b'B', 1)], "must be 2 parts message"),
        (
            vec![header(b'I', 1), b"{nope".to_vec()],
            "invalid hook: key must be a string at line 1 column 2",
        ),
        (
            vec![header(b'I', 1), br#"{"uid":2}"#.to_vec()],
            "invalid hook: no `enabled`",
        ),
        (
            vec![header(b'I', 1), hook(CALM, 0, "MAYBE", 0).into_bytes()],
            "invalid hook: `desired_status` \"MAYBE\" is no status",
        ),
        (
            vec![header(b'I', 1), hook(CALM, 3, "SUCCESS", 0).into_bytes()],
            "invalid hook: `mode` is not 0 or 1",
        ),
        (
            vec![header(b'I', 1), hook(400, 0, "SUCCESS", 0).into_bytes()],
            "Node ID not found",
        ),
        (
            vec![header(b'I', 1), hook(0, 0, "SUCCESS", 0).into_bytes()],
            "Node ID not found",
        ),
        (
            vec![header(b'U', 1), unlock(CALM, "SUCCESS", 0).into_bytes()],
            "Node ID not found",
        ),
        (
            vec![header(b'R', 1), br#"{"uid":2,"position":0}"#.to_vec()],
            "Node ID not found",
        ),
        (
            vec![header(b'R', 1), br#"{"uid":"two","position":0}"#.to_vec()],
            "invalid hook: `uid` is not a node uid",
        ),
    ];
    for (frames, expected) in cases {
        let frames: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let reply = req.request(&frames).unwrap();
        assert_eq!(error(&reply).as_deref(), Some(expected), "{frames:?}");
        assert_eq!(reply.len(), 2);
    }
    // A hook on a node with nothing waiting: unlocking it is an error.
    assert!(is_ok(
        &ask(&mut req, b'I', Some(&hook(CALM, 0, "SKIPPED", 0))),
        b'I'
    ));
    let reply = ask(&mut req, b'U', Some(&unlock(CALM, "SUCCESS", 0)));
    assert_eq!(
        error(&reply).as_deref(),
        Some("no breakpoint waiting at node 2")
    );
    // An array of hooks with one bad item sets none of them.
    let both = format!(
        "[{}, {}]",
        hook(WALK, 1, "SUCCESS", 0),
        hook(99, 1, "SUCCESS", 0)
    );
    assert_eq!(
        error(&ask(&mut req, b'I', Some(&both))).as_deref(),
        Some("Node ID not found")
    );
    assert_eq!(groot.hooks().len(), 1);
    // Still serving.
    let reply = ask(&mut req, b'T', None);
    assert!(is_ok(&reply, b'T'));
    assert_eq!(reply[1], Patrol::BTCPP_INSTANCE_XML.as_bytes());
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Up to `max - 1` random bytes.
    fn bytes(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max);
        (0..n).map(|_| self.next() as u8).collect()
    }
}

#[test]
fn random_frames_never_stop_the_server_or_the_ticking() {
    let groot = std::sync::Arc::new(serve());
    let mut req = client(&groot);
    // The watched agent ticks all along, through whatever hooks the
    // random requests set; breakpoints it meets are released below.
    let ticks = tick_on_thread(&groot, 0, Patrol::default(), Guard::default(), 300);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let kinds = b"TSBIRUDAXrtZ\0N";
    let texts = [
        "start".to_owned(),
        "stop".to_owned(),
        "Patrol".to_owned(),
        "Patrol;Other;;".to_owned(),
        hook(CALM, 1, "FAILURE", 0),
        hook(WALK, 0, "SUCCESS", 1),
        hook(WALK, 1, "RUNNING", 0),
        unlock(CALM, "SUCCESS", 0),
        unlock(WALK, "FAILURE", 1),
        r#"{"uid":3,"position":1}"#.to_owned(),
        "[1, 2, {}]".to_owned(),
        "{\"uid\": 70000}".to_owned(),
        "\u{0}\u{1}garbage".to_owned(),
    ];
    let mut answered = 0;
    for _ in 0..3000 {
        let mut frames: Vec<Vec<u8>> = Vec::new();
        let mut h = match rng.below(8) {
            0 => rng.bytes(12),
            _ => header(
                kinds[rng.below(kinds.len() as u64) as usize],
                rng.next() as u32,
            ),
        };
        if !h.is_empty() && rng.below(10) == 0 {
            h[0] = rng.next() as u8;
        }
        frames.push(h);
        for _ in 0..rng.below(3) {
            frames.push(match rng.below(3) {
                0 => rng.bytes(40),
                _ => texts[rng.below(texts.len() as u64) as usize]
                    .clone()
                    .into_bytes(),
            });
        }
        // A message is its non-empty frames (an empty one would end the
        // envelope).
        frames.retain(|f| !f.is_empty());
        if frames.is_empty() {
            continue;
        }
        let frames: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let reply = req.request(&frames).expect("every request is answered");
        assert!(!reply.is_empty());
        answered += 1;
        if rng.below(50) == 0 {
            ask(&mut req, b'A', None);
        }
    }
    assert!(answered > 2500);
    // A message over the limit, or a frame announced and never sent,
    // closes its connection only.
    for (size, sent) in [(bt_groot::zmtp::MAX_MESSAGE + 1, 0usize), (4096, 10)] {
        use std::io::{Read, Write};
        let mut raw = std::net::TcpStream::connect(groot.address()).unwrap();
        raw.set_read_timeout(Some(WAIT)).unwrap();
        bt_groot::zmtp::handshake(&mut raw, bt_groot::zmtp::Kind::Req).unwrap();
        raw.write_all(&[1, 0]).unwrap(); // the empty delimiter, more to come
        raw.write_all(&[2]).unwrap(); // a long frame, the last
        raw.write_all(&size.to_be_bytes()).unwrap();
        raw.write_all(&vec![b'x'; sent]).unwrap();
        if sent > 0 {
            // Truncated: the peer hangs up mid-frame.
            raw.shutdown(std::net::Shutdown::Write).unwrap();
        }
        // The server closes the connection without a reply (a timeout
        // here would be an error of kind `WouldBlock`).
        let mut rest = Vec::new();
        match raw.read_to_end(&mut rest) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            other => panic!("the connection stayed open: {other:?} {rest:?}"),
        }
    }
    // Connections that are not ZeroMQ at all are dropped.
    for max in [1, 2, 11, 65, 201] {
        use std::io::Write;
        let mut raw = std::net::TcpStream::connect(groot.address()).unwrap();
        let _ = raw.write_all(&rng.bytes(max));
    }
    // Hooks gone, the ticking thread finishes its ticks.
    ask(&mut req, b'A', None);
    for _ in 0..300 {
        let (status, _) = ticks.recv_timeout(WAIT).expect("ticking goes on");
        let _ = status;
    }
    assert!(is_ok(&ask(&mut client(&groot), b'T', None), b'T'));
}

#[test]
fn a_post_breakpoint_stops_after_the_node_and_can_replace_its_status() {
    let (groot, mut req, mut sub) = hooked(&hook(CALM, 0, "SKIPPED", 1));
    let ticks = tick_on_thread(&groot, 0, Patrol::default(), Guard::default(), 2);
    let note = sub.recv(WAIT).unwrap();
    assert_eq!(note[0][..2], [2, b'N']);
    assert_eq!(note[1], b"2");
    // Stopped after 'calm ran: its call is made, the walk has not started.
    assert!(ticks.try_recv().is_err());
    let reply = ask(&mut req, b'U', Some(&unlock(CALM, "FAILURE", 1)));
    assert!(is_ok(&reply, b'U'), "{:?}", error(&reply));
    let (status, calls) = ticks.recv_timeout(WAIT).unwrap();
    assert_eq!((status, calls), (Status::Failure, vec!["calm".to_owned()]));
    // Unlocked with SKIPPED, the status it returned stands.
    sub.recv(WAIT).unwrap();
    assert!(is_ok(
        &ask(&mut req, b'U', Some(&unlock(CALM, "SKIPPED", 1))),
        b'U'
    ));
    let (status, calls) = ticks.recv_timeout(WAIT).unwrap();
    assert_eq!(status, Status::Running);
    assert_eq!(calls, ["calm", "start walk"]);
}

#[test]
fn only_the_watched_agent_is_followed_and_stopped() {
    let groot = std::sync::Arc::new(serve());
    groot.watch(7);
    let mut req = client(&groot);
    let mut agents: Vec<(Patrol, Guard)> = (0..100).map(|_| Default::default()).collect();
    // Agent 7 is alert: its 'calm fails; the others walk.
    agents[7].1.alert = true;
    // A replacement on 'walk acts on agent 7 only (which never reaches it).
    assert!(is_ok(
        &ask(&mut req, b'I', Some(&hook(WALK, 1, "FAILURE", 0))),
        b'I'
    ));
    for k in 0..2 {
        for (id, (state, guard)) in agents.iter_mut().enumerate() {
            let cx = Ctx::new(f64::from(k), 1.0).agent(id as u64).trace(&*groot);
            state.tick(guard, &cx);
        }
    }
    // The others walked undisturbed.
    assert_eq!(agents[3].1.log, ["calm", "start walk", "tick walk"]);
    let status = ask(&mut req, b'S', None);
    assert_eq!(status[1].len(), 3 * 3);
    // Agent 7's sequence failed at 'calm: both back to idle from failure.
    assert_eq!(status_of(&status, 1), 13);
    assert_eq!(status_of(&status, CALM), 13);
    assert_eq!(status_of(&status, WALK), 0);
    // Watching agent 3: statuses start over, and the hook now acts on it.
    groot.watch(3);
    let status = ask(&mut req, b'S', None);
    assert!(status[1].chunks(3).all(|c| c[2] == 0));
    let (state, guard) = &mut agents[3];
    guard.log.clear();
    let cx = Ctx::new(2.0, 1.0).agent(3).trace(&*groot);
    assert_eq!(state.tick(guard, &cx), Status::Failure);
    assert_eq!(
        guard.log,
        ["halt walk"],
        "the running walk, replaced, is halted once"
    );
}

#[test]
fn changing_the_watched_agent_releases_a_breakpoint_and_keeps_the_hooks() {
    let (groot, mut req, mut sub) = hooked(&hook(CALM, 0, "FAILURE", 0));
    let ticks = tick_on_thread(&groot, 0, Patrol::default(), Guard::default(), 2);
    sub.recv(WAIT).unwrap();
    // Another agent watched: the waiting tick goes on as if no hook were set.
    groot.watch(1);
    let (status, calls) = ticks.recv_timeout(WAIT).unwrap();
    assert_eq!(
        (status, calls),
        (Status::Running, vec!["calm".into(), "start walk".into()])
    );
    // The hook stays, for whichever agent is watched.
    assert_eq!(groot.hooks().len(), 1);
    // Agent 0 is not watched: its next tick does not stop.
    let (status, _) = ticks.recv_timeout(WAIT).unwrap();
    assert_eq!(status, Status::Running);

    // Agent 1, watched, stops; removing every hook lets it go on.
    let ticks = tick_on_thread(&groot, 1, Patrol::default(), Guard::default(), 1);
    sub.recv(WAIT).unwrap();
    ask(&mut req, b'A', None);
    let (status, calls) = ticks.recv_timeout(WAIT).unwrap();
    assert_eq!(
        (status, calls),
        (Status::Running, vec!["calm".into(), "start walk".into()])
    );
}

#[test]
fn values_the_program_sets_are_the_blackboard() {
    let groot = serve();
    let mut req = client(&groot);
    let reply = ask(&mut req, b'B', Some("Patrol;Elsewhere"));
    assert_eq!(
        reply[1], b"\x81\xa6Patrol\xc0",
        "no values: nil, as BT.CPP's empty blackboard"
    );
    groot.set_value("hp", 12);
    groot.set_value("target", "gate");
    let reply = ask(&mut req, b'B', Some("Patrol"));
    let mut expected = b"\x81\xa6Patrol\x82\xa2hp\x0c\xa6target\xa4gate".to_vec();
    assert_eq!(reply[1], expected);
    groot.clear_values();
    // No blackboard of that name: nil, as BT.CPP replies.
    expected = b"\xc0".to_vec();
    assert_eq!(ask(&mut req, b'B', Some("Nothing"))[1], expected);
}

#[test]
fn several_clients_are_answered_each_on_its_connection() {
    let groot = serve();
    let mut clients: Vec<Req> = (0..8).map(|_| client(&groot)).collect();
    for round in 0..20u32 {
        for (i, c) in clients.iter_mut().enumerate() {
            let id = round * 100 + i as u32;
            let h = header(b'S', id);
            let reply = c.request(&[&h]).unwrap();
            assert_eq!(reply[0][..6], h[..]);
        }
    }
}

#[test]
fn a_stopped_server_releases_a_tick_waiting_at_a_breakpoint() {
    let (groot, mut req, mut sub) = hooked(&hook(CALM, 0, "FAILURE", 0));
    let (tx, rx) = mpsc::channel();
    let waiting = groot.clone();
    let handle = thread::spawn(move || {
        let mut state = Patrol::default();
        let mut guard = Guard::default();
        let cx = Ctx::new(0.0, 1.0).trace(&*waiting);
        let status = state.tick(&mut guard, &cx);
        tx.send((status, guard.log)).unwrap();
    });
    sub.recv(WAIT).unwrap();
    // Stopping releases the breakpoint; its node runs.
    groot.stop();
    let (status, calls) = rx.recv_timeout(WAIT).unwrap();
    assert_eq!(
        (status, calls),
        (Status::Running, vec!["calm".into(), "start walk".into()])
    );
    handle.join().unwrap();
    // Stopped, it answers no more.
    assert!(req.request(&[&header(b'T', 1)]).is_err());
}
