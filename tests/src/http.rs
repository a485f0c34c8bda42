//! The HTTP harness of the black-box API tests: the real
//! [`rental_server::serve`] on `127.0.0.1:0`, in process, over an engine with
//! the demo properties and a [`ManualClock`] stopped at [`NOW`](crate::NOW).
//!
//! - [`TestServer`] starts a server with three keys (read, write, read+write)
//!   and stops it gracefully, waiting until the engine (and so a redb file)
//!   is released, so a test can start a second server on the same directory.
//! - [`Http`] is a cloneable client of one server (hyper-util's legacy
//!   client, HTTP/1); [`Reply`] is a response read whole, its body parsed as JSON.
//! - [`raw`] talks plain TCP, for requests a well-behaved client never sends.
//! - [`FailingStore`] wraps a [`MemoryStore`] and fails every transaction on
//!   demand, for the 500 and 503 paths and the retries of conflicting writes.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, header};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rental_core::keys::Scope;
use rental_core::store::StoreResult;
use rental_core::{ManualClock, MemoryStore, RedbStore, Rental, Settings, Store, StoreError};
use rental_server::{AppState, ServerConfig};
use serde_json::Value;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{fixed_clock, open_redb, rental_with_demo};

/// Pass as the key to send no `Authorization` header at all.
pub const NO_KEY: &str = "";

/// A response, read to the end.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Every header.
    pub headers: HeaderMap,
    /// The body as JSON; `Null` when it is empty or not JSON.
    pub body: Value,
    /// The body as sent.
    pub bytes: Bytes,
}

impl Reply {
    /// The value of header `name`, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as text, for messages and leak checks.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// Asserts the status, with the body in the message when it differs.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "unexpected status; body: {}", self.text());
        self
    }

    /// Asserts an RFC 9457 problem with `status` and `code` (docs/API.md section 1):
    /// the content type and every required body field.
    #[track_caller]
    pub fn problem(&self, status: u16, code: &str) -> &Self {
        self.expect(status);
        assert_eq!(self.header("content-type"), Some("application/problem+json"), "{}", self.text());
        let b = &self.body;
        assert_eq!(b["type"], "about:blank", "{b}");
        let reason = http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason());
        assert_eq!(b["title"].as_str(), reason, "{b}");
        assert_eq!(b["status"], status, "{b}");
        assert_eq!(b["code"], code, "{b}");
        assert!(b["detail"].as_str().is_some_and(|d| !d.is_empty()), "a problem needs a detail: {b}");
        self
    }

    /// The `field` of each entry of the problem's `errors` (empty when there are none).
    pub fn error_fields(&self) -> Vec<String> {
        let errors = self.body["errors"].as_array().map(Vec::as_slice).unwrap_or_default();
        errors.iter().map(|e| e["field"].as_str().unwrap_or_default().to_owned()).collect()
    }

    /// The `(field, code)` of each entry of the problem's `errors`.
    pub fn error_codes(&self) -> Vec<(String, String)> {
        let errors = self.body["errors"].as_array().map(Vec::as_slice).unwrap_or_default();
        errors
            .iter()
            .map(|e| {
                (e["field"].as_str().unwrap_or_default().to_owned(), e["code"].as_str().unwrap_or_default().to_owned())
            })
            .collect()
    }
}

/// A client of one running server. Cheap to clone into spawned tasks.
#[derive(Debug, Clone)]
pub struct Http {
    client: Client<HttpConnector, Full<Bytes>>,
    /// The server's address.
    pub addr: SocketAddr,
}

impl Http {
    /// A client of the server at `addr`.
    pub fn new(addr: SocketAddr) -> Self {
        Http { client: Client::builder(TokioExecutor::new()).build_http(), addr }
    }

    /// A request to `path` with the key as a bearer credential (none for [`NO_KEY`]).
    pub fn request(&self, method: Method, path: &str, key: &str) -> http::request::Builder {
        let builder = Request::builder().method(method).uri(format!("http://{}{path}", self.addr));
        if key.is_empty() { builder } else { builder.header(header::AUTHORIZATION, format!("Bearer {key}")) }
    }

    /// Sends `request` and reads the whole response.
    pub async fn send(&self, request: Request<Full<Bytes>>) -> Reply {
        let response = self.client.request(request).await.expect("the server answers");
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.expect("the response body reads").to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Reply { status: parts.status.as_u16(), headers: parts.headers, body, bytes }
    }

    /// `GET path`.
    pub async fn get(&self, path: &str, key: &str) -> Reply {
        self.send(self.request(Method::GET, path, key).body(Full::default()).expect("a valid request")).await
    }

    /// `POST path` with a JSON body.
    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Reply {
        self.send_json(Method::POST, path, key, body).await
    }

    /// `PATCH path` with a JSON body.
    pub async fn patch(&self, path: &str, key: &str, body: &Value) -> Reply {
        self.send_json(Method::PATCH, path, key, body).await
    }

    /// `method path` with `body` as `application/json`.
    pub async fn send_json(&self, method: Method, path: &str, key: &str, body: &Value) -> Reply {
        self.send_bytes(method, path, key, "application/json", body.to_string()).await
    }

    /// `method path` with `body` sent as is, under `content_type`.
    pub async fn send_bytes(
        &self,
        method: Method,
        path: &str,
        key: &str,
        content_type: &str,
        body: impl Into<Bytes>,
    ) -> Reply {
        let request = self
            .request(method, path, key)
            .header(header::CONTENT_TYPE, content_type)
            .body(Full::new(body.into()))
            .expect("a valid request");
        self.send(request).await
    }
}

/// A server on `127.0.0.1:0` over an engine with the demo properties.
#[derive(Debug)]
pub struct TestServer<S: Store + 'static> {
    /// A client of it.
    pub http: Http,
    /// The engine it serves, for arranging what HTTP cannot (blocks, inactive properties).
    pub rental: Arc<Rental<S>>,
    /// The engine's clock, stopped at [`NOW`](crate::NOW); the expiry job reads it too.
    pub clock: Arc<ManualClock>,
    /// A key with the read scope only.
    pub read_key: String,
    /// A key with the write scope only.
    pub write_key: String,
    /// A key with both scopes.
    pub key: String,
    stop: Option<oneshot::Sender<()>>,
    serving: Option<JoinHandle<std::io::Result<()>>>,
    _dir: Option<TempDir>,
}

impl TestServer<MemoryStore> {
    /// On a fresh [`MemoryStore`].
    pub async fn memory() -> Self {
        Self::with_store(MemoryStore::new(), &ServerConfig::default()).await
    }

    /// On a fresh [`MemoryStore`], with `config`.
    pub async fn with_config(config: &ServerConfig) -> Self {
        Self::with_store(MemoryStore::new(), config).await
    }
}

impl TestServer<RedbStore> {
    /// On a redb file in a temporary directory, removed when the server is dropped.
    pub async fn redb() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let server = Self::redb_in(dir.path()).await;
        TestServer { _dir: Some(dir), ..server }
    }

    /// On the redb file of `dir`, created if needed (the demo properties are upserted).
    pub async fn redb_in(dir: &Path) -> Self {
        Self::with_store(open_redb(dir), &ServerConfig::default()).await
    }

    /// On a redb file in a temporary directory, removed when the server is dropped, with `config`.
    pub async fn redb_with_config(config: &ServerConfig) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let server = Self::with_store(open_redb(dir.path()), config).await;
        TestServer { _dir: Some(dir), ..server }
    }
}

impl<S: Store + 'static> TestServer<S> {
    /// On `store`, with the demo properties, a clock at [`NOW`](crate::NOW) and `config`.
    pub async fn with_store(store: S, config: &ServerConfig) -> Self {
        let clock = fixed_clock();
        let rental = Arc::new(rental_with_demo(store, clock.clone()));
        Self::serve(rental, clock, config).await
    }

    /// On `store`, with the demo properties, a clock at [`NOW`](crate::NOW), the
    /// engine's `settings` (a short `checkout_ttl`, say) and `config`.
    pub async fn with_settings(store: S, settings: Settings, config: &ServerConfig) -> Self {
        let clock = fixed_clock();
        let rental = rental_with_demo(store, clock.clone()).with_settings(settings).expect("the settings are valid");
        Self::serve(Arc::new(rental), clock, config).await
    }

    /// Serves `rental` (whose clock is `clock`) with three new keys.
    pub async fn serve(rental: Arc<Rental<S>>, clock: Arc<ManualClock>, config: &ServerConfig) -> Self {
        let new_key =
            |name: &str, scopes: &[Scope]| rental.admin().create_key(name, scopes).expect("a key is created").secret;
        let read_key = new_key("reader", &[Scope::Read]);
        let write_key = new_key("writer", &[Scope::Write]);
        let key = new_key("both", &[Scope::Read, Scope::Write]);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let addr = listener.local_addr().expect("a bound address");
        let state = AppState::new(Arc::clone(&rental), config);
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(rental_server::serve(listener, state, async {
            let _ = stopped.await;
        }));
        TestServer {
            http: Http::new(addr),
            rental,
            clock,
            read_key,
            write_key,
            key,
            stop: Some(stop),
            serving: Some(serving),
            _dir: None,
        }
    }

    /// Moves the clock to `instant` (RFC 3339).
    pub fn set_now(&self, instant: &str) {
        self.clock.set(crate::at(instant));
    }

    /// Begins a graceful shutdown and returns the task of `serve`, which ends
    /// once the requests in flight have been answered.
    pub fn begin_shutdown(&mut self) -> JoinHandle<std::io::Result<()>> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.serving.take().expect("the server is running")
    }

    /// Shuts down gracefully, waits for `serve` to return, and waits until
    /// nothing holds the engine any more, so its store is closed on return.
    /// (A shutdown begun with [`TestServer::begin_shutdown`] is the caller's to await.)
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(serving) = self.serving.take() {
            serving.await.expect("serve does not panic").expect("serve ends cleanly");
        }
        let TestServer { http, rental, .. } = self;
        drop(http);
        release(rental).await;
    }

    /// Creates a booking over HTTP that must succeed; returns its body.
    pub async fn book(&self, property: &str, check_in: &str, check_out: &str, guests: u32) -> Value {
        let reply =
            self.post("/api/v1/bookings", &self.key, &booking_body(property, check_in, check_out, guests)).await;
        reply.expect(201);
        reply.body
    }

    /// Sends `{"action": ...}` (plus `extra` fields) to a booking with the read+write key.
    pub async fn act(&self, code: &str, body: &Value) -> Reply {
        self.patch(&format!("/api/v1/bookings/{code}"), &self.key, body).await
    }

    /// Every booking, walked page by page with the read+write key.
    pub async fn all_bookings(&self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut path = "/api/v1/bookings?limit=200".to_owned();
        loop {
            let page = self.get(&path, &self.key).await;
            page.expect(200);
            out.extend(page.body["data"].as_array().expect("data is an array").iter().cloned());
            match page.body["nextCursor"].as_str() {
                Some(cursor) => path = format!("/api/v1/bookings?limit=200&cursor={cursor}"),
                None => return out,
            }
        }
    }

    /// The occupancy summary, read with the read+write key.
    pub async fn summary(&self) -> Value {
        let reply = self.get("/api/v1/ha/summary", &self.key).await;
        reply.expect(200);
        reply.body
    }
}

/// Waits (up to 10 s) until `rental` is the last handle, then drops it.
async fn release<S>(rental: Arc<Rental<S>>) {
    for _ in 0..1000 {
        if Arc::strong_count(&rental) == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the engine is still held 10 s after the server stopped");
}

impl<S: Store + 'static> Deref for TestServer<S> {
    type Target = Http;
    fn deref(&self) -> &Http {
        &self.http
    }
}

/// The JSON body of a valid booking request.
pub fn booking_body(property: &str, check_in: &str, check_out: &str, guests: u32) -> Value {
    serde_json::json!({
        "property": property, "checkIn": check_in, "checkOut": check_out,
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": guests,
    })
}

/// Writes `request` to `addr` over plain TCP and reads until the server closes.
pub async fn raw(addr: SocketAddr, request: &[u8]) -> String {
    raw_in_parts(addr, vec![(request.to_vec(), Duration::ZERO)]).await
}

/// Writes each part to `addr` after its pause, then reads until the server
/// closes (at most 10 s): a request that is still arriving when something happens.
pub async fn raw_in_parts(addr: SocketAddr, parts: Vec<(Vec<u8>, Duration)>) -> String {
    let talk = move || {
        let mut stream = std::net::TcpStream::connect(addr).expect("the server accepts");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("a read timeout");
        for (bytes, pause) in parts {
            std::thread::sleep(pause);
            stream.write_all(&bytes).expect("the request is sent");
        }
        let mut out = Vec::new();
        match stream.read_to_end(&mut out) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("reading the response failed (or the server kept it open 10 s): {e}"),
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    tokio::task::spawn_blocking(talk).await.expect("the raw client does not panic")
}

/// How a [`FailingStore`] behaves now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Failure {
    /// Every transaction works.
    None,
    /// Every transaction fails with [`StoreError::Backend`], whose message names redb and a path.
    Backend,
    /// Every transaction fails with [`StoreError::Locked`].
    Locked,
    /// Every write transaction fails with [`StoreError::Conflict`], as when
    /// another writer always wins; reads work.
    Conflict,
}

/// A [`MemoryStore`] whose transactions fail on demand.
#[derive(Debug, Default)]
pub struct FailingStore {
    inner: MemoryStore,
    failure: AtomicU8,
    /// How many more transactions fail before the failure ends by itself (0: it lasts).
    remaining: AtomicU32,
    seen: Mutex<u32>,
}

/// The text a failing store puts in its backend error: what must never reach a client.
pub const BACKEND_MESSAGE: &str = "redb: i/o error writing page 17 of /var/lib/rental/rental.redb";

impl FailingStore {
    /// A store that works until told otherwise.
    pub fn new() -> Self {
        FailingStore::default()
    }

    /// Fails every transaction from now on as `failure` says.
    pub fn fail_with(&self, failure: Failure) {
        self.failure.store(failure as u8, Ordering::SeqCst);
    }

    /// Fails the next `times` transactions `failure` would fail, then works again.
    pub fn fail_times(&self, failure: Failure, times: u32) {
        self.remaining.store(times, Ordering::SeqCst);
        self.fail_with(failure);
    }

    /// How many transactions were refused.
    pub fn refused(&self) -> u32 {
        *self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn check(&self, writing: bool) -> StoreResult<()> {
        let failure = self.failure.load(Ordering::SeqCst);
        if failure == Failure::None as u8 || (failure == Failure::Conflict as u8 && !writing) {
            return Ok(());
        }
        *self.seen.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        if self.remaining.load(Ordering::SeqCst) > 0 && self.remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.fail_with(Failure::None);
        }
        Err(if failure == Failure::Locked as u8 {
            StoreError::Locked
        } else if failure == Failure::Conflict as u8 {
            StoreError::Conflict("could not serialize access due to read/write dependencies".into())
        } else {
            StoreError::Backend(BACKEND_MESSAGE.into())
        })
    }
}

impl Store for FailingStore {
    type Read<'a> = <MemoryStore as Store>::Read<'a>;
    type Write<'a> = <MemoryStore as Store>::Write<'a>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        self.check(false)?;
        self.inner.read()
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        self.check(true)?;
        self.inner.write()
    }

    fn write_for(&self, properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        self.check(true)?;
        self.inner.write_for(properties)
    }

    fn group_commit(&self) -> usize {
        self.inner.group_commit()
    }

    fn sync_latency(&self) -> Option<std::time::Duration> {
        self.inner.sync_latency()
    }

    fn change_marks(&self) -> Option<std::sync::Arc<rental_core::store::ChangeMarks>> {
        self.inner.change_marks()
    }
}
