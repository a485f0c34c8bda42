//! A webhook receiver for the delivery tests: a hyper server on
//! `127.0.0.1:0` that records every request it gets (method, path, headers,
//! the body byte for byte, when it arrived) and answers each from a script.
//!
//! The script is a queue of [`Answer`]s, one per request in arrival order,
//! and a last answer for every request after the queue runs out: "500, 500,
//! 500, then 200", "410 forever", "hang 10 s". A test then waits with
//! [`Receiver::wait_for`] until enough requests arrived, bounded in time.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// How the receiver answers one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// This status, with an empty body.
    Status(u16),
    /// `302 Found` with `Location` set to this path on the receiver itself.
    Redirect(String),
    /// Waits this long, then answers 200 (a sender with a shorter timeout gives up first).
    Hang(Duration),
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Received {
    /// The method.
    pub method: Method,
    /// The path and query.
    pub path: String,
    /// Every header.
    pub headers: HeaderMap,
    /// The body, byte for byte.
    pub body: Bytes,
    /// When the whole body had arrived.
    pub at: Instant,
}

impl Received {
    /// The value of header `name`, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body parsed as JSON (panics when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("a delivery body is not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body's `event`.
    pub fn event(&self) -> String {
        self.json()["event"].as_str().unwrap_or_default().to_owned()
    }

    /// The `X-SVC-Delivery` header, empty when missing.
    pub fn delivery(&self) -> String {
        self.header("x-svc-delivery").unwrap_or_default().to_owned()
    }
}

/// What the server task and the test share. One lock for both, so the n-th
/// request recorded is the one that got the n-th answer.
#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    then: Answer,
}

#[derive(Debug)]
struct State {
    requests: Vec<Received>,
    script: VecDeque<Answer>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `received` and takes the answer it gets.
    fn record(&self, received: Received) -> Answer {
        let mut state = self.state();
        state.requests.push(received);
        state.script.pop_front().unwrap_or_else(|| self.then.clone())
    }
}

/// A running receiver; it stops when dropped.
#[derive(Debug)]
pub struct Receiver {
    /// Where it listens.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    serving: JoinHandle<()>,
}

impl Receiver {
    /// A receiver that answers 200 to everything.
    pub async fn ok() -> Self {
        Self::scripted([], Answer::Status(200)).await
    }

    /// A receiver that gives `first` answers in order, then `then` to every later request.
    pub async fn scripted(first: impl IntoIterator<Item = Answer>, then: Answer) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        Self::on(listener, first, then)
    }

    /// The same on a listener the caller bound (to choose the port).
    pub fn on(listener: TcpListener, first: impl IntoIterator<Item = Answer>, then: Answer) -> Self {
        let addr = listener.local_addr().expect("a bound address");
        let state = State { requests: Vec::new(), script: first.into_iter().collect() };
        let shared = Arc::new(Shared { state: Mutex::new(state), then });
        let answering = Arc::clone(&shared);
        let serving = tokio::spawn(serve(listener, move |req| answer(Arc::clone(&answering), req)));
        Receiver { addr, shared, serving }
    }

    /// The URL to register: `http://127.0.0.1:<port>/hooks`.
    pub fn url(&self) -> String {
        format!("http://{}/hooks", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Received> {
        self.shared.state().requests.clone()
    }

    /// How many requests arrived so far.
    pub fn count(&self) -> usize {
        self.shared.state().requests.len()
    }

    /// Waits until at least `n` requests arrived and returns them all; panics
    /// after `timeout`, naming what did arrive.
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Received> {
        let deadline = Instant::now() + timeout;
        loop {
            let requests = self.requests();
            if requests.len() >= n {
                return requests;
            }
            assert!(
                Instant::now() < deadline,
                "{n} webhook requests expected within {timeout:?}, {} arrived: {:?}",
                requests.len(),
                requests.iter().map(Received::event).collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits `quiet` and asserts that no request beyond the first `n` arrived meanwhile.
    pub async fn assert_no_more_than(&self, n: usize, quiet: Duration) {
        tokio::time::sleep(quiet).await;
        let requests = self.requests();
        assert!(
            requests.len() <= n,
            "at most {n} webhook requests expected, {} arrived: {:?}",
            requests.len(),
            requests.iter().map(Received::event).collect::<Vec<_>>()
        );
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// Serves HTTP/1 on `listener`, each request answered by `answer`, until the task is aborted.
/// The feed server of the import tests uses it too.
pub(crate) async fn serve<F, Fut>(listener: TcpListener, answer: F)
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Result<Response<Full<Bytes>>, Infallible>> + Send + 'static,
{
    let mut connections = tokio::task::JoinSet::new();
    while let Ok((stream, _)) = listener.accept().await {
        let answer = answer.clone();
        connections.spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service_fn(answer)));
        while connections.try_join_next().is_some() {}
    }
}

/// Records `req`, then answers it as the script says.
async fn answer(shared: Arc<Shared>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = body.collect().await.map(http_body_util::Collected::to_bytes).unwrap_or_default();
    let path = parts.uri.path_and_query().map_or_else(|| parts.uri.path().to_owned(), ToString::to_string);
    let received = Received { method: parts.method, path, headers: parts.headers, body, at: Instant::now() };
    let answer = shared.record(received);
    let mut response = Response::new(Full::default());
    match answer {
        Answer::Status(status) => {
            *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        }
        Answer::Redirect(to) => {
            *response.status_mut() = StatusCode::FOUND;
            if let Ok(location) = header::HeaderValue::from_str(&to) {
                response.headers_mut().insert(header::LOCATION, location);
            }
        }
        Answer::Hang(wait) => tokio::time::sleep(wait).await,
    }
    Ok(response)
}
