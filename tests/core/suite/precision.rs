//! What a booking call returns is what a later read gives back, on both stores,
//! even when the clock has sub-millisecond precision (the system clock does).
//! `Rental::now()` is kept to the millisecond, the precision at which the
//! redb store (and the API) write timestamps.

use rental_core::{Action, BookingQuery, Store};
use rental_tests::{Harness, list_all, store_suite};

store_suite!(
    stores: [
        memory => rental_tests::Harness::memory,
        redb => rental_tests::Harness::redb,
        redb_cached => rental_tests::Harness::redb_cached,
    ],
    tests: [
        a_created_booking_reads_back_exactly_as_returned,
        an_updated_booking_reads_back_exactly_as_returned,
        updated_since_the_instant_of_a_change_includes_that_change,
    ]
);

const SUB_MS: &str = "2026-11-22T07:39:21.123456789Z";

fn a_created_booking_reads_back_exactly_as_returned<S: Store>(h: &Harness<S>) {
    h.set_now(SUB_MS);
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    assert_eq!(h.booking(b.code.as_str()).unwrap(), b);
}

fn an_updated_booking_reads_back_exactly_as_returned<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.set_now(SUB_MS);
    let confirmed = h.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    assert_eq!(h.booking(b.code.as_str()).unwrap(), confirmed);
}

fn updated_since_the_instant_of_a_change_includes_that_change<S: Store>(h: &Harness<S>) {
    h.set_now(SUB_MS);
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let got = list_all(h, BookingQuery { updated_since: Some(b.updated_at), limit: 50, ..BookingQuery::default() });
    assert_eq!(got.len(), 1, "the booking changed at {} is not listed as changed since then", b.updated_at);
}
