//! `rental-server`: the reference HTTP server of `rental-core`, on hyper 1
//! and tokio. It parses, calls one library use case, and renders.
//!
//! - [`serve`] takes an already bound listener and a shutdown future, so
//!   `main` binds and passes `ctrl_c()`, and tests bind `127.0.0.1:0`.
//! - [`RentalService`] is everything `serve` answers as one hyper service, for
//!   a program that mounts it in its own server, under a path prefix if it
//!   likes; [`Jobs`] runs the background work beside it. `serve` is the
//!   two with an accept loop and the connection limits around them.
//! - [`connection`] bounds each connection: deadlines for the request head
//!   and body, a minimum body rate, a write-stall reset, an idle time-out,
//!   caps on how many are open overall and per client address, and problem
//!   details for requests hyper cannot parse.
//! - [`routes`] maps paths to endpoints; [`handlers`] holds one function per
//!   endpoint; [`problem`] is the one place errors become statuses and codes.
//! - Every response carries `X-Request-Id`; every request is logged once.
//! - Store calls run on tokio's blocking pool, never on the runtime's workers;
//!   reads the engine answers from memory (`Rental::with_read_cache`) run inline.
//! - [`jobs`] runs the checkout expiry and listens for SIGINT/SIGTERM.
//! - [`book`] serves the guests' booking page under `/book`.
//! - [`admin`] serves the dashboard's HTML pages under `/admin`; [`client_addr`]
//!   tells it the client's address, behind trusted reverse proxies too.
//! - In the background, [`dispatcher`] delivers webhooks and [`feed_pulls`] pulls the
//!   channels' feeds on a schedule; both go out through [`outbound`];
//!   [`mail`] sends guest messages over SMTP.

#![deny(missing_docs)]

pub mod admin;
pub mod backup;
pub mod blocks;
pub mod book;
pub mod client_addr;
pub mod connection;
pub mod dispatcher;
pub mod feed_pulls;
pub mod handlers;
pub mod health;
pub mod jobs;
mod lease_owner;
pub mod log_safe;
pub mod mail;
pub mod messages;
pub mod metrics;
pub mod openapi;
pub mod outbound;
pub mod problem;
pub mod ratelimit;
pub mod request;
pub mod routes;
mod service;
pub mod stay_schedule;

pub use service::RentalService;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use rental_core::keys::{ApiKey, Scope};
use rental_core::{Rental, Store};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tracing::Instrument;

use crate::client_addr::TrustedProxies;
use crate::connection::ConnectionLimits;
use crate::connection::body::{Body, ReadyClock};
use crate::connection::idle::IdleTimeout;
use crate::connection::malformed::MalformedAnswers;
use crate::connection::per_address::{AddressSlot, AddressSlots};
use crate::connection::stall::WriteStall;
use crate::handlers::Reply;
use crate::problem::Problem;
use crate::ratelimit::{Limiter, RateLimit};
use crate::request::Query;
use crate::routes::Route;

/// The request id header, given by the client or made here.
const X_REQUEST_ID: http::HeaderName = http::HeaderName::from_static("x-request-id");

/// How long shutdown may take, by default: requests in flight and webhook
/// attempts in flight get this long to finish after SIGTERM.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The part of the grace kept for the dispatcher's last write: attempts in
/// flight are cut this long before the grace ends (or at half the grace, if shorter).
const FINAL_WRITE: Duration = Duration::from_millis(500);

/// What the server needs besides the engine.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Per-key request rate; `None` for no limit.
    pub rate_limit: Option<RateLimit>,
    /// Webhook deliveries; `None` runs no dispatcher.
    pub webhooks: Option<WebhookConfig>,
    /// Pulls of the channels' feeds: the client's rules and the schedule.
    pub feed_pulls: feed_pulls::FeedPullConfig,
    /// The admin dashboard's cookie and session settings.
    pub admin: admin::AdminConfig,
    /// Time-outs for request heads and idle connections, and the connection cap.
    pub connections: ConnectionLimits,
    /// The reverse proxies whose `X-Forwarded-For` names the client (for the login throttle).
    pub trusted_proxies: TrustedProxies,
    /// How long shutdown may take ([`SHUTDOWN_GRACE`]).
    pub shutdown_grace: Duration,
    /// The booking page's token secret, token lifetime and post limit.
    pub book: book::BookConfig,
    /// A second address serving `GET /metrics` alone, without a key (`metricsListen`); `None`: off.
    pub metrics_listen: Option<SocketAddr>,
    /// Guest messages: the mail server, sender and retries (none: recorded `skipped`).
    pub mail: mail::MailConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            rate_limit: None,
            webhooks: None,
            feed_pulls: feed_pulls::FeedPullConfig::default(),
            admin: admin::AdminConfig::default(),
            connections: ConnectionLimits::default(),
            trusted_proxies: TrustedProxies::default(),
            shutdown_grace: SHUTDOWN_GRACE,
            book: book::BookConfig::default(),
            metrics_listen: None,
            mail: mail::MailConfig::default(),
        }
    }
}

/// How the server delivers webhooks.
#[derive(Debug, Clone, Default)]
pub struct WebhookConfig {
    /// Retries, timeout and concurrency.
    pub dispatch: dispatcher::DispatchConfig,
    /// The outbound client's rules (private targets, User-Agent).
    pub outbound: outbound::OutboundConfig,
}

/// Everything a request handler can reach.
#[derive(Debug)]
pub struct AppState<S> {
    rental: Arc<Rental<S>>,
    webhooks: Option<WebhookConfig>,
    feed_puller: Arc<feed_pulls::FeedPuller<S>>,
    sync_interval: Option<Duration>,
    limiter: Limiter,
    limits: ConnectionLimits,
    grace: Duration,
    proxies: TrustedProxies,
    admin: admin::Admin,
    book: book::Book,
    draining: AtomicBool,
    /// The process's counters and histograms ([`crate::metrics`]).
    metrics: crate::metrics::Metrics,
    metrics_listen: Option<SocketAddr>,
    /// Held by the one readiness probe running ([`health`]).
    probe: Arc<tokio::sync::Mutex<()>>,
    next_request: AtomicU64,
    /// Requests answered so far: how the dispatcher tells a busy server.
    requests: Arc<AtomicU64>,
    /// How guest messages go out.
    mail: mail::MailConfig,
    /// Outcomes of guest messages per kind, for metrics.
    message_counters: Arc<mail::MessageCounters>,
}

impl<S: Store + 'static> AppState<S> {
    /// The state of a server over `rental`.
    pub fn new(rental: Arc<Rental<S>>, config: &ServerConfig) -> Arc<Self> {
        Arc::new(AppState {
            feed_puller: Arc::new(feed_pulls::FeedPuller::new(Arc::clone(&rental), &config.feed_pulls)),
            sync_interval: config.feed_pulls.interval,
            rental,
            webhooks: config.webhooks.clone(),
            limiter: Limiter::new(config.rate_limit),
            limits: config.connections,
            grace: config.shutdown_grace,
            proxies: config.trusted_proxies.clone(),
            admin: admin::Admin::new(config.admin.clone()),
            book: book::Book::new(&config.book),
            draining: AtomicBool::new(false),
            probe: Arc::new(tokio::sync::Mutex::new(())),
            metrics: crate::metrics::Metrics::install(),
            metrics_listen: config.metrics_listen,
            next_request: AtomicU64::new(1),
            requests: Arc::new(AtomicU64::new(0)),
            mail: config.mail.clone(),
            message_counters: Arc::new(mail::MessageCounters::default()),
        })
    }

    /// Outcomes of guest messages per kind since start (`rental_messages_total{kind,outcome}`).
    pub fn message_counters(&self) -> &Arc<mail::MessageCounters> {
        &self.message_counters
    }

    /// How guest messages go out (the admin's test message uses it too).
    pub fn mail(&self) -> &mail::MailConfig {
        &self.mail
    }

    /// The engine.
    pub fn rental(&self) -> &Arc<Rental<S>> {
        &self.rental
    }

    /// The job that pulls the channels' feeds.
    pub fn feed_puller(&self) -> &Arc<feed_pulls::FeedPuller<S>> {
        &self.feed_puller
    }
}

/// Serves HTTP/1 on `listener` until `shutdown` completes, then stops
/// accepting (the listener is closed, so new connections are refused at once
/// and a load balancer moves on), answers requests that arrive on open
/// connections with 503, lets requests and webhook attempts in flight finish
/// within [`ServerConfig::shutdown_grace`], and returns: the whole shutdown
/// takes at most the grace. The dispatcher starts no new attempt once shutdown begins.
///
/// Connections are bounded by [`ServerConfig::connections`]: with as many open
/// as the cap allows, it accepts the next only once one has closed, and a
/// client address that holds its own cap has its next connection reset.
pub async fn serve<S: Store + 'static>(
    listener: TcpListener,
    state: Arc<AppState<S>>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let jobs = Jobs::start(&state).await?;
    let service = RentalService::new(Arc::clone(&state));
    tokio::pin!(shutdown);
    let slots = Arc::new(Semaphore::new(state.limits.max_connections.max(1)));
    let per_address = AddressSlots::new(state.limits.max_per_address, state.proxies.clone());
    loop {
        // At the cap, wait for a connection to close before accepting another.
        // (The semaphore is never closed, so acquiring fails only in theory.)
        let slot = tokio::select! {
            Ok(slot) = Arc::clone(&slots).acquire_owned() => slot,
            () = &mut shutdown => break,
        };
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    if let Some(address_slot) = per_address.take(peer.ip()) {
                        serve_connection(&service, &graceful, stream, peer, (slot, address_slot));
                    } else {
                        refuse(stream, peer, state.limits.max_per_address);
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    state.draining.store(true, Ordering::SeqCst);
    let deadline = tokio::time::Instant::now() + state.grace;
    tracing::info!(grace = ?state.grace, "shutting down: finishing requests and webhook attempts in flight");
    jobs.signal(deadline, state.grace);
    if tokio::time::timeout_at(deadline, graceful.shutdown()).await.is_err() {
        tracing::warn!("requests still running after {:?}; stopping anyway", state.grace);
    }
    jobs.finish(deadline).await;
    Ok(())
}

/// The background work of a server: the checkout expiry and retention
/// ([`jobs::housekeeping`]), the stay schedule, webhook deliveries (when
/// [`ServerConfig::webhooks`] is set) and scheduled calendar pulls (when
/// [`feed_pulls::FeedPullConfig::interval`] is). [`serve`] runs them; a program
/// that mounts a [`RentalService`] in its own server starts them beside it.
#[derive(Debug)]
pub struct Jobs {
    stop: tokio::sync::watch::Sender<bool>,
    /// When webhook attempts in flight are cut, once shutdown begins.
    drain: tokio::sync::watch::Sender<Option<tokio::time::Instant>>,
    housekeeping: tokio::task::JoinHandle<()>,
    stays: tokio::task::JoinHandle<()>,
    dispatcher: Option<tokio::task::JoinHandle<()>>,
    /// Sending guest messages (or recording them `skipped` without `smtp`).
    mailer: tokio::task::JoinHandle<()>,
    scheduler: Option<tokio::task::JoinHandle<()>>,
    /// Serving `/metrics` on `metricsListen`, when set.
    metrics_server: Option<tokio::task::JoinHandle<()>>,
    upkeep: tokio::task::JoinHandle<()>,
}

impl Jobs {
    /// Starts the background work of `state` on the current tokio runtime,
    /// after voiding the leases an earlier run of a store this process alone
    /// holds left behind. Fails when the outbound HTTP client for webhooks
    /// cannot be built or `metricsListen` cannot be bound.
    pub async fn start<S: Store + 'static>(state: &Arc<AppState<S>>) -> std::io::Result<Jobs> {
        void_earlier_leases(&state.rental).await;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let housekeeping = tokio::spawn(jobs::housekeeping(Arc::clone(&state.rental), stopped.clone()));
        let stays = tokio::spawn(stay_schedule::run(Arc::clone(&state.rental), stopped.clone()));
        let (drain, drain_deadline) = tokio::sync::watch::channel(None);
        let dispatcher = match &state.webhooks {
            Some(webhooks) => {
                let outbound = outbound::Outbound::new(webhooks.outbound.clone())
                    .map_err(|e| std::io::Error::other(format!("cannot build the outbound HTTP client: {e}")))?;
                let requests = Arc::clone(&state.requests);
                let dispatch = dispatcher::run(
                    Arc::clone(&state.rental),
                    outbound,
                    webhooks.dispatch.clone(),
                    requests,
                    drain_deadline.clone(),
                );
                Some(tokio::spawn(dispatch))
            }
            None => None,
        };
        let mailer = tokio::spawn(mail::run(
            Arc::clone(&state.rental),
            state.mail.clone(),
            Arc::clone(&state.message_counters),
            drain_deadline,
        ));
        let scheduler = state
            .sync_interval
            .map(|every| tokio::spawn(feed_pulls::schedule(Arc::clone(&state.feed_puller), every, stopped.clone())));
        let metrics_server = match state.metrics_listen {
            Some(addr) => {
                let listener = TcpListener::bind(addr)
                    .await
                    .map_err(|e| std::io::Error::other(format!("cannot listen for metrics on {addr}: {e}")))?;
                tracing::info!(addr = %listener.local_addr()?, "serving /metrics without a key");
                Some(tokio::spawn(serve_metrics(listener, Arc::clone(state), stopped.clone())))
            }
            None => None,
        };
        let upkeep = tokio::spawn(metrics_upkeep(state.metrics.clone(), stopped));
        Ok(Jobs { stop, drain, housekeeping, stays, dispatcher, mailer, scheduler, metrics_server, upkeep })
    }

    /// Stops the background work: no new webhook attempt starts, attempts in
    /// flight get most of `grace` to finish, and whatever still runs when
    /// `grace` is over is aborted.
    pub async fn stop(self, grace: Duration) {
        let deadline = tokio::time::Instant::now() + grace;
        self.signal(deadline, grace);
        self.finish(deadline).await;
    }

    /// Tells every job to stop, webhook attempts in flight to end a little before `deadline`.
    fn signal(&self, deadline: tokio::time::Instant, grace: Duration) {
        let _ = self.drain.send(Some(deadline - FINAL_WRITE.min(grace / 2)));
        let _ = self.stop.send(true);
    }

    /// Waits for every job until `deadline`, then aborts what still runs.
    async fn finish(self, deadline: tokio::time::Instant) {
        finish(deadline, "the housekeeping job", Some(self.housekeeping)).await;
        finish(deadline, "the stay schedule", Some(self.stays)).await;
        finish(deadline, "the feed sync schedule", self.scheduler).await;
        finish(deadline, "the webhook dispatcher", self.dispatcher).await;
        finish(deadline, "the guest message sender", Some(self.mailer)).await;
        finish(deadline, "the metrics listener", self.metrics_server).await;
        finish(deadline, "the metrics upkeep", Some(self.upkeep)).await;
    }
}

/// Folds histogram samples into their buckets every [`crate::metrics::UPKEEP_INTERVAL`] until `stop`.
async fn metrics_upkeep(metrics: crate::metrics::Metrics, mut stop: tokio::sync::watch::Receiver<bool>) {
    let mut every = tokio::time::interval(crate::metrics::UPKEEP_INTERVAL);
    loop {
        tokio::select! {
            _ = every.tick() => metrics.upkeep(),
            _ = stop.changed() => return,
        }
    }
}

/// Serves `GET /metrics` without a key on `metricsListen` (an address only
/// the scraper reaches), and 404 for anything else, until `stop`.
async fn serve_metrics<S: Store + 'static>(
    listener: TcpListener,
    state: Arc<AppState<S>>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "metrics accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stop.changed() => return,
        };
        let state = Arc::clone(&state);
        let service = service_fn(move |req: Request<hyper::body::Incoming>| {
            let state = Arc::clone(&state);
            async move {
                let reply = if req.method() == http::Method::GET && req.uri().path() == "/metrics" {
                    crate::metrics::response(&state.metrics, &state.rental).await
                } else {
                    Err(Problem::not_found("this address serves GET /metrics alone"))
                };
                Ok::<_, Infallible>(reply.unwrap_or_else(Problem::into_response))
            }
        });
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(Duration::from_secs(60), conn).await;
        });
    }
}

/// On a store this process alone holds (redb locks its file), the leases in
/// it were taken by an earlier run, which is gone: they are void, so its
/// deliveries and pulls resume at once rather than when the leases lapse.
/// A shared store ([`Store::change_marks`]) keeps them: another live process may hold them.
async fn void_earlier_leases<S: Store + 'static>(rental: &Arc<Rental<S>>) {
    let rental = Arc::clone(rental);
    match tokio::task::spawn_blocking(move || rental.operations().void_leases()).await {
        Ok(Ok(0)) => {}
        Ok(Ok(voided)) => tracing::info!(voided, "voided the leases of an earlier run; their work resumes now"),
        Ok(Err(e)) => tracing::warn!(error = %e, "cannot void the leases of an earlier run; they will lapse"),
        Err(e) => tracing::error!(error = %e, "the lease voiding task failed"),
    }
}

/// Waits for a background task until `deadline`, then aborts it.
async fn finish(deadline: tokio::time::Instant, name: &str, task: Option<tokio::task::JoinHandle<()>>) {
    let Some(mut task) = task else { return };
    match tokio::time::timeout_at(deadline, &mut task).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "{name} failed"),
        Err(_) => {
            tracing::warn!("{name} still running at the end of the shutdown grace; stopping it");
            task.abort();
        }
    }
}

/// Closes a connection from a client that holds its cap of them, with a
/// reset: the client learns at once, and no `TIME_WAIT` is left here.
fn refuse(stream: TcpStream, peer: SocketAddr, cap: usize) {
    tracing::debug!(%peer, cap, "refusing a connection: this address holds its cap");
    let _ = stream.set_zero_linger();
    drop(stream);
}

/// Serves one accepted connection on its own task, holding its slots until it closes.
fn serve_connection<S: Store + 'static>(
    service: &RentalService<S>,
    graceful: &GracefulShutdown,
    stream: TcpStream,
    peer: SocketAddr,
    slot: (OwnedSemaphorePermit, AddressSlot),
) {
    let state = service.state();
    let limits = state.limits;
    let ready = ReadyClock::new();
    let io = WriteStall::new(stream, limits.write_stall_timeout);
    let io = IdleTimeout::new(io, limits.keep_alive_idle, ready.clone());
    let ids = Arc::clone(state);
    let io = MalformedAnswers::new(io, move || new_request_id(&ids));
    let service = service.for_client(peer.ip());
    let answer = service_fn(move |req: Request<hyper::body::Incoming>| {
        let req = req.map(|body| Body::new(body, ready.since(), &limits));
        let service = service.clone();
        async move { Ok::<_, Infallible>(service.answer(req).await) }
    });
    let conn = graceful.watch(limits.builder().serve_connection(TokioIo::new(io), answer));
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!(%peer, error = %e, "connection ended with an error");
        }
        drop(slot);
    });
}

/// One request, start to finish: id, log line, auth, rate limit, route.
async fn handle<S: Store + 'static>(
    state: Arc<AppState<S>>,
    peer: std::net::IpAddr,
    req: Request<Body>,
) -> Response<Full<Bytes>> {
    let started = Instant::now();
    state.requests.fetch_add(1, Ordering::Relaxed);
    let request_id = request_id(&state, &req);
    let (method, path) = (req.method().clone(), req.uri().path().to_owned());
    // The route template, never the raw path: a path can carry a token (a booking page link).
    let route = routes::label(&method, &path);
    // A client may send any method, 300 KB long: the log holds a bounded, escaped one.
    let logged_method = log_safe::method(&method).into_owned();
    let span = tracing::info_span!("request", requestId = %request_id, method = %logged_method, route);
    let mut response = async {
        // Health and readiness answer for themselves while draining: alive, and not ready.
        if state.draining.load(Ordering::SeqCst) && !matches!(path.as_str(), "/healthz" | "/readyz") {
            return Problem::unavailable("the server is shutting down").into_response();
        }
        if admin::owns(&path) {
            return admin::handle(&state, peer, req).await;
        }
        if book::owns(&path) {
            let client = state.proxies.client(peer, req.headers());
            return book::handle(&state, client, req).await;
        }
        dispatch(&state, req).await
    }
    .instrument(span)
    .await;
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(X_REQUEST_ID, id);
    }
    let took = started.elapsed();
    crate::metrics::request(&method, route, response.status(), took);
    let status = response.status().as_u16();
    let duration_ms = (took.as_secs_f64() * 100_000.0).round() / 100.0;
    let key_id = response.extensions().get::<KeyId>().map(|k| k.0.clone());
    tracing::info!(
        target: "rental::access",
        requestId = %request_id, method = %logged_method, route, status, durationMs = duration_ms, keyId = key_id.as_deref(), "request"
    );
    response
}

/// The answer to a request the service does not serve (outside its path
/// prefix), with its id and log line like any other.
fn handle_outside<S>(state: &AppState<S>, req: &Request<Body>, problem: Problem) -> Response<Full<Bytes>> {
    state.requests.fetch_add(1, Ordering::Relaxed);
    let request_id = request_id(state, req);
    let mut response = problem.into_response();
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(X_REQUEST_ID, id);
    }
    let (method, status) = (log_safe::method(req.method()), response.status().as_u16());
    tracing::info!(target: "rental::access", requestId = %request_id, %method, route = "outside", status, durationMs = 0.0, "request");
    response
}

/// The client's `X-Request-Id` when it is sensible, else a new one.
fn request_id<S>(state: &AppState<S>, req: &Request<Body>) -> String {
    let given = req.headers().get(X_REQUEST_ID).and_then(|v| v.to_str().ok());
    match given {
        Some(id) if (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic()) => id.to_owned(),
        _ => new_request_id(state),
    }
}

/// A new request id, unique in this process.
fn new_request_id<S>(state: &AppState<S>) -> String {
    format!("req_{:x}_{:06}", std::process::id(), state.next_request.fetch_add(1, Ordering::Relaxed))
}

/// The id of the key a request was made with, kept on its response for the access log.
#[derive(Debug, Clone)]
struct KeyId(String);

/// Routes an API request and answers it, problems included; the response
/// carries the [`KeyId`] of the key that authenticated it.
async fn dispatch<S: Store + 'static>(state: &Arc<AppState<S>>, req: Request<Body>) -> Response<Full<Bytes>> {
    let mut key_id = None;
    let mut response = route_request(state, req, &mut key_id).await.unwrap_or_else(Problem::into_response);
    if let Some(id) = key_id {
        response.extensions_mut().insert(KeyId(id));
    }
    response
}

async fn route_request<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    mut req: Request<Body>,
    key_id: &mut Option<String>,
) -> Reply {
    let route = routes::resolve(req.method(), req.uri().path())?;
    let mut reader = false;
    if let Some(scope) = route.scope() {
        let key = authenticate(state, req.headers(), scope).await?;
        *key_id = Some(key.id.clone());
        req.body_mut().credential_proven();
        state.limiter.check(&key.id, Instant::now()).map_err(|wait| {
            Problem::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", "too many requests for this key; slow down")
                .with_header(header::RETRY_AFTER, wait.to_string())
        })?;
        reader = key.allows(Scope::Read);
    }
    let (parts, body) = req.into_parts();
    let query = Query::of(&parts.uri)?;
    let rental = &state.rental;
    match route {
        Route::OpenApi => Ok(openapi::response()),
        Route::ListProperties => handlers::list_properties(rental).await,
        Route::GetProperty(slug) => handlers::get_property(rental, slug).await,
        Route::Availability(slug) => handlers::availability(rental, slug, &query).await,
        Route::ListBlocks(slug) => blocks::list(rental, slug, &query).await,
        Route::CreateBlock(slug) => blocks::create(rental, slug, &request::body(&parts.headers, body).await?).await,
        Route::DeleteBlock(slug, id) => blocks::delete(rental, slug, id).await,
        Route::Quote => handlers::quote(rental, &request::body(&parts.headers, body).await?).await,
        Route::ListBookings => handlers::list_bookings(rental, &query).await,
        Route::CreateBooking => {
            let bytes = request::body(&parts.headers, body).await?;
            handlers::create_booking(rental, &parts.headers, &bytes, reader).await
        }
        Route::GetBooking(code) => handlers::get_booking(rental, code).await,
        Route::PatchBooking(code) => {
            handlers::patch_booking(rental, code, &request::body(&parts.headers, body).await?, reader).await
        }
        Route::ListMessages(code) => messages::list(rental, code).await,
        Route::ResendMessage(code) => {
            messages::resend(rental, code, &request::body(&parts.headers, body).await?, reader).await
        }
        Route::Summary => handlers::summary(rental).await,
        Route::Sync => handlers::sync(&state.feed_puller, &query).await,
        Route::SyncStatus => handlers::sync_status(rental).await,
        Route::Calendar(slug) => handlers::calendar(rental, slug, &query, &parts.headers).await,
        Route::Healthz => health::healthz(),
        Route::Readyz => health::readyz(state).await,
        Route::Metrics => crate::metrics::response(&state.metrics, rental).await,
        Route::Backup => backup::download(rental).await,
    }
}

/// The key of the request if it is valid and has `scope`: 401 or 403 otherwise.
/// Runs before the body is read.
async fn authenticate<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    headers: &http::HeaderMap,
    scope: Scope,
) -> Result<Arc<ApiKey>, Problem> {
    let Some(secret) = request::bearer(headers) else {
        return Err(Problem::unauthorized("send an API key as Authorization: Bearer <key>"));
    };
    let key = if let Some(key) = state.rental.operations().authenticate_from_memory(secret) {
        Some(key)
    } else {
        let secret = secret.to_owned();
        handlers::blocking(&state.rental, move |r| r.authenticate(&secret)).await?.map(Arc::new)
    };
    let key = key.ok_or_else(|| Problem::unauthorized("the API key is unknown or revoked"))?;
    if key.allows(scope) {
        Ok(key)
    } else {
        Err(Problem::new(StatusCode::FORBIDDEN, "insufficient_scope", format!("this key lacks the {scope} scope")))
    }
}
