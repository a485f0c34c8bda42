//! Webhook deliveries survive a crash of the real `rental serve`: events
//! written while the receiver is down are in the store's outbox, and a
//! server started again on the same data directory delivers every one. A
//! crash re-sends only the attempts not yet recorded (those of the last
//! flush interval), and SIGTERM ends within the shutdown grace.
//!
//! Plain std only (threads and `TcpStream`), so the test needs no async
//! dependencies: a tiny HTTP/1.1 client for the API and a tiny receiver.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use chrono::{Days, Utc};
use rental_core::webhook::{StandardHeaders, verify, verify_standard};
use rental_tests::ports::free_port;
use serde_json::{Value, json};

mod common;

const SECRET: &str = "whsec_cmVzdGFydCB0ZXN0IHNlY3JldA=="; // "restart test secret"

/// Ten retries a second apart: a delivery keeps being tried while the test runs.
const RETRIES: &str = "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s";

/// `rental ARGS` in `dir` (whose `./rental-data` is the store), with no `RENTAL_*` variables but `env`.
fn rental(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rental"));
    cmd.args(args).current_dir(dir);
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("RENTAL_")) {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied());
    cmd
}

/// Runs a command that must succeed; returns its stdout.
fn run_ok(dir: &Path, args: &[&str]) -> String {
    let out = rental(dir, args, &[]).output().expect("the binary runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "rental {args:?} failed: {stdout}{stderr}");
    stdout.into_owned()
}

/// A running `rental serve`, killed (SIGKILL on Unix) and reaped when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl Server {
    /// Starts `rental serve` in `dir` on a port the system picks (learnt from its banner), with
    /// loopback webhooks, quick retries and the `more` `RENTAL_*` variables.
    fn start(dir: &Path, run: u32, more: &[(&str, &str)]) -> Self {
        let log = dir.join(format!("serve-{run}.log"));
        let mut env = vec![("RENTAL_ALLOW_PRIVATE_TARGETS", "true"), ("RENTAL_WEBHOOK_RETRIES", RETRIES)];
        env.extend_from_slice(more);
        let mut child = rental(dir, &["serve", "--listen", "127.0.0.1:0"], &env)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("a log file"))
            .spawn()
            .expect("rental serve starts");
        let Some(addr) = common::listening_address(&mut child, Duration::from_secs(15)) else {
            common::never_listened(&mut child, &std::fs::read_to_string(&log).unwrap_or_default())
        };
        Server { child, addr, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGKILL: no graceful shutdown, nothing flushed that was not already committed.
    fn crash(mut self) {
        self.child.kill().expect("the server can be killed");
        self.child.wait().expect("the server is reaped");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `POST path` with a JSON body over a fresh connection; the status and the body.
fn post(addr: SocketAddr, path: &str, key: &str, body: &Value) -> (u16, Value) {
    try_post(addr, path, key, body).expect("the server answers")
}

/// The same, `None` when the server does not answer (it was killed).
fn try_post(addr: SocketAddr, path: &str, key: &str, body: &Value) -> Option<(u16, Value)> {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok())?;
    Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

/// One request the receiver got: lowercase header names, the raw body.
#[derive(Debug, Clone)]
struct Received {
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
    /// Just after its 200 was written.
    answered: Instant,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }
}

/// A receiver on `port` answering 200 to every request; what it got is in the returned list.
fn receive_on(port: u16) -> Arc<Mutex<Vec<Received>>> {
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("the receiver's port is still free");
    let received: Arc<Mutex<Vec<Received>>> = Arc::default();
    let list = Arc::clone(&received);
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let list = Arc::clone(&list);
            thread::spawn(move || {
                if let Some(request) = read_request(stream) {
                    list.lock().unwrap_or_else(PoisonError::into_inner).push(request);
                }
            });
        }
    });
    received
}

/// Reads one request (head and a `Content-Length` body) and answers 200.
fn read_request(mut stream: TcpStream) -> Option<Received> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut data = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let headers: BTreeMap<String, String> = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers.get("content-length")?.parse().ok()?;
    while data.len() < head_end + length {
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&chunk[..n]);
    }
    stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").ok()?;
    Some(Received { headers, body: data[head_end..head_end + length].to_vec(), answered: Instant::now() })
}

/// A receiver on `port` that reads nothing and never answers: each attempt
/// hangs until the sender gives up. Counts the connections it got.
fn hang_on(port: u16) -> Arc<Mutex<usize>> {
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("the receiver's port is still free");
    let count: Arc<Mutex<usize>> = Arc::default();
    let seen = Arc::clone(&count);
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            *seen.lock().unwrap_or_else(PoisonError::into_inner) += 1;
            thread::spawn(move || {
                thread::sleep(Duration::from_secs(30));
                drop(stream);
            });
        }
    });
    count
}

/// A data directory with the demo properties, a read+write key (returned) and
/// a webhook for every event to `http://127.0.0.1:<receiver_port>/hooks`.
fn sandbox(dir: &Path, receiver_port: u16) -> String {
    let properties = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/demo-properties.json");
    run_ok(dir, &["property", "import", properties]);
    let key = run_ok(dir, &["keys", "create", "--name", "claims-test", "--scope", "read,write"]).trim().to_owned();
    let url = format!("http://127.0.0.1:{receiver_port}/hooks");
    run_ok(dir, &["webhook", "add", "--url", &url, "--events", "*", "--secret", SECRET]);
    key
}

/// The body of the `i`-th booking of a run: three nights, two properties in turn, none overlapping.
fn nth_booking(i: u64) -> Value {
    let property = ["sea-view", "harbour-loft"][usize::from(i % 2 == 1)];
    let check_in = Utc::now().date_naive() + Days::new(30 + 3 * (i / 2));
    json!({
        "property": property, "checkIn": check_in.to_string(), "checkOut": (check_in + Days::new(3)).to_string(),
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2,
    })
}

/// Books on `addr` from a thread, one after the other, until `n` are made or the server is gone.
fn book_in_background(addr: SocketAddr, key: String, n: u64) -> thread::JoinHandle<u64> {
    thread::spawn(move || {
        let mut made = 0;
        for i in 0..n {
            match try_post(addr, "/api/v1/bookings", &key, &nth_booking(i)) {
                Some((201, _)) => made += 1,
                _ => break,
            }
        }
        made
    })
}

/// How long after its answer an attempt is recorded at the latest: the dispatcher's
/// default `flush_every` (250 ms), plus 750 ms for the write on a loaded machine.
const RECORDED_WITHIN: Duration = Duration::from_secs(1);

#[test]
fn after_a_sigkill_only_the_attempts_of_the_last_flush_interval_are_sent_again() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    let receiver_port = free_port();
    let key = sandbox(dir, receiver_port);
    let received = receive_on(receiver_port);
    let count = |received: &Arc<Mutex<Vec<Received>>>| received.lock().unwrap_or_else(PoisonError::into_inner).len();
    // A short lease, so what the killed server had claimed is claimable soon after the restart.
    let env = [("RENTAL_WEBHOOK_LEASE", "2s")];
    let server = Server::start(dir, 1, &env);
    let booking = book_in_background(server.addr, key, 500);
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(&received) < 150 {
        assert!(Instant::now() < deadline, "150 deliveries within 30 s: {}", server.log());
        thread::sleep(Duration::from_millis(5));
    }
    server.crash();
    let killed = Instant::now();
    let booked = booking.join().expect("the booking thread ends");
    let answered_before = count(&received);

    let server = Server::start(dir, 2, &env);
    let distinct = |received: &Arc<Mutex<Vec<Received>>>| {
        let all = received.lock().unwrap_or_else(PoisonError::into_inner).clone();
        all.iter().map(|r| r.header("x-svc-delivery").to_owned()).collect::<BTreeSet<_>>().len()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while distinct(&received) < usize::try_from(booked).expect("a count") {
        assert!(
            Instant::now() < deadline,
            "{} of {booked} deliveries within 30 s: {}",
            distinct(&received),
            server.log()
        );
        thread::sleep(Duration::from_millis(50));
    }
    // Past the lease of whatever the killed server held, and a few polls more.
    thread::sleep(Duration::from_millis(2_500));
    let all = received.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let mut first: BTreeMap<String, Instant> = BTreeMap::new();
    let mut again: Vec<String> = Vec::new();
    for r in &all {
        let id = r.header("x-svc-delivery").to_owned();
        match first.entry(id) {
            std::collections::btree_map::Entry::Occupied(seen) => again.push(seen.key().clone()),
            std::collections::btree_map::Entry::Vacant(new) => drop(new.insert(r.answered)),
        }
    }
    let cutoff = killed.checked_sub(RECORDED_WITHIN).expect("the test ran for more than a second");
    let too_old: Vec<&String> = again.iter().filter(|id| first[*id] < cutoff).collect();
    let oldest = again.iter().map(|id| killed.saturating_duration_since(first[id])).max().unwrap_or_default();
    eprintln!(
        "{booked} bookings; {answered_before} deliveries answered 200 before the SIGKILL; {} arrived again \
         after the restart, the earliest answered {oldest:?} before the kill",
        again.len()
    );
    assert!(too_old.is_empty(), "answered more than {RECORDED_WITHIN:?} before the kill, yet sent again: {too_old:?}");
    assert!(first.len() as u64 >= booked, "at least once: every booking's delivery arrived");
    // One webhook, one worker: at most a flush batch (100) unrecorded, and the attempt in flight.
    assert!(again.len() <= 101, "{} of {answered_before} sent again", again.len());
    server.crash();
}

#[test]
fn sigterm_with_deliveries_pending_on_a_slow_receiver_exits_within_the_grace() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    let receiver_port = free_port();
    let key = sandbox(dir, receiver_port);
    let connections = hang_on(receiver_port);
    let mut server = Server::start(dir, 1, &[("RENTAL_SHUTDOWN_GRACE", "2s")]);
    let made = book_in_background(server.addr, key, 40).join().expect("the booking thread ends");
    assert_eq!(made, 40, "{}", server.log());
    let deadline = Instant::now() + Duration::from_secs(10);
    while *connections.lock().unwrap_or_else(PoisonError::into_inner) == 0 {
        assert!(Instant::now() < deadline, "an attempt within 10 s: {}", server.log());
        thread::sleep(Duration::from_millis(20));
    }
    let began = Instant::now();
    let term = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().expect("kill runs");
    assert!(term.success());
    thread::sleep(Duration::from_millis(200));
    let refused = TcpStream::connect_timeout(&server.addr, Duration::from_millis(500));
    assert!(refused.is_err(), "a new connection is refused while the server drains");
    let status = loop {
        if let Some(status) = server.child.try_wait().expect("the child can be polled") {
            break status;
        }
        assert!(began.elapsed() < Duration::from_secs(10), "still running 10 s after SIGTERM: {}", server.log());
        thread::sleep(Duration::from_millis(20));
    };
    let took = began.elapsed();
    eprintln!("SIGTERM with 40 deliveries pending on a receiver that never answers: exited in {took:?} (grace 2 s)");
    assert!(status.success(), "{status:?}: {}", server.log());
    assert!(took < Duration::from_millis(2_000 + 700), "exited {took:?} after SIGTERM, grace 2 s: {}", server.log());
    assert!(server.log().contains("shutting down"), "{}", server.log());
}

#[test]
fn deliveries_pending_when_the_server_is_killed_are_made_after_it_starts_again() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    let properties = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/demo-properties.json");
    run_ok(dir, &["property", "import", properties]);
    let key = run_ok(dir, &["keys", "create", "--name", "restart-test", "--scope", "read,write"]).trim().to_owned();
    let receiver_port = free_port();
    let url = format!("http://127.0.0.1:{receiver_port}/hooks");
    run_ok(dir, &["webhook", "add", "--url", &url, "--events", "*", "--secret", SECRET]);

    // A crash while an attempt is claimed leaves its lease to lapse before the
    // restarted server sends it: a short lease keeps that wait inside the deadline.
    let lease = [("RENTAL_WEBHOOK_LEASE", "3s")];
    let server = Server::start(dir, 1, &lease);
    let mut codes = BTreeSet::new();
    for i in 0..5u64 {
        let check_in = Utc::now().date_naive() + Days::new(60 + 5 * i);
        let body = json!({
            "property": "sea-view", "checkIn": check_in.to_string(), "checkOut": (check_in + Days::new(3)).to_string(),
            "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2,
        });
        let (status, booking) = post(server.addr, "/api/v1/bookings", &key, &body);
        assert_eq!(status, 201, "{booking}: {}", server.log());
        codes.insert(booking["code"].as_str().expect("a code").to_owned());
    }
    // Long enough for the dispatcher to find the receiver down at least once.
    thread::sleep(Duration::from_millis(600));
    server.crash();

    let received = receive_on(receiver_port);
    let server = Server::start(dir, 2, &lease);
    let deadline = Instant::now() + Duration::from_secs(15);
    let distinct = loop {
        let got = received.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let distinct: BTreeMap<String, Received> =
            got.into_iter().map(|r| (r.header("x-svc-delivery").to_owned(), r)).collect();
        if distinct.len() >= codes.len() {
            break distinct;
        }
        assert!(Instant::now() < deadline, "{} of 5 deliveries within 15 s: {}", distinct.len(), server.log());
        thread::sleep(Duration::from_millis(50));
    };
    // A moment for any delivery beyond the five to show up.
    thread::sleep(Duration::from_millis(300));
    let all = received.lock().unwrap_or_else(PoisonError::into_inner).clone();
    assert!(all.iter().all(|r| distinct.contains_key(r.header("x-svc-delivery"))), "only the five deliveries");
    assert_eq!(distinct.len(), 5, "{:?}", distinct.keys());
    let mut delivered = BTreeSet::new();
    for (id, r) in &distinct {
        assert!(!id.is_empty(), "X-SVC-Delivery is present");
        assert!(verify(SECRET.as_bytes(), &r.body, r.header("x-svc-signature")), "bad signature: {r:?}");
        assert_eq!(r.header("webhook-id"), id, "webhook-id is X-SVC-Delivery");
        let standard = StandardHeaders {
            id: r.header("webhook-id"),
            timestamp: r.header("webhook-timestamp"),
            signature: r.header("webhook-signature"),
        };
        assert_eq!(verify_standard(SECRET, &r.body, &standard, Utc::now()), Ok(()), "{r:?}");
        let body: Value = serde_json::from_slice(&r.body).expect("a JSON body");
        assert_eq!((body["event"].as_str(), r.header("x-svc-event")), (Some("booking.created"), "booking.created"));
        delivered.insert(body["data"]["code"].as_str().expect("a code").to_owned());
    }
    assert_eq!(delivered, codes, "every booking's booking.created arrived");
    server.crash();
}
