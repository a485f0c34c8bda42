//! The outbound client against local servers on 127.0.0.1: address refusal, bodies, bounds,
//! redirects, TLS failures and keep-alive connection reuse. No test reaches the network.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{CONNECTION, CONTENT_TYPE, LOCATION, USER_AGENT};
use http::{HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rental_server::outbound::{Outbound, OutboundConfig, OutboundError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

const UA: &str = "rental-test/1.0";
const SECOND: Duration = Duration::from_secs(1);
const KIB_64: usize = 64 * 1024;

fn client(allow_private_targets: bool) -> Outbound {
    Outbound::new(OutboundConfig { allow_private_targets, user_agent: UA.into() }).unwrap()
}

/// A listener that counts the connections it accepts and answers none.
async fn counting_listener(bind: &str) -> Option<(u16, Arc<AtomicUsize>)> {
    let listener = TcpListener::bind(bind).await.ok()?;
    let port = listener.local_addr().ok()?.port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    Some((port, accepted))
}

/// A hyper server on 127.0.0.1 answering every request with `handler`.
async fn serve<F, Fut>(handler: F) -> SocketAddr
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    serve_counted(handler).await.0
}

/// [`serve`], also counting the connections it accepts.
async fn serve_counted<F, Fut>(handler: F) -> (SocketAddr, Arc<AtomicUsize>)
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let handler = handler.clone();
            let service = service_fn(move |req| {
                let reply = handler(req);
                async move { Ok::<_, Infallible>(reply.await) }
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    (addr, accepted)
}

/// A raw TCP server on 127.0.0.1 that runs `answer` on each connection.
async fn raw_server<F, Fut>(answer: F) -> SocketAddr
where
    F: Fn(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream));
        }
    });
    addr
}

fn response(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
}

fn redirect(location: &str) -> Response<Full<Bytes>> {
    let mut response = response(StatusCode::FOUND, "moved");
    response.headers_mut().insert(LOCATION, HeaderValue::from_str(location).unwrap());
    response
}

#[tokio::test]
async fn private_targets_are_refused_before_any_connection() {
    let (port, accepted) = counting_listener("127.0.0.1:0").await.unwrap();
    let v6 = counting_listener("[::1]:0").await;
    let v6_port = v6.as_ref().map_or(port, |(p, _)| *p);
    let outbound = client(false);
    let urls = [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://[::1]:{v6_port}/"),
        "http://10.0.0.1/".to_owned(),
        "http://169.254.169.254/latest/meta-data".to_owned(),
        "http://100.64.0.1/".to_owned(),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://0.0.0.0:{port}/"),
        format!("https://127.0.0.1:{port}/"),
        format!("http://127.1:{port}/"),
        format!("http://2130706433:{port}/"),
    ];
    for url in &urls {
        let posted = outbound.post(url, &[], Bytes::from_static(b"{}"), 2 * SECOND, KIB_64).await;
        assert!(matches!(posted, Err(OutboundError::Refused { .. })), "{url}: {posted:?}");
        let got = outbound.get(url, &[], 2 * SECOND, KIB_64, 5).await;
        assert!(matches!(got, Err(OutboundError::Refused { .. })), "{url}: {got:?}");
    }
    let message = outbound.get(&urls[0], &[], SECOND, KIB_64, 0).await.unwrap_err().to_string();
    assert_eq!(message, "refused target 127.0.0.1: loopback address");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
    if let Some((_, v6_accepted)) = v6 {
        assert_eq!(v6_accepted.load(Ordering::SeqCst), 0);
    }
}

#[tokio::test]
async fn post_delivers_exact_bytes_headers_and_user_agent() {
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let addr = serve(move |req: Request<Incoming>| {
        let seen_tx = seen_tx.clone();
        async move {
            let (parts, body) = req.into_parts();
            let body = body.collect().await.unwrap().to_bytes();
            seen_tx.send((parts.method, parts.uri.to_string(), parts.headers, body)).unwrap();
            let mut reply = response(StatusCode::CREATED, "accepted");
            reply.headers_mut().insert("x-reply", HeaderValue::from_static("yes"));
            reply
        }
    })
    .await;
    let body = Bytes::from_static(b"{\"type\":\"booking.created\",\"n\":\"caf\xc3\xa9\"}\n");
    let headers = [
        (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (HeaderName::from_static("x-svc-signature"), HeaderValue::from_static("t=1,v1=abc")),
        (HeaderName::from_static("x-svc-delivery"), HeaderValue::from_static("dlv_1")),
        (USER_AGENT, HeaderValue::from_static("not-ours")),
    ];
    let url = format!("http://{addr}/hooks/in?src=rental");
    let reply = client(true).post(&url, &headers, body.clone(), 10 * SECOND, KIB_64).await.unwrap();

    assert_eq!(reply.status, StatusCode::CREATED);
    assert_eq!(reply.body, Bytes::from_static(b"accepted"));
    assert_eq!(reply.headers["x-reply"], "yes");
    assert!(reply.elapsed > Duration::ZERO && reply.elapsed < 10 * SECOND);
    let (method, uri, seen_headers, seen_body) = seen.recv().await.unwrap();
    assert_eq!(method, Method::POST);
    assert_eq!(uri, "/hooks/in?src=rental");
    assert_eq!(seen_body, body);
    assert_eq!(seen_headers[CONTENT_TYPE], "application/json");
    assert_eq!(seen_headers["x-svc-signature"], "t=1,v1=abc");
    assert_eq!(seen_headers["x-svc-delivery"], "dlv_1");
    assert_eq!(seen_headers.get_all(USER_AGENT).iter().collect::<Vec<_>>(), [UA]);
    assert_eq!(seen_headers["host"], addr.to_string());
    assert_eq!(seen_headers["content-length"], body.len().to_string());
}

#[tokio::test]
async fn get_sends_conditional_headers_and_reads_the_body() {
    let addr = serve(|req: Request<Incoming>| async move {
        match req.headers().get("if-none-match") {
            Some(tag) if tag == "\"v1\"" => response(StatusCode::NOT_MODIFIED, ""),
            _ => response(StatusCode::OK, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"),
        }
    })
    .await;
    let url = format!("http://{addr}/feed.ics");
    let outbound = client(true);
    let fresh = outbound.get(&url, &[], SECOND, KIB_64, 5).await.unwrap();
    assert_eq!((fresh.status, fresh.body.as_ref()), (StatusCode::OK, &b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"[..]));
    let tag = [(http::header::IF_NONE_MATCH, HeaderValue::from_static("\"v1\""))];
    let cached = outbound.get(&url, &tag, SECOND, KIB_64, 5).await.unwrap();
    assert_eq!((cached.status, cached.body.len()), (StatusCode::NOT_MODIFIED, 0));
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let addr = raw_server(|mut stream: TcpStream| async move {
        let mut sink = Vec::new();
        let _ = stream.read_to_end(&mut sink).await;
    })
    .await;
    let outbound = client(true);
    let url = format!("http://{addr}/");
    let timeout = Duration::from_millis(300);
    let started = Instant::now();
    let posted = outbound.post(&url, &[], Bytes::from_static(b"x"), timeout, KIB_64).await;
    assert!(matches!(posted, Err(OutboundError::Timeout { after }) if after == timeout), "{posted:?}");
    let got = outbound.get(&url, &[], timeout, KIB_64, 5).await;
    assert!(matches!(got, Err(OutboundError::Timeout { .. })), "{got:?}");
    assert!(started.elapsed() < 2 * SECOND, "took {:?}", started.elapsed());
    assert_eq!(got.unwrap_err().to_string(), "timed out after 300 ms");
}

#[tokio::test]
async fn a_body_over_the_limit_is_an_error_and_one_at_the_limit_is_not() {
    let addr = serve(|req: Request<Incoming>| async move {
        let size = if req.uri().path() == "/big" { KIB_64 + 1 } else { KIB_64 };
        response(StatusCode::OK, vec![b'a'; size])
    })
    .await;
    let outbound = client(true);
    let big = outbound.get(&format!("http://{addr}/big"), &[], SECOND, KIB_64, 0).await;
    assert!(matches!(big, Err(OutboundError::BodyTooLarge { limit: KIB_64 })), "{big:?}");
    let fits = outbound.post(&format!("http://{addr}/fits"), &[], Bytes::new(), SECOND, KIB_64).await.unwrap();
    assert_eq!(fits.body.len(), KIB_64);
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_an_error() {
    let addr = raw_server(|mut stream: TcpStream| async move {
        let mut head = [0u8; 1024];
        let _ = stream.read(&mut head).await;
        let mut reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for _ in 0..100 {
            reply.extend_from_slice(b"3e8\r\n");
            reply.extend_from_slice(&[b'z'; 1000]);
            reply.extend_from_slice(b"\r\n");
        }
        reply.extend_from_slice(b"0\r\n\r\n");
        let _ = stream.write_all(&reply).await;
    })
    .await;
    let got = client(true).get(&format!("http://{addr}/"), &[], SECOND, 10_000, 0).await;
    assert!(matches!(got, Err(OutboundError::BodyTooLarge { limit: 10_000 })), "{got:?}");
    assert_eq!(got.unwrap_err().to_string(), "response body exceeds 10000 bytes");
}

#[tokio::test]
async fn post_returns_a_redirect_and_get_follows_it() {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    let addr = serve(move |req: Request<Incoming>| {
        let counter = Arc::clone(&counter);
        async move {
            match req.uri().path() {
                "/start" => redirect("/end"),
                "/loop" => {
                    counter.fetch_add(1, Ordering::SeqCst);
                    redirect("/loop")
                }
                "/end" => {
                    let auth = req.headers().get("authorization").is_some();
                    response(StatusCode::OK, if auth { "end+auth" } else { "end" })
                }
                _ => response(StatusCode::NOT_FOUND, ""),
            }
        }
    })
    .await;
    let outbound = client(true);
    let start = format!("http://{addr}/start");

    let posted = outbound.post(&start, &[], Bytes::from_static(b"{}"), SECOND, KIB_64).await.unwrap();
    assert_eq!(posted.status, StatusCode::FOUND);
    assert_eq!(posted.headers[LOCATION], "/end");
    assert_eq!(posted.body.as_ref(), b"moved");

    let unfollowed = outbound.get(&start, &[], SECOND, KIB_64, 0).await.unwrap();
    assert_eq!(unfollowed.status, StatusCode::FOUND);

    let auth = [(http::header::AUTHORIZATION, HeaderValue::from_static("Bearer feed"))];
    let followed = outbound.get(&start, &auth, SECOND, KIB_64, 1).await.unwrap();
    assert_eq!((followed.status, followed.body.as_ref()), (StatusCode::OK, &b"end+auth"[..]));

    let looped = outbound.get(&format!("http://{addr}/loop"), &[], SECOND, KIB_64, 3).await;
    assert!(matches!(looped, Err(OutboundError::TooManyRedirects { limit: 3 })), "{looped:?}");
    assert_eq!(hits.load(Ordering::SeqCst), 4);
    assert_eq!(looped.unwrap_err().to_string(), "more than 3 redirects");
}

#[tokio::test]
async fn a_redirect_to_another_origin_drops_credentials() {
    let end = serve(|req: Request<Incoming>| async move {
        let auth = req.headers().get("authorization").is_some();
        response(StatusCode::OK, if auth { "leaked" } else { "clean" })
    })
    .await;
    let start = serve(move |_req: Request<Incoming>| async move { redirect(&format!("http://{end}/feed")) }).await;
    let auth = [(http::header::AUTHORIZATION, HeaderValue::from_static("Bearer feed"))];
    let reply = client(true).get(&format!("http://{start}/"), &auth, SECOND, KIB_64, 5).await.unwrap();
    assert_eq!(reply.body.as_ref(), b"clean");
}

#[tokio::test]
async fn unsupported_schemes_and_garbage_are_invalid_urls() {
    let outbound = client(true);
    for url in ["ftp://127.0.0.1/file", "file:///etc/passwd", "garbage", "", "http://", "//127.0.0.1/", "http://a b/"] {
        let posted = outbound.post(url, &[], Bytes::new(), SECOND, KIB_64).await;
        assert!(matches!(posted, Err(OutboundError::InvalidUrl { .. })), "{url:?}: {posted:?}");
        let got = outbound.get(url, &[], SECOND, KIB_64, 5).await;
        assert!(matches!(got, Err(OutboundError::InvalidUrl { .. })), "{url:?}: {got:?}");
    }
    let message = outbound.get("ftp://127.0.0.1/", &[], SECOND, KIB_64, 0).await.unwrap_err().to_string();
    assert_eq!(message, "invalid url: only http and https urls are allowed");
}

#[tokio::test]
async fn https_to_a_plain_tcp_listener_is_a_tls_error() {
    let addr = raw_server(|mut stream: TcpStream| async move {
        let mut hello = [0u8; 512];
        let _ = stream.read(&mut hello).await;
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n").await;
    })
    .await;
    let closing = raw_server(|stream: TcpStream| async move { drop(stream) }).await;
    let outbound = client(true);
    for url in [format!("https://127.0.0.1:{}/", addr.port()), format!("https://localhost:{}/", closing.port())] {
        let got = outbound.get(&url, &[], 2 * SECOND, KIB_64, 0).await;
        assert!(matches!(got, Err(OutboundError::Tls { .. })), "{url}: {got:?}");
        assert!(got.unwrap_err().to_string().starts_with("tls handshake with "));
    }
}

#[tokio::test]
async fn a_closed_port_is_a_connect_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let got = client(true).get(&format!("http://{addr}/"), &[], SECOND, KIB_64, 0).await;
    assert!(matches!(got, Err(OutboundError::Connect { addr: tried, .. }) if tried == addr), "{got:?}");
}

#[test]
fn clients_build_with_the_default_config_and_reject_a_bad_user_agent() {
    let outbound = Outbound::new(OutboundConfig::default()).unwrap();
    let debug = format!("{outbound:?}");
    assert!(debug.contains("rental/"), "{debug}");
    let bad = Outbound::new(OutboundConfig { allow_private_targets: false, user_agent: "line\nbreak".into() });
    assert!(matches!(bad, Err(OutboundError::Config { .. })));
    let _shared = outbound.clone();
}

/// The body of one raw HTTP/1.1 request with a `Content-Length`, or `None` at end of stream.
async fn read_request(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut data = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            while data.len() < end + 4 + length {
                let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
                data.extend_from_slice(&chunk[..n]);
            }
            return Some(data[end + 4..end + 4 + length].to_vec());
        }
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        data.extend_from_slice(&chunk[..n]);
    }
}

const OK_REPLY: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

#[tokio::test]
async fn sequential_posts_to_one_keep_alive_server_share_one_connection() {
    let (addr, accepted) = serve_counted(|_req: Request<Incoming>| async { response(StatusCode::OK, "ok") }).await;
    let outbound = client(true);
    let url = format!("http://{addr}/hook");
    for i in 0..10 {
        let reply = outbound.post(&url, &[], Bytes::from(format!("{{\"n\":{i}}}")), SECOND, KIB_64).await.unwrap();
        assert_eq!((reply.status, reply.body.as_ref()), (StatusCode::OK, &b"ok"[..]));
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn posts_to_two_ports_use_one_connection_each() {
    let (first, first_accepted) =
        serve_counted(|_req: Request<Incoming>| async { response(StatusCode::OK, "1") }).await;
    let (second, second_accepted) =
        serve_counted(|_req: Request<Incoming>| async { response(StatusCode::OK, "2") }).await;
    let outbound = client(true);
    for _ in 0..3 {
        for (addr, expected) in [(first, "1"), (second, "2")] {
            let reply = outbound.post(&format!("http://{addr}/"), &[], Bytes::new(), SECOND, KIB_64).await.unwrap();
            assert_eq!(reply.body.as_ref(), expected.as_bytes());
        }
    }
    let accepted = first_accepted.load(Ordering::SeqCst) + second_accepted.load(Ordering::SeqCst);
    assert_eq!(accepted, 2);
}

#[tokio::test]
async fn a_server_that_says_connection_close_gets_a_new_connection_each_time() {
    let (addr, accepted) = serve_counted(|_req: Request<Incoming>| async {
        let mut reply = response(StatusCode::OK, "bye");
        reply.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
        reply
    })
    .await;
    let outbound = client(true);
    for _ in 0..5 {
        let reply = outbound.post(&format!("http://{addr}/"), &[], Bytes::new(), SECOND, KIB_64).await.unwrap();
        assert_eq!(reply.body.as_ref(), b"bye");
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 5);
}

/// Posts three bodies to a raw server whose connections each answer one request and then close
/// (at once, or after reading the next request without answering it); every post must succeed and
/// the server must have answered each body exactly once.
async fn posts_survive_a_server_closing_idle_connections(drop_the_next_request_unanswered: bool) {
    let answered = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&answered);
    let addr = raw_server(move |mut stream: TcpStream| {
        let seen = Arc::clone(&seen);
        async move {
            let Some(body) = read_request(&mut stream).await else { return };
            stream.write_all(OK_REPLY).await.unwrap();
            seen.lock().unwrap().push(body);
            if drop_the_next_request_unanswered {
                // The client reuses this connection: read its request, then close without a byte.
                let _ = read_request(&mut stream).await;
            }
            drop(stream);
        }
    })
    .await;
    let outbound = client(true);
    let url = format!("http://{addr}/hook");
    let bodies = ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"];
    for body in bodies {
        let reply = outbound.post(&url, &[], Bytes::from(body), SECOND, KIB_64).await.unwrap();
        assert_eq!(reply.body.as_ref(), b"ok");
    }
    let answered = answered.lock().unwrap().clone();
    assert_eq!(answered, bodies.map(|b| b.as_bytes().to_vec()));
}

#[tokio::test]
async fn a_pooled_connection_closed_while_idle_is_replaced() {
    posts_survive_a_server_closing_idle_connections(false).await;
}

#[tokio::test]
async fn a_reused_connection_closed_before_any_answer_is_retried_once() {
    posts_survive_a_server_closing_idle_connections(true).await;
}

#[tokio::test]
async fn a_reused_connection_that_fails_mid_answer_is_not_retried() {
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    let addr = raw_server(move |mut stream: TcpStream| {
        let count = Arc::clone(&count);
        async move {
            count.fetch_add(1, Ordering::SeqCst);
            let Some(_) = read_request(&mut stream).await else { return };
            stream.write_all(OK_REPLY).await.unwrap();
            let Some(_) = read_request(&mut stream).await else { return };
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Len").await;
        }
    })
    .await;
    let outbound = client(true);
    let url = format!("http://{addr}/");
    outbound.post(&url, &[], Bytes::from_static(b"1"), SECOND, KIB_64).await.unwrap();
    let second = outbound.post(&url, &[], Bytes::from_static(b"2"), SECOND, KIB_64).await;
    assert!(matches!(second, Err(OutboundError::Http(_))), "{second:?}");
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}
