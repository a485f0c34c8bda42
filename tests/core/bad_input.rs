//! Refused input writes nothing: each bad request gets its typed error, and
//! afterwards the outbox, the bookings and the properties are as they were.

use rental_core::event::OutboxEvent;
use rental_core::{Booking, Error, NewBooking, NotFound, Property, Slug, Store, demo};
use rental_tests::{Harness, new_booking, store_suite};

store_suite!(
    check_out_before_check_in_is_refused_on_check_out,
    check_out_on_check_in_is_refused_on_check_out,
    an_unknown_property_is_not_found,
    no_guests_is_refused_on_guests,
    more_guests_than_the_property_allows_is_refused_on_guests,
    more_guests_than_any_property_allows_is_refused_on_guests,
    a_ten_year_stay_is_refused_on_check_out,
    a_bad_email_is_refused_on_guest_email,
    an_empty_guest_name_is_refused_on_guest_name,
    a_request_with_several_faults_reports_them_all,
    a_reused_idempotency_key_is_refused,
    an_import_with_one_invalid_property_writes_none_of_them,
);

/// What a refused request must leave untouched.
#[derive(Debug, PartialEq)]
struct Snapshot {
    events: Vec<OutboxEvent>,
    bookings: Vec<Booking>,
    properties: Vec<Property>,
}

fn snapshot<S: Store>(h: &Harness<S>) -> Snapshot {
    Snapshot { events: h.events(), bookings: h.all_bookings(), properties: h.all_properties().unwrap() }
}

/// A harness with some history, so that "unchanged" is not just "empty".
fn seeded<S: Store>(h: &Harness<S>) -> Snapshot {
    h.book_confirmed("sea-view", "2026-12-01", "2026-12-05", 2);
    h.book("alpine-cabin", "2026-12-01", "2026-12-05", 2);
    let before = snapshot(h);
    assert_eq!(before.events.len(), 4);
    before
}

/// Sends `request` to a seeded store; returns the error after checking nothing was written.
fn refused<S: Store>(h: &Harness<S>, request: &NewBooking) -> Error {
    let before = seeded(h);
    let err = h.create_booking(request, None).expect_err("a bad request is refused");
    assert_eq!(snapshot(h), before, "a refused request wrote something");
    err
}

/// The `(field, code)` pairs of a validation error.
fn faults(err: Error) -> Vec<(String, &'static str)> {
    match err {
        Error::Validation(errors) => errors.into_iter().map(|e| (e.field, e.code)).collect(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn one(field: &str, code: &'static str) -> Vec<(String, &'static str)> {
    vec![(field.to_owned(), code)]
}

fn check_out_before_check_in_is_refused_on_check_out<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("sea-view", "2026-12-27", "2026-12-20", 2));
    assert_eq!(faults(err), one("checkOut", "invalid_range"));
}

fn check_out_on_check_in_is_refused_on_check_out<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("sea-view", "2026-12-20", "2026-12-20", 2));
    assert_eq!(faults(err), one("checkOut", "invalid_range"));
}

fn an_unknown_property_is_not_found<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("nowhere", "2026-12-20", "2026-12-27", 2));
    assert!(matches!(err, Error::NotFound(NotFound::Property(ref s)) if s == "nowhere"), "{err:?}");
}

fn no_guests_is_refused_on_guests<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("sea-view", "2026-12-20", "2026-12-27", 0));
    assert_eq!(faults(err), one("guests", "invalid"));
}

fn more_guests_than_the_property_allows_is_refused_on_guests<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("sea-view", "2026-12-20", "2026-12-27", 5));
    assert_eq!(faults(err), one("guests", "max_guests"));
}

fn more_guests_than_any_property_allows_is_refused_on_guests<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("sea-view", "2026-12-20", "2026-12-27", u32::MAX));
    assert_eq!(faults(err), one("guests", "invalid"));
}

fn a_ten_year_stay_is_refused_on_check_out<S: Store>(h: &Harness<S>) {
    let err = refused(h, &new_booking("sea-view", "2026-12-20", "2036-12-20", 2));
    assert_eq!(faults(err), one("checkOut", "invalid_range"));
}

fn a_bad_email_is_refused_on_guest_email<S: Store>(h: &Harness<S>) {
    for email in ["ada", "ada@example", "ada@@example.com", "ada @example.com", "", "@example.com"] {
        let request =
            NewBooking { guest_email: email.into(), ..new_booking("sea-view", "2026-12-20", "2026-12-27", 2) };
        let before = snapshot(h);
        let err = h.create_booking(&request, None).expect_err(email);
        assert_eq!(faults(err), one("guestEmail", "invalid_email"), "{email:?}");
        assert_eq!(snapshot(h), before);
    }
    let request = NewBooking { guest_email: "ada".into(), ..new_booking("sea-view", "2026-12-20", "2026-12-27", 2) };
    refused(h, &request);
}

fn an_empty_guest_name_is_refused_on_guest_name<S: Store>(h: &Harness<S>) {
    let request = NewBooking { guest_name: "   ".into(), ..new_booking("sea-view", "2026-12-20", "2026-12-27", 2) };
    assert_eq!(faults(refused(h, &request)), one("guestName", "invalid"));
}

fn a_request_with_several_faults_reports_them_all<S: Store>(h: &Harness<S>) {
    let request = NewBooking {
        guest_name: String::new(),
        guest_email: "nope".into(),
        ..new_booking("nowhere", "2026-12-27", "2026-12-20", 0)
    };
    let mut fields: Vec<String> = faults(refused(h, &request)).into_iter().map(|(f, _)| f).collect();
    fields.sort();
    assert_eq!(fields, ["checkOut", "guestEmail", "guestName", "guests"]);
}

fn a_reused_idempotency_key_is_refused<S: Store>(h: &Harness<S>) {
    h.create_booking(&new_booking("sea-view", "2027-01-10", "2027-01-13", 2), Some("k-1")).unwrap();
    let before = snapshot(h);
    let got = h.create_booking(&new_booking("sea-view", "2027-01-20", "2027-01-23", 2), Some("k-1"));
    assert!(matches!(got, Err(Error::IdempotencyKeyReused)), "{got:?}");
    assert_eq!(snapshot(h), before);
}

fn an_import_with_one_invalid_property_writes_none_of_them<S: Store>(h: &Harness<S>) {
    let before = seeded(h);
    let lake = {
        let mut edited = demo::sea_view();
        edited.slug = Slug::parse("lake-house").unwrap();
        edited.name = "Lake House".into();
        edited
    };
    let changed = {
        let mut edited = demo::alpine_cabin();
        edited.pricing.nightly_rate = 1;
        edited
    };
    let broken = {
        let mut edited = demo::harbour_loft();
        edited.pricing.max_guests = 0;
        edited
    };
    let got = h.import_properties(&[lake, changed, broken]);
    let Err(Error::Validation(errors)) = got else { panic!("expected a validation error, got {got:?}") };
    assert!(errors.iter().any(|e| e.field == "[2].maxGuests"), "{errors:?}");
    assert_eq!(snapshot(h), before);
    assert!(matches!(h.property("lake-house"), Err(Error::NotFound(_))));
}
