//! A server's background work, started and stopped together as [`Jobs`]; here too the
//! checkout expiry (every second) and retention (every minute, docs/API.md section 18).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http::Request;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rental_core::worker::Pruned;
use rental_core::{Rental, Store};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::problem::Problem;
use crate::{AppState, dispatcher, feed_pulls, mail, outbound, stay_schedule};

/// How often due checkout expiries are looked for.
pub const EXPIRY_INTERVAL: Duration = Duration::from_secs(1);

/// How often retention looks for what it may remove.
pub const RETENTION_INTERVAL: Duration = Duration::from_secs(60);

/// Runs `Worker::expire_due` every [`EXPIRY_INTERVAL`] and `Worker::prune`
/// every [`RETENTION_INTERVAL`], each first at once, until `stop` changes.
/// Both run on the blocking pool, one at a time.
pub async fn housekeeping<S: Store + 'static>(rental: Arc<Rental<S>>, mut stop: watch::Receiver<bool>) {
    let mut expiry = tokio::time::interval(EXPIRY_INTERVAL);
    expiry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut retention = tokio::time::interval(RETENTION_INTERVAL);
    retention.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let holds_lapse = rental.settings().checkout_ttl.is_some();
    loop {
        let rental = Arc::clone(&rental);
        tokio::select! {
            _ = expiry.tick(), if holds_lapse => {
                match tokio::task::spawn_blocking(move || rental.worker().expire_due()).await {
                    Ok(Ok(expired)) => {
                        for b in expired {
                            tracing::info!(code = %b.code, property = %b.property, "checkout link expired; booking cancelled");
                        }
                    }
                    Ok(Err(e)) => tracing::error!(error = %e, "checkout expiry failed"),
                    Err(e) => tracing::error!(error = %e, "checkout expiry task failed"),
                }
            }
            _ = retention.tick() => {
                match tokio::task::spawn_blocking(move || rental.worker().prune()).await {
                    Ok(Ok(pruned)) => log_pruned(pruned),
                    Ok(Err(e)) => tracing::error!(error = %e, "retention failed"),
                    Err(e) => tracing::error!(error = %e, "retention task failed"),
                }
            }
            _ = stop.changed() => return,
        }
    }
}

fn log_pruned(pruned: Pruned) {
    if !pruned.is_empty() {
        let Pruned { deliveries, events, idempotency, documents, messages, test_messages, use_windows } = pruned;
        tracing::info!(
            deliveries,
            events,
            idempotency,
            documents,
            messages,
            test_messages,
            use_windows,
            "retention removed old records"
        );
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("received Ctrl-C"),
        () = term => tracing::info!("received SIGTERM"),
    }
}

/// The part of the grace kept for the dispatcher's last write: attempts in
/// flight are cut this long before the grace ends (or at half the grace, if shorter).
const FINAL_WRITE: Duration = Duration::from_millis(500);

/// The background work of a server: the checkout expiry and retention
/// ([`housekeeping`]), the stay schedule, webhook deliveries (when
/// [`crate::ServerConfig::webhooks`] is set) and scheduled calendar pulls (when
/// [`feed_pulls::FeedPullConfig::interval`] is). [`crate::serve`] runs them; a program
/// that mounts a [`crate::RentalService`] in its own server starts them beside it.
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
    /// Comparing open checkouts with the payment provider, when one is configured.
    reconciler: Option<tokio::task::JoinHandle<()>>,
}

impl Jobs {
    /// Starts the background work of `state` on the current tokio runtime,
    /// after voiding the leases an earlier run of a store this process alone
    /// holds left behind. Fails when the outbound HTTP client for webhooks
    /// cannot be built or `metricsListen` cannot be bound.
    pub async fn start<S: Store + 'static>(state: &Arc<AppState<S>>) -> std::io::Result<Jobs> {
        void_earlier_leases(&state.rental).await;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let housekeeping = tokio::spawn(housekeeping(Arc::clone(&state.rental), stopped.clone()));
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
        let reconciler = state.payments.clone().map(|provider| {
            tokio::spawn(crate::payments::reconcile::run(Arc::clone(&state.rental), provider, stopped.clone()))
        });
        let upkeep = tokio::spawn(metrics_upkeep(state.metrics.clone(), stopped));
        Ok(Jobs { stop, drain, housekeeping, stays, dispatcher, mailer, scheduler, metrics_server, upkeep, reconciler })
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
    pub(crate) fn signal(&self, deadline: tokio::time::Instant, grace: Duration) {
        let _ = self.drain.send(Some(deadline - FINAL_WRITE.min(grace / 2)));
        let _ = self.stop.send(true);
    }

    /// Waits for every job until `deadline`, then aborts what still runs.
    pub(crate) async fn finish(self, deadline: tokio::time::Instant) {
        finish(deadline, "the housekeeping job", Some(self.housekeeping)).await;
        finish(deadline, "the stay schedule", Some(self.stays)).await;
        finish(deadline, "the feed sync schedule", self.scheduler).await;
        finish(deadline, "the webhook dispatcher", self.dispatcher).await;
        finish(deadline, "the guest message sender", Some(self.mailer)).await;
        finish(deadline, "the metrics listener", self.metrics_server).await;
        finish(deadline, "the metrics upkeep", Some(self.upkeep)).await;
        finish(deadline, "the payment reconciler", self.reconciler).await;
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
    match tokio::task::spawn_blocking(move || rental.worker().void_leases()).await {
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
