//! `rental-server`: the reference HTTP server of `rental-core`, on hyper 1
//! and tokio. It parses, calls one library use case, and renders.
//!
//! - [`serve`] takes an already bound listener and a shutdown future, so
//!   `main` binds and passes `ctrl_c()`, and tests bind `127.0.0.1:0`.
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
//! - In the background, [`dispatcher`] delivers webhooks and [`ical_sync`] pulls the
//!   channels' calendars on a schedule; both go out through [`outbound`].

#![deny(missing_docs)]

pub mod admin;
pub mod blocks;
pub mod book;
pub mod client_addr;
pub mod connection;
pub mod creations;
pub mod dispatcher;
pub mod handlers;
pub mod ical_sync;
pub mod jobs;
mod lease_owner;
pub mod mail;
pub mod messages;
pub mod openapi;
pub mod outbound;
pub mod problem;
pub mod ratelimit;
pub mod request;
pub mod routes;
pub mod stay_schedule;

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
    /// Channel calendar pulls: the client's rules and the schedule.
    pub ical: ical_sync::IcalConfig,
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
    /// Guest messages: the mail server, sender and retries (none: recorded `skipped`).
    pub mail: mail::MailConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            rate_limit: None,
            webhooks: None,
            ical: ical_sync::IcalConfig::default(),
            admin: admin::AdminConfig::default(),
            connections: ConnectionLimits::default(),
            trusted_proxies: TrustedProxies::default(),
            shutdown_grace: SHUTDOWN_GRACE,
            book: book::BookConfig::default(),
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
    syncer: Arc<ical_sync::Syncer<S>>,
    sync_interval: Option<Duration>,
    limiter: Limiter,
    limits: ConnectionLimits,
    grace: Duration,
    proxies: TrustedProxies,
    admin: admin::Admin,
    book: book::Book,
    draining: AtomicBool,
    next_request: AtomicU64,
    /// Requests answered so far: how the dispatcher tells a busy server.
    requests: Arc<AtomicU64>,
    /// Booking creations gathered into groups (started with the first).
    creations: std::sync::OnceLock<creations::Creations>,
    /// How guest messages go out.
    mail: mail::MailConfig,
    /// Outcomes of guest messages per kind, for metrics.
    message_counters: Arc<mail::MessageCounters>,
}

impl<S: Store + 'static> AppState<S> {
    /// The state of a server over `rental`.
    pub fn new(rental: Arc<Rental<S>>, config: &ServerConfig) -> Arc<Self> {
        Arc::new(AppState {
            syncer: Arc::new(ical_sync::Syncer::new(Arc::clone(&rental), &config.ical)),
            sync_interval: config.ical.interval,
            rental,
            webhooks: config.webhooks.clone(),
            limiter: Limiter::new(config.rate_limit),
            limits: config.connections,
            grace: config.shutdown_grace,
            proxies: config.trusted_proxies.clone(),
            admin: admin::Admin::new(config.admin.clone()),
            book: book::Book::new(&config.book),
            draining: AtomicBool::new(false),
            next_request: AtomicU64::new(1),
            requests: Arc::new(AtomicU64::new(0)),
            creations: std::sync::OnceLock::new(),
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

    /// The gatherer of booking creations, started with the first: the API and the booking page share it.
    pub fn creations(&self) -> &creations::Creations {
        self.creations.get_or_init(|| creations::Creations::start(Arc::clone(&self.rental)))
    }

    /// The channel calendar puller.
    pub fn syncer(&self) -> &Arc<ical_sync::Syncer<S>> {
        &self.syncer
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
    let (stop_jobs, jobs_stop) = tokio::sync::watch::channel(false);
    let housekeeping = tokio::spawn(jobs::housekeeping(Arc::clone(&state.rental), jobs_stop.clone()));
    let stays = tokio::spawn(stay_schedule::run(Arc::clone(&state.rental), jobs_stop.clone()));
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
        drain_deadline.clone(),
    ));
    let scheduler = state
        .sync_interval
        .map(|every| tokio::spawn(ical_sync::schedule(Arc::clone(&state.syncer), every, stop_jobs.subscribe())));
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
                        serve_connection(&state, &graceful, stream, peer, (slot, address_slot));
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
    let _ = drain.send(Some(deadline - FINAL_WRITE.min(state.grace / 2)));
    let _ = stop_jobs.send(true);
    if tokio::time::timeout_at(deadline, graceful.shutdown()).await.is_err() {
        tracing::warn!("requests still running after {:?}; stopping anyway", state.grace);
    }
    finish(deadline, "the housekeeping job", Some(housekeeping)).await;
    finish(deadline, "the stay schedule", Some(stays)).await;
    finish(deadline, "the feed sync schedule", scheduler).await;
    finish(deadline, "the webhook dispatcher", dispatcher).await;
    finish(deadline, "the guest message sender", Some(mailer)).await;
    Ok(())
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
    state: &Arc<AppState<S>>,
    graceful: &GracefulShutdown,
    stream: TcpStream,
    peer: SocketAddr,
    slot: (OwnedSemaphorePermit, AddressSlot),
) {
    let limits = state.limits;
    let ready = ReadyClock::new();
    let io = WriteStall::new(stream, limits.write_stall_timeout);
    let io = IdleTimeout::new(io, limits.keep_alive_idle, ready.clone());
    let ids = Arc::clone(state);
    let io = MalformedAnswers::new(io, move || new_request_id(&ids));
    let state = Arc::clone(state);
    let service = service_fn(move |req: Request<hyper::body::Incoming>| {
        let req = req.map(|body| Body::new(body, ready.since(), &limits));
        handle(Arc::clone(&state), peer.ip(), req)
    });
    let conn = graceful.watch(limits.builder().serve_connection(TokioIo::new(io), service));
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
) -> Result<Response<Full<Bytes>>, Infallible> {
    let started = Instant::now();
    state.requests.fetch_add(1, Ordering::Relaxed);
    let request_id = request_id(&state, &req);
    let (method, path) = (req.method().clone(), req.uri().path().to_owned());
    let span = tracing::info_span!("request", id = %request_id, %method, %path);
    let mut response = async {
        if state.draining.load(Ordering::SeqCst) {
            return Problem::unavailable("the server is shutting down").into_response();
        }
        if admin::owns(&path) {
            return admin::handle(&state, peer, req).await;
        }
        if book::owns(&path) {
            let client = state.proxies.client(peer, req.headers());
            return book::handle(&state, client, req).await;
        }
        dispatch(&state, req).await.unwrap_or_else(Problem::into_response)
    }
    .instrument(span)
    .await;
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(X_REQUEST_ID, id);
    }
    let status = response.status().as_u16();
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(target: "rental::access", id = %request_id, %method, %path, status, ms = format!("{ms:.2}"), "request");
    Ok(response)
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

async fn dispatch<S: Store + 'static>(state: &Arc<AppState<S>>, mut req: Request<Body>) -> Reply {
    let route = routes::resolve(req.method(), req.uri().path())?;
    let mut reader = false;
    if let Some(scope) = route.scope() {
        let key = authenticate(state, req.headers(), scope).await?;
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
            handlers::create_booking(state.creations(), &parts.headers, &bytes, reader).await
        }
        Route::GetBooking(code) => handlers::get_booking(rental, code).await,
        Route::PatchBooking(code) => {
            handlers::patch_booking(rental, code, &request::body(&parts.headers, body).await?, reader).await
        }
        Route::ListMessages(code) => messages::list(rental, code).await,
        Route::ResendMessage(code) => messages::resend(rental, code, &request::body(&parts.headers, body).await?).await,
        Route::Summary => handlers::summary(rental).await,
        Route::Sync => handlers::sync(&state.syncer, &query).await,
        Route::SyncStatus => handlers::sync_status(rental).await,
        Route::Calendar(slug) => handlers::calendar(rental, slug, &query, &parts.headers).await,
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
    let key = if let Some(key) = state.rental.authenticate_from_memory(secret) {
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
