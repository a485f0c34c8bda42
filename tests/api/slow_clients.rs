//! The limits a slow or hostile client meets, at their edges over raw
//! sockets: the body deadlines (anonymous and authenticated), the minimum body
//! rate, the write-stall deadline, and the per-address connection cap.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use rental_server::connection::ConnectionLimits;

use crate::connections::{client, closed_silently, connect, response, server};

const QUOTE: &str = r#"{"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3}"#;

/// Limits with the head, body and write-stall deadlines at `deadline_ms`, a
/// minimum body rate of `rate` bytes a second after a 200 ms grace, and the
/// default caps.
fn limits(deadline_ms: u64, rate: u32) -> ConnectionLimits {
    let deadline = Duration::from_millis(deadline_ms);
    ConnectionLimits {
        header_read_timeout: deadline,
        body_read_timeout: deadline,
        write_stall_timeout: deadline,
        keep_alive_idle: Duration::from_secs(5),
        min_body_rate: rate,
        body_rate_grace: Duration::from_millis(200),
        ..ConnectionLimits::default()
    }
}

/// A head for `path` announcing a body of `length` bytes.
fn head(method: &str, path: &str, key: Option<&str>, length: usize) -> String {
    let auth = key.map(|k| format!("Authorization: Bearer {k}\r\n")).unwrap_or_default();
    let content_type =
        if path.starts_with("/admin") { "application/x-www-form-urlencoded" } else { "application/json" };
    format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\n{auth}Content-Type: {content_type}\r\nContent-Length: {length}\r\n\r\n"
    )
}

/// Sends `head` at once, then `body` in `parts` pieces `pause` apart;
/// stops early if the server closes. Returns the stream to read the answer from.
fn trickle(addr: SocketAddr, head: &str, body: &[u8], parts: usize, pause: Duration) -> TcpStream {
    let mut stream = connect(addr);
    stream.write_all(head.as_bytes()).unwrap();
    for chunk in body.chunks(body.len().div_ceil(parts).max(1)) {
        std::thread::sleep(pause);
        if stream.write_all(chunk).is_err() {
            break;
        }
    }
    stream
}

/// The status of the answer, if any, and that the connection then ends.
fn answer_then_close(stream: &mut TcpStream) -> Option<u16> {
    let status = response(stream).map(|r| r.0);
    assert!(closed_silently(stream), "the connection stays open after a body that came too late");
    status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymous_body_must_be_whole_by_the_head_deadline() {
    let s = server(limits(1_000, 1)).await;
    let addr = s.addr;
    client(move || {
        let form = b"_csrf=x&password=not-it";
        let login = head("POST", "/admin/login", None, form.len());
        // Just under: head and body within 0.6 s of connecting are answered.
        let mut stream = trickle(addr, &login, form, 3, Duration::from_millis(200));
        assert!(response(&mut stream).is_some_and(|r| r.0 < 500));

        // Over: a byte every 300 ms ends at the head's deadline, counted from the connect.
        let started = Instant::now();
        let mut stream = trickle(addr, &login, form, form.len(), Duration::from_millis(300));
        let _ = answer_then_close(&mut stream);
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(2), "{took:?}");

        // A body no handler reads (a GET's) holds the connection no longer.
        let started = Instant::now();
        // A small answer: a large one is cut by the reset a close with unread input sends (see docs/GUIDE.md).
        let get = head("GET", "/healthz", None, 1_000);
        let mut stream = trickle(addr, &get, &[b'x'; 8], 8, Duration::from_millis(300));
        assert_eq!(answer_then_close(&mut stream), Some(200));
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authenticated_body_gets_the_body_deadline_and_then_408() {
    let s = server(limits(1_000, 1)).await;
    let (addr, key) = (s.addr, s.key.clone());
    client(move || {
        let quote = head("POST", "/api/v1/quotes", Some(&key), QUOTE.len());
        // Just under: the body in three parts over 0.6 s is quoted.
        let mut stream = trickle(addr, &quote, QUOTE.as_bytes(), 3, Duration::from_millis(200));
        assert_eq!(response(&mut stream).map(|r| r.0), Some(200));

        // Over: the body stops halfway; 408 request_timeout at the deadline, then a close.
        let started = Instant::now();
        let mut stream = trickle(addr, &quote, &QUOTE.as_bytes()[..20], 1, Duration::ZERO);
        let (status, answer_head, body) = response(&mut stream).expect("an answer");
        assert_eq!((status, body["code"].as_str()), (408, Some("request_timeout")), "{answer_head}");
        assert!(answer_head.contains("\r\nconnection: close"), "{answer_head}");
        assert!(closed_silently(&mut stream));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(2), "{took:?}");

        // Without a valid key nothing of the body is waited for: 401 at once.
        let unknown_key = head("POST", "/api/v1/quotes", Some("rk_not_a_key"), 60_000);
        let mut stream = trickle(addr, &unknown_key, &[], 1, Duration::ZERO);
        assert_eq!(response(&mut stream).map(|r| r.0), Some(401));
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_slower_than_the_minimum_rate_is_cut_after_the_grace() {
    // Deadlines of 10 s; 200 bytes a second after a 200 ms grace.
    let s = server(limits(10_000, 200)).await;
    let (addr, key) = (s.addr, s.key.clone());
    client(move || {
        let quote = head("POST", "/api/v1/quotes", Some(&key), QUOTE.len());
        // Just above the rate: 88 bytes in four parts over 0.4 s is quoted.
        let mut stream = trickle(addr, &quote, QUOTE.as_bytes(), 4, Duration::from_millis(100));
        assert_eq!(response(&mut stream).map(|r| r.0), Some(200));

        // Below it: a byte every 400 ms falls behind at once, far before the 10 s deadline.
        let started = Instant::now();
        let mut stream = trickle(addr, &quote, QUOTE.as_bytes(), QUOTE.len(), Duration::from_millis(400));
        assert_eq!(answer_then_close(&mut stream), Some(408));
        let took = started.elapsed();
        assert!(took < Duration::from_millis(1_500), "{took:?}");
    })
    .await;
    s.stop().await;
}

/// Sends `count` pipelined requests for the OpenAPI document without reading.
fn pipeline(addr: SocketAddr, count: usize) -> TcpStream {
    let mut stream = connect(addr);
    let request = "GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n".repeat(count);
    stream.write_all(request.as_bytes()).unwrap();
    stream
}

/// How many responses `stream` delivers before it ends, reading whatever is
/// there every `pause`.
fn count_responses(stream: &mut TcpStream, pause: Duration) -> usize {
    count_responses_reading(stream, 1 << 20, pause)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_reset_after_the_stall_time() {
    let s = server(limits(800, 1)).await;
    let addr = s.addr;
    client(move || {
        // Just under: a client that reads every 200 ms gets all 60 answers.
        let mut stream = pipeline(addr, 60);
        stream.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
        assert_eq!(count_responses(&mut stream, Duration::from_millis(200)), 61);

        // Over: 300 requests and no reading; once the writes stall past 0.8 s
        // the connection is reset and the rest is never sent.
        let mut stream = pipeline(addr, 300);
        std::thread::sleep(Duration::from_secs(2));
        let delivered = count_responses(&mut stream, Duration::ZERO);
        assert!(delivered < 300, "all {delivered} answers waited for a client that did not read");
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reads_a_trickle_is_cut_at_the_minimum_write_rate() {
    // A 30 s stall limit, so only the rate can end it soon: 4 KiB a second over 1 s windows.
    let rate = rental_server::connection::stall::MinRate { bytes_per_second: 4096, window: Duration::from_secs(1) };
    let stall = Duration::from_secs(30);
    let s = server(ConnectionLimits { min_write_rate: rate, write_stall_timeout: stall, ..limits(10_000, 1) }).await;
    let addr = s.addr;
    // The attack: a small receive window, so that each trickle read lets the server write a little.
    let slow = small_window(addr).await;
    client(move || {
        // Just above: a client reading all there is every 100 ms takes every answer.
        let mut stream = pipeline(addr, 40);
        stream.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
        assert_eq!(count_responses_reading(&mut stream, 1 << 20, Duration::from_millis(100)), 41);

        // Below: 200 bytes every 100 ms (2 KB/s) is cut within a few windows.
        let started = Instant::now();
        let mut stream = slow;
        stream.write_all("GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n".repeat(50).as_bytes()).unwrap();
        let delivered = count_responses_reading(&mut stream, 200, Duration::from_millis(100));
        let took = started.elapsed();
        assert!(delivered < 50, "all {delivered} answers waited for a client reading a trickle");
        assert!(took < Duration::from_secs(6), "cut after {took:?}: not by the rate");
    })
    .await;
    s.stop().await;
}

/// A connection to `addr` whose receive buffer is 4 KiB.
async fn small_window(addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap().into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
}

/// How many responses `stream` delivers before it ends, reading at most
/// `chunk` bytes every `pause`.
fn count_responses_reading(stream: &mut TcpStream, chunk: usize, pause: Duration) -> usize {
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut bytes = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
            Err(e) => panic!("{e}"),
        }
        std::thread::sleep(pause);
    }
    bytes.windows(9).filter(|w| w == b"HTTP/1.1 ").count()
}

/// A connection to `addr` from the loopback address `from`.
pub(crate) async fn connect_from(from: &str, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(format!("{from}:0").parse().expect("an address"))?;
    let stream = socket.connect(addr).await?.into_std()?;
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    Ok(stream)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_its_cap_and_another_still_gets_in() {
    let s = server(ConnectionLimits { max_per_address: 4, ..limits(5_000, 1) }).await;
    let addr = s.addr;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(connect_from("127.0.0.1", addr).await.unwrap());
    }
    let over = connect_from("127.0.0.1", addr).await;
    let mut other = connect_from("127.0.0.2", addr).await.unwrap();
    let held = client(move || {
        // The fifth from the same address is reset at once, unanswered.
        match over {
            Ok(mut over) => {
                let _ = over.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n");
                assert!(closed_silently(&mut over));
            }
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
        }
        // Another address is served, while the four stay open.
        other.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
        assert_eq!(response(&mut other).map(|r| r.0), Some(200));
        // One of the four closes: the address may open one more.
        held[0].write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
        assert_eq!(response(&mut held[0]).map(|r| r.0), Some(200));
        assert!(closed_silently(&mut held[0]));
        held
    })
    .await;
    // The server gives the slot back as its side of the connection ends.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = connect_from("127.0.0.1", addr).await.unwrap();
    client(move || {
        again.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
        assert_eq!(response(&mut again).map(|r| r.0), Some(200));
    })
    .await;
    drop(held);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_addresses_holding_every_slot_make_room_for_another_client_within_a_second() {
    let s = server(ConnectionLimits { max_connections: 64, max_per_address: 16, ..limits(10_000, 1) }).await;
    let addr = s.addr;
    // Nineteen addresses open sixteen connections each and send nothing: 304 for 64 slots.
    let mut held = Vec::new();
    for n in 2..=20 {
        for _ in 0..16 {
            held.extend(connect_from(&format!("127.0.0.{n}"), addr).await.ok());
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let mut newcomer = connect_from("127.0.0.1", addr).await.unwrap();
    let answered = client(move || {
        newcomer.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
        response(&mut newcomer).map(|r| r.0)
    })
    .await;
    assert_eq!(answered, Some(200), "the newcomer was not served");
    assert!(started.elapsed() < Duration::from_secs(1), "served after {:?}", started.elapsed());
    drop(held);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_with_slow_bodies_in_flight_ends_within_its_grace() {
    let config = rental_server::ServerConfig {
        connections: limits(10_000, 1),
        shutdown_grace: Duration::from_secs(1),
        ..rental_server::ServerConfig::default()
    };
    let mut s = rental_tests::http::TestServer::with_config(&config).await;
    let (addr, key) = (s.addr, s.key.clone());
    // Twenty bodies trickling for 3 s, under 10 s deadlines: half to the login form, half to the API.
    let senders: Vec<_> = (0..20)
        .map(|n| {
            let head = if n % 2 == 0 {
                head("POST", "/admin/login", None, 1_000)
            } else {
                head("POST", "/api/v1/quotes", Some(&key), 1_000)
            };
            std::thread::spawn(move || trickle(addr, &head, &[b'x'; 12], 12, Duration::from_millis(250)))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    s.begin_shutdown().await.unwrap().expect("serve ends cleanly");
    let took = started.elapsed();
    assert!(took < Duration::from_millis(1_300), "shutdown took {took:?} with a 1 s grace");
    assert!(took >= Duration::from_millis(900), "the bodies in flight were not waited for: {took:?}");
    drop(senders);
    s.stop().await;
}
