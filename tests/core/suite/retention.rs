//! docs/API.md section 18: finished deliveries and the events behind them are
//! removed once older than `retention` (30 days), idempotency records after 24 hours.

use std::time::Duration;

use chrono::TimeDelta;
use rental_core::Store;
use rental_core::delivery::{Attempt, DeliveryStatus};
use rental_core::store::ReadTx;
use rental_core::webhook::Subscription;
use rental_core::worker::Pruned;
use rental_tests::{Harness, new_booking, store_suite};

store_suite!(
    a_delivery_is_kept_for_exactly_the_retention_after_it_finished,
    an_event_goes_only_with_its_last_delivery_and_never_the_newest,
    a_pending_delivery_and_its_event_are_kept_however_old,
    idempotency_records_go_after_24_hours,
    bookings_are_never_removed,
    test_messages_go_after_the_retention,
);

const RETRIES: [Duration; 1] = [Duration::from_secs(10)];

/// Books a stay and sends its `booking.created` to every webhook, delivered now; returns the event number.
fn booked_and_delivered<S: Store>(h: &Harness<S>, check_in: &str, check_out: &str) -> u64 {
    h.book("sea-view", check_in, check_out, 2);
    h.rental.worker().fan_out(1000).unwrap();
    for due in h.rental.worker().due_deliveries(100).unwrap() {
        let ok = Attempt { at: h.rental.now(), status: Some(200), latency_ms: 3, error: None };
        h.rental.worker().record_attempt(&due.delivery.id, ok, &RETRIES).unwrap();
    }
    h.last_seq()
}

fn webhook<S: Store>(h: &Harness<S>) -> String {
    h.rental.add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap().id
}

fn a_delivery_is_kept_for_exactly_the_retention_after_it_finished<S: Store>(h: &Harness<S>) {
    let id = webhook(h);
    booked_and_delivered(h, "2026-12-20", "2026-12-22");
    booked_and_delivered(h, "2026-12-22", "2026-12-24");
    h.advance(TimeDelta::days(30));
    assert_eq!(h.rental.worker().prune().unwrap(), Pruned::default(), "30 days to the millisecond: kept");
    assert_eq!(h.rental.deliveries_of(&id, 10).unwrap().len(), 2);
    h.advance(TimeDelta::milliseconds(1));
    let pruned = h.rental.worker().prune().unwrap();
    assert_eq!((pruned.deliveries, pruned.events), (2, 1), "the newest event stays");
    assert!(h.rental.deliveries_of(&id, 10).unwrap().is_empty(), "the admin no longer lists them");
    assert_eq!(h.rental.worker().prune().unwrap(), Pruned::default(), "nothing is left to remove");
}

fn an_event_goes_only_with_its_last_delivery_and_never_the_newest<S: Store>(h: &Harness<S>) {
    webhook(h);
    let first = booked_and_delivered(h, "2027-03-01", "2027-03-03");
    h.advance(TimeDelta::days(31));
    let second = booked_and_delivered(h, "2027-03-03", "2027-03-05");
    let third = booked_and_delivered(h, "2027-03-05", "2027-03-07");
    h.rental.worker().prune().unwrap();
    let seqs: Vec<u64> = h.events().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [second, third], "event {first} went with its delivery");
    h.advance(TimeDelta::days(31));
    h.rental.worker().prune().unwrap();
    let seqs: Vec<u64> = h.events().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [third], "the newest event stays, so the next one is numbered after it");
    let next = booked_and_delivered(h, "2027-03-07", "2027-03-09");
    assert_eq!(next, third + 1);
}

fn a_pending_delivery_and_its_event_are_kept_however_old<S: Store>(h: &Harness<S>) {
    let id = webhook(h);
    h.book("sea-view", "2026-12-20", "2026-12-22", 2);
    h.rental.worker().fan_out(1000).unwrap();
    let first = h.last_seq();
    let failing = h.rental.worker().due_deliveries(10).unwrap().remove(0).delivery;
    let refused = Attempt { at: h.rental.now(), status: Some(500), latency_ms: 3, error: None };
    h.rental.worker().record_attempt(&failing.id, refused, &RETRIES).unwrap();
    booked_and_delivered(h, "2026-12-22", "2026-12-24");
    h.advance(TimeDelta::days(90));
    let pruned = h.rental.worker().prune().unwrap();
    assert_eq!((pruned.deliveries, pruned.events), (1, 0), "event {first} still has a delivery to make");
    let kept = h.rental.deliveries_of(&id, 10).unwrap();
    assert_eq!(kept.iter().map(|d| (d.event_seq, d.status)).collect::<Vec<_>>(), [(first, DeliveryStatus::Pending)]);
    assert!(h.events().iter().any(|e| e.seq == first));
}

fn idempotency_records_go_after_24_hours<S: Store>(h: &Harness<S>) {
    h.rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-22", 2), Some("retry-1")).unwrap();
    let stored = || h.rental.store().read().unwrap().idempotency("retry-1").unwrap().is_some();
    h.advance(TimeDelta::hours(24));
    assert_eq!(h.rental.worker().prune().unwrap().idempotency, 0);
    assert!(stored(), "kept for 24 hours to the millisecond");
    h.advance(TimeDelta::milliseconds(1));
    assert_eq!(h.rental.worker().prune().unwrap().idempotency, 1);
    assert!(!stored());
}

fn bookings_are_never_removed<S: Store>(h: &Harness<S>) {
    webhook(h);
    booked_and_delivered(h, "2026-12-20", "2026-12-22");
    booked_and_delivered(h, "2026-12-22", "2026-12-24");
    let before = h.all_bookings().len();
    h.advance(TimeDelta::days(400));
    h.rental.worker().prune().unwrap();
    assert_eq!(h.all_bookings().len(), before);
}

fn test_messages_go_after_the_retention<S: Store>(h: &Harness<S>) {
    use rental_core::message::MessageKind;
    let sent = h.rental.test_messages().begin("sea-view", MessageKind::Confirmed, "me@example.com").unwrap().unwrap();
    h.rental.test_messages().finish(&sent, Ok(())).unwrap();
    h.advance(TimeDelta::days(30));
    assert_eq!(h.rental.worker().prune().unwrap(), Pruned::default(), "30 days to the millisecond: kept");
    assert_eq!(h.rental.test_messages().recent("sea-view", chrono::Duration::days(31)).unwrap().len(), 1);
    h.advance(TimeDelta::milliseconds(1));
    assert_eq!(h.rental.worker().prune().unwrap().test_messages, 1);
    assert!(h.rental.test_messages().recent("sea-view", chrono::Duration::days(31)).unwrap().is_empty());
}
