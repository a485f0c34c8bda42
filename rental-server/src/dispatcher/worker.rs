//! One worker: sends one webhook's claimed deliveries in event order and
//! records each attempt within a flush interval of its end, renewing its leases.
//!
//! Attempts are recorded as they finish, in small writes: at most
//! [`DispatchConfig::flush_every`] after the oldest unrecorded one ended, or
//! once [`DispatchConfig::flush_batch`] are waiting. Each such write also
//! renews the worker's leases on what it has not sent yet. A crash therefore
//! re-sends only the attempts of the last flush interval: every other one is
//! recorded. When shutdown begins the worker starts no new attempt; one in
//! flight may run until the drain deadline, then it is dropped unrecorded.
//! The last write records what finished and releases every lease left, so
//! another process (or the next start) claims those deliveries at once.

use std::sync::Arc;
use std::time::Duration;

use rental_core::delivery::Attempt;
use rental_core::worker::DueDelivery;
use rental_core::{Rental, Store};
use tokio::sync::watch;
use tokio::time::Instant;

use super::DispatchConfig;
use super::send::attempt;
use crate::outbound::Outbound;

/// What a worker shares with the dispatcher.
#[derive(Debug)]
pub(super) struct Crew<S> {
    /// The engine.
    pub rental: Arc<Rental<S>>,
    /// The outbound client.
    pub outbound: Outbound,
    /// How to send and record.
    pub config: Arc<DispatchConfig>,
    /// This dispatcher's lease owner name.
    pub owner: String,
    /// `Some(deadline)` once shutdown began: no new attempt, none past the deadline.
    pub stop: watch::Receiver<Option<Instant>>,
}

impl<S> Clone for Crew<S> {
    fn clone(&self) -> Self {
        Crew {
            rental: Arc::clone(&self.rental),
            outbound: self.outbound.clone(),
            config: Arc::clone(&self.config),
            owner: self.owner.clone(),
            stop: self.stop.clone(),
        }
    }
}

/// Attempts made and not yet recorded.
#[derive(Debug, Default)]
struct Unrecorded {
    attempts: Vec<(String, Attempt)>,
    /// When the oldest of them ended.
    since: Option<Instant>,
}

impl Unrecorded {
    fn push(&mut self, id: String, attempt: Attempt) {
        self.since.get_or_insert_with(Instant::now);
        self.attempts.push((id, attempt));
    }

    /// When they must be written, if there are any.
    fn due_at(&self, every: Duration) -> Option<Instant> {
        self.since.map(|since| since + every)
    }

    fn take(&mut self) -> Vec<(String, Attempt)> {
        self.since = None;
        std::mem::take(&mut self.attempts)
    }
}

/// Sends `deliveries` (one webhook's, claimed by `crew.owner`) one after the
/// other; a failed attempt or shutdown ends the run.
pub(super) async fn deliver<S: Store + 'static>(crew: Crew<S>, deliveries: Vec<DueDelivery>) {
    let mut held: Vec<String> = deliveries.iter().map(|d| d.delivery.id.clone()).collect();
    let mut unrecorded = Unrecorded::default();
    let cut_off = cut_off(crew.stop.clone());
    tokio::pin!(cut_off);
    for due in deliveries {
        if crew.stop.borrow().is_some() {
            break;
        }
        let sending = attempt(&crew.outbound, &crew.config, due, crew.rental.now());
        tokio::pin!(sending);
        let finished = loop {
            let flush_at = unrecorded.due_at(crew.config.flush_every);
            tokio::select! {
                done = &mut sending => break Some(done),
                () = sleep_until(flush_at) => flush(&crew, unrecorded.take(), &held, true).await,
                () = &mut cut_off => break None,
            }
        };
        let Some((id, made)) = finished else { break };
        let delivered = made.status.is_some_and(|s| (200..300).contains(&s));
        held.retain(|h| *h != id);
        unrecorded.push(id, made);
        if !delivered {
            break;
        }
        let flush_due = unrecorded.due_at(crew.config.flush_every).is_some_and(|at| at <= Instant::now());
        if flush_due || unrecorded.attempts.len() >= crew.config.flush_batch {
            flush(&crew, unrecorded.take(), &held, true).await;
        }
    }
    flush(&crew, unrecorded.take(), &held, false).await;
}

/// Completes at the drain deadline, once shutdown has set one (at once if the
/// dispatcher is gone without setting it).
async fn cut_off(mut stop: watch::Receiver<Option<Instant>>) {
    let deadline = match stop.wait_for(Option::is_some).await {
        Ok(deadline) => *deadline,
        Err(_) => None,
    };
    if let Some(deadline) = deadline {
        tokio::time::sleep_until(deadline).await;
    }
}

/// Sleeps until `at`, or forever when there is nothing to wait for.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Records `attempts` and renews (`renew`) or releases the leases of `held`, in one write.
/// A failed write is logged: those attempts will be made again once their leases lapse.
async fn flush<S: Store + 'static>(crew: &Crew<S>, attempts: Vec<(String, Attempt)>, held: &[String], renew: bool) {
    if attempts.is_empty() && held.is_empty() {
        return;
    }
    let (rental, owner, held) = (Arc::clone(&crew.rental), crew.owner.clone(), held.to_vec());
    let (retries, lease) = (crew.config.retries.clone(), renew.then_some(crew.config.lease));
    let write = move || rental.worker().record_claimed(&owner, &attempts, &retries, &held, lease);
    match tokio::task::spawn_blocking(write).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "cannot record webhook attempts"),
        Err(e) => tracing::error!(error = %e, "the record-attempts task failed"),
    }
}
