//! The whole quote against a slow reference written from docs/API.md
//! section 25 alone (sharing no code with the library), over random rules,
//! stays and calendars; and the invariants: `total` is the sum of the lines,
//! no line is negative.

use std::collections::BTreeSet;

use chrono::{Datelike, Days, Months, NaiveDate, TimeZone, Utc, Weekday};
use proptest::prelude::*;
use rental_core::calendar::{CalendarEntry, EntryKind};
use rental_core::pricing::{self, Asked, Facts, Quote};
use rental_core::property::{
    EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, PriceRules, PromoCode, TouristTax, Weekdays,
};
use rental_core::{Property, Stay, Tz};

use super::house;

/// A promo code: discount, first and last check-in (days from today), minimum nights, most uses.
type Promo = (u32, i64, i64, Option<u32>, Option<u32>);

/// The rules as the section's table states them, drawn at random.
#[derive(Debug, Clone)]
struct Rules {
    weekday: i64,
    weekend: i64,
    check_in_days: Vec<bool>,
    check_out_days: Vec<bool>,
    notice_hours: u32,
    window_days: Option<u32>,
    prep: u32,
    min_nights: u32,
    gap: Option<(u32, u32, u32)>,
    lead: Vec<(bool, u32, i32)>,
    los: Vec<(u32, u32)>,
    early: Option<(u32, u32)>,
    promo: Option<Promo>,
    tourist: Option<(i64, Option<u32>)>,
    pet_fee: i64,
    max_pets: u32,
}

#[derive(Debug, Clone)]
struct Ask {
    start: i64,
    nights: u32,
    guests: u32,
    children: u32,
    pets: u32,
    code: Option<&'static str>,
    uses: u32,
    minute: i64,
    taken: Vec<(i64, u32)>,
}

fn rules() -> impl Strategy<Value = Rules> {
    let days = || prop::collection::vec(prop::bool::weighted(0.8), 7);
    (
        (1_000i64..50_000, 1_000i64..60_000, days(), days(), prop::sample::select(vec![0u32, 0, 24, 48, 72])),
        (prop::option::of(5u32..400), 0u32..3, 1u32..5, prop::option::of((1u32..5, 1u32..5, 0u32..=5_000))),
        prop::collection::vec((any::<bool>(), 0u32..300, -10_000i32..=5_000), 0..3),
        prop::collection::vec((1u32..30, 0u32..=5_000), 0..3),
        prop::option::of((0u32..200, 0u32..=5_000)),
        prop::option::of((
            0u32..=5_000,
            -30i64..30,
            -30i64..400,
            prop::option::of(1u32..10),
            prop::option::of(1u32..3),
        )),
        (prop::option::of((0i64..1_000, prop::option::of(1u32..10))), 0i64..5_000, 0u32..3),
    )
        .prop_map(
            |(
                (weekday, weekend, i, o, notice),
                (window, prep, min, gap),
                lead,
                los,
                early,
                promo,
                (tourist, pet_fee, max_pets),
            )| Rules {
                weekday,
                weekend,
                check_in_days: i,
                check_out_days: o,
                notice_hours: notice,
                window_days: window,
                prep,
                min_nights: min,
                gap: gap.map(|(max, m, d)| (max, m.min(min), d)),
                lead,
                los,
                early,
                promo,
                tourist,
                pet_fee,
                max_pets,
            },
        )
}

fn ask() -> impl Strategy<Value = Ask> {
    (
        (-3i64..420, 1u32..20, 1u32..8, 0u32..3, 0u32..3),
        (prop::sample::select(vec![None, Some("Deal"), Some("DEAL"), Some("NOPE")]), 0u32..3, 0i64..1_440),
        prop::collection::vec((-30i64..60, 1u32..8), 0..4),
    )
        .prop_map(|((start, nights, guests, children, pets), (code, uses, minute), taken)| Ask {
            start,
            nights,
            guests,
            children: children.min(guests - 1),
            pets,
            code,
            uses,
            minute,
            taken,
        })
}

const TODAY: &str = "2026-11-22";

fn today() -> NaiveDate {
    TODAY.parse().unwrap()
}

fn day(offset: i64) -> NaiveDate {
    if offset >= 0 { today() + Days::new(offset as u64) } else { today() - Days::new(offset.unsigned_abs()) }
}

fn weekdays(flags: &[bool]) -> Weekdays {
    let all = [Weekday::Mon, Weekday::Tue, Weekday::Wed, Weekday::Thu, Weekday::Fri, Weekday::Sat, Weekday::Sun];
    all.iter().zip(flags).filter(|(_, on)| **on).map(|(d, _)| *d).collect()
}

/// The library's property for `r`: the plain house with these rules.
fn property(r: &Rules) -> Property {
    let mut p = house();
    p.pricing.nightly_rate = r.weekday;
    p.pricing.weekend_rate = Some(r.weekend);
    p.stay_rules.min_nights = r.min_nights;
    p.stay_rules.check_in_days = weekdays(&r.check_in_days);
    p.stay_rules.check_out_days = weekdays(&r.check_out_days);
    p.stay_rules.advance_notice_hours = r.notice_hours;
    p.stay_rules.booking_window_days = r.window_days;
    p.stay_rules.preparation_nights = r.prep;
    let mut rules = PriceRules::default().pets(r.pet_fee, r.max_pets);
    rules.gap_fill =
        r.gap.map(|(max_gap_nights, min_nights, discount)| GapFill { max_gap_nights, min_nights, discount });
    rules.lead_time_adjustments = r
        .lead
        .iter()
        .map(|&(within, days, adjust)| LeadTimeAdjustment {
            within_days: within.then_some(days),
            beyond_days: (!within).then_some(days),
            adjust,
        })
        .collect();
    if !r.los.is_empty() {
        rules.length_of_stay_discounts =
            Some(r.los.iter().map(|&(min_nights, discount)| LengthOfStayDiscount { min_nights, discount }).collect());
    }
    rules.early_bird_discount =
        r.early.map(|(min_days_before, discount)| EarlyBirdDiscount { min_days_before, discount });
    if let Some((discount, from, to, min, max_uses)) = r.promo {
        let mut code = PromoCode::new("deal", discount);
        (code.valid_from, code.valid_to) = (Some(day(from.min(0))), None);
        (code.stay_from, code.stay_to) = (Some(day(from)), Some(day(to.max(from))));
        (code.min_nights, code.max_uses) = (min, max_uses);
        rules.promo_codes.push(code);
    }
    rules.tourist_tax = r.tourist.map(|(per_person_per_night, max_nights)| TouristTax {
        per_person_per_night,
        max_nights,
        exempt_under_age: Some(12),
    });
    p.pricing.rules = rules;
    p
}

/// Half away from zero of `amount * bp / 10000`, the slow way.
fn share(amount: i64, bp: i64) -> i64 {
    let x = i128::from(amount) * i128::from(bp);
    let magnitude = (x.abs() + 5_000) / 10_000;
    (if x < 0 { -magnitude } else { magnitude }) as i64
}

/// What section 25 says the quote is: (nightly (base, price), lines, discount kind, problem codes).
struct Expected {
    nightly: Vec<(i64, i64)>,
    lines: [i64; 8], // accommodation, discount, extra guests, cleaning, pets, taxes, tourist tax, total
    kind: Option<&'static str>,
    codes: BTreeSet<&'static str>,
    taken: Vec<NaiveDate>,
}

#[expect(clippy::too_many_lines, reason = "the reference follows section 25 top to bottom, to be read against it")]
fn reference(r: &Rules, a: &Ask) -> Expected {
    let now = Utc.from_utc_datetime(&today().and_hms_opt(0, 0, 0).unwrap()) + chrono::TimeDelta::minutes(a.minute);
    let check_in = day(a.start);
    let check_out = check_in + Days::new(u64::from(a.nights));
    let nights: Vec<NaiveDate> = (0..a.nights).map(|i| check_in + Days::new(u64::from(i))).collect();
    let ahead = (check_in - today()).num_days();
    // Closed nights: each taken night, and `prep` nights on both sides of each entry.
    let mut closed = BTreeSet::new();
    for &(start, len) in &a.taken {
        let first = day(start) - Days::new(u64::from(r.prep));
        for i in 0..(len + 2 * r.prep) {
            closed.insert(first + Days::new(u64::from(i)));
        }
    }
    let lead =
        r.lead.iter().find(|&&(within, n, _)| if within { ahead <= i64::from(n) } else { ahead >= i64::from(n) });
    let adjust = lead.map_or(0, |l| i64::from(l.2));
    let nightly: Vec<(i64, i64)> = nights
        .iter()
        .map(|n| {
            let base = if matches!(n.weekday(), Weekday::Fri | Weekday::Sat) { r.weekend } else { r.weekday };
            (base, base + share(base, adjust))
        })
        .collect();
    let accommodation: i64 = nightly.iter().map(|n| n.1).sum();
    let taken: Vec<NaiveDate> = nights.iter().copied().filter(|n| closed.contains(n)).collect();
    let before = check_in - Days::new(1);
    let fills = r.gap.is_some_and(|(max, _, _)| a.nights <= max)
        && taken.is_empty()
        && closed.contains(&before)
        && closed.contains(&check_out);
    let mut codes = BTreeSet::new();
    let mut candidates: Vec<(&'static str, i64)> = Vec::new();
    if fills {
        candidates.push(("gap_fill", r.gap.unwrap().2.into()));
    }
    let los: Vec<(u32, u32)> = if r.los.is_empty() { vec![(7, 0), (28, 0)] } else { r.los.clone() };
    let best = los.iter().filter(|(m, _)| *m <= a.nights).max_by_key(|(m, _)| *m);
    candidates.push(("length_of_stay", best.map_or(0, |b| b.1.into())));
    if let Some((min_days, bp)) = r.early
        && ahead >= i64::from(min_days)
    {
        candidates.push(("early_bird", bp.into()));
    }
    if let Some(code) = a.code {
        let usable = match r.promo {
            Some((bp, from, to, min, max)) if code.eq_ignore_ascii_case("deal") => {
                let ok = check_in >= day(from)
                    && check_in <= day(to.max(from))
                    && min.is_none_or(|m| a.nights >= m)
                    && max.is_none_or(|m| a.uses < m);
                ok.then_some(bp)
            }
            _ => None,
        };
        match usable {
            Some(bp) => candidates.push(("promo", bp.into())),
            None => {
                codes.insert("promo_code");
            }
        }
    }
    let mut kind = None;
    let mut discount = 0;
    for (name, bp) in candidates {
        let amount = share(accommodation, bp);
        if amount > discount {
            (discount, kind) = (amount, Some(name));
        }
    }
    let extra = 1_000 * i64::from(a.guests.saturating_sub(2)) * i64::from(a.nights);
    let pets = if a.pets > 0 { r.pet_fee } else { 0 };
    let taxes = share(accommodation - discount + extra + 5_000 + pets, 1_000);
    let tourist = r.tourist.map_or(0, |(per, cap)| {
        per * i64::from(a.guests - a.children) * i64::from(cap.map_or(a.nights, |c| c.min(a.nights)))
    });
    let total = accommodation - discount + extra + 5_000 + pets + taxes + tourist;
    // Problems.
    if !taken.is_empty() {
        codes.insert("dates_unavailable");
    }
    if !r.check_in_days[check_in.weekday().num_days_from_monday() as usize] {
        codes.insert("check_in_day");
    }
    if !r.check_out_days[check_out.weekday().num_days_from_monday() as usize] {
        codes.insert("check_out_day");
    }
    let min = if fills { r.min_nights.min(r.gap.unwrap().1) } else { r.min_nights };
    if a.nights < min {
        codes.insert("min_nights");
    }
    if a.nights > 28 {
        codes.insert("max_nights");
    }
    if a.guests > 6 {
        codes.insert("max_guests");
    }
    if a.pets > r.max_pets {
        codes.insert("max_pets");
    }
    if check_in < today() {
        codes.insert("past_dates");
    } else if r.notice_hours > 0 {
        let arrival =
            Tz::Europe__Lisbon.from_local_datetime(&check_in.and_hms_opt(15, 0, 0).unwrap()).single().unwrap();
        if arrival.with_timezone(&Utc) < now + chrono::TimeDelta::hours(r.notice_hours.into()) {
            codes.insert("advance_notice");
        }
    }
    let mut last = today().checked_add_months(Months::new(36)).unwrap();
    if let Some(w) = r.window_days {
        last = last.min(today() + Days::new(w.into()));
    }
    if check_in > last {
        codes.insert("beyond_horizon");
    }
    Expected {
        nightly,
        lines: [accommodation, discount, extra, 5_000, pets, taxes, tourist, total],
        kind,
        codes,
        taken,
    }
}

fn lines(q: &Quote) -> [i64; 8] {
    [q.accommodation, q.discount, q.extra_guest_fee, q.cleaning_fee, q.pet_fee, q.taxes, q.tourist_tax, q.total]
}

fn library(r: &Rules, a: &Ask) -> Quote {
    let p = property(r);
    let now = Utc.from_utc_datetime(&today().and_hms_opt(0, 0, 0).unwrap()) + chrono::TimeDelta::minutes(a.minute);
    let check_in = day(a.start);
    let stay = Stay::new(check_in, check_in + Days::new(u64::from(a.nights))).unwrap();
    let calendar: Vec<CalendarEntry> = a
        .taken
        .iter()
        .enumerate()
        .map(|(i, &(start, len))| CalendarEntry {
            holder: format!("BK-{i}").into(),
            stay: Stay::new(day(start), day(start) + Days::new(u64::from(len))).unwrap(),
            kind: if i % 2 == 0 { EntryKind::Booked } else { EntryKind::Blocked },
            guest_name: "".into(),
            guests: 0,
        })
        .collect();
    let asked = Asked { stay, guests: a.guests, children: a.children, pets: a.pets, promo_code: a.code };
    pricing::quote(&p, &asked, &Facts { now, calendar: &calendar, promo_uses: a.uses })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_quote_is_what_section_25_says_line_by_line(r in rules(), a in ask()) {
        let q = library(&r, &a);
        let want = reference(&r, &a);
        let nightly: Vec<(i64, i64)> = q.nightly.iter().map(|n| (n.base, n.price)).collect();
        prop_assert_eq!(nightly, want.nightly);
        prop_assert_eq!(lines(&q), want.lines);
        prop_assert_eq!(q.discount_kind.map(rental_core::pricing::DiscountKind::as_str), want.kind);
        let codes: BTreeSet<&str> = q.problems.iter().map(rental_core::pricing::Problem::code).collect();
        prop_assert_eq!(codes, want.codes);
        let taken = q.problems.iter().find_map(|p| match p {
            rental_core::pricing::Problem::NightsTaken { dates } => Some(dates.clone()),
            _ => None,
        });
        prop_assert_eq!(taken.unwrap_or_default(), want.taken);
        prop_assert_eq!(q.available, q.problems.is_empty());
    }

    #[test]
    fn the_total_is_the_sum_of_the_lines_and_no_line_is_negative(r in rules(), a in ask()) {
        let q = library(&r, &a);
        let sum = q.accommodation - q.discount + q.extra_guest_fee + q.cleaning_fee + q.pet_fee + q.taxes + q.tourist_tax;
        prop_assert_eq!(q.total, sum);
        prop_assert_eq!(q.accommodation, q.nightly.iter().map(|n| n.price).sum::<i64>());
        for (name, line) in [("discount", q.discount), ("taxes", q.taxes), ("touristTax", q.tourist_tax), ("petFee", q.pet_fee), ("total", q.total)] {
            prop_assert!(line >= 0, "{} is {}", name, line);
        }
        prop_assert!(q.nightly.iter().all(|n| n.price >= 0 && n.base >= 0));
        prop_assert!(q.discount <= q.accommodation);
    }
}
