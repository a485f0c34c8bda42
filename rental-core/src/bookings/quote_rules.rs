//! The steps of a quote under section 25's rules, each pure: lead-time
//! adjustment, gap detection around taken and preparation nights, the one
//! discount, the promo code's fate and the stay-rule problems.

use chrono::{DateTime, Datelike, Days, NaiveDate, TimeDelta, Utc};

use super::calendar::CalendarEntry;
use super::problem::{Problem, PromoRefusal};
use crate::basics::stay::Stay;
use crate::properties::local_time::instant;
use crate::properties::price_rules::LengthOfStayDiscount;
use crate::properties::property::{Cents, Property};
use crate::properties::weekdays::Weekdays;

/// Which discount a quote applies; of several, only the largest (ties: this order).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiscountKind {
    /// The stay exactly fills a short gap (`gapFill`).
    GapFill,
    /// The stay is long enough (`lengthOfStayDiscounts`, or weekly and monthly).
    LengthOfStay,
    /// The check-in is far enough ahead (`earlyBirdDiscount`).
    EarlyBird,
    /// The guest gave a promo code (`promoCodes`).
    Promo,
}

impl DiscountKind {
    /// The JSON name (`gap_fill`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DiscountKind::GapFill => "gap_fill",
            DiscountKind::LengthOfStay => "length_of_stay",
            DiscountKind::EarlyBird => "early_bird",
            DiscountKind::Promo => "promo",
        }
    }
}

/// `amount * bp / 10000`, rounded half away from zero; `bp` may be negative.
pub fn basis_points_signed(amount: Cents, bp: i64) -> Cents {
    let scaled = i128::from(amount) * i128::from(bp);
    let (q, r) = (scaled / 10_000, scaled % 10_000);
    let rounded = if r.abs() * 2 >= 10_000 { q + scaled.signum() } else { q };
    // Amounts and basis points are bounded by property validation, so this always fits.
    Cents::try_from(rounded).unwrap_or(Cents::MAX)
}

/// Days from the property's `today` to `check_in` (negative in the past).
pub fn days_ahead(today: NaiveDate, check_in: NaiveDate) -> i64 {
    (check_in - today).num_days()
}

/// The lead-time adjustment of a check-in `days` ahead, in basis points: the first entry that matches.
pub fn lead_adjustment(property: &Property, days: i64) -> i32 {
    property.pricing.rules.lead_time_adjustments.iter().find(|a| a.matches(days)).map_or(0, |a| a.adjust)
}

/// The dates from which a quote's calendar must be read, to see the taken
/// and preparation nights around `stay` and the gap it may fill.
pub fn calendar_span(property: &Property, stay: Stay) -> (NaiveDate, NaiveDate) {
    let reach = Days::new(u64::from(property.stay_rules.preparation_nights) + 1);
    let from = stay.check_in().checked_sub_days(reach).unwrap_or(NaiveDate::MIN);
    let to = stay.check_out().checked_add_days(reach).unwrap_or(NaiveDate::MAX);
    (from, to)
}

/// True when `night` is held by an entry or within `prep` nights of one.
pub(crate) fn closed(calendar: &[CalendarEntry], prep: u32, night: NaiveDate) -> bool {
    let prep = i64::from(prep);
    // An entry `c..d` closes `c - prep .. d + prep`.
    calendar
        .iter()
        .any(|e| (e.stay.check_in() - night).num_days() <= prep && (night - e.stay.check_out()).num_days() < prep)
}

/// The nights of `stay` taken by an entry or kept free to prepare for one, in order.
pub fn closed_nights(property: &Property, stay: Stay, calendar: &[CalendarEntry]) -> Vec<NaiveDate> {
    let prep = property.stay_rules.preparation_nights;
    stay.dates().filter(|d| closed(calendar, prep, *d)).collect()
}

/// True when `stay` exactly fills a free gap short enough for the gap-fill
/// rule: the nights before and after it are closed, none of its own are.
pub fn fills_gap(property: &Property, stay: Stay, calendar: &[CalendarEntry]) -> bool {
    let Some(rule) = property.pricing.rules.gap_fill else { return false };
    let prep = property.stay_rules.preparation_nights;
    let before = stay.check_in().pred_opt().is_some_and(|d| closed(calendar, prep, d));
    stay.nights() <= rule.max_gap_nights
        && before
        && closed(calendar, prep, stay.check_out())
        && !stay.dates().any(|d| closed(calendar, prep, d))
}

/// The shortest stay starting with `stay`'s first night, after gap relief.
pub fn min_nights(property: &Property, stay: Stay, gap: bool) -> u32 {
    let min = property.rate_on(stay.check_in()).min_nights;
    match property.pricing.rules.gap_fill {
        Some(rule) if gap => min.min(rule.min_nights),
        _ => min,
    }
}

/// What the promo code given does: its discount in basis points, or why it cannot be used.
pub fn promo(property: &Property, code: &str, stay: Stay, today: NaiveDate, uses: u32) -> Result<u32, PromoRefusal> {
    let p = property.pricing.rules.promo_code(code, today).ok_or(PromoRefusal::Unknown)?;
    if p.valid_from.is_some_and(|d| today < d) {
        return Err(PromoRefusal::NotYetValid);
    }
    if p.valid_to.is_some_and(|d| d < today) {
        return Err(PromoRefusal::Expired);
    }
    let check_in = stay.check_in();
    if p.stay_from.is_some_and(|d| check_in < d) || p.stay_to.is_some_and(|d| d < check_in) {
        return Err(PromoRefusal::StayDates);
    }
    if p.min_nights.is_some_and(|n| stay.nights() < n) {
        return Err(PromoRefusal::MinNights);
    }
    if p.max_uses.is_some_and(|n| uses >= n) {
        return Err(PromoRefusal::UsedUp);
    }
    Ok(p.discount)
}

/// The stay-length discount of `nights`: the entry with the largest
/// `minNights` reached (by default 7 nights weekly, 28 monthly).
pub fn length_of_stay(property: &Property, nights: u32) -> u32 {
    let defaults = [
        LengthOfStayDiscount { min_nights: 7, discount: property.pricing.weekly_discount },
        LengthOfStayDiscount { min_nights: 28, discount: property.pricing.monthly_discount },
    ];
    let list = property.pricing.rules.length_of_stay_discounts.as_deref().unwrap_or(&defaults);
    list.iter().filter(|d| d.min_nights <= nights).max_by_key(|d| d.min_nights).map_or(0, |d| d.discount)
}

/// The one discount: the largest candidate amount on `accommodation`; on a
/// tie the earlier kind wins; `None` when every candidate is zero.
pub fn one_discount(accommodation: Cents, candidates: &[(DiscountKind, Option<u32>)]) -> (Cents, Option<DiscountKind>) {
    let mut best = (0, None);
    for (kind, bp) in candidates {
        let amount = bp.map_or(0, |bp| basis_points_signed(accommodation, i64::from(bp)));
        if amount > best.0 {
            best = (amount, Some(*kind));
        }
    }
    best
}

/// Which days a stay may start and end on at one instant, worked out once
/// for a run of days: an availability answer asks it of every night, and the
/// property's today, horizon and notice each cost a time-zone lookup.
#[derive(Debug, Clone, Copy)]
pub struct DayRules {
    check_in_days: Weekdays,
    check_out_days: Weekdays,
    /// The property's today.
    today: NaiveDate,
    /// The first day the notice rule allows (today without one).
    first_start: NaiveDate,
    /// The last day the booking window and the horizon allow.
    last_start: NaiveDate,
}

impl DayRules {
    /// The rules of `property` at `now`.
    pub fn at(property: &Property, now: DateTime<Utc>) -> Self {
        let rules = &property.stay_rules;
        let today = property.today(now);
        // The arrival instant grows with the day, so the notice rule is one
        // threshold day: the first whose arrival is far enough from `now`.
        let first_start = match rules.advance_notice_hours {
            0 => today,
            hours => earliest(property, now, hours).max(today),
        };
        DayRules {
            check_in_days: rules.check_in_days,
            check_out_days: rules.check_out_days,
            today,
            first_start,
            last_start: last_check_in(property, today),
        }
    }

    /// True when a stay may start on `day` under the weekday, notice and window rules.
    pub fn may_start(&self, day: NaiveDate) -> bool {
        self.check_in_days.contains(day.weekday()) && (self.first_start..=self.last_start).contains(&day)
    }

    /// True when a stay may end on `day`: a check-out weekday after the property's today.
    pub fn may_end(&self, day: NaiveDate) -> bool {
        self.check_out_days.contains(day.weekday()) && day > self.today
    }
}

/// The shortest stay starting on `night` given the calendar: the first
/// night's minimum, relieved where `night` opens a free gap short enough for
/// the gap-fill rule: then the gap's length (the stay that exactly fills it),
/// if that is at least the rule's `minNights`.
pub fn min_nights_from(property: &Property, night: NaiveDate, calendar: &[CalendarEntry]) -> u32 {
    let min = property.rate_on(night).min_nights;
    let Some(rule) = property.pricing.rules.gap_fill else { return min };
    let prep = property.stay_rules.preparation_nights;
    let opens_gap = night.pred_opt().is_some_and(|d| closed(calendar, prep, d)) && !closed(calendar, prep, night);
    if !opens_gap {
        return min;
    }
    let mut day = night;
    for length in 1..=rule.max_gap_nights {
        day = day.succ_opt().unwrap_or(day);
        if closed(calendar, prep, day) {
            return if length >= rule.min_nights { min.min(length) } else { min };
        }
    }
    min
}

/// The first day a stay may start on with `hours` of notice at `now`.
fn earliest(property: &Property, now: DateTime<Utc>, hours: u32) -> NaiveDate {
    let threshold = now + TimeDelta::hours(i64::from(hours));
    let day = property.today(threshold);
    let arrives = |d: NaiveDate| instant(property.timezone, d, property.stay_rules.check_in_time);
    if arrives(day) >= threshold { day } else { day.succ_opt().unwrap_or(day) }
}

/// The problems of the day, notice and window rules for a stay at `now`.
pub fn calendar_problems(property: &Property, stay: Stay, now: DateTime<Utc>, problems: &mut Vec<Problem>) {
    let rules = &property.stay_rules;
    let today = property.today(now);
    if stay.check_in() < today {
        problems.push(Problem::PastDates { today });
    } else if rules.advance_notice_hours > 0 {
        let arrival = instant(property.timezone, stay.check_in(), rules.check_in_time);
        if arrival < now + TimeDelta::hours(i64::from(rules.advance_notice_hours)) {
            let hours = rules.advance_notice_hours;
            problems.push(Problem::AdvanceNotice { hours, earliest: earliest(property, now, hours) });
        }
    }
    let last = last_check_in(property, today);
    if stay.check_in() > last {
        problems.push(Problem::BeyondHorizon { last });
    }
}

/// The last day a stay may start on: the booking window, within the horizon.
pub fn last_check_in(property: &Property, today: NaiveDate) -> NaiveDate {
    let horizon = crate::basics::stay::last_check_in(today);
    let window = property.stay_rules.booking_window_days.and_then(|d| today.checked_add_days(Days::new(u64::from(d))));
    window.map_or(horizon, |w| w.min(horizon))
}

/// The weekday problems of a stay.
pub fn day_problems(property: &Property, stay: Stay, problems: &mut Vec<Problem>) {
    let rules = &property.stay_rules;
    if !rules.check_in_days.contains(stay.check_in().weekday()) {
        problems.push(Problem::CheckInDay { allowed: rules.check_in_days });
    }
    if !rules.check_out_days.contains(stay.check_out().weekday()) {
        problems.push(Problem::CheckOutDay { allowed: rules.check_out_days });
    }
}

#[cfg(test)]
mod tests {
    use chrono_tz::Tz;

    use super::*;
    use crate::demo;

    /// The rules as they read for one day, each asked on its own.
    fn may_start_directly(property: &Property, day: NaiveDate, now: DateTime<Utc>) -> bool {
        let rules = &property.stay_rules;
        let today = property.today(now);
        let notice = TimeDelta::hours(i64::from(rules.advance_notice_hours));
        rules.check_in_days.contains(day.weekday())
            && day >= today
            && (rules.advance_notice_hours == 0 || instant(property.timezone, day, rules.check_in_time) >= now + notice)
            && day <= last_check_in(property, today)
    }

    #[test]
    fn day_rules_worked_out_once_say_what_each_day_asked_alone_says() {
        // Every half hour over two days around a clock change in Lisbon and in New Zealand.
        for (tz, start) in
            [(Tz::Europe__Lisbon, "2026-03-28T00:10:00Z"), (Tz::Pacific__Auckland, "2026-04-03T12:10:00Z")]
        {
            let start: DateTime<Utc> = start.parse().unwrap();
            let nows: Vec<DateTime<Utc>> = (0..96).map(|n| start + TimeDelta::minutes(30 * n)).collect();
            for hours in [0, 1, 20, 47, 200] {
                for window in [None, Some(3)] {
                    let mut p = demo::sea_view();
                    p.timezone = tz;
                    p.stay_rules.advance_notice_hours = hours;
                    p.stay_rules.booking_window_days = window;
                    p.stay_rules.check_in_days =
                        serde_json::from_str(r#"["mon", "tue", "thu", "sat", "sun"]"#).unwrap();
                    for &now in &nows {
                        let rules = DayRules::at(&p, now);
                        let today = p.today(now);
                        for day in (-3..15).map(|n| today + TimeDelta::days(n)) {
                            let end = p.stay_rules.check_out_days.contains(day.weekday()) && day > today;
                            let why = format!("{tz} {now} notice {hours} window {window:?} day {day}");
                            assert_eq!(rules.may_start(day), may_start_directly(&p, day, now), "{why}");
                            assert_eq!(rules.may_end(day), end, "{why}");
                        }
                    }
                }
            }
        }
    }
}
