//! A channel that serves iCal feeds, for the import tests: a hyper server on
//! `127.0.0.1:0` where each path answers as the test last set it (a calendar
//! with an `ETag`, a status, an HTML page, a hang, a huge body), and that
//! records the conditional headers each request carried and when it was answered.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::receiver::serve;

/// What a feed path answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// `200 text/calendar` with this body and an `ETag` derived from it; a request whose
    /// `If-None-Match` names that tag gets `304`.
    Calendar(String),
    /// This status with a short text body.
    Status(u16),
    /// `200 text/html`: a login page instead of a calendar.
    Html,
    /// Waits this long before answering with an empty calendar.
    Hang(Duration),
    /// `200 text/calendar` with a valid start and this many bytes in all.
    Huge(usize),
    /// Waits this long, then answers `200 text/calendar` with this body (no `ETag`):
    /// pulls that overlap in time show in [`FeedServer::spans`].
    Slow(String, Duration),
}

/// A running feed server; it stops when dropped.
#[derive(Debug)]
pub struct FeedServer {
    /// Where it listens.
    pub addr: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    serving: JoinHandle<()>,
}

#[derive(Debug, Default)]
struct Shared {
    feeds: HashMap<String, Feed>,
    requests: Vec<(String, HeaderMap)>,
    /// Each answered request's path, and when it came in and was answered.
    spans: Vec<(String, Instant, Instant)>,
}

impl FeedServer {
    /// A server with no feeds yet (every path is 404).
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let addr = listener.local_addr().expect("a bound address");
        let shared = Arc::new(Mutex::new(Shared::default()));
        let answering = Arc::clone(&shared);
        let serving = tokio::spawn(serve(listener, move |req| answer(Arc::clone(&answering), req)));
        FeedServer { addr, shared, serving }
    }

    /// The URL of `path` (`/airbnb.ics`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// From now on `path` answers `feed`.
    pub fn set(&self, path: &str, feed: Feed) {
        self.lock().feeds.insert(path.to_owned(), feed);
    }

    /// How many requests `path` got.
    pub fn hits(&self, path: &str) -> usize {
        self.lock().requests.iter().filter(|(p, _)| p == path).count()
    }

    /// The headers of the last request to `path`.
    pub fn last_headers(&self, path: &str) -> Option<HeaderMap> {
        self.lock().requests.iter().rev().find(|(p, _)| p == path).map(|(_, h)| h.clone())
    }

    /// When each request to `path` came in and was answered, in the order answered.
    pub fn spans(&self, path: &str) -> Vec<(Instant, Instant)> {
        self.lock().spans.iter().filter(|(p, ..)| p == path).map(|(_, from, to)| (*from, *to)).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for FeedServer {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// The entity tag the server gives a calendar body.
pub fn etag_of(body: &str) -> String {
    format!("\"{:x}-{}\"", body.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))), body.len())
}

/// A calendar of all-day events `(uid, summary, first night, checkout day)`, CRLF, as Airbnb writes it.
pub fn calendar(events: &[(&str, &str, &str, &str)]) -> String {
    let mut out = String::from("BEGIN:VCALENDAR\r\nPRODID:-//Airbnb Inc//Hosting Calendar 1.0//EN\r\nVERSION:2.0\r\n");
    for (uid, summary, start, end) in events {
        let (start, end) = (start.replace('-', ""), end.replace('-', ""));
        let _ = write!(
            out,
            "BEGIN:VEVENT\r\nDTSTAMP:20261101T000000Z\r\nDTSTART;VALUE=DATE:{start}\r\nDTEND;VALUE=DATE:{end}\r\n\
             SUMMARY:{summary}\r\nUID:{uid}\r\nEND:VEVENT\r\n"
        );
    }
    out.push_str("END:VCALENDAR\r\n");
    out
}

async fn answer(shared: Arc<Mutex<Shared>>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (path, came) = (req.uri().path().to_owned(), Instant::now());
    let response = respond(&shared, req).await;
    shared.lock().unwrap_or_else(PoisonError::into_inner).spans.push((path, came, Instant::now()));
    Ok(response)
}

async fn respond(shared: &Mutex<Shared>, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_owned();
    let feed = {
        let mut shared = shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.requests.push((path.clone(), req.headers().clone()));
        shared.feeds.get(&path).cloned()
    };
    let reply = |status: u16, content_type: &str, body: Bytes| {
        let mut response = Response::new(Full::new(body));
        *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        response.headers_mut().insert(header::CONTENT_TYPE, content_type.parse().expect("a content type"));
        response
    };
    match feed {
        None => reply(404, "text/plain", Bytes::from_static(b"no such feed")),
        Some(Feed::Status(status)) => reply(status, "text/plain", Bytes::from_static(b"the channel is down")),
        Some(Feed::Html) => {
            reply(200, "text/html", Bytes::from_static(b"<!DOCTYPE html><html><body>Log in</body></html>"))
        }
        Some(Feed::Hang(wait)) => {
            tokio::time::sleep(wait).await;
            reply(200, "text/calendar", Bytes::from(calendar(&[])))
        }
        Some(Feed::Huge(size)) => {
            let mut body = calendar(&[]).replace("END:VCALENDAR\r\n", "").into_bytes();
            body.resize(size, b'X');
            reply(200, "text/calendar", Bytes::from(body))
        }
        Some(Feed::Calendar(body)) => {
            let etag = etag_of(&body);
            let sent = req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
            let mut response = if sent == Some(etag.as_str()) {
                reply(304, "text/calendar", Bytes::new())
            } else {
                reply(200, "text/calendar", Bytes::from(body))
            };
            response.headers_mut().insert(header::ETAG, etag.parse().expect("a header value"));
            response
        }
        Some(Feed::Slow(body, wait)) => {
            tokio::time::sleep(wait).await;
            reply(200, "text/calendar", Bytes::from(body))
        }
    }
}
