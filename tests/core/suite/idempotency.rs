//! docs/API.md section 6: `Idempotency-Key` on booking creation.

use chrono::TimeDelta;
use rental_core::{Error, Status, Store};
use rental_tests::{Harness, new_booking, store_suite};

use super::faults;

store_suite!(
    a_repeat_with_the_same_key_and_body_replays_the_first_booking,
    the_same_key_with_a_different_body_is_refused,
    a_key_is_remembered_for_almost_a_day,
    a_key_older_than_a_day_makes_a_new_booking,
    after_a_day_the_key_may_carry_a_different_body,
    the_same_body_under_another_key_is_a_new_request,
    a_malformed_key_is_refused,
    a_replay_after_a_change_answers_the_first_response_again,
);

fn a_replay_after_a_change_answers_the_first_response_again<S: Store>(h: &Harness<S>) {
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let first = h.create_booking(&request, Some("order-42")).unwrap().booking;
    h.update_booking(first.code.as_str(), &rental_core::Action::Confirm).unwrap();
    let again = h.create_booking(&request, Some("order-42")).unwrap();
    assert!(again.replayed);
    assert_eq!(again.booking, first, "the response of the first request, pending and unpaid");
    assert_eq!(again.booking.status, Status::Pending);
}

fn a_repeat_with_the_same_key_and_body_replays_the_first_booking<S: Store>(h: &Harness<S>) {
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let first = h.create_booking(&request, Some("order-42")).unwrap();
    assert!(!first.replayed);
    let before = (h.events(), h.all_bookings());
    let again = h.create_booking(&request, Some("order-42")).unwrap();
    assert!(again.replayed);
    assert_eq!(again.booking, first.booking, "the same booking, same code");
    assert_eq!((h.events(), h.all_bookings()), before, "nothing new: no booking, no event");
}

fn the_same_key_with_a_different_body_is_refused<S: Store>(h: &Harness<S>) {
    h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), Some("order-42")).unwrap();
    let before = (h.events(), h.all_bookings());
    let other = new_booking("sea-view", "2027-01-10", "2027-01-13", 2);
    let got = h.create_booking(&other, Some("order-42"));
    assert!(matches!(got, Err(Error::IdempotencyKeyReused)), "{got:?}");
    assert_eq!((h.events(), h.all_bookings()), before);
}

fn a_key_is_remembered_for_almost_a_day<S: Store>(h: &Harness<S>) {
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let first = h.create_booking(&request, Some("order-42")).unwrap();
    h.advance(TimeDelta::hours(24) - TimeDelta::milliseconds(1));
    let again = h.create_booking(&request, Some("order-42")).unwrap();
    assert!(again.replayed);
    assert_eq!(again.booking.code, first.booking.code);
}

fn a_key_older_than_a_day_makes_a_new_booking<S: Store>(h: &Harness<S>) {
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let first = h.create_booking(&request, Some("order-42")).unwrap().booking;
    h.advance(TimeDelta::hours(24));
    // The first request's checkout link lapses at the same moment, freeing its nights.
    let expired: Vec<_> = h.worker().expire_due().unwrap().into_iter().map(|b| b.code).collect();
    assert_eq!(expired, std::slice::from_ref(&first.code));
    let again = h.create_booking(&request, Some("order-42")).unwrap();
    assert!(!again.replayed);
    assert_ne!(again.booking.code, first.code);
    assert_eq!(again.booking.status, Status::Pending);
    assert_eq!(h.all_bookings().len(), 2);
}

fn after_a_day_the_key_may_carry_a_different_body<S: Store>(h: &Harness<S>) {
    let first = h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), Some("order-42")).unwrap();
    h.advance(TimeDelta::hours(24));
    let other = h.create_booking(&new_booking("sea-view", "2027-01-10", "2027-01-13", 2), Some("order-42")).unwrap();
    assert!(!other.replayed);
    assert_ne!(other.booking.code, first.booking.code);
}

fn the_same_body_under_another_key_is_a_new_request<S: Store>(h: &Harness<S>) {
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    h.create_booking(&request, Some("order-42")).unwrap();
    let got = h.create_booking(&request, Some("order-43"));
    assert!(matches!(got, Err(Error::DatesUnavailable { .. })), "{got:?}");
}

fn a_malformed_key_is_refused<S: Store>(h: &Harness<S>) {
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let too_long = "k".repeat(256);
    for key in ["", "has space", too_long.as_str()] {
        assert_eq!(
            faults(h.create_booking(&request, Some(key))),
            [("Idempotency-Key".to_owned(), "invalid")],
            "{key:?}"
        );
    }
    assert!(h.create_booking(&request, Some(&"k".repeat(255))).is_ok());
}
