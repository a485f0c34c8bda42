//! Each property's "today" is its own (docs/API.md sections 4 and 7). At
//! [`NOW`] it is Sunday evening in Auckland and still Saturday night in Los
//! Angeles: the same instant, two different dates.

use rental_core::availability::NightStatus;
use rental_core::occupancy::{PropertySummary, Summary};
use rental_core::{MemoryStore, Property, Rental, Settings, Slug, Store, demo};
use rental_tests::{Harness, NOW, d, fixed_clock, new_booking, store_suite};

store_suite!(
    today_differs_between_auckland_and_los_angeles_at_the_same_instant,
    the_summary_judges_each_property_on_its_own_today,
    an_auckland_arrival_shows_just_after_auckland_midnight_not_before,
    a_los_angeles_arrival_shows_just_after_los_angeles_midnight_not_before,
    a_stay_starting_on_the_los_angeles_today_is_past_in_auckland,
);

const LOFT: &str = "harbour-loft"; // Pacific/Auckland, UTC+13 in November

const BUNGALOW: &str = "venice-bungalow"; // America/Los_Angeles, UTC-8 in November

fn bungalow() -> Property {
    let mut edited = demo::sea_view();
    edited.slug = Slug::parse(BUNGALOW).unwrap();
    edited.name = "Venice Bungalow".into();
    edited.timezone = chrono_tz::America::Los_Angeles;
    edited.stay_rules.min_nights = 1;
    edited
}

fn with_bungalow<S: Store>(h: &Harness<S>) {
    h.import_properties(&[bungalow()]).unwrap();
}

fn of<'a>(s: &'a Summary, slug: &str) -> &'a PropertySummary {
    s.properties.iter().find(|p| p.slug.as_str() == slug).unwrap()
}

fn today_differs_between_auckland_and_los_angeles_at_the_same_instant<S: Store>(h: &Harness<S>) {
    with_bungalow(h);
    let s = h.summary().unwrap();
    assert_eq!((of(&s, LOFT).date, of(&s, BUNGALOW).date), (d("2026-11-22"), d("2026-11-21")));
    assert_eq!(s.date, d("2026-11-22"), "the top-level date is the service's zone, UTC");
    let loft = h.availability(LOFT, None, None).unwrap();
    let bungalow = h.availability(BUNGALOW, None, None).unwrap();
    assert_eq!((loft.from, bungalow.from), (d("2026-11-22"), d("2026-11-21")));
    assert_eq!((loft.to, bungalow.to), (d("2026-12-22"), d("2026-12-21")));
}

fn the_summary_judges_each_property_on_its_own_today<S: Store>(h: &Harness<S>) {
    with_bungalow(h);
    let loft_stay = h.book_confirmed(LOFT, "2026-11-22", "2026-11-24", 2);
    let bungalow_stay = h.book_confirmed(BUNGALOW, "2026-11-22", "2026-11-24", 2);
    let s = h.summary().unwrap();
    let (loft, bungalow) = (of(&s, LOFT), of(&s, BUNGALOW));
    assert!(loft.occupied && loft.check_in_today, "the guests arrived in Auckland today");
    assert_eq!(loft.current_booking.as_ref().map(|c| c.code.as_str()), Some(loft_stay.code.as_str()));
    assert!(!bungalow.occupied && !bungalow.check_in_today, "in Los Angeles they arrive tomorrow");
    assert_eq!(bungalow.next_arrival.as_ref().map(|n| n.code.as_str()), Some(bungalow_stay.code.as_str()));
    assert_eq!((s.totals.occupied_tonight, s.totals.check_ins_today), (1, 1));
}

fn an_auckland_arrival_shows_just_after_auckland_midnight_not_before<S: Store>(h: &Harness<S>) {
    let b = h.book(LOFT, "2026-11-23", "2026-11-25", 2);
    h.set_now("2026-11-22T10:59:59.999Z"); // 23:59:59.999 on the 22nd in Auckland
    let before = h.summary().unwrap();
    let loft = of(&before, LOFT);
    assert_eq!((loft.date, loft.check_in_today), (d("2026-11-22"), false));
    assert_eq!(loft.next_arrival.as_ref().map(|n| n.code.as_str()), Some(b.code.as_str()));
    assert_eq!(before.totals.check_ins_today, 0);

    h.set_now("2026-11-22T11:00:00.000Z"); // midnight: the 23rd in Auckland, still the 22nd in UTC
    let after = h.summary().unwrap();
    let loft = of(&after, LOFT);
    assert_eq!((loft.date, loft.check_in_today), (d("2026-11-23"), true));
    assert_eq!(after.date, d("2026-11-22"));
    assert_eq!(after.totals.check_ins_today, 1);
    assert_eq!(of(&after, "sea-view").date, d("2026-11-22"), "Lisbon is still on the 22nd");
}

fn a_los_angeles_arrival_shows_just_after_los_angeles_midnight_not_before<S: Store>(h: &Harness<S>) {
    with_bungalow(h);
    h.book(BUNGALOW, "2026-11-22", "2026-11-23", 2);
    h.set_now("2026-11-22T07:59:59.999Z");
    let bungalow = of(&h.summary().unwrap(), BUNGALOW).clone();
    assert_eq!((bungalow.date, bungalow.check_in_today), (d("2026-11-21"), false));
    h.set_now("2026-11-22T08:00:00.000Z");
    let bungalow = of(&h.summary().unwrap(), BUNGALOW).clone();
    assert_eq!((bungalow.date, bungalow.check_in_today), (d("2026-11-22"), true));
}

fn a_stay_starting_on_the_los_angeles_today_is_past_in_auckland<S: Store>(h: &Harness<S>) {
    with_bungalow(h);
    let in_la = h.availability(BUNGALOW, Some(d("2026-11-21")), Some(d("2026-11-22"))).unwrap();
    let in_auckland = h.availability(LOFT, Some(d("2026-11-21")), Some(d("2026-11-22"))).unwrap();
    assert_eq!((in_la.nights[0].status, in_auckland.nights[0].status), (NightStatus::Available, NightStatus::Past));
    h.book(BUNGALOW, "2026-11-21", "2026-11-23", 2);
    let got = h.create_booking(&new_booking(LOFT, "2026-11-21", "2026-11-23", 2), None);
    assert!(
        matches!(&got, Err(rental_core::Error::Validation(e)) if e[0].code == "past_dates" && e[0].field == "checkIn"),
        "{got:?}"
    );
}

#[test]
fn the_top_level_date_follows_the_configured_zone() {
    let settings = Settings { timezone: chrono_tz::America::Los_Angeles, ..Settings::default() };
    let rental = Rental::new(MemoryStore::new()).with_clock(fixed_clock()).with_settings(settings).unwrap();
    rental.import_properties(&demo::properties()).unwrap();
    let s = rental.summary().unwrap();
    assert_eq!(s.date, d("2026-11-21"));
    assert_eq!(s.generated_at, rental_tests::at(NOW));
}
