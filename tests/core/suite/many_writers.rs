//! What holds when several writers share a store (docs/API.md section 17):
//! inserts that find their key taken conflict, and each event is fanned out on its own mark.

use rental_core::store::{IdempotencyRecord, ReadTx, WriteTx};
use rental_core::webhook::Subscription;
use rental_core::{Store, StoreError};
use rental_tests::{Harness, store_suite};

store_suite!(
    inserting_a_booking_under_a_taken_code_conflicts_and_replaces_nothing,
    recording_a_taken_idempotency_key_conflicts_and_replaces_nothing,
    each_event_is_marked_fanned_out_on_its_own,
    an_event_marked_fanned_out_is_never_fanned_out_again,
);

fn inserting_a_booking_under_a_taken_code_conflicts_and_replaces_nothing<S: Store>(h: &Harness<S>) {
    let first = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let other = rental_core::Booking { guest_name: "Someone Else".into(), ..first.clone() };
    let mut tx = h.rental.store().write().unwrap();
    let err = tx.insert_booking(&other).expect_err("the code is taken");
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert!(err.is_transient(), "a conflict is worth trying again");
    drop(tx);
    assert_eq!(h.rental.booking(first.code.as_str()).unwrap(), first);
}

fn recording_a_taken_idempotency_key_conflicts_and_replaces_nothing<S: Store>(h: &Harness<S>) {
    let request = rental_tests::new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let first = h.create_booking(&request, Some("order-7")).unwrap().booking;
    let stored = h.rental.store().read().unwrap().idempotency("order-7").unwrap().expect("recorded");
    let other = IdempotencyRecord { fingerprint: "another request".into(), ..stored.clone() };
    let mut tx = h.rental.store().write().unwrap();
    assert!(matches!(tx.insert_idempotency(&other), Err(StoreError::Conflict(_))));
    drop(tx);
    assert_eq!(h.rental.store().read().unwrap().idempotency("order-7").unwrap(), Some(stored));
    assert_eq!(h.create_booking(&request, Some("order-7")).unwrap().booking, first, "still replays");
}

fn each_event_is_marked_fanned_out_on_its_own<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-22", 2);
    h.book("sea-view", "2026-12-23", "2026-12-25", 2);
    h.book("sea-view", "2026-12-26", "2026-12-28", 2);
    let unfanned = |h: &Harness<S>| -> Vec<u64> {
        h.rental.store().read().unwrap().unfanned_events(10).unwrap().iter().map(|e| e.seq).collect()
    };
    assert_eq!(unfanned(h), [1, 2, 3]);
    // A writer that committed event 2 first fans it out before 1 and 3 are seen.
    let mut tx = h.rental.store().write().unwrap();
    tx.mark_fanned_out(&[2]).unwrap();
    tx.commit().unwrap();
    assert_eq!(unfanned(h), [1, 3], "the events around it are still to do");
    h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    assert_eq!(h.rental.worker().fan_out(100).unwrap(), 2);
    let mut sent: Vec<u64> =
        h.rental.worker().due_deliveries(100).unwrap().iter().map(|d| d.delivery.event_seq).collect();
    sent.sort_unstable();
    assert_eq!(sent, [1, 3]);
    assert!(unfanned(h).is_empty());
}

fn an_event_marked_fanned_out_is_never_fanned_out_again<S: Store>(h: &Harness<S>) {
    h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    h.book("sea-view", "2026-12-20", "2026-12-22", 2);
    assert_eq!(h.rental.worker().fan_out(100).unwrap(), 1);
    assert_eq!(h.rental.worker().fan_out(100).unwrap(), 0, "nothing new");
    h.book("sea-view", "2026-12-23", "2026-12-25", 2);
    assert_eq!(h.rental.worker().fan_out(100).unwrap(), 1, "only the new event");
    assert_eq!(h.rental.worker().due_deliveries(100).unwrap().len(), 2, "one delivery per event");
}
