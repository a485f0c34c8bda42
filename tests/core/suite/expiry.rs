//! docs/API.md section 6, checkout links: unpaid requests lapse after 24 hours.

use chrono::TimeDelta;
use rental_core::booking::CancelledBy;
use rental_core::{Action, PaymentStatus, Status, Store};
use rental_tests::{Harness, d, store_suite};

store_suite!(
    an_unpaid_request_is_not_expired_before_a_day_has_passed,
    an_unpaid_request_expires_a_day_after_creation_with_three_events,
    expired_nights_are_free_again,
    confirmed_and_authorized_bookings_do_not_expire,
    expiring_twice_changes_nothing_the_second_time,
    holds_lapse_in_the_order_they_were_made_each_when_its_own_day_is_over,
);

fn an_unpaid_request_is_not_expired_before_a_day_has_passed<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.advance(TimeDelta::hours(24) - TimeDelta::milliseconds(1));
    let seq = h.last_seq();
    assert!(h.worker().expire_due().unwrap().is_empty());
    assert!(h.event_names_after(seq).is_empty());
}

fn an_unpaid_request_expires_a_day_after_creation_with_three_events<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    h.advance(TimeDelta::hours(25));
    let expired = h.worker().expire_due().unwrap();
    assert_eq!(expired.len(), 1);
    let stored = h.booking(b.code.as_str()).unwrap();
    assert_eq!(expired[0], stored);
    assert_eq!(
        (stored.status, stored.payment_status, stored.cancelled_by),
        (Status::Cancelled, PaymentStatus::Expired, Some(CancelledBy::System))
    );
    assert_eq!(stored.updated_at, h.now());
    assert_eq!(h.event_names_after(seq), ["booking.payment_expired", "booking.cancelled", "booking.updated"]);
    let cancelled = &h.events()[2].event.data;
    assert_eq!(cancelled["cancelledBy"], "system");
}

fn expired_nights_are_free_again<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.advance(TimeDelta::hours(25));
    h.worker().expire_due().unwrap();
    let a = h.availability("sea-view", Some(d("2026-12-20")), Some(d("2026-12-27"))).unwrap();
    assert!(a.nights.iter().all(|n| n.available));
    h.book("sea-view", "2026-12-20", "2026-12-27", 2);
}

fn confirmed_and_authorized_bookings_do_not_expire<S: Store>(h: &Harness<S>) {
    let confirmed = h.book_confirmed("sea-view", "2026-12-20", "2026-12-27", 3);
    let authorized = h.book("alpine-cabin", "2026-12-20", "2026-12-27", 3);
    h.update_booking(authorized.code.as_str(), &Action::Authorize).unwrap();
    let unpaid = h.book("harbour-loft", "2026-12-20", "2026-12-27", 2);
    h.advance(TimeDelta::days(3));
    let expired: Vec<String> = h.worker().expire_due().unwrap().iter().map(|b| b.code.to_string()).collect();
    assert_eq!(expired, [unpaid.code.to_string()]);
    assert_eq!(h.booking(confirmed.code.as_str()).unwrap().status, Status::Confirmed);
    assert_eq!(h.booking(authorized.code.as_str()).unwrap().status, Status::Pending);
}

fn expiring_twice_changes_nothing_the_second_time<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.advance(TimeDelta::hours(25));
    assert_eq!(h.worker().expire_due().unwrap().len(), 1);
    let seq = h.last_seq();
    assert!(h.worker().expire_due().unwrap().is_empty());
    assert!(h.event_names_after(seq).is_empty());
}

fn holds_lapse_in_the_order_they_were_made_each_when_its_own_day_is_over<S: Store>(h: &Harness<S>) {
    let first = h.book("sea-view", "2026-12-20", "2026-12-22", 2);
    h.advance(TimeDelta::hours(12));
    let second = h.book("sea-view", "2026-12-22", "2026-12-24", 2);
    let confirmed = h.book_confirmed("sea-view", "2026-12-24", "2026-12-26", 2);
    h.advance(TimeDelta::hours(12));
    let codes = |expired: Vec<rental_core::Booking>| expired.into_iter().map(|b| b.code).collect::<Vec<_>>();
    assert_eq!(codes(h.worker().expire_due().unwrap()), [first.code]);
    h.advance(TimeDelta::hours(12) - TimeDelta::milliseconds(1));
    assert!(h.worker().expire_due().unwrap().is_empty(), "the second hold has a millisecond left");
    h.advance(TimeDelta::milliseconds(1));
    assert_eq!(codes(h.worker().expire_due().unwrap()), [second.code]);
    assert_eq!(h.booking(confirmed.code.as_str()).unwrap().status, Status::Confirmed);
}
