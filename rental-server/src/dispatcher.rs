//! The webhook dispatcher: fans outbox events out into deliveries, claims the
//! due ones as leases in the store, sends them signed, and records each attempt.
//!
//! Events are written to the outbox in the same transaction as their change;
//! each poll fans new ones out into deliveries (a position kept in the store),
//! then claims due deliveries for this dispatcher: a claim is a lease (owner,
//! expiry) written in the store in one write, never on a delivery with a live
//! lease nor on a webhook that has one, so one webhook is sent to by one
//! worker in one process at a time, in event order, and a delivery recorded as
//! delivered is never in a later claim. Each claimed webhook gets a worker
//! (`dispatcher/worker.rs`) that sends its deliveries one after the other, signed
//! (`dispatcher/send.rs`), and records attempts as they finish, every
//! [`DispatchConfig::flush_every`] at the latest, renewing its leases as it
//! goes. No write transaction is held while waiting on the network.
//!
//! Delivery is at least once: the store is the queue, and a crash re-sends
//! only the attempts not yet recorded (those of the last flush interval), once
//! their leases lapse. Receivers dedupe by `X-SVC-Delivery`, the same on every
//! retry. When shutdown begins no new attempt starts; attempts in flight may
//! run until the drain deadline the server sets, then what finished is
//! recorded and every remaining lease released.
//!
//! Deliveries yield to requests: while the server answers more than
//! [`DispatchConfig::busy_above`] requests a second, polls come once a second
//! ([`DispatchConfig::busy_poll`]) and each fans out and claims only a small batch
//! ([`DispatchConfig::busy_batch`]), so the request path keeps the CPU and the store's
//! writer; the backlog waits safely in the outbox and drains at full speed once the rush
//! is over.

mod send;
mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rental_core::delivery::ClaimLimits;
use rental_core::worker::DueDelivery;
use rental_core::{Rental, Store};
use tokio::sync::watch;
use tokio::task::JoinSet;

use self::worker::Crew;
use crate::lease_owner::lease_owner;
use crate::outbound::Outbound;

/// How deliveries are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchConfig {
    /// The waits before each retry (`webhookRetries`).
    pub retries: Vec<Duration>,
    /// How long one attempt may take, answer included (10 s).
    pub timeout: Duration,
    /// How often the store is asked for due deliveries.
    pub poll: Duration,
    /// How many webhooks may be sent to at once (one attempt each).
    pub max_in_flight: usize,
    /// Above this many requests a second the server counts as busy.
    pub busy_above: u64,
    /// While busy, polls come this far apart (fewer, larger store writes) ...
    pub busy_poll: Duration,
    /// ... and each fans out at most this many events and claims at most five times as
    /// many deliveries.
    pub busy_batch: usize,
    /// How long a claim holds a delivery unless renewed (10 s). A heartbeat
    /// renews every lease the dispatcher holds each third of it, and workers
    /// renew theirs each time they record; it is how long deliveries claimed
    /// by a process that was killed wait before another claims them
    /// (docs/SEVERAL-SERVERS.md, "Failover").
    pub lease: Duration,
    /// An attempt is recorded at most this long after it ended (250 ms): what a
    /// crash can make a receiver get twice.
    pub flush_every: Duration,
    /// ... or as soon as this many attempts wait to be recorded (100).
    pub flush_batch: usize,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            retries: rental_core::delivery::DEFAULT_RETRIES.to_vec(),
            timeout: Duration::from_secs(10),
            poll: Duration::from_millis(200),
            max_in_flight: 16,
            busy_above: 200,
            busy_poll: Duration::from_secs(1),
            busy_batch: 50,
            lease: Duration::from_secs(10),
            flush_every: Duration::from_millis(250),
            flush_batch: 100,
        }
    }
}

/// Delivers due deliveries until `stop` holds a drain deadline, then lets
/// the workers finish (see the module docs) and returns.
///
/// Each poll claims, for at most as many webhooks as there are free worker
/// slots ([`DispatchConfig::max_in_flight`]), the due deliveries no live lease
/// holds; each claimed webhook gets one worker. A failed attempt ends its
/// worker's run and releases what it had left, which a later claim takes.
pub async fn run<S: Store + 'static>(
    rental: Arc<Rental<S>>,
    outbound: Outbound,
    config: DispatchConfig,
    requests: Arc<AtomicU64>,
    stop: watch::Receiver<Option<tokio::time::Instant>>,
) {
    let (poll, busy_poll, busy_above, busy_batch) =
        (config.poll, config.busy_poll, config.busy_above, config.busy_batch);
    let crew = Crew { rental, outbound, config: Arc::new(config), owner: lease_owner("dispatcher"), stop };
    let mut stopping = crew.stop.clone();
    let heartbeat = tokio::spawn(heartbeat(Arc::clone(&crew.rental), crew.owner.clone(), crew.config.lease));
    let mut workers = JoinSet::new();
    let mut load = Load::new(&requests);
    let mut wait = poll;
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stopping.wait_for(Option::is_some) => break,
        }
        while workers.try_join_next().is_some() {}
        let rush = load.busy(&requests, busy_above);
        let (events, due) = if rush { (busy_batch, busy_batch * 5) } else { (FAN_OUT_PER_POLL, DUE_PER_POLL) };
        wait = if rush { busy_poll } else { poll };
        fan_out(&crew.rental, events).await;
        let free = crew.config.max_in_flight.saturating_sub(workers.len());
        if free == 0 {
            continue;
        }
        let limits = ClaimLimits { deliveries: due, webhooks: free };
        for (_, deliveries) in by_webhook(claim(&crew, limits).await) {
            workers.spawn(worker::deliver(crew.clone(), deliveries));
        }
    }
    while workers.join_next().await.is_some() {}
    // The workers' last write released what they held: nothing is left to renew.
    heartbeat.abort();
}

/// Renews every lease `owner` holds each third of `lease`, so that they
/// outlive attempts of any length while this process lives, and lapse
/// within `lease` once it is gone.
async fn heartbeat<S: Store + 'static>(rental: Arc<Rental<S>>, owner: String, lease: Duration) {
    let mut every = tokio::time::interval(lease / 3);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let (rental, owner) = (Arc::clone(&rental), owner.clone());
        match tokio::task::spawn_blocking(move || rental.worker().renew_delivery_leases(&owner, lease)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "cannot renew the webhook delivery leases"),
            Err(e) => tracing::error!(error = %e, "the lease heartbeat task failed"),
        }
    }
}

/// How many due deliveries one poll reads when the server is not busy.
const DUE_PER_POLL: usize = 2_000;
/// How many outbox events one poll fans out when the server is not busy.
const FAN_OUT_PER_POLL: usize = 2_000;

/// The server's request rate between two polls.
struct Load {
    seen: u64,
    at: Instant,
}

impl Load {
    fn new(requests: &AtomicU64) -> Self {
        Load { seen: requests.load(Ordering::Relaxed), at: Instant::now() }
    }

    /// True when more than `above` requests a second came in since the last call.
    fn busy(&mut self, requests: &AtomicU64, above: u64) -> bool {
        let (now, count) = (Instant::now(), requests.load(Ordering::Relaxed));
        let elapsed_ms = u64::try_from(now.duration_since(self.at).as_millis()).unwrap_or(u64::MAX).max(1);
        let came = count.saturating_sub(self.seen);
        (self.seen, self.at) = (count, now);
        came.saturating_mul(1000) > above.saturating_mul(elapsed_ms)
    }
}

/// Due deliveries grouped by webhook, each group in the order the store gave (due time, then event).
fn by_webhook(due: Vec<DueDelivery>) -> Vec<(String, Vec<DueDelivery>)> {
    let mut groups: Vec<(String, Vec<DueDelivery>)> = Vec::new();
    for d in due {
        match groups.iter_mut().find(|(webhook, _)| *webhook == d.delivery.webhook_id) {
            Some((_, list)) => list.push(d),
            None => groups.push((d.delivery.webhook_id.clone(), vec![d])),
        }
    }
    groups
}

/// Turns new outbox events into deliveries (one short write for all of them).
async fn fan_out<S: Store + 'static>(rental: &Arc<Rental<S>>, limit: usize) {
    let rental = Arc::clone(rental);
    match tokio::task::spawn_blocking(move || rental.worker().fan_out(limit)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "cannot fan events out to webhooks"),
        Err(e) => tracing::error!(error = %e, "the fan-out task failed"),
    }
}

/// Claims due deliveries for this dispatcher (one short write).
async fn claim<S: Store + 'static>(crew: &Crew<S>, limits: ClaimLimits) -> Vec<DueDelivery> {
    let (rental, owner, lease) = (Arc::clone(&crew.rental), crew.owner.clone(), crew.config.lease);
    match tokio::task::spawn_blocking(move || rental.worker().claim_deliveries(&owner, limits, lease)).await {
        Ok(Ok(due)) => due,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "cannot claim due webhook deliveries");
            Vec::new()
        }
        Err(e) => {
            tracing::error!(error = %e, "the claim task failed");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_busy_while_requests_come_faster_than_the_threshold() {
        let requests = AtomicU64::new(0);
        let mut load = Load::new(&requests);
        requests.fetch_add(1_000, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(50));
        assert!(load.busy(&requests, 200), "1,000 requests in 50 ms is a rush");
        std::thread::sleep(Duration::from_millis(50));
        assert!(!load.busy(&requests, 200), "no request since the last look");
        requests.fetch_add(5, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(100));
        assert!(!load.busy(&requests, 200), "5 requests in 100 ms is quiet");
    }
}
