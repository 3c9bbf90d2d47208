//! Headless Chromium driven through its DevTools protocol (a WebSocket):
//! the browser tests of the live page (`arbortick-live/tests/page.rs`,
//! `tests/hot_page.rs`) open a page, click its controls and read its DOM.
//! Every wait is bounded ([`WAIT`]) and waits for an event: the page's
//! `bt-render`, dispatched after each message it draws. [`Finish`] stops
//! the program under test and its page when a test ends.

use bt_live::LivePage;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// The longest any one wait lasts.
pub const WAIT: Duration = Duration::from_secs(30);

/// Headless Chromium and a DevTools connection to its page.
pub struct Browser {
    child: Child,
    socket: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next: u64,
    _profile: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `GET path` from `address`, the body.
fn http_get(address: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("DevTools answers");
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // Read the head, then `Content-Length` bytes: DevTools keeps the
    // connection open.
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    String::from_utf8(body).unwrap()
}

impl Browser {
    pub fn start(chromium: &Path, name: &str) -> Browser {
        let profile = std::env::temp_dir().join(format!("bt-live-{name}-{}", std::process::id()));
        let mut child = Command::new(chromium)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--window-size=1400,800",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        // Chromium says where DevTools listens on standard error.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("ws://") {
                    let _ = tx.send(line[at..].to_owned());
                }
            }
        });
        let ws = rx.recv_timeout(WAIT).expect("chromium's DevTools address");
        let address = ws
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        let targets: Value = serde_json::from_str(&http_get(&address, "/json/list")).unwrap();
        let page = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .expect("a page target");
        let url = page["webSocketDebuggerUrl"].as_str().unwrap();
        let (socket, _) = tungstenite::connect(url).expect("DevTools connection");
        if let tungstenite::stream::MaybeTlsStream::Plain(s) = socket.get_ref() {
            s.set_read_timeout(Some(WAIT)).unwrap();
        }
        Browser {
            child,
            socket,
            next: 1,
            _profile: TempDir(profile),
        }
    }

    /// Calls a DevTools method; its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let message = json!({"id": id, "method": method, "params": params});
        self.socket
            .send(tungstenite::Message::text(message.to_string()))
            .unwrap();
        loop {
            let reply = self.socket.read().expect("DevTools answers in time");
            let Ok(text) = reply.to_text() else { continue };
            let value: Value = serde_json::from_str(text).unwrap();
            if value["id"] == id {
                assert!(value.get("error").is_none(), "{method}: {value}");
                return value["result"].clone();
            }
        }
    }

    /// Evaluates `expression` in the page (awaiting a promise); its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression}: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Waits until `condition` (JavaScript) holds in the page, checked now
    /// and after each message the page draws, for at most [`WAIT`].
    pub fn wait(&mut self, condition: &str) {
        let ms = WAIT.as_millis();
        let script = format!(
            "new Promise((done) => {{
                const check = () => {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }};
                if (check()) return done(true);
                const on = () => {{ if (check()) {{ document.removeEventListener('bt-render', on); done(true); }} }};
                document.addEventListener('bt-render', on);
                setTimeout(() => done(check()), {ms});
            }})"
        );
        assert_eq!(
            self.eval(&script),
            json!(true),
            "the page never showed `{condition}`; it shows {}",
            self.eval("JSON.stringify(document.body.dataset) + ' ' + document.getElementById('live-state').textContent")
        );
    }

    pub fn body(&mut self, name: &str) -> String {
        self.eval(&format!("document.body.dataset.{name}"))
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    pub fn click(&mut self, selector: &str) {
        self.eval(&format!(
            "document.querySelector({}).click()",
            json!(selector)
        ));
    }

    pub fn node(&mut self, uid: u16, attribute: &str) -> Value {
        self.eval(&format!(
            "document.querySelector('li.node[data-uid=\"{uid}\"]').getAttribute('{attribute}')"
        ))
    }

    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = shot["data"].as_str().unwrap();
        std::fs::write(path, decode_base64(data)).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    bytes
        .chunks(4)
        .flat_map(|c| {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &v)| n | (u32::from(v) << (18 - 6 * i)));
            let keep = c.len() - 1;
            (0..keep).map(move |i| (n >> (16 - 8 * i)) as u8)
        })
        .collect()
}

/// Ends the program's loop and stops the page when the test ends, also by
/// a failed assertion (the loop would run on and the scope wait for it).
pub struct Finish<'a> {
    /// The flag the program's loop runs while.
    pub running: &'a AtomicBool,
    /// The page it serves.
    pub page: &'a LivePage,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.running.store(false, Ordering::Relaxed);
        self.page.stop();
    }
}
