//! docs/API.md section 4: per-night availability.

use rental_core::availability::NightStatus;
use rental_core::{Error, NotFound, Stay, Store};
use rental_tests::{Harness, d, store_suite};

use super::faults;

store_suite!(
    each_night_says_whether_it_is_available_held_booked_blocked_or_past,
    each_night_carries_its_rate_before_discounts_and_its_minimum_stay,
    from_defaults_to_the_property_local_today_and_to_to_thirty_nights_later,
    to_defaults_to_thirty_nights_after_an_explicit_from,
    a_range_of_366_nights_is_allowed_but_367_is_refused,
    to_on_or_before_from_is_refused,
    an_unknown_property_has_no_availability,
    a_stay_long_over_still_holds_its_nights_when_asked_about_later,
);

fn statuses<S: Store>(h: &Harness<S>, slug: &str, from: &str, to: &str) -> Vec<(String, NightStatus, bool)> {
    let a = h.availability(slug, Some(d(from)), Some(d(to))).unwrap();
    a.nights.iter().map(|n| (n.date.to_string(), n.status, n.available)).collect()
}

fn each_night_says_whether_it_is_available_held_booked_blocked_or_past<S: Store>(h: &Harness<S>) {
    use NightStatus::{Available, Blocked, Booked, Held, Past};
    h.book("sea-view", "2026-11-23", "2026-11-25", 2);
    h.book_confirmed("sea-view", "2026-11-26", "2026-11-28", 2);
    h.calendars().add_block("sea-view", Stay::new(d("2026-11-28"), d("2026-11-29")).unwrap(), "painting").unwrap();
    let got = statuses(h, "sea-view", "2026-11-20", "2026-11-30");
    let want = [
        ("2026-11-20", Past),
        ("2026-11-21", Past),
        ("2026-11-22", Available), // today
        ("2026-11-23", Held),
        ("2026-11-24", Held),
        ("2026-11-25", Available), // the pending stay's departure day
        ("2026-11-26", Booked),
        ("2026-11-27", Booked),
        ("2026-11-28", Blocked),
        ("2026-11-29", Available),
    ];
    let want: Vec<(String, NightStatus, bool)> =
        want.iter().map(|(date, s)| ((*date).to_owned(), *s, *s == Available)).collect();
    assert_eq!(got, want);
}

fn each_night_carries_its_rate_before_discounts_and_its_minimum_stay<S: Store>(h: &Harness<S>) {
    let rates = |slug: &str, from: &str, to: &str| -> Vec<(String, i64, u32)> {
        let a = h.availability(slug, Some(d(from)), Some(d(to))).unwrap();
        a.nights.iter().map(|n| (n.date.to_string(), n.price, n.min_nights)).collect()
    };
    let owned = |rows: &[(&str, i64, u32)]| -> Vec<(String, i64, u32)> {
        rows.iter().map(|(date, p, m)| ((*date).to_owned(), *p, *m)).collect()
    };
    let weekend = [
        ("2026-12-24", 15_000, 2), // Thursday
        ("2026-12-25", 18_000, 2), // Friday: weekend rate
        ("2026-12-26", 18_000, 2), // Saturday
        ("2026-12-27", 15_000, 2), // Sunday is a weeknight
    ];
    assert_eq!(rates("sea-view", "2026-12-24", "2026-12-28"), owned(&weekend));
    let season = [
        ("2026-12-19", 12_000, 1), // a Saturday, but the loft has no weekend rate
        ("2026-12-20", 16_000, 2), // Summer holidays start: their rate and minimum
        ("2026-12-21", 16_000, 2),
    ];
    assert_eq!(rates("harbour-loft", "2026-12-19", "2026-12-22"), owned(&season));
    let a = h.availability("sea-view", None, None).unwrap();
    assert_eq!((a.property.as_str(), a.currency.as_str()), ("sea-view", "USD"));
}

fn from_defaults_to_the_property_local_today_and_to_to_thirty_nights_later<S: Store>(h: &Harness<S>) {
    let a = h.availability("sea-view", None, None).unwrap();
    assert_eq!((a.from, a.to), (d("2026-11-22"), d("2026-12-22")));
    assert_eq!(a.nights.len(), 30);
    assert_eq!(a.nights[0].status, NightStatus::Available, "today is not past");
}

fn to_defaults_to_thirty_nights_after_an_explicit_from<S: Store>(h: &Harness<S>) {
    let a = h.availability("sea-view", Some(d("2027-02-01")), None).unwrap();
    assert_eq!((a.from, a.to, a.nights.len()), (d("2027-02-01"), d("2027-03-03"), 30));
}

fn a_range_of_366_nights_is_allowed_but_367_is_refused<S: Store>(h: &Harness<S>) {
    let ok = h.availability("sea-view", Some(d("2027-01-01")), Some(d("2028-01-02"))).unwrap();
    assert_eq!(ok.nights.len(), 366);
    let refused = h.availability("sea-view", Some(d("2027-01-01")), Some(d("2028-01-03")));
    assert_eq!(faults(refused), [("to".to_owned(), "invalid_range")]);
}

fn to_on_or_before_from_is_refused<S: Store>(h: &Harness<S>) {
    for to in ["2027-01-10", "2027-01-09"] {
        let refused = h.availability("sea-view", Some(d("2027-01-10")), Some(d(to)));
        assert_eq!(faults(refused), [("to".to_owned(), "invalid_range")], "to = {to}");
    }
}

fn an_unknown_property_has_no_availability<S: Store>(h: &Harness<S>) {
    let got = h.availability("nowhere", None, None);
    assert!(matches!(got, Err(Error::NotFound(NotFound::Property(ref s))) if s == "nowhere"), "{got:?}");
}

/// The read cache holds only the nights of the last few days on; a question
/// about older nights must still see what held them.
fn a_stay_long_over_still_holds_its_nights_when_asked_about_later<S: Store>(h: &Harness<S>) {
    use rental_core::pricing::Problem;
    let over = h.book_confirmed("sea-view", "2026-11-26", "2026-11-28", 2);
    h.advance(chrono::TimeDelta::days(40));
    // A write after the clock moved, so a cache lets go of what is past.
    h.book("sea-view", "2027-01-10", "2027-01-12", 2);
    let quote = h
        .quote(&rental_core::QuoteRequest {
            property: "sea-view".parse().unwrap(),
            check_in: d("2026-11-25"),
            check_out: d("2026-11-28"),
            guests: 2,
            children: 0,
            pets: 0,
            promo_code: None,
        })
        .unwrap();
    let taken = quote.problems.iter().find_map(|p| match p {
        Problem::NightsTaken { dates } => Some(dates.clone()),
        _ => None,
    });
    assert_eq!(taken, Some(vec![d("2026-11-26"), d("2026-11-27")]), "{} holds them", over.code);
    let summary = h.summary().unwrap();
    let sea_view = summary.properties.iter().find(|p| p.slug.as_str() == "sea-view").unwrap();
    assert!(sea_view.current_booking.is_none(), "nobody is in: {sea_view:?}");
    assert_eq!(sea_view.next_arrival.as_ref().map(|a| a.check_in), Some(d("2027-01-10")));
}
