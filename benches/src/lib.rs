//! Data generators for the benches in `core.rs`.
//!
//! Everything here is deterministic except booking codes (the engine draws
//! them from the OS), and everything is judged at one fixed instant, [`now`]:
//! the benches give the same instant to the pure functions and, through a
//! [`ManualClock`], to [`Rental`].
//!
//! - [`seasonal_property`] and [`year_calendar`]: one property with several
//!   seasons and a year of bookings and blocks, for the quote and
//!   availability figures.
//! - [`fleet_property`] and [`fleet_stays`]: the 1,000 properties with 10
//!   stays each of the occupancy summary.
//! - [`booking_slot`]: an endless supply of stays that never collide, for the
//!   booking-creation rate.
//! - [`open_rental`], [`load_calendar`], [`load_fleet`]: the same data in a
//!   [`RedbStore`] in a temporary directory.
//!
//! # Panics
//!
//! The generators panic when the engine refuses the data they were built to
//! produce (a property, a stay, a booking): that is a bug in the bench, and
//! a bench has nothing better to do with it.

#![allow(clippy::missing_panics_doc, reason = "the module docs say when every generator panics")]

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;
use rental_core::calendar::EntryKind;
use rental_core::occupancy::today_in;
use rental_core::property::SeasonalRate;
use rental_core::{Action, ManualClock, NewBooking, Property, RedbStore, Rental, Slug, Stay, demo};

/// The instant every bench is judged at: noon UTC on 2026-11-22.
pub fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z").map_or(DateTime::UNIX_EPOCH, |t| t.to_utc())
}

/// `date` plus `days`.
pub fn plus(date: NaiveDate, days: u64) -> NaiveDate {
    date.checked_add_days(Days::new(days)).expect("bench dates stay far from the end of time")
}

/// The stay of `nights` nights arriving `days` after `date`.
pub fn stay_at(date: NaiveDate, days: u64, nights: u64) -> Stay {
    Stay::new(plus(date, days), plus(date, days + nights)).expect("bench stays are 1 to 366 nights")
}

fn season(name: &str, start: &str, end: &str, nightly: i64, min_nights: Option<u32>) -> SeasonalRate {
    SeasonalRate {
        name: name.into(),
        start_date: start.parse().expect("a literal date"),
        end_date: end.parse().expect("a literal date"),
        nightly_rate: nightly,
        weekend_rate: Some(nightly + 3_000),
        min_nights,
        max_nights: None,
    }
}

/// Sea View with five seasons over the next year (two of them overlapping),
/// so that each night's rate lookup has real work to do.
pub fn seasonal_property() -> Property {
    let mut p = demo::sea_view();
    p.pricing.seasonal_rates = vec![
        season("Winter holidays", "2026-12-18", "2027-01-06", 24_000, Some(4)),
        season("Carnival", "2027-02-05", "2027-02-14", 19_000, None),
        season("Easter", "2027-03-25", "2027-04-05", 20_000, Some(3)),
        season("Summer", "2027-06-01", "2027-08-31", 22_000, Some(3)),
        season("August peak", "2027-08-01", "2027-08-15", 27_000, Some(5)),
    ];
    p
}

/// [`seasonal_property`] with every rule of docs/API.md section 25 on: the
/// quote and availability figures "with every rule".
pub fn every_rule_property() -> Property {
    use rental_core::property::{
        EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, PriceRules, PromoCode, TouristTax,
    };
    let mut p = seasonal_property();
    let weekend: rental_core::property::Weekdays =
        [chrono::Weekday::Fri, chrono::Weekday::Sat, chrono::Weekday::Sun].into_iter().collect();
    p.stay_rules = p.stay_rules.days(weekend, weekend).notice(48, Some(365)).preparation(1);
    let lead = |within: Option<u32>, beyond: Option<u32>, adjust| LeadTimeAdjustment {
        within_days: within,
        beyond_days: beyond,
        adjust,
    };
    let mut rules = PriceRules::default()
        .gap_fill(GapFill { max_gap_nights: 3, min_nights: 1, discount: 2_000 })
        .lead_time(lead(Some(3), None, -2_500))
        .lead_time(lead(Some(14), None, -1_000))
        .lead_time(lead(None, Some(270), 2_000))
        .length_of_stay(vec![
            LengthOfStayDiscount { min_nights: 3, discount: 300 },
            LengthOfStayDiscount { min_nights: 7, discount: 1_000 },
            LengthOfStayDiscount { min_nights: 28, discount: 2_000 },
        ])
        .early_bird(EarlyBirdDiscount { min_days_before: 21, discount: 1_200 })
        .tourist_tax(TouristTax { per_person_per_night: 250, max_nights: Some(7), exempt_under_age: Some(12) })
        .pets(2_500, 2);
    for (i, code) in ["SPRING", "SUMMER", "AUTUMN", "WINTER", "FRIENDS"].into_iter().enumerate() {
        let mut promo = PromoCode::new(code, 500 + 100 * u32::try_from(i).unwrap_or(0));
        promo.max_uses = Some(100);
        rules = rules.promo(promo);
    }
    p.pricing.rules = rules;
    p
}

/// A year of entries from `today`: a 5-night stay every 10 days (alternately
/// confirmed and pending) and a 2-night block every 30 days, leaving the
/// [`quote_stay`] week free: 47 entries.
pub fn year_calendar(today: NaiveDate) -> Vec<(Stay, EntryKind)> {
    let stays = (0..36u64).map(|k| {
        let kind = if k.is_multiple_of(2) { EntryKind::Booked } else { EntryKind::Held };
        (stay_at(today, 1 + 10 * k, 5), kind)
    });
    let blocks = (0..12u64).map(|k| (stay_at(today, 6 + 30 * k, 2), EntryKind::Blocked));
    let free = quote_stay(today);
    stays.chain(blocks).filter(|(s, _)| !s.overlaps(free.check_in(), free.check_out())).collect()
}

/// The 7-night stay of the quote figure, four weeks ahead (2026-12-20 to 27 from
/// the bench's today), inside the winter holidays season and free on [`year_calendar`].
pub fn quote_stay(today: NaiveDate) -> Stay {
    stay_at(today, 28, 7)
}

/// Time zones the fleet cycles through, so the summary converts `now` into many zones.
pub const ZONES: [Tz; 10] = [
    chrono_tz::Europe::Lisbon,
    chrono_tz::America::Denver,
    chrono_tz::Pacific::Auckland,
    chrono_tz::America::New_York,
    chrono_tz::Asia::Tokyo,
    chrono_tz::Europe::Berlin,
    chrono_tz::Australia::Sydney,
    chrono_tz::America::Los_Angeles,
    chrono_tz::UTC,
    chrono_tz::Asia::Kolkata,
];

/// Property number `i` of a fleet: Sea View with its own slug, name and time zone.
pub fn fleet_property(i: usize) -> Property {
    let mut p = demo::sea_view();
    p.slug = Slug::parse(&format!("home-{i:05}")).expect("a valid slug");
    p.name = format!("Home {i}");
    p.timezone = ZONES[i % ZONES.len()];
    p
}

/// The 10 stays of fleet property `i` whose local today is `today`: 2 to 4
/// nights every 6 days, the first arriving today for every third property.
/// Each stay is paired with whether it gets confirmed (about half are).
pub fn fleet_stays(i: usize, today: NaiveDate) -> Vec<(Stay, bool)> {
    (0..10u64).map(|k| (stay_at(today, (i % 3) as u64 + 6 * k, 2 + k % 3), (i as u64 + k).is_multiple_of(2))).collect()
}

/// A booking request for `stay` at `slug`.
pub fn request(slug: &str, stay: Stay) -> NewBooking {
    NewBooking {
        property: slug.parse().expect("a property slug"),
        check_in: stay.check_in(),
        check_out: stay.check_out(),
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 2,
        notes: None,
        source: None,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    }
}

/// The `n`th stay of the booking-rate bench over a fleet of `properties`:
/// property `n % properties`, 3 nights arriving `7 * (n / properties) + 1`
/// days after `today`. No two values of `n` collide, and the supply never ends.
pub fn booking_slot(n: u64, properties: u64, today: NaiveDate) -> (usize, Stay) {
    ((n % properties) as usize, stay_at(today, 1 + 7 * (n / properties), 3))
}

/// An engine on a fresh redb store in `dir`, with its clock stopped at [`now`].
pub fn open_rental(dir: &Path) -> Rental<RedbStore> {
    let store = RedbStore::open_dir(dir).expect("open the redb store");
    Rental::new(store).with_clock(Arc::new(ManualClock::new(now())))
}

/// Writes `entries` onto `slug`'s calendar: bookings through `create_booking`
/// (confirmed ones then through `update_booking`) and blocks through `add_block`.
pub fn load_calendar(rental: &Rental<RedbStore>, slug: &str, entries: &[(Stay, EntryKind)]) {
    for &(stay, kind) in entries {
        match kind {
            EntryKind::Blocked => drop(rental.calendars().add_block(slug, stay, "owner").expect("add a block")),
            EntryKind::Held => book(rental, slug, stay, false),
            EntryKind::Booked => book(rental, slug, stay, true),
        }
    }
}

/// Creates a booking of `stay` at `slug`, confirming it when asked.
pub fn book(rental: &Rental<RedbStore>, slug: &str, stay: Stay, confirm: bool) {
    let created = rental.create_booking(&request(slug, stay), None).expect("create a booking");
    if confirm {
        rental.update_booking(created.booking.code.as_str(), &Action::Confirm).expect("confirm a booking");
    }
}

/// Imports a fleet of `size` properties and books their [`fleet_stays`].
pub fn load_fleet(rental: &Rental<RedbStore>, size: usize) {
    let fleet: Vec<Property> = (0..size).map(fleet_property).collect();
    rental.import_properties(&fleet).expect("import the fleet");
    for (i, p) in fleet.iter().enumerate() {
        for (stay, confirm) in fleet_stays(i, today_in(p.timezone, now())) {
            book(rental, p.slug.as_str(), stay, confirm);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_properties_are_valid() {
        seasonal_property().validate().unwrap();
        for i in 0..20 {
            fleet_property(i).validate().unwrap();
        }
    }

    #[test]
    fn the_year_calendar_leaves_the_quote_week_free() {
        let today = now().date_naive();
        let (free, calendar) = (quote_stay(today), year_calendar(today));
        assert_eq!(calendar.len(), 47);
        assert!(calendar.iter().all(|(s, _)| !s.overlaps(free.check_in(), free.check_out())));
    }

    #[test]
    fn booking_slots_never_collide() {
        let today = now().date_naive();
        let mut seen: Vec<(usize, Stay)> = (0..1_000).map(|n| booking_slot(n, 7, today)).collect();
        seen.sort_by_key(|&(p, s)| (p, s.check_in()));
        assert!(seen.windows(2).all(|w| w[0].0 != w[1].0 || !w[0].1.overlaps(w[1].1.check_in(), w[1].1.check_out())));
    }
}
