//! The webhook dispatcher: sends each due delivery, signed, and records the
//! attempt. It never holds a write transaction while it waits on the network.
//!
//! Each attempt is signed twice: `X-SVC-Signature` (SPEC.md section 6) with the
//! current secret, and the Standard Webhooks headers (CONTRACT.md section 16)
//! with every active secret, over this attempt's `webhook-timestamp`.
//!
//! Events are written to the outbox in the same transaction as their change;
//! each poll fans new ones out into deliveries (a position kept in the
//! store) and sends what is due. The store is the queue: after a crash or
//! restart the dispatcher finds everything not yet delivered due again. Delivery is at least once: receivers dedupe
//! by `X-SVC-Delivery`, which is the same on every retry of a delivery.
//!
//! Deliveries yield to requests: while the server answers more than
//! [`DispatchConfig::busy_above`] requests a second, polls come once a second
//! ([`DispatchConfig::busy_poll`]) and each fans out and sends only a small batch
//! ([`DispatchConfig::busy_batch`]), so the request path keeps the CPU and the store's
//! writer; the backlog waits safely in the outbox and drains at full speed once the rush
//! is over.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use rental_core::delivery::Attempt;
use rental_core::webhook::{sign, sign_standard};
use rental_core::{DueDelivery, Rental, Store};
use tokio::sync::watch;
use tokio::task::JoinSet;

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
    /// ... and each fans out at most this many events and sends at most five times as
    /// many deliveries.
    pub busy_batch: usize,
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
        }
    }
}

/// The most of a receiver's answer that is read (and then dropped).
const MAX_ANSWER: usize = 1024 * 1024;

/// Delivers due deliveries until `stop` changes, then lets attempts in flight finish.
///
/// Each webhook gets at most one worker at a time, which sends that webhook's
/// due deliveries one after the other in event order and then records all
/// its attempts in one write; a failed attempt ends the worker's run, and
/// what it had left is picked up again by a later poll.
pub async fn run<S: Store + 'static>(
    rental: Arc<Rental<S>>,
    outbound: Outbound,
    config: DispatchConfig,
    requests: Arc<AtomicU64>,
    mut stop: watch::Receiver<bool>,
) {
    let config = Arc::new(config);
    let busy: Arc<Mutex<HashSet<String>>> = Arc::default();
    let mut workers = JoinSet::new();
    let mut load = Load::new(&requests);
    let mut wait = config.poll;
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => break,
        }
        while workers.try_join_next().is_some() {}
        let rush = load.busy(&requests, config.busy_above);
        let (events, due) =
            if rush { (config.busy_batch, config.busy_batch * 5) } else { (FAN_OUT_PER_POLL, DUE_PER_POLL) };
        wait = if rush { config.busy_poll } else { config.poll };
        fan_out(&rental, events).await;
        if workers.len() >= config.max_in_flight {
            continue;
        }
        for (webhook, deliveries) in by_webhook(due_now(&rental, due).await) {
            if workers.len() >= config.max_in_flight || !claim(&busy, &webhook) {
                continue;
            }
            let (rental, outbound, config, busy) =
                (Arc::clone(&rental), outbound.clone(), Arc::clone(&config), Arc::clone(&busy));
            workers.spawn(async move {
                let mut made = Vec::with_capacity(deliveries.len());
                for due in deliveries {
                    let (id, attempt) = attempt(&outbound, &config, due, rental.now()).await;
                    let delivered = attempt.status.is_some_and(|s| (200..300).contains(&s));
                    made.push((id, attempt));
                    if !delivered {
                        break;
                    }
                }
                record(&rental, made, &config.retries).await;
                busy.lock().unwrap_or_else(PoisonError::into_inner).remove(&webhook);
            });
        }
    }
    while workers.join_next().await.is_some() {}
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
    match tokio::task::spawn_blocking(move || rental.fan_out(limit)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "cannot fan events out to webhooks"),
        Err(e) => tracing::error!(error = %e, "the fan-out task failed"),
    }
}

async fn due_now<S: Store + 'static>(rental: &Arc<Rental<S>>, limit: usize) -> Vec<DueDelivery> {
    let rental = Arc::clone(rental);
    match tokio::task::spawn_blocking(move || rental.due_deliveries(limit)).await {
        Ok(Ok(due)) => due,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "cannot read due webhook deliveries");
            Vec::new()
        }
        Err(e) => {
            tracing::error!(error = %e, "the due-deliveries task failed");
            Vec::new()
        }
    }
}

/// Marks a webhook as having a worker; false when it already has one.
fn claim(busy: &Mutex<HashSet<String>>, webhook: &str) -> bool {
    busy.lock().unwrap_or_else(PoisonError::into_inner).insert(webhook.to_owned())
}

/// One attempt: sign and send; what happened, to be recorded.
async fn attempt(
    outbound: &Outbound,
    config: &DispatchConfig,
    due: DueDelivery,
    at: DateTime<Utc>,
) -> (String, Attempt) {
    let body = Bytes::from(due.body);
    let headers = headers(&due.delivery, &due.secrets, at.timestamp(), &body);
    let started = Instant::now();
    let result = outbound.post(&due.url, &headers, body, config.timeout, MAX_ANSWER).await;
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let attempt = match result {
        Ok(reply) => Attempt { at, status: Some(reply.status.as_u16()), latency_ms, error: None },
        Err(e) => Attempt { at, status: None, latency_ms, error: Some(e.to_string()) },
    };
    let (id, event) = (due.delivery.id, due.delivery.event);
    tracing::info!(delivery = %id, %event, url = %due.url, status = ?attempt.status, error = ?attempt.error, latency_ms, "webhook attempt");
    (id, attempt)
}

/// Records a worker's attempts in one short write, after the network is done with.
/// Until then the webhook stays claimed, so nothing is sent twice in between.
async fn record<S: Store + 'static>(rental: &Arc<Rental<S>>, made: Vec<(String, Attempt)>, retries: &[Duration]) {
    let (rental, retries) = (Arc::clone(rental), retries.to_vec());
    match tokio::task::spawn_blocking(move || rental.record_attempts(made, &retries)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "cannot record webhook attempts"),
        Err(e) => tracing::error!(error = %e, "the record-attempts task failed"),
    }
}

/// The headers of CONTRACT.md sections 9 and 16, the signatures over the exact body bytes:
/// `X-SVC-Signature` with the current secret (the first), `webhook-signature` with each.
fn headers(
    delivery: &rental_core::delivery::Delivery,
    secrets: &[String],
    timestamp: i64,
    body: &[u8],
) -> Vec<(HeaderName, HeaderValue)> {
    let value = |s: &str| HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static("invalid"));
    let current = secrets.first().map_or("", String::as_str);
    let standard: Vec<String> = secrets.iter().map(|s| sign_standard(s, &delivery.id, timestamp, body)).collect();
    vec![
        (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (HeaderName::from_static("x-svc-event"), HeaderValue::from_static(delivery.event.as_str())),
        (HeaderName::from_static("x-svc-delivery"), value(&delivery.id)),
        (HeaderName::from_static("x-svc-signature"), value(&sign(current.as_bytes(), body))),
        (HeaderName::from_static("webhook-id"), value(&delivery.id)),
        (HeaderName::from_static("webhook-timestamp"), value(&timestamp.to_string())),
        (HeaderName::from_static("webhook-signature"), value(&standard.join(" "))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_attempt_carries_both_schemes_and_a_standard_signature_per_active_secret() {
        use rental_core::webhook::{StandardHeaders, verify, verify_standard};

        let now: DateTime<Utc> = "2026-11-22T07:39:21Z".parse().unwrap();
        let delivery = rental_core::delivery::Delivery::new(
            "dlv_1".into(),
            "wh_1".into(),
            7,
            rental_core::EventName::BookingCreated,
            now,
        );
        let secrets = ["whsec_bmV3LXNlY3JldA==".to_owned(), "old-secret".to_owned()];
        let body = br#"{"event":"booking.created"}"#;
        let sent = headers(&delivery, &secrets, now.timestamp(), body);
        let get = |name: &str| sent.iter().find(|(n, _)| n == name).and_then(|(_, v)| v.to_str().ok()).unwrap();
        assert_eq!((get("x-svc-delivery"), get("webhook-id")), ("dlv_1", "dlv_1"));
        assert_eq!(get("webhook-timestamp"), now.timestamp().to_string());
        assert!(verify(secrets[0].as_bytes(), body, get("x-svc-signature")), "X-SVC-Signature: the current secret");
        assert!(!verify(secrets[1].as_bytes(), body, get("x-svc-signature")));
        assert_eq!(get("webhook-signature").split(' ').count(), 2);
        let standard =
            StandardHeaders { id: "dlv_1", timestamp: get("webhook-timestamp"), signature: get("webhook-signature") };
        for secret in &secrets {
            assert_eq!(verify_standard(secret, body, &standard, now), Ok(()), "{secret}");
        }
    }

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
