//! Delivery leases (issue 12, docs/API.md section 17): a claim takes due
//! deliveries with an owner and an expiry, on every store, in its write.

use std::time::Duration;

use chrono::TimeDelta;
use rental_core::Store;
use rental_core::delivery::{Attempt, ClaimLimits, DEFAULT_RETRIES, DeliveryStatus};
use rental_core::webhook::Subscription;
use rental_core::worker::DueDelivery;
use rental_tests::{Harness, store_suite};

store_suite!(
    a_claimed_delivery_is_claimed_by_no_one_else_until_its_lease_lapses,
    recording_an_attempt_clears_the_lease,
    a_webhook_with_a_leased_delivery_is_given_no_later_one,
    a_renewed_lease_holds_past_its_first_end_and_a_released_one_is_claimable_at_once,
    a_claim_takes_at_most_its_limits,
);

const LEASE: Duration = Duration::from_secs(60);
const ALL: ClaimLimits = ClaimLimits { deliveries: 100, webhooks: 100 };

fn hook<S: Store>(h: &Harness<S>, url: &str) {
    h.rental.admin().add_webhook(url, Subscription::parse("*").unwrap(), None).unwrap();
}

/// `n` more bookings of a week each (after those already made), fanned out.
fn bookings<S: Store>(h: &Harness<S>, n: u64) {
    let made = h.rental.admin().events_after(0, 1000).unwrap().len() as u64;
    for i in made..made + n {
        let check_in = rental_tests::d("2026-12-01") + chrono::Days::new(7 * i);
        let check_out = check_in + chrono::Days::new(7);
        h.book("sea-view", &check_in.to_string(), &check_out.to_string(), 2);
    }
    h.rental.worker().fan_out(1000).unwrap();
}

fn claim<S: Store>(h: &Harness<S>, owner: &str, limits: ClaimLimits) -> Vec<DueDelivery> {
    h.rental.worker().claim_deliveries(owner, limits, LEASE).unwrap()
}

fn ids(claimed: &[DueDelivery]) -> Vec<String> {
    claimed.iter().map(|d| d.delivery.id.clone()).collect()
}

fn answered<S: Store>(h: &Harness<S>, id: &str, status: u16) -> (String, Attempt) {
    (id.to_owned(), Attempt { at: h.rental.now(), status: Some(status), latency_ms: 3, error: None })
}

fn a_claimed_delivery_is_claimed_by_no_one_else_until_its_lease_lapses<S: Store>(h: &Harness<S>) {
    hook(h, "https://a.example/hook");
    bookings(h, 1);
    let first = claim(h, "one", ALL);
    assert_eq!(first.len(), 1);
    assert!(claim(h, "two", ALL).is_empty(), "leased to one");
    assert!(claim(h, "one", ALL).is_empty(), "not even to its owner twice");
    assert_eq!(h.rental.worker().due_deliveries(10).unwrap().len(), 1, "still pending and due");
    h.clock.advance(TimeDelta::seconds(59));
    assert!(claim(h, "two", ALL).is_empty(), "the lease holds for 60 s");
    h.clock.advance(TimeDelta::seconds(1));
    assert_eq!(ids(&claim(h, "two", ALL)), ids(&first), "a lapsed lease makes it claimable again, same id");
}

fn recording_an_attempt_clears_the_lease<S: Store>(h: &Harness<S>) {
    hook(h, "https://a.example/hook");
    bookings(h, 1);
    let id = ids(&claim(h, "one", ALL)).remove(0);
    h.rental.worker().record_attempts(&[answered(h, &id, 500)], &DEFAULT_RETRIES).unwrap();
    assert!(claim(h, "two", ALL).is_empty(), "the retry is not due yet");
    h.clock.advance(TimeDelta::seconds(11));
    assert_eq!(
        ids(&claim(h, "two", ALL)),
        std::slice::from_ref(&id),
        "due again 10 s after the attempt, no lease in the way"
    );
    h.rental.worker().record_attempts(&[answered(h, &id, 200)], &DEFAULT_RETRIES).unwrap();
    assert_eq!(h.rental.admin().delivery(&id).unwrap().status, DeliveryStatus::Delivered);
    h.clock.advance(TimeDelta::hours(2));
    assert!(claim(h, "three", ALL).is_empty(), "a delivered delivery is never claimed");
}

fn a_webhook_with_a_leased_delivery_is_given_no_later_one<S: Store>(h: &Harness<S>) {
    hook(h, "https://a.example/hook");
    bookings(h, 3);
    let first = claim(h, "one", ClaimLimits { deliveries: 1, webhooks: 1 });
    assert_eq!(first.len(), 1);
    assert!(claim(h, "two", ALL).is_empty(), "the webhook's earlier delivery is leased");
    hook(h, "https://b.example/hook");
    bookings(h, 1);
    let other = claim(h, "two", ALL);
    assert_eq!(other.len(), 1, "another webhook is free");
    assert_eq!(other[0].url, "https://b.example/hook");
    h.rental.worker().record_attempts(&[answered(h, &first[0].delivery.id, 200)], &DEFAULT_RETRIES).unwrap();
    let rest = claim(h, "three", ALL);
    let events: Vec<u64> = rest.iter().map(|d| d.delivery.event_seq).collect();
    assert_eq!(events.len(), 3, "the rest of a.example's, in event order: {events:?}");
    assert!(events.windows(2).all(|w| w[0] < w[1]), "{events:?}");
}

fn a_renewed_lease_holds_past_its_first_end_and_a_released_one_is_claimable_at_once<S: Store>(h: &Harness<S>) {
    hook(h, "https://a.example/hook");
    bookings(h, 3);
    let claimed = ids(&claim(h, "one", ALL));
    assert_eq!(claimed.len(), 3);
    h.clock.advance(TimeDelta::seconds(50));
    let sent = vec![answered(h, &claimed[0], 200)];
    h.rental.worker().record_claimed("one", &sent, &DEFAULT_RETRIES, &claimed[1..], Some(LEASE)).unwrap();
    h.clock.advance(TimeDelta::seconds(50));
    assert!(claim(h, "two", ALL).is_empty(), "renewed at 50 s for 60 s more");
    assert!(h.rental.worker().record_claimed("two", &[], &DEFAULT_RETRIES, &claimed[1..], None).is_ok());
    assert!(claim(h, "two", ALL).is_empty(), "only the owner releases its leases");
    h.rental.worker().record_claimed("one", &[], &DEFAULT_RETRIES, &claimed[1..], None).unwrap();
    assert_eq!(ids(&claim(h, "two", ALL)), claimed[1..], "released: claimable at once");
}

fn a_claim_takes_at_most_its_limits<S: Store>(h: &Harness<S>) {
    for host in ["a", "b", "c"] {
        hook(h, &format!("https://{host}.example/hook"));
    }
    bookings(h, 4);
    let claimed = claim(h, "one", ClaimLimits { deliveries: 100, webhooks: 2 });
    assert_eq!(claimed.len(), 8, "every due delivery of two webhooks");
    let rest = claim(h, "two", ClaimLimits { deliveries: 3, webhooks: 100 });
    assert_eq!(rest.len(), 3, "three of the third webhook's four");
    assert!(rest.iter().all(|d| claimed.iter().all(|c| c.url != d.url)));
}
