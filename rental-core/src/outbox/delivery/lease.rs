//! Delivery leases: a dispatcher's claim on a delivery, a [`Lease`] (owner
//! and expiry, with the rules every lease follows) kept in the store beside
//! the delivery and its webhook, so that it holds across processes.
//!
//! Claiming takes due deliveries whose lease is absent or expired, never a
//! delivery of a webhook that has a live lease (so one webhook is sent to by
//! one owner at a time, in event order). Recording an attempt clears the
//! lease; a lease that expires (its owner crashed or hung) makes the delivery
//! claimable again.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Delivery;
use crate::basics::lease::Lease;

/// One delivery claimed by one dispatcher: which, its webhook, and the lease.
/// Stored apart from the delivery (a record `{deliveryId, webhookId, owner,
/// until}`, or a table row of a store's own) so that a claim reads every
/// lease at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryClaim {
    /// The delivery claimed.
    pub delivery_id: String,
    /// Its webhook: a live lease keeps every other delivery of it from being claimed.
    pub webhook_id: String,
    /// Who holds it (one dispatcher, unique per process and start), until when.
    #[serde(flatten)]
    pub lease: Lease,
}

impl DeliveryClaim {
    /// `delivery` leased to `owner` until `until`.
    pub fn new(delivery: &Delivery, owner: &str, until: DateTime<Utc>) -> Self {
        let (delivery_id, webhook_id) = (delivery.id.clone(), delivery.webhook_id.clone());
        DeliveryClaim { delivery_id, webhook_id, lease: Lease::new(owner, until) }
    }
}

/// How much one claim may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimLimits {
    /// At most this many deliveries in all.
    pub deliveries: usize,
    /// Of at most this many webhooks (one worker each).
    pub webhooks: usize,
}

/// Which of `due` (pending and due, in due order) a claim at `now` may take,
/// given the `leases` in the store: not a delivery with a live lease, nor any
/// delivery of a webhook that has one; at most `limits.deliveries` of at most
/// `limits.webhooks` webhooks, in the order given but each webhook's
/// deliveries in event order, whatever their due times say (a worker sends them in this order).
pub fn claimable(
    due: Vec<Delivery>,
    leases: &[DeliveryClaim],
    now: DateTime<Utc>,
    limits: ClaimLimits,
) -> Vec<Delivery> {
    let busy: HashSet<&str> = leases.iter().filter(|l| l.lease.is_live(now)).map(|l| l.webhook_id.as_str()).collect();
    let mut taken: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for delivery in due {
        if out.len() >= limits.deliveries {
            break;
        }
        if busy.contains(delivery.webhook_id.as_str()) {
            continue;
        }
        if !taken.contains(&delivery.webhook_id) {
            if taken.len() >= limits.webhooks {
                continue;
            }
            taken.push(delivery.webhook_id.clone());
        }
        out.push(delivery);
    }
    in_event_order_per_webhook(&mut out);
    out
}

/// Reorders each webhook's deliveries by event number within the places they hold.
fn in_event_order_per_webhook(deliveries: &mut [Delivery]) {
    let mut webhooks: Vec<&str> = deliveries.iter().map(|d| d.webhook_id.as_str()).collect();
    webhooks.sort_unstable();
    webhooks.dedup();
    let webhooks: Vec<String> = webhooks.into_iter().map(str::to_owned).collect();
    for webhook in webhooks {
        let places: Vec<usize> = (0..deliveries.len()).filter(|i| deliveries[*i].webhook_id == webhook).collect();
        let mut own: Vec<Delivery> = places.iter().map(|i| deliveries[*i].clone()).collect();
        own.sort_by_key(|d| d.event_seq);
        for (place, delivery) in places.into_iter().zip(own) {
            deliveries[place] = delivery;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::event::EventName;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn due(id: &str, webhook: &str, seq: u64) -> Delivery {
        Delivery::new(id.into(), webhook.into(), seq, EventName::BookingCreated, at("2026-11-24T10:00:00Z"))
    }

    fn lease(id: &str, webhook: &str, until: &str) -> DeliveryClaim {
        DeliveryClaim::new(&due(id, webhook, 1), "a", at(until))
    }

    fn ids(claimed: &[Delivery]) -> Vec<&str> {
        claimed.iter().map(|d| d.id.as_str()).collect()
    }

    const ALL: ClaimLimits = ClaimLimits { deliveries: 100, webhooks: 100 };

    #[test]
    fn a_webhooks_deliveries_are_claimed_in_event_order_whatever_their_due_times() {
        let now = at("2026-11-24T10:00:30Z");
        let mut later_event_due_first = due("d7", "w1", 7);
        later_event_due_first.next_attempt_at = Some(at("2026-11-24T09:59:59Z"));
        let list = vec![later_event_due_first, due("d2", "w2", 2), due("d5", "w1", 5)];
        assert_eq!(ids(&claimable(list, &[], now, ALL)), ["d5", "d2", "d7"]);
    }

    #[test]
    fn a_claim_reads_and_writes_as_the_lease_records_stored_before() {
        let stored = r#"{"deliveryId":"d1","webhookId":"w1","owner":"a","until":"2026-11-24T10:01:00.000Z"}"#;
        let claim: DeliveryClaim = serde_json::from_str(stored).unwrap();
        assert_eq!(claim, lease("d1", "w1", "2026-11-24T10:01:00Z"));
        assert_eq!(serde_json::to_string(&claim).unwrap(), stored);
    }

    #[test]
    fn which_due_deliveries_a_claim_takes() {
        let now = at("2026-11-24T10:00:30Z");
        let list = || vec![due("d1", "w1", 1), due("d2", "w2", 2), due("d3", "w1", 3), due("d4", "w3", 4)];
        let cases: [(Vec<DeliveryClaim>, ClaimLimits, Vec<&str>); 6] = [
            (vec![], ALL, vec!["d1", "d2", "d3", "d4"]),
            (vec![lease("d1", "w1", "2026-11-24T10:01:00Z")], ALL, vec!["d2", "d4"]),
            (vec![lease("d1", "w1", "2026-11-24T10:00:30Z")], ALL, vec!["d1", "d2", "d3", "d4"]),
            (vec![lease("d9", "w3", "2026-11-24T10:05:00Z")], ALL, vec!["d1", "d2", "d3"]),
            (vec![], ClaimLimits { deliveries: 2, webhooks: 100 }, vec!["d1", "d2"]),
            (vec![], ClaimLimits { deliveries: 100, webhooks: 1 }, vec!["d1", "d3"]),
        ];
        for (leases, limits, want) in cases {
            assert_eq!(ids(&claimable(list(), &leases, now, limits)), want, "{leases:?} {limits:?}");
        }
    }
}
