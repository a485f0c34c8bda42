//! docs/API.md section 6: listing bookings, with filters and cursors.

use chrono::{Days, TimeDelta};
use rental_core::lifecycle::Party;
use rental_core::{Action, Booking, BookingQuery, NewBooking, Slug, Source, Status, Store};
use rental_tests::{Harness, d, list_all, new_booking, store_suite};

use super::faults;

store_suite!(
    walking_the_pages_returns_every_booking_once_in_check_in_then_code_order,
    every_status_is_listed_unless_filtered,
    the_status_filter_takes_a_list,
    the_property_filter_keeps_one_property,
    the_source_filter_keeps_one_source,
    from_and_to_keep_stays_that_overlap_the_range,
    a_stay_of_the_most_nights_is_kept_by_from_on_its_last_night_alone,
    updated_since_keeps_bookings_changed_at_or_after_the_instant,
    filters_and_pages_combine,
    a_limit_outside_1_to_200_is_refused,
    the_default_query_lists_fifty_to_a_page,
);

fn codes(bookings: &[Booking]) -> Vec<String> {
    bookings.iter().map(|b| b.code.to_string()).collect()
}

fn query() -> BookingQuery {
    BookingQuery::default()
}

fn sorted(mut bookings: Vec<Booking>) -> Vec<Booking> {
    bookings.sort_by(|a, b| (a.check_in(), &a.code).cmp(&(b.check_in(), &b.code)));
    bookings
}

/// Sixteen bookings over three properties, several arriving on the same day.
fn many<S: Store>(h: &Harness<S>) -> Vec<Booking> {
    let mut made = Vec::new();
    for (i, slug) in ["sea-view", "alpine-cabin", "harbour-loft"].into_iter().enumerate() {
        for week in 0..5u64 {
            let check_in = d("2027-01-04") + Days::new(7 * week + u64::from(i == 2));
            let request = NewBooking {
                check_in,
                check_out: check_in + Days::new(4),
                ..new_booking(slug, "2027-01-01", "2027-01-02", 2)
            };
            made.push(h.create(&request).booking);
        }
    }
    made.push(h.book("sea-view", "2026-12-01", "2026-12-03", 2));
    made
}

fn walking_the_pages_returns_every_booking_once_in_check_in_then_code_order<S: Store>(h: &Harness<S>) {
    let made = many(h);
    for limit in [1, 3, 4, 16, 17, 200] {
        let walked = list_all(h, BookingQuery { limit, ..query() });
        assert_eq!(codes(&walked), codes(&sorted(made.clone())), "limit {limit}");
    }
    let short = h.bookings(&BookingQuery { limit: 15, ..query() }).unwrap();
    assert_eq!(short.next.as_ref().map(|c| &c.code), short.data.last().map(|b| &b.code));
    let exact = h.bookings(&BookingQuery { limit: 16, ..query() }).unwrap();
    assert_eq!((exact.data.len(), exact.next), (16, None), "a full last page says there is no more");
}

fn every_status_is_listed_unless_filtered<S: Store>(h: &Harness<S>) {
    let pending = h.book("sea-view", "2026-12-01", "2026-12-03", 2);
    let confirmed = h.book_confirmed("sea-view", "2026-12-05", "2026-12-07", 2);
    let cancelled = h.book("sea-view", "2026-12-10", "2026-12-12", 2);
    h.update_booking(cancelled.code.as_str(), &Action::Cancel { by: Party::Host, reason: None }).unwrap();
    assert_eq!(codes(&h.all_bookings()), codes(&sorted(vec![pending, confirmed, cancelled])));
}

fn the_status_filter_takes_a_list<S: Store>(h: &Harness<S>) {
    let pending = h.book("sea-view", "2026-12-01", "2026-12-03", 2);
    let confirmed = h.book_confirmed("sea-view", "2026-12-05", "2026-12-07", 2);
    let cancelled = h.book("sea-view", "2026-12-10", "2026-12-12", 2);
    h.update_booking(cancelled.code.as_str(), &Action::Cancel { by: Party::Host, reason: None }).unwrap();
    let only = |statuses: Vec<Status>| codes(&list_all(h, BookingQuery { statuses, ..query() }));
    assert_eq!(only(vec![Status::Confirmed]), codes(std::slice::from_ref(&confirmed)));
    assert_eq!(only(vec![Status::Pending, Status::Cancelled]), codes(&[pending, cancelled]));
    let parsed: Vec<Status> = "cancelled,confirmed".split(',').map(|s| s.parse().unwrap()).collect();
    assert_eq!(only(parsed).len(), 2);
}

fn the_property_filter_keeps_one_property<S: Store>(h: &Harness<S>) {
    let made = many(h);
    let property = Some(Slug::parse("alpine-cabin").unwrap());
    let got = list_all(h, BookingQuery { property, limit: 2, ..query() });
    let want: Vec<Booking> = made.into_iter().filter(|b| b.property.as_str() == "alpine-cabin").collect();
    assert_eq!((got.len(), codes(&got)), (5, codes(&sorted(want))));
}

fn the_source_filter_keeps_one_source<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-01", "2026-12-03", 2);
    let agent = h
        .create(&NewBooking {
            source: Some(Source::parse("agent").unwrap()),
            ..new_booking("sea-view", "2026-12-05", "2026-12-07", 2)
        })
        .booking;
    let got = list_all(h, BookingQuery { source: Some(Source::parse("agent").unwrap()), ..query() });
    assert_eq!(codes(&got), codes(&[agent]));
    assert!(list_all(h, BookingQuery { source: Some(Source::parse("airbnb").unwrap()), ..query() }).is_empty());
}

fn from_and_to_keep_stays_that_overlap_the_range<S: Store>(h: &Harness<S>) {
    let a = h.book("sea-view", "2026-12-01", "2026-12-05", 2);
    let b = h.book("sea-view", "2026-12-05", "2026-12-08", 2);
    let c = h.book("sea-view", "2026-12-10", "2026-12-12", 2);
    let within =
        |from: &str, to: &str| codes(&list_all(h, BookingQuery { from: Some(d(from)), to: Some(d(to)), ..query() }));
    assert_eq!(
        within("2026-12-05", "2026-12-10"),
        codes(std::slice::from_ref(&b)),
        "a leaves on the 5th, c arrives on the 10th"
    );
    assert_eq!(within("2026-12-04", "2026-12-11"), codes(&[a.clone(), b.clone(), c.clone()]));
    assert_eq!(within("2026-12-08", "2026-12-10"), Vec::<String>::new());
    let from_only = list_all(h, BookingQuery { from: Some(d("2026-12-07")), ..query() });
    assert_eq!(codes(&from_only), codes(&[b, c]));
    let to_only = list_all(h, BookingQuery { to: Some(d("2026-12-05")), ..query() });
    assert_eq!(codes(&to_only), codes(&[a]));
}

fn a_stay_of_the_most_nights_is_kept_by_from_on_its_last_night_alone<S: Store>(h: &Harness<S>) {
    h.edit_property("sea-view", |p| p.stay_rules.max_nights = rental_core::stay::MAX_NIGHTS).unwrap();
    let long = h.book("sea-view", "2026-12-01", "2027-12-02", 2);
    assert_eq!(long.nights, rental_core::stay::MAX_NIGHTS);
    let after = h.book("sea-view", "2027-12-02", "2027-12-04", 2);
    let from = |day: &str| codes(&list_all(h, BookingQuery { from: Some(d(day)), ..query() }));
    assert_eq!(from("2027-12-01"), codes(&[long.clone(), after.clone()]), "its last night is the 1st");
    assert_eq!(from("2027-12-02"), codes(std::slice::from_ref(&after)));
    let page = h.bookings(&BookingQuery { from: Some(d("2027-12-01")), limit: 1, ..query() }).unwrap();
    assert_eq!(codes(&page.data), codes(std::slice::from_ref(&long)));
    let rest = BookingQuery { from: Some(d("2027-12-01")), after: page.next, ..query() };
    assert_eq!(codes(&h.bookings(&rest).unwrap().data), codes(&[after]), "the next page starts after it");
}

fn updated_since_keeps_bookings_changed_at_or_after_the_instant<S: Store>(h: &Harness<S>) {
    let untouched = h.book("sea-view", "2026-12-01", "2026-12-03", 2);
    let touched = h.book("sea-view", "2026-12-05", "2026-12-07", 2);
    h.advance(TimeDelta::minutes(10));
    let since = h.now();
    h.update_booking(touched.code.as_str(), &Action::Annotate { note: "hello".into() }).unwrap();
    let fresh = h.book("sea-view", "2026-12-10", "2026-12-12", 2);
    let got = list_all(h, BookingQuery { updated_since: Some(since), ..query() });
    assert_eq!(codes(&got), codes(&[touched, fresh]));
    let everything = list_all(h, BookingQuery { updated_since: Some(since - TimeDelta::hours(1)), ..query() });
    assert!(codes(&everything).contains(&untouched.code.to_string()));
}

fn filters_and_pages_combine<S: Store>(h: &Harness<S>) {
    let made = many(h);
    for b in made.iter().step_by(3) {
        h.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    }
    let got = list_all(h, BookingQuery { statuses: vec![Status::Pending], limit: 2, ..query() });
    let confirmed: Vec<String> = made.iter().step_by(3).map(|b| b.code.to_string()).collect();
    let want: Vec<Booking> = made.into_iter().filter(|b| !confirmed.contains(&b.code.to_string())).collect();
    assert_eq!(codes(&got), codes(&sorted(want)));
}

fn a_limit_outside_1_to_200_is_refused<S: Store>(h: &Harness<S>) {
    for limit in [0, 201] {
        assert_eq!(faults(h.bookings(&BookingQuery { limit, ..query() })), [("limit".to_owned(), "invalid")]);
    }
    assert!(h.bookings(&BookingQuery { limit: 200, ..query() }).is_ok());
}

fn the_default_query_lists_fifty_to_a_page<S: Store>(h: &Harness<S>) {
    let made = many(h);
    let page = h.bookings(&BookingQuery::default()).unwrap();
    assert_eq!(codes(&page.data), codes(&sorted(made)));
    assert!(page.next.is_none());
}
