//! Failover in seconds (docs/API.md section 22): deliveries a killed server had
//! claimed are made soon after, by the same server started again (redb: the
//! earlier run's leases are void on open) or by another on the same PostgreSQL
//! database (the killed one's leases lapse: they are short and renewed by a
//! heartbeat only while their holder lives). Per-webhook order and one sender
//! at a time hold throughout.

mod common;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use common::{Sandbox, Server, day, post};
use rental_core::keys::Scope;
use rental_core::store::PgStore;
use rental_core::webhook::Subscription;
use rental_core::{Rental, demo};
use rental_tests::postgres::PgCluster;
use rental_tests::tools;
use serde_json::{Value, json};

/// A webhook receiver that hangs on every request (an attempt in flight, its
/// lease held) until [`Switch::answer`] is called, then answers 200 and keeps
/// each body; it counts the requests it is answering at once.
struct Switch {
    port: u16,
    answering: Arc<AtomicBool>,
    hanging: Arc<AtomicUsize>,
    bodies: Arc<Mutex<Vec<Value>>>,
    most_at_once: Arc<AtomicUsize>,
}

impl Switch {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let switch = Switch {
            port,
            answering: Arc::default(),
            hanging: Arc::default(),
            bodies: Arc::default(),
            most_at_once: Arc::default(),
        };
        let (answering, hanging, bodies, most) = (
            Arc::clone(&switch.answering),
            Arc::clone(&switch.hanging),
            Arc::clone(&switch.bodies),
            Arc::clone(&switch.most_at_once),
        );
        let at_once = Arc::new(AtomicUsize::new(0));
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if !answering.load(Ordering::SeqCst) {
                    hanging.fetch_add(1, Ordering::SeqCst);
                    thread::spawn(move || {
                        thread::sleep(Duration::from_secs(60));
                        drop(stream);
                    });
                    continue;
                }
                let (bodies, most, at_once) = (Arc::clone(&bodies), Arc::clone(&most), Arc::clone(&at_once));
                thread::spawn(move || {
                    let now = at_once.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    let read = read_body(stream);
                    // Done with it before answering: the sender's next request may come at once.
                    at_once.fetch_sub(1, Ordering::SeqCst);
                    if let Some((mut stream, body)) = read {
                        bodies.lock().unwrap_or_else(PoisonError::into_inner).push(body);
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                    }
                });
            }
        });
        switch
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks", self.port)
    }

    /// Waits until an attempt hangs on the receiver: a server holds its lease.
    fn wait_for_a_hanging_attempt(&self, server: &Server) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.hanging.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "no attempt reached the receiver: {}", server.log());
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn answer(&self) {
        self.answering.store(true, Ordering::SeqCst);
    }

    /// The booking codes of the `booking.created` bodies received, in arrival order, once
    /// every one of `codes` came; fails after `within`.
    fn wait_for(&self, codes: &[String], within: Duration, server: &Server) -> Vec<String> {
        let deadline = Instant::now() + within;
        loop {
            let got: Vec<String> = self
                .bodies
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .filter(|b| b["event"] == "booking.created")
                .filter_map(|b| b["data"]["code"].as_str().map(str::to_owned))
                .collect();
            let distinct: BTreeSet<&String> = got.iter().collect();
            if codes.iter().all(|c| distinct.contains(c)) {
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "{} of {} deliveries within {within:?}: {}",
                distinct.len(),
                codes.len(),
                server.log()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Reads one request; the stream, to answer on, and the request's JSON body.
fn read_body(mut stream: TcpStream) -> Option<(TcpStream, Value)> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let (mut data, mut chunk) = (Vec::new(), [0u8; 8192]);
    loop {
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&chunk[..n]);
        let Some(head_end) = data.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4) else { continue };
        let head = String::from_utf8_lossy(&data[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        if data.len() >= head_end + length {
            let body = serde_json::from_slice(&data[head_end..head_end + length]).ok()?;
            return Some((stream, body));
        }
    }
}

/// Books `n` three-night stays at sea-view one after the other; their codes, in order.
fn book(server: &Server, key: &str, n: u64) -> Vec<String> {
    (0..n)
        .map(|i| {
            let body = json!({
                "property": "sea-view", "checkIn": day(60 + 4 * i).to_string(), "checkOut": day(63 + 4 * i).to_string(),
                "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2,
            });
            let (status, booking) = post(server.addr, "/api/v1/bookings", key, &body);
            assert_eq!(status, 201, "{booking}: {}", server.log());
            booking["code"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// Loopback webhooks, retries a second apart.
const ENV: [(&str, &str); 2] = [("RENTAL_ALLOW_PRIVATE_TARGETS", "true"), ("RENTAL_WEBHOOK_RETRIES", "1s,1s,1s,1s,1s")];

#[test]
fn on_redb_a_restarted_server_resumes_its_killed_runs_deliveries_within_5_s() {
    let (sandbox, key) = Sandbox::with_key();
    let receiver = Switch::start();
    sandbox
        .library()
        .admin()
        .add_webhook(&receiver.url(), Subscription::parse("booking.created").unwrap(), None)
        .unwrap();
    let server = sandbox.serve_with(&ENV);
    let codes = book(&server, &key, 5);
    receiver.wait_for_a_hanging_attempt(&server);
    server.kill();

    receiver.answer();
    let server = sandbox.serve_with(&ENV);
    let listening = Instant::now();
    let got = receiver.wait_for(&codes, Duration::from_secs(5), &server);
    eprintln!("delivered {} within {:?} of listening again", codes.len(), listening.elapsed());
    let first: Vec<&String> = got.iter().fold(Vec::new(), |mut seen, c| {
        if !seen.contains(&c) {
            seen.push(c);
        }
        seen
    });
    assert_eq!(first, codes.iter().collect::<Vec<_>>(), "delivered in booking order");
    assert_eq!(receiver.most_at_once.load(Ordering::SeqCst), 1, "one attempt at a time");
}

#[test]
fn on_postgres_another_server_delivers_a_killed_servers_claims_within_15_s_in_order() {
    if !tools::postgres() {
        return;
    }
    let url = PgCluster::shared().database();
    let rental = Rental::new(PgStore::open(&url).unwrap());
    rental.import_properties(&demo::properties()).unwrap();
    let key = rental.admin().create_key("test", &[Scope::Read, Scope::Write]).unwrap().secret;
    let receiver = Switch::start();
    rental.admin().add_webhook(&receiver.url(), Subscription::parse("booking.created").unwrap(), None).unwrap();
    drop(rental);
    let sandbox = Sandbox { dir: tempfile::tempdir().unwrap() };
    let env = [ENV[0], ENV[1], ("RENTAL_DATABASE_URL", url.as_str())];

    let first = sandbox.serve_with(&env);
    let codes = book(&first, &key, 8);
    receiver.wait_for_a_hanging_attempt(&first);
    let second = sandbox.serve_with(&env);
    // The second server cannot send to the webhook while the first holds it.
    thread::sleep(Duration::from_millis(500));
    first.kill();
    let killed = Instant::now();
    receiver.answer();

    let got = receiver.wait_for(&codes, Duration::from_secs(15), &second);
    eprintln!("the survivor delivered {} within {:?} of the kill", codes.len(), killed.elapsed());
    let mut first_arrivals: Vec<&String> = Vec::new();
    for code in &got {
        if !first_arrivals.contains(&code) {
            first_arrivals.push(code);
        }
    }
    assert_eq!(first_arrivals, codes.iter().collect::<Vec<_>>(), "delivered in booking order");
    assert_eq!(receiver.most_at_once.load(Ordering::SeqCst), 1, "one sender at a time");
}
