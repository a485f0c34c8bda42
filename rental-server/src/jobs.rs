//! Background work of a running server: the checkout expiry, run at start
//! (for expiries that fell due while it was down) and then every second, and
//! retention (docs/API.md section 18), run at start and then every minute.

use std::sync::Arc;
use std::time::Duration;

use rental_core::{Pruned, Rental, Store};
use tokio::sync::watch;

/// How often due checkout expiries are looked for.
pub const EXPIRY_INTERVAL: Duration = Duration::from_secs(1);

/// How often retention looks for what it may remove.
pub const RETENTION_INTERVAL: Duration = Duration::from_secs(60);

/// Runs `Rental::expire_due` every [`EXPIRY_INTERVAL`] and `Operations::prune`
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
                match tokio::task::spawn_blocking(move || rental.expire_due()).await {
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
                match tokio::task::spawn_blocking(move || rental.operations().prune()).await {
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
        let Pruned { deliveries, events, idempotency } = pruned;
        tracing::info!(deliveries, events, idempotency, "retention removed old records");
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
