//! Webhook deliveries: one per event and subscribed webhook, with every
//! attempt recorded, retried on a schedule until it succeeds or gives up.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::bookings::event::EventName;

pub mod lease;

pub use self::lease::{ClaimLimits, DeliveryClaim};

/// The waits before each retry of docs/API.md section 9: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h.
pub const DEFAULT_RETRIES: [Duration; 8] = [
    Duration::from_secs(10),
    Duration::from_secs(60),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(6 * 3600),
    Duration::from_secs(12 * 3600),
    Duration::from_secs(24 * 3600),
];

/// One event on its way to one webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// `dlv_` + 12 characters; sent as `X-SVC-Delivery`, the same on every retry.
    pub id: String,
    /// The webhook it goes to.
    pub webhook_id: String,
    /// The event's position in the outbox.
    pub event_seq: u64,
    /// The event's name, sent as `X-SVC-Event`.
    pub event: EventName,
    /// Where it is.
    pub status: DeliveryStatus,
    /// Every attempt so far, oldest first.
    pub attempts: Vec<Attempt>,
    /// When the next attempt is due, while pending.
    #[serde(with = "crate::basics::timestamp::option")]
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When the event happened.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
}

/// Where a delivery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    /// Waiting for its first attempt or a retry.
    Pending,
    /// A 2xx answer was received.
    Delivered,
    /// Given up: retries exhausted, `410 Gone`, or the webhook was removed or deactivated.
    Failed,
}

/// The status as JSON names it (`pending`, `delivered` or `failed`).
impl std::fmt::Display for DeliveryStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        })
    }
}

/// One try at delivering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// When it was made.
    #[serde(with = "crate::basics::timestamp")]
    pub at: DateTime<Utc>,
    /// The HTTP status received, if any.
    pub status: Option<u16>,
    /// How long it took, in milliseconds.
    pub latency_ms: u64,
    /// Why it failed without a status (refused target, timeout, connection error).
    pub error: Option<String>,
}

impl Delivery {
    /// A new pending delivery, due at once.
    pub fn new(id: String, webhook_id: String, event_seq: u64, event: EventName, at: DateTime<Utc>) -> Self {
        let (status, attempts, next_attempt_at, created_at) = (DeliveryStatus::Pending, Vec::new(), Some(at), at);
        Delivery { id, webhook_id, event_seq, event, status, attempts, next_attempt_at, created_at }
    }
}

/// What recording an attempt decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The delivery after the attempt.
    pub delivery: Delivery,
    /// True when the receiver answered `410 Gone`: the webhook is to be deactivated.
    pub deactivate_webhook: bool,
}

/// Records `attempt`: a 2xx delivers; `410 Gone` fails it and deactivates the
/// webhook; anything else is retried `retries[n - 1]` after the attempt ended
/// (n = attempts so far) until the schedule runs out, and then fails. A
/// delivery given up while its attempt was on the network keeps its status.
pub fn record(delivery: &Delivery, attempt: Attempt, retries: &[Duration]) -> Recorded {
    let mut next = delivery.clone();
    let at = attempt.at + TimeDelta::milliseconds(i64::try_from(attempt.latency_ms).unwrap_or(i64::MAX));
    let status = attempt.status;
    next.attempts.push(attempt);
    if delivery.status != DeliveryStatus::Pending {
        return Recorded { delivery: next, deactivate_webhook: false };
    }
    let gone = status == Some(410);
    let retry_after = retries.get(next.attempts.len() - 1).and_then(|d| TimeDelta::from_std(*d).ok());
    (next.status, next.next_attempt_at) = match (status, retry_after) {
        (Some(200..=299), _) => (DeliveryStatus::Delivered, None),
        (Some(410), _) | (_, None) => (DeliveryStatus::Failed, None),
        (_, Some(wait)) => (DeliveryStatus::Pending, Some(at + wait)),
    };
    Recorded { delivery: next, deactivate_webhook: gone }
}

/// A delivery sent again by hand: pending and due `at`, its attempts kept. A
/// failed resend is retried on the schedule from where its attempts left off.
pub fn resend(delivery: &Delivery, at: DateTime<Utc>) -> Delivery {
    Delivery { status: DeliveryStatus::Pending, next_attempt_at: Some(at), ..delivery.clone() }
}

/// Gives a pending delivery up without an attempt (its webhook was removed or deactivated).
pub fn abandon(delivery: &Delivery) -> Delivery {
    Delivery { status: DeliveryStatus::Failed, next_attempt_at: None, ..delivery.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn attempt(when: &str, status: Option<u16>) -> Attempt {
        Attempt { at: at(when), status, latency_ms: 0, error: status.is_none().then(|| "timed out".to_owned()) }
    }

    fn pending() -> Delivery {
        Delivery::new("dlv_1".into(), "wh_1".into(), 7, EventName::BookingCreated, at("2026-11-22T10:00:00Z"))
    }

    #[test]
    fn each_answer_moves_the_delivery_as_the_contract_says() {
        let cases: [(Option<u16>, DeliveryStatus, Option<&str>, bool); 6] = [
            (Some(200), DeliveryStatus::Delivered, None, false),
            (Some(204), DeliveryStatus::Delivered, None, false),
            (Some(500), DeliveryStatus::Pending, Some("2026-11-22T10:00:10Z"), false),
            (Some(301), DeliveryStatus::Pending, Some("2026-11-22T10:00:10Z"), false), // redirects are not followed
            (None, DeliveryStatus::Pending, Some("2026-11-22T10:00:10Z"), false),
            (Some(410), DeliveryStatus::Failed, None, true),
        ];
        for (status, want, next, deactivate) in cases {
            let r = record(&pending(), attempt("2026-11-22T10:00:00Z", status), &DEFAULT_RETRIES);
            assert_eq!(r.delivery.status, want, "{status:?}");
            assert_eq!(r.delivery.next_attempt_at, next.map(at), "{status:?}");
            assert_eq!(r.deactivate_webhook, deactivate, "{status:?}");
            assert_eq!(r.delivery.attempts.len(), 1);
        }
    }

    #[test]
    fn a_retry_waits_from_the_end_of_the_attempt() {
        let slow = Attempt {
            at: at("2026-11-22T10:00:00Z"),
            status: None,
            latency_ms: 10_000,
            error: Some("timed out".into()),
        };
        let r = record(&pending(), slow, &DEFAULT_RETRIES);
        assert_eq!(r.delivery.next_attempt_at, Some(at("2026-11-22T10:00:20Z")));
    }

    #[test]
    fn an_attempt_on_a_delivery_given_up_meanwhile_is_kept_but_changes_nothing_else() {
        let given_up = abandon(&pending());
        let r = record(&given_up, attempt("2026-11-22T10:00:00Z", Some(500)), &DEFAULT_RETRIES);
        assert_eq!((r.delivery.status, r.delivery.next_attempt_at), (DeliveryStatus::Failed, None));
        assert_eq!(r.delivery.attempts.len(), 1);
    }

    #[test]
    fn a_resend_of_a_delivered_delivery_is_due_at_once_and_delivers_again() {
        let delivered = record(&pending(), attempt("2026-11-22T10:00:00Z", Some(200)), &DEFAULT_RETRIES).delivery;
        let again = resend(&delivered, at("2026-11-22T11:00:00Z"));
        assert_eq!((again.status, again.next_attempt_at), (DeliveryStatus::Pending, Some(at("2026-11-22T11:00:00Z"))));
        let r = record(&again, attempt("2026-11-22T11:00:00Z", Some(204)), &DEFAULT_RETRIES);
        assert_eq!((r.delivery.status, r.delivery.attempts.len()), (DeliveryStatus::Delivered, 2));
        assert_eq!(r.delivery.id, delivered.id);
    }

    #[test]
    fn retries_follow_the_schedule_and_then_give_up() {
        let mut d = pending();
        let mut now = at("2026-11-22T10:00:00Z");
        for wait in DEFAULT_RETRIES {
            d = record(&d, Attempt { at: now, status: Some(500), latency_ms: 0, error: None }, &DEFAULT_RETRIES)
                .delivery;
            assert_eq!(d.status, DeliveryStatus::Pending);
            now += TimeDelta::from_std(wait).unwrap();
            assert_eq!(d.next_attempt_at, Some(now));
        }
        d = record(&d, Attempt { at: now, status: Some(500), latency_ms: 0, error: None }, &DEFAULT_RETRIES).delivery;
        assert_eq!((d.status, d.next_attempt_at, d.attempts.len()), (DeliveryStatus::Failed, None, 9));
    }
}
