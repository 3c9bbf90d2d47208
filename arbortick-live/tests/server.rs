//! The live page's server under bad input and misuse: malformed and unknown
//! requests get a 4xx answer and change nothing, streams over the limit are
//! refused, a client that never reads never slows the ticking program,
//! garbage on the socket is survived, and a program paused or stopped at a
//! breakpoint goes on once every page has closed, or the server stops.

use bt::prelude::*;
use bt::{NoFlags, Trace};
use bt_live::{LivePage, Options};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);

bt::behavior_tree! {
    tree Walker(me: &mut u32, cx: &Ctx<NoFlags, NoFlags, impl Trace>) {
        'root: sequence {
            'step: instant { *me += 1; Outcome::Success },
            'rest: wait(1),
        }
    }
}

/// `agents` walkers ticked once, as one frame (if the page lets it run).
fn frame(page: &LivePage, walkers: &mut [(Walker, u32)], now: f64) -> bool {
    let Some(_frame) = page.frame() else {
        return false;
    };
    for (id, (tree, me)) in walkers.iter_mut().enumerate() {
        tree.tick(me, &Ctx::new(now, 0.1).agent(id as u64).trace(page));
    }
    true
}

/// One request; the status and body.
fn request(address: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(body).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

fn state(address: SocketAddr) -> Value {
    let (status, body) = request(address, "GET", "/state", b"");
    assert_eq!(status, 200);
    serde_json::from_str(&body).unwrap()
}

/// A stream's connection, its head read.
fn open_stream(address: SocketAddr, agent: u64) -> (u16, BufReader<TcpStream>) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "GET /events?agent={agent} HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    .unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status = line[9..12].parse().unwrap();
    (status, reader)
}

/// The next `data:` message of a stream.
fn next_message(reader: &mut BufReader<TcpStream>) -> Value {
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        if let Some(data) = line.strip_prefix("data: ") {
            return serde_json::from_str(data).unwrap();
        }
    }
}

#[test]
fn malformed_and_unknown_requests_get_4xx_and_change_nothing() {
    let page = LivePage::serve::<Walker>(4, Options::new().port(0)).unwrap();
    let at = page.address();
    let before = state(at);
    let cases: &[(&str, &str, &[u8], u16, &str)] = &[
        (
            "GET",
            "/events?agent=4",
            b"",
            404,
            "agent 4 is not recorded",
        ),
        ("GET", "/events?agent=-1", b"", 400, "the agent is a number"),
        (
            "GET",
            "/events?agent=99999999999999999999999",
            b"",
            400,
            "the agent is a number",
        ),
        ("GET", "/events", b"", 400, "/events takes ?agent=N"),
        ("POST", "/control", b"pause", 400, "the body is not JSON"),
        ("POST", "/control", b"[1,2]", 400, "a JSON object"),
        ("POST", "/control", b"{}", 400, "\"action\" is missing"),
        (
            "POST",
            "/control",
            br#"{"action":7}"#,
            400,
            "\"action\" is missing or not a string",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"fly"}"#,
            400,
            "unknown action \"fly\"",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"force"}"#,
            400,
            "takes a \"uid\"",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"force","uid":0}"#,
            404,
            "no node has uid 0",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"force","uid":70000}"#,
            404,
            "no node has uid",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"force","uid":1,"status":"won"}"#,
            400,
            "\"status\" is",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"break","uid":2,"on":"yes"}"#,
            400,
            "\"on\" is true or false",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"watch"}"#,
            400,
            "takes an \"agent\"",
        ),
        (
            "POST",
            "/control",
            br#"{"action":"watch","agent":4}"#,
            404,
            "agent 4 is not recorded",
        ),
        ("POST", "/control", &[b'{'; 5000], 413, "at most 4096 bytes"),
        ("GET", "/control", b"", 405, "wrong method"),
        ("POST", "/", b"", 405, "wrong method"),
        ("DELETE", "/state", b"", 405, "wrong method"),
        ("GET", "/nothing", b"", 404, "no such page"),
    ];
    for &(method, path, body, status, text) in cases {
        let (got, answer) = request(at, method, path, body);
        assert_eq!(
            got,
            status,
            "{method} {path} {}: {answer}",
            String::from_utf8_lossy(&body[..body.len().min(60)])
        );
        assert!(
            answer.contains(text),
            "{method} {path}: {answer:?} lacks {text:?}"
        );
    }
    // Nothing changed: the state is the one before, version included.
    assert_eq!(state(at), before);
    // A good request is answered with the new state.
    let (status, answer) = request(at, "POST", "/control", br#"{"action":"pause"}"#);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).unwrap()["paused"],
        true
    );
    page.stop();
}

#[test]
fn streams_over_the_limit_are_refused_until_one_closes() {
    let page = LivePage::serve::<Walker>(2, Options::new().port(0).max_clients(2)).unwrap();
    let at = page.address();
    let mut walkers = vec![(Walker::default(), 0u32); 2];
    let (s1, mut first) = open_stream(at, 0);
    let (s2, mut second) = open_stream(at, 1);
    assert_eq!((s1, s2), (200, 200));
    // Each stream starts with its agent's whole history.
    assert_eq!(next_message(&mut first)["history"]["reset"], true);
    assert_eq!(next_message(&mut second)["history"]["agent"], 1);
    let (status, _) = open_stream(at, 0);
    assert_eq!(status, 503, "a third stream is refused");
    // The other requests are still answered.
    assert_eq!(state(at)["frame"], 0);
    // The first page closes; its stream ends at the next message it
    // cannot send, and a new page is let in.
    drop(first);
    let mut now = 0.0;
    let accepted = (0..200).any(|_| {
        now += 0.1;
        assert!(frame(&page, &mut walkers, now));
        next_message(&mut second);
        open_stream(at, 0).0 == 200
    });
    assert!(accepted, "a closed page's place is given to the next");
    page.stop();
}

#[test]
fn a_client_that_never_reads_never_slows_the_program() {
    let page = LivePage::serve::<Walker>(100, Options::new().port(0).capacity(4096)).unwrap();
    let at = page.address();
    // Ten streams that are never read, and a page request never read.
    let silent: Vec<_> = (0..8).map(|a| open_stream(at, a).1).collect();
    let mut unread = TcpStream::connect(at).unwrap();
    write!(unread, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut walkers = vec![(Walker::default(), 0u32); 100];
    // Enough frames to fill every socket buffer many times over.
    for f in 0..3000 {
        assert!(frame(&page, &mut walkers, f64::from(f) * 0.1));
    }
    assert_eq!(page.frames(), 3000);
    assert!(walkers.iter().all(|(_, steps)| *steps > 0));
    // The server still answers.
    assert_eq!(state(at)["frame"], 3000);
    drop(silent);
    page.stop();
}

#[test]
fn garbage_on_the_socket_is_survived() {
    let page = LivePage::serve::<Walker>(1, Options::new().port(0)).unwrap();
    let at = page.address();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..200 {
        let mut bytes = Vec::new();
        for _ in 0..(seed % 300) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            bytes.push(seed as u8);
        }
        if round % 3 == 0 {
            // A request line, then garbage headers and body.
            bytes.splice(0..0, b"POST /control HTTP/1.1\r\n".iter().copied());
        }
        let mut stream = TcpStream::connect(at).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        let _ = stream.write_all(&bytes);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
    }
    assert_eq!(state(at)["paused"], false);
    page.stop();
}

#[test]
fn a_paused_program_goes_on_once_every_page_has_closed() {
    let page = LivePage::serve::<Walker>(
        1,
        Options::new()
            .port(0)
            .detach_after(Duration::from_millis(50)),
    )
    .unwrap();
    let at = page.address();
    let mut walkers = vec![(Walker::default(), 0u32)];
    let (_, mut stream) = open_stream(at, 0);
    next_message(&mut stream);
    page.pause();
    assert!(!frame(&page, &mut walkers, 0.0), "paused with a page open");
    drop(stream);
    // The stream notices its page is gone at its next message.
    let (status, _) = request(at, "POST", "/control", br#"{"action":"step"}"#);
    assert_eq!(status, 200);
    assert!(frame(&page, &mut walkers, 0.1), "the step");
    // Bounded wait for the detach: the program asks each frame.
    let deadline = Instant::now() + WAIT;
    let mut ran = false;
    while !ran && Instant::now() < deadline {
        ran = frame(&page, &mut walkers, 0.2);
        std::thread::yield_now();
    }
    assert!(ran, "the program runs again once the pages are gone");
    assert!(!page.paused());
    page.stop();
}

#[test]
fn a_breakpoint_holds_the_tick_until_released_and_stopping_releases_it() {
    let page = LivePage::serve::<Walker>(3, Options::new().port(0)).unwrap();
    let at = page.address();
    let rest = page.recorder().uid_of("rest").unwrap();
    page.watch(1).unwrap();
    let body = format!(r#"{{"action":"break","uid":{rest}}}"#);
    assert_eq!(request(at, "POST", "/control", body.as_bytes()).0, 200);
    let (_, mut stream) = open_stream(at, 1);
    next_message(&mut stream);
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel();
        let page = &page;
        scope.spawn(move || {
            let mut walkers = vec![(Walker::default(), 0u32); 3];
            frame(page, &mut walkers, 0.0);
            let _ = done.send(walkers.iter().map(|w| w.1).collect::<Vec<_>>());
        });
        // The page hears where the tick waits.
        let stopped = loop {
            let message = next_message(&mut stream);
            if !message["state"]["stopped"].is_null() {
                break message["state"]["stopped"].clone();
            }
        };
        assert_eq!(stopped, serde_json::json!({"agent": 1, "uid": rest}));
        assert_eq!(page.stopped_at(), Some((1, rest)));
        // Stopping the server lets the tick finish.
        page.stop();
        let steps = finished.recv_timeout(WAIT).expect("the tick goes on");
        assert_eq!(steps, [1, 1, 1]);
    });
}

#[test]
fn a_port_in_use_is_an_error_naming_the_address() {
    let page = LivePage::serve::<Walker>(1, Options::new().port(0)).unwrap();
    let taken = page.address();
    let error = LivePage::serve::<Walker>(1, Options::new().port(taken.port())).unwrap_err();
    assert!(error.to_string().contains(&taken.to_string()), "{error}");
    page.stop();
}
