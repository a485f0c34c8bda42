//! The stay schedule of a running server (docs/API.md section 15): automatic
//! check-ins and check-outs within a minute of their time, and those missed while down.

use std::sync::Arc;
use std::time::Duration;

use rental_core::worker::CATCH_UP_DAYS;
use rental_core::{Rental, Store};
use tokio::sync::watch;

/// How often due check-ins and check-outs are looked for: well inside the
/// contract's 60 seconds.
pub const STAY_INTERVAL: Duration = Duration::from_secs(10);

/// Applies the due transitions at once, looking back [`CATCH_UP_DAYS`] (the
/// ones that fell due while the server was down), then every
/// [`STAY_INTERVAL`] over the last day, until `stop` changes. Each
/// transition is recorded with its event in one transaction, so a restart
/// never repeats one.
pub async fn run<S: Store + 'static>(rental: Arc<Rental<S>>, mut stop: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(STAY_INTERVAL);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut lookback = CATCH_UP_DAYS;
    loop {
        tokio::select! {
            _ = every.tick() => {
                let rental = Arc::clone(&rental);
                match tokio::task::spawn_blocking(move || rental.worker().apply_stay_schedule(lookback)).await {
                    Ok(Ok(changed)) => {
                        lookback = 1;
                        for b in changed {
                            tracing::info!(code = %b.code, property = %b.property, "stay transition applied by schedule");
                        }
                    }
                    Ok(Err(e)) => tracing::error!(error = %e, "stay schedule failed"),
                    Err(e) => tracing::error!(error = %e, "stay schedule task failed"),
                }
            }
            _ = stop.changed() => return,
        }
    }
}
