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
//! - [`routes`] is the route table: each endpoint once, with its method,
//!   path, scope, handler and OpenAPI operation; `answer` takes a request
//!   through it. [`handlers`] (and `blocks`, `messages`, `health`, `backup`)
//!   answer the endpoints, through [`reply`]; [`problem`] is the one place
//!   errors become statuses and codes.
//! - Every response carries `X-Request-Id`; every request is logged once.
//! - Store calls run on tokio's blocking pool, never on the runtime's workers;
//!   reads the engine answers from memory (`Rental::with_read_cache`) run inline.
//! - [`jobs`] runs the background work ([`Jobs`]) and listens for SIGINT/SIGTERM;
//!   [`AppState`] is what handlers and jobs share, made from a [`ServerConfig`].
//! - [`book`] serves the guests' booking page under `/book`, and [`stay`]
//!   each booking's private stay page under `/stay`, both in the guest's
//!   language from [`lang`]'s tables.
//! - [`admin`] serves the dashboard's HTML pages under `/admin`; [`client_addr`]
//!   tells it the client's address, behind trusted reverse proxies too.
//! - In the background, [`dispatcher`] delivers webhooks and [`feed_pulls`] pulls the
//!   channels' feeds on a schedule; both go out through [`outbound`];
//!   [`mail`] sends guest messages over SMTP.

#![deny(missing_docs)]

pub mod admin;
mod answer;
pub mod backup;
pub mod blocks;
pub mod book;
pub mod client_addr;
mod config;
pub mod connection;
pub mod dispatcher;
pub mod feed_pulls;
pub mod handlers;
pub mod health;
pub mod jobs;
pub mod lang;
mod lease_owner;
pub mod ledger;
pub mod log_safe;
pub mod mail;
pub mod messages;
pub mod metrics;
pub mod openapi;
pub mod outbound;
pub mod payments;
pub mod problem;
pub mod ratelimit;
pub mod reply;
pub mod request;
pub mod routes;
mod service;
mod state;
pub mod stay;
pub mod stay_schedule;
mod streamed;

pub use config::{SHUTDOWN_GRACE, ServerConfig, WebhookConfig};
pub use jobs::Jobs;
pub use service::RentalService;
pub use state::AppState;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use http::Request;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use rental_core::Store;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::connection::body::{Body, ReadyClock};
use crate::connection::idle::IdleTimeout;
use crate::connection::malformed::MalformedAnswers;
use crate::connection::per_address::{AddressSlot, AddressSlots};
use crate::connection::roster::{Room, Roster, Seat};
use crate::connection::stall::WriteStall;

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
    let cap = state.limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(cap));
    let per_address = AddressSlots::new(state.limits.max_per_address, state.proxies.clone());
    let roster = Roster::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(address_slot) = per_address.take(peer.ip()) else {
            refuse(stream, peer, "it holds its cap of connections");
            continue;
        };
        let slot = match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => slot,
            // Full: a client under its fair share gets the slot of an idle
            // connection of a client over it; one at its share is refused.
            Err(_) => match roster.make_room(address_slot.client(), cap) {
                Room::OverShare => {
                    refuse(stream, peer, "the server is full and it holds its fair share");
                    continue;
                }
                Room::Made | Room::Wait => tokio::select! {
                    // (The semaphore is never closed, so acquiring fails only in theory.)
                    Ok(slot) = Arc::clone(&slots).acquire_owned() => slot,
                    () = &mut shutdown => break,
                },
            },
        };
        let seat = roster.seat(address_slot.client());
        serve_connection(&service, &graceful, stream, peer, (slot, address_slot, seat));
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

/// Closes a connection from a client that holds its cap of them, with a
/// reset: the client learns at once, and no `TIME_WAIT` is left here.
fn refuse(stream: TcpStream, peer: SocketAddr, why: &'static str) {
    tracing::debug!(%peer, "refusing a connection: {why}");
    let _ = stream.set_zero_linger();
    drop(stream);
}

/// Serves one accepted connection on its own task, holding its slots until it closes.
fn serve_connection<S: Store + 'static>(
    service: &RentalService<S>,
    graceful: &GracefulShutdown,
    stream: TcpStream,
    peer: SocketAddr,
    slot: (OwnedSemaphorePermit, AddressSlot, Seat),
) {
    let state = service.state();
    let (busy, close) = (Arc::clone(&slot.2.busy), Arc::clone(&slot.2.close));
    let limits = state.limits;
    let ready = ReadyClock::new();
    let io = WriteStall::new(stream, limits.write_stall_timeout, limits.min_write_rate);
    let io = IdleTimeout::new(io, limits.keep_alive_idle, ready.clone());
    let ids = Arc::clone(state);
    let io = MalformedAnswers::new(io, move || answer::new_request_id(&ids));
    let service = service.for_client(peer.ip());
    let answer = service_fn(move |req: Request<hyper::body::Incoming>| {
        let req = req.map(|body| Body::new(body, ready.since(), &limits));
        let (service, busy) = (service.clone(), Arc::clone(&busy));
        busy.store(true, Ordering::Relaxed);
        async move {
            let response = service.answer(req).await;
            busy.store(false, Ordering::Relaxed);
            // A backup is sent as it is written; every other answer is whole.
            Ok::<_, Infallible>(streamed::assemble(response))
        }
    });
    let conn = graceful.watch(limits.builder().serve_connection(TokioIo::new(io), answer));
    tokio::spawn(async move {
        tokio::select! {
            ended = conn => if let Err(e) = ended {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            },
            () = close.notified() => tracing::debug!(%peer, "closed an idle connection to make room for another client"),
        }
        drop(slot);
    });
}
