//! docs/API.md section 6: creating bookings.

use rental_core::availability::NightStatus;
use rental_core::ids::CODE_ALPHABET;
use rental_core::{Error, NotFound, PaymentStatus, Source, Status, Stay, Store};
use rental_tests::{Harness, NOW, at, d, new_booking, store_suite};

use super::faults;

store_suite!(
    a_new_booking_is_pending_unpaid_and_priced_like_its_quote,
    a_new_booking_holds_its_nights,
    a_new_booking_emits_booking_created_with_guests_total_and_source,
    booking_codes_have_the_prefix_and_six_unambiguous_characters,
    overlapping_nights_are_refused_with_the_taken_dates,
    a_refused_overlap_emits_nothing,
    same_day_turnover_is_allowed,
    blocked_nights_refuse_bookings,
    the_same_nights_at_another_property_are_free,
    stay_rule_violations_are_validation_errors_on_the_right_field,
    a_stay_that_breaks_a_rule_and_overlaps_is_a_validation_error,
    notes_and_source_are_kept,
    a_booking_is_found_by_its_code,
    an_unknown_booking_code_is_not_found,
);

fn a_new_booking_is_pending_unpaid_and_priced_like_its_quote<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    assert_eq!((b.status, b.payment_status), (Status::Pending, PaymentStatus::Unpaid));
    assert_eq!((b.total, b.currency.as_str(), b.nights), (134_288, "USD", 7));
    assert_eq!((b.property.as_str(), b.property_name.as_str()), ("sea-view", "Sea View Cottage"));
    assert_eq!((b.guest_name.as_str(), b.guest_email.as_str(), b.guests), ("Ada Lovelace", "ada@example.com", 3));
    assert_eq!((b.check_in(), b.check_out()), (d("2026-12-20"), d("2026-12-27")));
    assert_eq!(b.source.as_str(), "api", "api is the default source");
    assert_eq!((b.created_at, b.updated_at), (at(NOW), at(NOW)));
    assert_eq!((b.cancelled_by, b.cancel_reason.as_deref()), (None, None));
    assert!(b.notes.is_empty());
}

fn a_new_booking_holds_its_nights<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-23", 2);
    let a = h.availability("sea-view", Some(d("2026-12-19")), Some(d("2026-12-24"))).unwrap();
    let got: Vec<NightStatus> = a.nights.iter().map(|n| n.status).collect();
    let (free, held) = (NightStatus::Available, NightStatus::Held);
    assert_eq!(got, [free, held, held, held, free]);
}

fn a_new_booking_emits_booking_created_with_guests_total_and_source<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let events = h.events();
    assert_eq!(events.len(), 1);
    let e = &events[0].event;
    assert_eq!((e.event.as_str(), e.timestamp), ("booking.created", at(NOW)));
    let want = serde_json::json!({
        "code": b.code, "property": "sea-view", "propertyName": "Sea View Cottage",
        "guestName": "Ada Lovelace", "checkIn": "2026-12-20", "checkOut": "2026-12-27",
        "status": "pending", "paymentStatus": "unpaid", "guests": 3, "total": 134_288, "source": "api",
    });
    assert_eq!(e.data, want);
    assert!(e.body().contains("\"event\":\"booking.created\""));
}

fn booking_codes_have_the_prefix_and_six_unambiguous_characters<S: Store>(h: &Harness<S>) {
    let mut codes = std::collections::BTreeSet::new();
    for week in 0..10u64 {
        let check_in = d("2027-01-04") + chrono::Days::new(7 * week);
        let b = h.create(&rental_core::NewBooking {
            check_in,
            check_out: check_in + chrono::Days::new(3),
            ..new_booking("sea-view", "2027-01-01", "2027-01-02", 2)
        });
        let code = b.booking.code.to_string();
        let random = code.strip_prefix("BK-").unwrap_or_else(|| panic!("{code} lacks the BK- prefix"));
        assert_eq!(random.len(), 6, "{code}");
        assert!(random.bytes().all(|c| CODE_ALPHABET.contains(&c)), "{code}");
        codes.insert(code);
    }
    assert_eq!(codes.len(), 10, "codes are unique");
}

fn overlapping_nights_are_refused_with_the_taken_dates<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let got = h.create_booking(&new_booking("sea-view", "2026-12-25", "2026-12-29", 2), None);
    match got {
        Err(Error::DatesUnavailable { dates }) => assert_eq!(dates, [d("2026-12-25"), d("2026-12-26")]),
        other => panic!("expected dates_unavailable, got {other:?}"),
    }
    let confirmed = h.book_confirmed("alpine-cabin", "2027-01-04", "2027-01-10", 2);
    let got = h.create_booking(&new_booking("alpine-cabin", "2027-01-01", "2027-01-05", 2), None);
    assert!(matches!(got, Err(Error::DatesUnavailable { ref dates }) if dates == &[confirmed.check_in()]), "{got:?}");
}

fn a_refused_overlap_emits_nothing<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let before = (h.events(), h.all_bookings());
    let got = h.create_booking(&new_booking("sea-view", "2026-12-18", "2026-12-21", 2), None);
    assert!(matches!(got, Err(Error::DatesUnavailable { .. })), "{got:?}");
    assert_eq!((h.events(), h.all_bookings()), before);
}

fn same_day_turnover_is_allowed<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.book("sea-view", "2026-12-27", "2026-12-29", 2); // arrives the day the first guest leaves
    h.book("sea-view", "2026-12-18", "2026-12-20", 2); // leaves the day the first guest arrives
    assert_eq!(h.all_bookings().len(), 3);
}

fn blocked_nights_refuse_bookings<S: Store>(h: &Harness<S>) {
    let block =
        h.calendars().add_block("sea-view", Stay::new(d("2026-12-24"), d("2026-12-25")).unwrap(), "family").unwrap();
    let got = h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 2), None);
    assert!(matches!(got, Err(Error::DatesUnavailable { ref dates }) if dates == &[d("2026-12-24")]), "{got:?}");
    h.calendars().remove_block("sea-view", &block.id).unwrap();
    h.book("sea-view", "2026-12-20", "2026-12-27", 2);
}

fn the_same_nights_at_another_property_are_free<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-01", "2026-12-05", 2);
    h.book("alpine-cabin", "2026-12-01", "2026-12-05", 2);
    h.book("harbour-loft", "2026-12-01", "2026-12-05", 2);
}

fn stay_rule_violations_are_validation_errors_on_the_right_field<S: Store>(h: &Harness<S>) {
    let cases = [
        (new_booking("sea-view", "2026-12-20", "2026-12-21", 2), ("checkOut", "min_nights")),
        (new_booking("sea-view", "2027-01-01", "2027-02-01", 2), ("checkOut", "max_nights")),
        (new_booking("sea-view", "2026-12-20", "2026-12-23", 5), ("guests", "max_guests")),
        (new_booking("sea-view", "2026-11-20", "2026-11-23", 2), ("checkIn", "past_dates")),
        (new_booking("harbour-loft", "2026-12-20", "2026-12-21", 2), ("checkOut", "min_nights")), // season: 2
    ];
    for (request, (field, code)) in cases {
        let got = faults(h.create_booking(&request, None));
        assert_eq!(got, [(field.to_owned(), code)], "{}..{} x{}", request.check_in, request.check_out, request.guests);
    }
    assert!(h.all_bookings().is_empty());
    assert!(h.events().is_empty());
}

fn a_stay_that_breaks_a_rule_and_overlaps_is_a_validation_error<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 2);
    let got = h.create_booking(&new_booking("sea-view", "2026-12-22", "2026-12-23", 2), None);
    assert_eq!(faults(got), [("checkOut".to_owned(), "min_nights")]);
}

fn notes_and_source_are_kept<S: Store>(h: &Harness<S>) {
    let request = rental_core::NewBooking {
        notes: Some("  late arrival  ".into()),
        source: Some(Source::parse("agent").unwrap()),
        ..new_booking("sea-view", "2026-12-20", "2026-12-23", 2)
    };
    let b = h.create(&request).booking;
    assert_eq!(b.notes.len(), 1);
    assert_eq!((b.notes[0].text.as_str(), b.notes[0].at), ("late arrival", at(NOW)));
    assert_eq!(b.source.as_str(), "agent");
    assert_eq!(h.events()[0].event.data["source"], "agent");
}

fn a_booking_is_found_by_its_code<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-23", 2);
    assert_eq!(h.booking(b.code.as_str()).unwrap(), b);
}

fn an_unknown_booking_code_is_not_found<S: Store>(h: &Harness<S>) {
    let got = h.booking("BK-NOPE22");
    assert!(matches!(got, Err(Error::NotFound(NotFound::Booking(ref c))) if c == "BK-NOPE22"), "{got:?}");
}
