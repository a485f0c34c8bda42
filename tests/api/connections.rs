//! Connection limits at their edges, over raw sockets: the request-head
//! deadline, the idle keep-alive time-out, the cap on open connections, and
//! problem details for the requests hyper refuses before routing.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use rental_server::ServerConfig;
use rental_server::connection::ConnectionLimits;
use rental_tests::http::{TestServer, raw};
use serde_json::Value;

const GET: &str = "GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n";

/// A server whose limits are short enough to test at their edges.
pub(crate) async fn server(limits: ConnectionLimits) -> TestServer<rental_core::MemoryStore> {
    TestServer::with_config(&ServerConfig { connections: limits, ..ServerConfig::default() }).await
}

fn limits(header_read_timeout: u64, keep_alive_idle: u64, max_connections: usize) -> ConnectionLimits {
    ConnectionLimits {
        header_read_timeout: Duration::from_millis(header_read_timeout),
        keep_alive_idle: Duration::from_millis(keep_alive_idle),
        max_connections,
        ..ConnectionLimits::default()
    }
}

/// Runs blocking socket code off the runtime that serves.
pub(crate) async fn client<T: Send + 'static>(talk: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(talk).await.expect("the client does not panic")
}

pub(crate) fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("the server's port takes connections");
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("a read timeout");
    stream
}

/// Reads one response (head and `content-length` body): its status and body.
/// `None` when the server closes the connection first.
pub(crate) fn response(stream: &mut TcpStream) -> Option<(u16, String, Value)> {
    let mut bytes = Vec::new();
    let mut byte = [0u8; 1];
    while !bytes.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(0) => return None,
            Ok(_) => bytes.push(byte[0]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return None,
            Err(e) => panic!("no response and no close: {e}"),
        }
    }
    let head = String::from_utf8(bytes).expect("a text head").to_ascii_lowercase();
    let status = head[9..12].parse().expect("a status");
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .map_or(0, |n| n.trim().parse().expect("a length"));
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).expect("the whole body");
    Some((status, head, serde_json::from_slice(&body).unwrap_or(Value::Null)))
}

/// True when the server closes `stream` without sending anything.
pub(crate) fn closed_silently(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 64];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Err(e) if e.kind() == ErrorKind::ConnectionReset => true,
        Ok(n) => panic!("expected a close, got {:?}", String::from_utf8_lossy(&buf[..n])),
        Err(e) => panic!("the connection is still open: {e}"),
    }
}

/// No byte arrives on `stream` within `wait`.
pub(crate) fn nothing_within(stream: &mut TcpStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).expect("a read timeout");
    let mut buf = [0u8; 1];
    let silent =
        matches!(stream.read(&mut buf), Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut));
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("a read timeout");
    silent
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_sent_within_the_deadline_is_answered_and_a_trickled_one_is_cut_off_at_it() {
    let s = server(limits(1_000, 5_000, 16)).await;
    let addr = s.addr;
    client(move || {
        // Just under: the head arrives in three parts over 0.6 s.
        let mut stream = connect(addr);
        for part in ["GET /api/openapi.json HTTP/1.1\r\n", "Host: test\r\n", "Accept: */*\r\n\r\n"] {
            stream.write_all(part.as_bytes()).unwrap();
            std::thread::sleep(Duration::from_millis(300));
        }
        assert_eq!(response(&mut stream).map(|r| r.0), Some(200));

        // Over: a header line every 250 ms never finishes the head; the deadline does not move.
        let started = Instant::now();
        let mut stream = connect(addr);
        stream.write_all(b"GET /api/openapi.json HTTP/1.1\r\n").unwrap();
        for n in 0..12 {
            std::thread::sleep(Duration::from_millis(250));
            if stream.write_all(format!("X-Line-{n}: x\r\n").as_bytes()).is_err() {
                break;
            }
        }
        assert!(closed_silently(&mut stream));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(2), "{took:?}");

        // A connection that sends nothing is closed at the same deadline.
        let started = Instant::now();
        assert!(closed_silently(&mut connect(addr)));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(2), "{took:?}");
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keep_alive_connection_is_closed_once_idle_longer_than_the_idle_time() {
    let s = server(limits(5_000, 600, 16)).await;
    let addr = s.addr;
    client(move || {
        let mut stream = connect(addr);
        stream.write_all(GET.as_bytes()).unwrap();
        assert_eq!(response(&mut stream).map(|r| r.0), Some(200));
        // Just under the idle time, the connection still serves.
        std::thread::sleep(Duration::from_millis(400));
        stream.write_all(GET.as_bytes()).unwrap();
        assert_eq!(response(&mut stream).map(|r| r.0), Some(200));
        // Then silence: closed after the idle time, not the 5 s head deadline.
        let idle = Instant::now();
        assert!(closed_silently(&mut stream));
        let took = idle.elapsed();
        assert!(took >= Duration::from_millis(500) && took < Duration::from_millis(1_500), "{took:?}");
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn above_the_cap_a_new_connection_waits_until_one_closes() {
    let s = server(limits(5_000, 5_000, 2)).await;
    let addr = s.addr;
    client(move || {
        // At the cap: two connections, both served.
        let first = connect(addr);
        let mut second = connect(addr);
        second.write_all(GET.as_bytes()).unwrap();
        assert_eq!(response(&mut second).map(|r| r.0), Some(200));
        // One over: the third is not served while the two stay open...
        let mut third = connect(addr);
        third.write_all(GET.as_bytes()).unwrap();
        assert!(nothing_within(&mut third, Duration::from_millis(500)), "the third was served above the cap");
        // ...and is as soon as one closes.
        drop(first);
        let started = Instant::now();
        assert_eq!(response(&mut third).map(|r| r.0), Some(200));
        assert!(started.elapsed() < Duration::from_secs(2));
    })
    .await;
    s.stop().await;
}

/// `count` header lines `X-Header-n: v`.
fn header_lines(count: usize) -> String {
    (0..count).map(|n| ["X-Header-", &n.to_string(), ": v\r\n"].concat()).collect()
}

/// The status, head and problem body of a raw response the server closed.
fn parse(response: &str) -> (u16, String, Value) {
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head: {response:?}"));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {head}"));
    (status, head.to_ascii_lowercase(), serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_hyper_cannot_parse_get_problem_details_with_a_request_id() {
    let s = TestServer::memory().await;
    let long_uri = format!("GET /api/v1/properties?q={} HTTP/1.1\r\nHost: test\r\n\r\n", "a".repeat(200 * 1024));
    let many_headers = format!("GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n{}\r\n", header_lines(500));
    let control = "GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nX-Request-Id: abc\u{1}def\r\n\r\n".to_owned();
    let garbage = "HELLO THERE\r\n\r\n".to_owned();
    let cases = [
        (long_uri, 414, "uri_too_long"),
        (many_headers, 431, "headers_too_large"),
        (control, 400, "bad_request"),
        (garbage, 400, "bad_request"),
    ];
    for (request, status, code) in cases {
        let (got, head, body) = parse(&raw(s.addr, request.as_bytes()).await);
        assert_eq!((got, body["code"].as_str()), (status, Some(code)), "{head}\n{body}");
        assert!(head.contains("\r\ncontent-type: application/problem+json"), "{head}");
        assert!(head.contains("\r\nx-request-id: req_"), "{head}");
        assert!(head.contains("\r\nconnection: close"), "{head}");
        assert_eq!(body["status"], status, "{body}");
        assert_eq!(body["type"], "about:blank", "{body}");
        assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()), "{body}");
    }
    // Just under hyper's limits, the same server answers as usual.
    let long_ok =
        format!("GET /api/openapi.json?q={} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n", "a".repeat(60_000));
    assert_eq!(parse(&raw(s.addr, long_ok.as_bytes()).await).0, 200);
    let ok = format!("GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{}\r\n", header_lines(90));
    assert_eq!(parse(&raw(s.addr, ok.as_bytes()).await).0, 200);
    s.stop().await;
}
