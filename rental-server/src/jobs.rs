//! Background work of a running server: the checkout expiry, run at start
//! (for expiries that fell due while it was down) and then every second.

use std::sync::Arc;
use std::time::Duration;

use rental_core::{Rental, Store};
use tokio::sync::watch;

/// How often due checkout expiries are looked for.
pub const EXPIRY_INTERVAL: Duration = Duration::from_secs(1);

/// Runs `Rental::expire_due` every [`EXPIRY_INTERVAL`] until `stop` changes.
pub async fn expire_checkouts<S: Store + 'static>(rental: Arc<Rental<S>>, mut stop: watch::Receiver<bool>) {
    if rental.settings().checkout_ttl.is_none() {
        return;
    }
    let mut tick = tokio::time::interval(EXPIRY_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        let rental = Arc::clone(&rental);
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
