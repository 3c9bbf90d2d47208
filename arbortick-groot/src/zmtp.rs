//! ZeroMQ's wire protocol (ZMTP 3.0, NULL security) over `std::net`, for
//! the two sockets Groot2's protocol uses: a REP socket answering a REQ
//! client, and a PUB socket sending to SUB clients. Enough of ZeroMQ to
//! talk to libzmq (what Groot2, BehaviorTree.CPP and pyzmq use), and
//! nothing else: no other socket type, no other security mechanism, no
//! IPC transport.
//!
//! A connection opens with a 64-byte greeting each way (signature, version
//! 3.0, the `NULL` mechanism), then a `READY` command each way naming the
//! socket types, then messages: frames with a flags byte (`MORE`, `LONG`,
//! `COMMAND`) and a size of 1 or 8 bytes (big-endian). Announcing 3.0
//! rather than 3.1 makes libzmq send subscriptions as messages (`\x01` and
//! a prefix) and no heartbeat commands; `PING` is answered all the same.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// A message larger than this (its frames' bytes together) closes the
/// connection: no Groot2 request comes near it (the largest, a list of
/// hooks, is a few kilobytes), and a peer cannot make the server hold
/// more. A frame's bytes are read as they arrive, so a size announced and
/// not sent allocates nothing. Replies (the tree's XML) are not limited.
pub const MAX_MESSAGE: u64 = 1 << 20;

/// The largest message the clients ([`Req`], [`Sub`]) read: a tree's XML
/// of any size.
const CLIENT_LIMIT: u64 = 1 << 30;

/// Frames in one message before the connection is closed.
pub const MAX_FRAMES: usize = 64;

/// A message: its frames.
pub type Message = Vec<Vec<u8>>;

const FLAG_MORE: u8 = 1;
const FLAG_LONG: u8 = 2;
const FLAG_COMMAND: u8 = 4;

/// The socket types this module speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Answers requests.
    Rep,
    /// Sends requests.
    Req,
    /// Publishes.
    Pub,
    /// Subscribes.
    Sub,
}

impl Kind {
    fn name(self) -> &'static [u8] {
        match self {
            Kind::Rep => b"REP",
            Kind::Req => b"REQ",
            Kind::Pub => b"PUB",
            Kind::Sub => b"SUB",
        }
    }

    /// The peer socket types ZeroMQ lets this one talk to.
    fn accepts(self, peer: &[u8]) -> bool {
        let ok: &[&[u8]] = match self {
            Kind::Rep => &[b"REQ", b"DEALER"],
            Kind::Req => &[b"REP", b"ROUTER"],
            Kind::Pub => &[b"SUB", b"XSUB"],
            Kind::Sub => &[b"PUB", b"XPUB"],
        };
        ok.contains(&peer)
    }
}

fn invalid(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

/// Exchanges greetings and `READY` commands on a fresh connection.
pub fn handshake(stream: &mut TcpStream, kind: Kind) -> io::Result<()> {
    let mut greeting = [0u8; 64];
    greeting[0] = 0xff;
    greeting[8] = 1;
    greeting[9] = 0x7f;
    greeting[10] = 3;
    greeting[11] = 0;
    greeting[12..16].copy_from_slice(b"NULL");
    stream.write_all(&greeting)?;
    let mut theirs = [0u8; 64];
    stream.read_exact(&mut theirs)?;
    if theirs[0] != 0xff || theirs[9] & 1 != 1 {
        return Err(invalid("not a ZMTP peer"));
    }
    if theirs[10] < 3 {
        return Err(invalid("ZMTP before 3.0"));
    }
    if &theirs[12..16] != b"NULL" || theirs[16..32].iter().any(|&b| b != 0) {
        return Err(invalid("security mechanism other than NULL"));
    }
    let mut ready = Vec::with_capacity(32);
    ready.push(5);
    ready.extend_from_slice(b"READY");
    property(&mut ready, b"Socket-Type", kind.name());
    if kind == Kind::Req {
        property(&mut ready, b"Identity", b"");
    }
    write_frame(stream, &ready, FLAG_COMMAND)?;
    stream.flush()?;
    let (flags, body) = read_frame(stream, 4096)?;
    if flags & FLAG_COMMAND == 0 || !body.starts_with(b"\x05READY") {
        return Err(invalid("no READY command"));
    }
    let peer = ready_socket_type(&body[6..]).ok_or_else(|| invalid("READY without Socket-Type"))?;
    if !kind.accepts(peer) {
        return Err(invalid("incompatible socket type"));
    }
    Ok(())
}

fn property(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
}

/// The `Socket-Type` property of a `READY` command's properties.
fn ready_socket_type(mut props: &[u8]) -> Option<&[u8]> {
    while let Some((&len, rest)) = props.split_first() {
        let (name, rest) = rest.split_at_checked(len as usize)?;
        let (size, rest) = rest.split_at_checked(4)?;
        let size = u32::from_be_bytes(size.try_into().ok()?) as usize;
        let (value, rest) = rest.split_at_checked(size)?;
        if name.eq_ignore_ascii_case(b"Socket-Type") {
            return Some(value);
        }
        props = rest;
    }
    None
}

fn write_frame(out: &mut impl Write, body: &[u8], flags: u8) -> io::Result<()> {
    if body.len() > 255 {
        out.write_all(&[flags | FLAG_LONG])?;
        out.write_all(&(body.len() as u64).to_be_bytes())?;
    } else {
        out.write_all(&[flags, body.len() as u8])?;
    }
    out.write_all(body)
}

fn read_frame(input: &mut impl Read, limit: u64) -> io::Result<(u8, Vec<u8>)> {
    let mut flags = [0u8; 1];
    input.read_exact(&mut flags)?;
    let flags = flags[0];
    if flags & !(FLAG_MORE | FLAG_LONG | FLAG_COMMAND) != 0 {
        return Err(invalid("reserved frame flags set"));
    }
    let size = if flags & FLAG_LONG != 0 {
        let mut size = [0u8; 8];
        input.read_exact(&mut size)?;
        u64::from_be_bytes(size)
    } else {
        let mut size = [0u8; 1];
        input.read_exact(&mut size)?;
        u64::from(size[0])
    };
    if size > limit {
        return Err(invalid("message too large"));
    }
    let mut body = Vec::new();
    input.take(size).read_to_end(&mut body)?;
    if body.len() as u64 != size {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok((flags, body))
}

/// Writes `frames` as one message.
pub fn write_message(out: &mut impl Write, frames: &[&[u8]]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(frames.iter().map(|f| f.len() + 9).sum());
    for (i, frame) in frames.iter().enumerate() {
        let more = if i + 1 < frames.len() { FLAG_MORE } else { 0 };
        write_frame(&mut buf, frame, more)?;
    }
    out.write_all(&buf)?;
    out.flush()
}

/// Reads the next message of at most `limit` bytes (a larger one is an
/// error), answering `PING` and skipping other commands.
pub fn read_message(stream: &mut TcpStream, limit: u64) -> io::Result<Message> {
    let mut frames = Vec::new();
    let mut left = limit;
    loop {
        let (flags, body) = read_frame(stream, left)?;
        left -= body.len() as u64;
        if flags & FLAG_COMMAND != 0 {
            if !frames.is_empty() {
                return Err(invalid("command inside a message"));
            }
            if body.starts_with(b"\x04PING") {
                // PONG echoes the ping's context (after its 2-byte TTL).
                let mut pong = b"\x04PONG".to_vec();
                pong.extend_from_slice(body.get(7..).unwrap_or_default());
                write_frame(stream, &pong, FLAG_COMMAND)?;
            }
            continue;
        }
        frames.push(body);
        if frames.len() > MAX_FRAMES {
            return Err(invalid("too many frames"));
        }
        if flags & FLAG_MORE == 0 {
            return Ok(frames);
        }
    }
}

/// Binds `address`, with the listener's `accept` interruptible by
/// [`Listening::stop`].
fn bind(address: SocketAddr) -> io::Result<TcpListener> {
    let listener = TcpListener::bind(address)?;
    listener.set_nonblocking(false)?;
    Ok(listener)
}

/// One accepted connection: its write half, and whether it is still open.
struct Peer {
    id: u64,
    stream: Mutex<TcpStream>,
    /// Subscription prefixes (PUB only).
    subscriptions: Mutex<Vec<Vec<u8>>>,
    open: AtomicBool,
}

impl Peer {
    fn close(&self) {
        self.open.store(false, Ordering::SeqCst);
        let _ = lock(&self.stream).shutdown(Shutdown::Both);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The threads and peers of a bound socket.
struct Listening {
    address: SocketAddr,
    stopping: Arc<AtomicBool>,
    peers: Arc<Mutex<Vec<Arc<Peer>>>>,
    accept: Mutex<Option<JoinHandle<()>>>,
}

impl Listening {
    /// Binds, and accepts connections on a thread: each is handshaken as
    /// `kind` on its own thread, then its messages go to `on_message`.
    fn start(
        address: SocketAddr,
        kind: Kind,
        name: &str,
        on_message: impl Fn(&Arc<Peer>, Message) + Send + Sync + 'static,
    ) -> io::Result<Listening> {
        let listener = bind(address)?;
        let address = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let peers: Arc<Mutex<Vec<Arc<Peer>>>> = Arc::default();
        let on_message = Arc::new(on_message);
        let next = Arc::new(AtomicU64::new(0));
        let accept = {
            let stopping = stopping.clone();
            let peers = peers.clone();
            let name = name.to_owned();
            thread::Builder::new()
                .name(format!("{name} accept"))
                .spawn(move || {
                    for stream in listener.incoming() {
                        if stopping.load(Ordering::SeqCst) {
                            break;
                        }
                        let Ok(stream) = stream else { continue };
                        let peers = peers.clone();
                        let on_message = on_message.clone();
                        let id = next.fetch_add(1, Ordering::SeqCst);
                        let stopping = stopping.clone();
                        let _ = thread::Builder::new()
                            .name(format!("{name} peer {id}"))
                            .spawn(move || {
                                serve_peer(stream, kind, id, &peers, &stopping, &*on_message)
                            });
                    }
                })?
        };
        Ok(Listening {
            address,
            stopping,
            peers,
            accept: Mutex::new(Some(accept)),
        })
    }

    fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the accepting thread with a connection of our own.
        let mut wake = self.address;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        let accept = lock(&self.accept).take();
        if let Some(accept) = accept {
            let _ = accept.join();
        }
        for peer in lock(&self.peers).drain(..) {
            peer.close();
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve_peer(
    mut stream: TcpStream,
    kind: Kind,
    id: u64,
    peers: &Mutex<Vec<Arc<Peer>>>,
    stopping: &AtomicBool,
    on_message: &(dyn Fn(&Arc<Peer>, Message) + Send + Sync),
) {
    let _ = stream.set_nodelay(true);
    // A peer that stalls its handshake, or stops reading, is dropped.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    if stopping.load(Ordering::SeqCst) || handshake(&mut stream, kind).is_err() {
        return;
    }
    let _ = stream.set_read_timeout(None);
    let Ok(write) = stream.try_clone() else {
        return;
    };
    let peer = Arc::new(Peer {
        id,
        stream: Mutex::new(write),
        subscriptions: Mutex::default(),
        open: AtomicBool::new(true),
    });
    lock(peers).push(peer.clone());
    while peer.open.load(Ordering::SeqCst) {
        match read_message(&mut stream, MAX_MESSAGE) {
            Ok(message) => on_message(&peer, message),
            Err(_) => break,
        }
    }
    peer.close();
    lock(peers).retain(|p| p.id != id);
}

/// A request received by a [`Rep`] socket: its body, and where the reply
/// goes.
pub struct Request {
    /// The frames after the envelope.
    pub body: Message,
    envelope: Message,
    peer: Arc<Peer>,
}

/// A REP socket: requests from every connected REQ client, one at a time,
/// each answered on the connection it came from.
pub struct Rep {
    listening: Listening,
    requests: Receiver<Request>,
}

impl Rep {
    /// Binds `address` and starts accepting clients.
    pub fn bind(address: SocketAddr, name: &str) -> io::Result<Rep> {
        let (tx, requests): (Sender<Request>, _) = mpsc::channel();
        let tx = Mutex::new(tx);
        let listening = Listening::start(address, Kind::Rep, name, move |peer, mut frames| {
            // The envelope ends with an empty delimiter frame; a message
            // without one is dropped, as libzmq's REP drops it.
            let Some(end) = frames.iter().position(Vec::is_empty) else {
                return;
            };
            let body = frames.split_off(end + 1);
            let _ = lock(&tx).send(Request {
                body,
                envelope: frames,
                peer: peer.clone(),
            });
        })?;
        Ok(Rep {
            listening,
            requests,
        })
    }

    /// The address bound (with the port the system chose, if 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.listening.address
    }

    /// The next request, waiting at most `timeout`.
    pub fn recv(&self, timeout: Duration) -> Option<Request> {
        self.requests.recv_timeout(timeout).ok()
    }

    /// Answers `request` with `frames`; a client gone meanwhile is no error.
    pub fn reply(&self, request: Request, frames: &[&[u8]]) {
        let mut all: Vec<&[u8]> = request.envelope.iter().map(Vec::as_slice).collect();
        all.extend_from_slice(frames);
        let mut stream = lock(&request.peer.stream);
        if write_message(&mut *stream, &all).is_err() {
            drop(stream);
            request.peer.close();
        }
    }

    /// Closes the socket and every connection.
    pub fn stop(&mut self) {
        self.listening.stop();
    }
}

/// A PUB socket: each message goes to every connected subscriber whose
/// subscriptions match its first frame.
pub struct Pub {
    listening: Listening,
    /// Notified when a subscription arrives.
    subscribed: Arc<(Mutex<()>, Condvar)>,
}

impl Pub {
    /// Binds `address` and starts accepting subscribers.
    pub fn bind(address: SocketAddr, name: &str) -> io::Result<Pub> {
        let subscribed: Arc<(Mutex<()>, Condvar)> = Arc::default();
        let signal = subscribed.clone();
        let listening = Listening::start(address, Kind::Pub, name, move |peer, frames| {
            // `\x01prefix` subscribes, `\x00prefix` unsubscribes.
            let Some((&op, prefix)) = frames.first().and_then(|f| f.split_first()) else {
                return;
            };
            let mut subs = lock(&peer.subscriptions);
            match op {
                1 => subs.push(prefix.to_vec()),
                0 => {
                    if let Some(at) = subs.iter().position(|s| s == prefix) {
                        subs.remove(at);
                    }
                }
                _ => {}
            }
            drop(subs);
            let _one = lock(&signal.0);
            signal.1.notify_all();
        })?;
        Ok(Pub {
            listening,
            subscribed,
        })
    }

    /// Waits at most `timeout` for a connected subscriber; whether there is
    /// one.
    pub fn wait_for_subscriber(&self, timeout: Duration) -> bool {
        let (m, cv) = &*self.subscribed;
        let guard = lock(m);
        let (_guard, _) = cv
            .wait_timeout_while(guard, timeout, |_| self.subscribers() == 0)
            .unwrap_or_else(PoisonError::into_inner);
        self.subscribers() > 0
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.listening.address
    }

    /// How many subscribers are connected.
    pub fn subscribers(&self) -> usize {
        lock(&self.listening.peers)
            .iter()
            .filter(|p| !lock(&p.subscriptions).is_empty())
            .count()
    }

    /// Sends `frames` to every matching subscriber; a subscriber that does
    /// not take it within a second is dropped.
    pub fn send(&self, frames: &[&[u8]]) {
        let peers: Vec<Arc<Peer>> = lock(&self.listening.peers).clone();
        let topic = frames.first().copied().unwrap_or_default();
        for peer in peers {
            let wanted = lock(&peer.subscriptions)
                .iter()
                .any(|s| topic.starts_with(s));
            if wanted && write_message(&mut *lock(&peer.stream), frames).is_err() {
                peer.close();
            }
        }
    }

    /// Closes the socket and every connection.
    pub fn stop(&self) {
        self.listening.stop();
    }
}

/// A client connection of `kind` to `address`, handshaken, reads and
/// writes waiting at most `timeout`.
fn connect(address: SocketAddr, timeout: Duration, kind: Kind) -> io::Result<TcpStream> {
    let mut stream = TcpStream::connect_timeout(&address, timeout)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    handshake(&mut stream, kind)?;
    Ok(stream)
}

/// A REQ client connection, for tests and tools: sends a request, waits
/// for its reply.
pub struct Req {
    stream: TcpStream,
}

impl Req {
    /// Connects to a REP socket at `address`.
    pub fn connect(address: SocketAddr, timeout: Duration) -> io::Result<Req> {
        let stream = connect(address, timeout, Kind::Req)?;
        Ok(Req { stream })
    }

    /// Sends `frames` and returns the reply's frames (after the envelope).
    pub fn request(&mut self, frames: &[&[u8]]) -> io::Result<Message> {
        let mut all: Vec<&[u8]> = vec![b""];
        all.extend_from_slice(frames);
        write_message(&mut self.stream, &all)?;
        let mut reply = read_message(&mut self.stream, CLIENT_LIMIT)?;
        match reply.iter().position(Vec::is_empty) {
            Some(end) => Ok(reply.split_off(end + 1)),
            None => Err(invalid("reply without an envelope")),
        }
    }
}

/// A SUB client connection subscribed to everything, for tests and tools.
pub struct Sub {
    stream: TcpStream,
}

impl Sub {
    /// Connects to a PUB socket at `address` and subscribes to every
    /// message.
    pub fn connect(address: SocketAddr, timeout: Duration) -> io::Result<Sub> {
        let mut stream = connect(address, timeout, Kind::Sub)?;
        write_message(&mut stream, &[b"\x01"])?;
        Ok(Sub { stream })
    }

    /// The next message, waiting at most `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> io::Result<Message> {
        self.stream.set_read_timeout(Some(timeout))?;
        read_message(&mut self.stream, CLIENT_LIMIT)
    }
}
