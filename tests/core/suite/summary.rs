//! docs/API.md section 7: the occupancy summary.

use rental_core::lifecycle::Party;
use rental_core::occupancy::{PropertySummary, Summary};
use rental_core::{Action, Stay, Store};
use rental_tests::{Harness, NOW, at, d, store_suite};

store_suite!(
    every_active_property_is_summarised_by_slug_with_its_times,
    occupied_counts_only_confirmed_stays,
    check_in_today_includes_pending_requests,
    check_out_today_reports_a_departure_that_no_longer_occupies,
    next_arrival_is_the_earliest_upcoming_stay_other_than_the_current_one,
    cancelled_stays_and_blocks_are_neither_arrivals_nor_occupants,
    pending_bookings_counts_every_request_whatever_its_dates,
    inactive_properties_neither_appear_nor_count,
);

fn of<'a>(s: &'a Summary, slug: &str) -> &'a PropertySummary {
    s.properties.iter().find(|p| p.slug.as_str() == slug).unwrap_or_else(|| panic!("{slug} not in the summary"))
}

/// Books stays that started before [`NOW`] by creating them a week earlier.
fn earlier<S: Store, T>(h: &Harness<S>, make: impl FnOnce() -> T) -> T {
    h.set_now("2026-11-15T12:00:00Z");
    let result = make();
    h.set_now(NOW);
    result
}

fn every_active_property_is_summarised_by_slug_with_its_times<S: Store>(h: &Harness<S>) {
    let s = h.summary().unwrap();
    assert_eq!((s.date, s.generated_at), (d("2026-11-22"), at(NOW)));
    let rows: Vec<(&str, &str, &str, &str)> = s
        .properties
        .iter()
        .map(|p| (p.slug.as_str(), p.check_in_time.as_str(), p.check_out_time.as_str(), p.door_code.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("alpine-cabin", "4:00 PM", "10:00 AM", "1357"),
            ("harbour-loft", "2:00 PM", "10:30 AM", "2468"),
            ("sea-view", "3:00 PM", "11:00 AM", "4821"),
        ]
    );
    assert_eq!(s.totals.properties, 3);
    assert!(s.properties.iter().all(|p| !p.occupied && p.next_arrival.is_none()));
}

fn occupied_counts_only_confirmed_stays<S: Store>(h: &Harness<S>) {
    let (confirmed, _) = earlier(h, || {
        (
            h.book_confirmed("sea-view", "2026-11-20", "2026-11-24", 2),
            h.book("alpine-cabin", "2026-11-20", "2026-11-24", 2),
        )
    });
    let s = h.summary().unwrap();
    let sea = of(&s, "sea-view");
    assert!(sea.occupied);
    let current = sea.current_booking.as_ref().unwrap();
    assert_eq!(
        (current.code.as_str(), current.guest_name.as_str(), current.guests, current.check_in, current.check_out),
        (confirmed.code.as_str(), "Ada Lovelace", 2, d("2026-11-20"), d("2026-11-24"))
    );
    let alpine = of(&s, "alpine-cabin");
    assert!(!alpine.occupied && alpine.current_booking.is_none(), "a pending request does not occupy");
    assert_eq!(s.totals.occupied_tonight, 1);
}

fn check_in_today_includes_pending_requests<S: Store>(h: &Harness<S>) {
    let request = h.book("alpine-cabin", "2026-11-22", "2026-11-25", 2);
    let confirmed = h.book_confirmed("harbour-loft", "2026-11-22", "2026-11-24", 2);
    let s = h.summary().unwrap();
    let alpine = of(&s, "alpine-cabin");
    assert!(alpine.check_in_today && !alpine.occupied);
    let next = alpine.next_arrival.as_ref().unwrap();
    assert_eq!((next.code.as_str(), next.check_in, next.status), (request.code.as_str(), d("2026-11-22"), "pending"));
    let loft = of(&s, "harbour-loft");
    assert!(loft.check_in_today && loft.occupied);
    assert_eq!(loft.current_booking.as_ref().map(|c| c.code.as_str()), Some(confirmed.code.as_str()));
    assert!(loft.next_arrival.is_none(), "the current stay is not also the next arrival");
    assert!(!of(&s, "sea-view").check_in_today);
    assert_eq!(s.totals.check_ins_today, 2);
}

fn check_out_today_reports_a_departure_that_no_longer_occupies<S: Store>(h: &Harness<S>) {
    earlier(h, || h.book_confirmed("sea-view", "2026-11-19", "2026-11-22", 2));
    let s = h.summary().unwrap();
    let sea = of(&s, "sea-view");
    assert!(sea.check_out_today && !sea.occupied && !sea.check_in_today);
    assert_eq!((s.totals.check_outs_today, s.totals.occupied_tonight), (1, 0));
}

fn next_arrival_is_the_earliest_upcoming_stay_other_than_the_current_one<S: Store>(h: &Harness<S>) {
    earlier(h, || h.book_confirmed("sea-view", "2026-11-20", "2026-11-24", 2));
    h.book("sea-view", "2026-12-01", "2026-12-03", 2);
    let next = h.book_confirmed("sea-view", "2026-11-28", "2026-11-30", 2);
    let s = h.summary().unwrap();
    let arrival = of(&s, "sea-view").next_arrival.clone().unwrap();
    assert_eq!(
        (arrival.code.as_str(), arrival.check_in, arrival.status),
        (next.code.as_str(), d("2026-11-28"), "confirmed")
    );
    assert_eq!(arrival.guest_name, "Ada Lovelace");
}

fn cancelled_stays_and_blocks_are_neither_arrivals_nor_occupants<S: Store>(h: &Harness<S>) {
    let gone = h.book_confirmed("sea-view", "2026-11-22", "2026-11-24", 2);
    h.update_booking(gone.code.as_str(), &Action::Cancel { by: Party::Guest, reason: None }).unwrap();
    h.calendars().add_block("alpine-cabin", Stay::new(d("2026-11-22"), d("2026-11-30")).unwrap(), "repairs").unwrap();
    let s = h.summary().unwrap();
    for p in &s.properties {
        assert!(!p.occupied && !p.check_in_today && p.next_arrival.is_none(), "{}", p.slug);
    }
    assert_eq!((s.totals.check_ins_today, s.totals.occupied_tonight), (0, 0));
}

fn pending_bookings_counts_every_request_whatever_its_dates<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2027-03-01", "2027-03-04", 2);
    h.book("alpine-cabin", "2026-11-22", "2026-11-25", 2);
    h.book_confirmed("harbour-loft", "2026-12-01", "2026-12-03", 2);
    let cancelled = h.book("harbour-loft", "2026-12-05", "2026-12-07", 2);
    h.update_booking(cancelled.code.as_str(), &Action::Cancel { by: Party::Host, reason: None }).unwrap();
    assert_eq!(h.summary().unwrap().totals.pending_bookings, 2);
}

fn inactive_properties_neither_appear_nor_count<S: Store>(h: &Harness<S>) {
    h.book("harbour-loft", "2026-11-22", "2026-11-24", 2);
    h.book("sea-view", "2026-12-01", "2026-12-03", 2);
    h.import_properties(&[{
        let mut edited = rental_core::demo::harbour_loft();
        edited.active = false;
        edited
    }])
    .unwrap();
    let s = h.summary().unwrap();
    let slugs: Vec<&str> = s.properties.iter().map(|p| p.slug.as_str()).collect();
    assert_eq!(slugs, ["alpine-cabin", "sea-view"]);
    assert_eq!((s.totals.properties, s.totals.pending_bookings, s.totals.check_ins_today), (2, 1, 0));
}
