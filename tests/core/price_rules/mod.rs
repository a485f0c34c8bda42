//! docs/API.md section 25 through the public quote function: each rule on
//! both sides of its boundary (`rules`), the checks made on save (`saving`),
//! and random rules and stays against a reference written from the section
//! alone (`reference`).

mod reference;
mod rules;
mod saving;

use chrono::{DateTime, NaiveDate, Utc};
use rental_core::calendar::{CalendarEntry, EntryKind};
use rental_core::pricing::{self, Asked, Facts, Problem, Quote};
use rental_core::property::{Pricing, StayRules};
use rental_core::{Property, Stay, Tz};

/// A plain house in Lisbon: 10 000 a night, 12 000 on Fridays and Saturdays,
/// 2 guests included of 6, 1 000 per extra guest per night, 5 000 cleaning,
/// 10 % tax, no weekly or monthly discount, 1 to 28 nights.
pub fn house() -> Property {
    Property::builder("house")
        .name("House")
        .timezone(Tz::Europe__Lisbon)
        .pricing(
            Pricing::new(10_000)
                .weekend_rate(12_000)
                .max_guests(6)
                .base_guests(2)
                .extra_guest_fee(1_000)
                .cleaning_fee(5_000)
                .tax_rate(1_000),
        )
        .stay_rules(StayRules::default().nights(1, 28))
        .build()
        .expect("a valid house")
}

/// 2026-11-22, a Sunday, at noon in Lisbon (UTC in winter).
pub const NOW: &str = "2026-11-22T12:00:00Z";

pub fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

pub fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

pub fn stay(a: &str, b: &str) -> Stay {
    Stay::new(d(a), d(b)).unwrap()
}

/// A confirmed booking of `a..b`.
pub fn booked(a: &str, b: &str) -> CalendarEntry {
    CalendarEntry {
        holder: format!("BK-{a}").into(),
        stay: stay(a, b),
        kind: EntryKind::Booked,
        guest_name: "X".into(),
        guests: 2,
    }
}

/// The quote of `asked` at `now` with `calendar`, no promo uses.
pub fn quote_at(p: &Property, asked: &Asked<'_>, now: &str, calendar: &[CalendarEntry]) -> Quote {
    pricing::quote(p, asked, &Facts { now: at(now), calendar, promo_uses: 0 })
}

/// The codes of a quote's problems.
pub fn codes(q: &Quote) -> Vec<&'static str> {
    q.problems.iter().map(Problem::code).collect()
}
