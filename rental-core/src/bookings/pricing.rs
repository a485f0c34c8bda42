//! Pure pricing: a property and a stay give nightly prices, discounts, fees,
//! taxes and the stay-rule problems of a quote (docs/API.md section 5).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::basics::date_json::ymd;
use crate::basics::ids::Slug;
use crate::basics::json_out::{push_int, push_json_str};
use crate::basics::stay::Stay;
use crate::bookings::calendar::{CalendarEntry, taken_nights};
use crate::properties::property::{Cents, Property};

/// The price of a stay and whether it can be booked.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// The property's slug.
    pub property: Slug,
    /// Arrival.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub check_in: NaiveDate,
    /// Departure.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub check_out: NaiveDate,
    /// Number of guests priced.
    pub guests: u32,
    /// Number of nights.
    pub nights: u32,
    /// True iff `problems` is empty.
    pub available: bool,
    /// `USD`.
    pub currency: String,
    /// Each night's rate before discounts, fees and taxes.
    pub nightly: Vec<NightPrice>,
    /// Sum of `nightly`.
    pub accommodation: Cents,
    /// Weekly or monthly discount on accommodation.
    pub discount: Cents,
    /// Per guest above the base, per night.
    pub extra_guest_fee: Cents,
    /// Once per stay.
    pub cleaning_fee: Cents,
    /// On everything above, less the discount.
    pub taxes: Cents,
    /// `accommodation - discount + extraGuestFee + cleaningFee + taxes`.
    pub total: Cents,
    /// Why the stay cannot be booked as asked; empty when it can.
    pub problems: Vec<Problem>,
}

/// A quote comes from [`crate::Rental::quote`]: priced even when the stay
/// cannot be booked, with the reasons in `problems`.
///
/// ```
/// use std::sync::Arc;
/// use rental_core::{demo, ManualClock, MemoryStore, QuoteRequest, Rental};
/// use rental_core::pricing::Problem;
///
/// let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
/// let rental = Rental::new(MemoryStore::new()).with_clock(clock);
/// rental.import_properties(&demo::properties())?;
/// let quote = rental.quote(&QuoteRequest {
///     property: "sea-view".parse()?,
///     check_in: "2026-12-20".parse().unwrap(),
///     check_out: "2026-12-21".parse().unwrap(),
///     guests: 2,
/// })?;
/// assert!(!quote.available);
/// assert_eq!(quote.problems, [Problem::MinNights { limit: 2 }]);
/// assert_eq!(quote.problems[0].to_string(), "stays starting then are at least 2 nights");
/// assert_eq!(quote.total, quote.accommodation - quote.discount + quote.extra_guest_fee + quote.cleaning_fee + quote.taxes);
/// # Ok::<(), rental_core::Error>(())
/// ```
impl Quote {
    /// The JSON body, byte for byte what `serde_json::to_vec` writes (a test
    /// checks it), written directly; `problems` go through serde.
    pub fn to_json(&self) -> Vec<u8> {
        let (Some(check_in), Some(check_out)) = (ymd(self.check_in), ymd(self.check_out)) else {
            return serde_json::to_vec(self).unwrap_or_default();
        };
        let mut out = Vec::with_capacity(384 + 40 * self.nightly.len());
        out.extend_from_slice(b"{\"property\":");
        push_json_str(&mut out, self.property.as_str());
        out.extend_from_slice(b",\"checkIn\":\"");
        out.extend_from_slice(&check_in);
        out.extend_from_slice(b"\",\"checkOut\":\"");
        out.extend_from_slice(&check_out);
        out.extend_from_slice(b"\",\"guests\":");
        push_int(&mut out, i64::from(self.guests));
        out.extend_from_slice(b",\"nights\":");
        push_int(&mut out, i64::from(self.nights));
        out.extend_from_slice(if self.available { b",\"available\":true" } else { b",\"available\":false" });
        out.extend_from_slice(b",\"currency\":");
        push_json_str(&mut out, &self.currency);
        out.extend_from_slice(b",\"nightly\":[");
        for (i, night) in self.nightly.iter().enumerate() {
            let Some(date) = ymd(night.date) else { return serde_json::to_vec(self).unwrap_or_default() };
            out.extend_from_slice(if i == 0 { b"{\"date\":\"" } else { b",{\"date\":\"" });
            out.extend_from_slice(&date);
            out.extend_from_slice(b"\",\"price\":");
            push_int(&mut out, night.price);
            out.push(b'}');
        }
        let lines = [
            ("],\"accommodation\":", self.accommodation),
            (",\"discount\":", self.discount),
            (",\"extraGuestFee\":", self.extra_guest_fee),
            (",\"cleaningFee\":", self.cleaning_fee),
            (",\"taxes\":", self.taxes),
            (",\"total\":", self.total),
        ];
        for (key, value) in lines {
            out.extend_from_slice(key.as_bytes());
            push_int(&mut out, value);
        }
        out.extend_from_slice(b",\"problems\":");
        out.extend_from_slice(&serde_json::to_vec(&self.problems).unwrap_or_else(|_| b"[]".to_vec()));
        out.push(b'}');
        out
    }
}

/// One night's price.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NightPrice {
    /// The night.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub date: NaiveDate,
    /// Its rate in cents.
    pub price: Cents,
}

/// A reason a well-formed stay cannot be booked.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "QuoteProblem"))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Problem {
    /// Some nights are held, booked or blocked (code `dates_unavailable`; a
    /// booking of them fails with [`crate::Error::DatesUnavailable`]).
    #[serde(rename = "dates_unavailable")]
    NightsTaken {
        /// Those nights.
        dates: Vec<NaiveDate>,
    },
    /// Shorter than the first night's minimum.
    MinNights {
        /// The minimum.
        limit: u32,
    },
    /// Longer than the first night's maximum.
    MaxNights {
        /// The maximum.
        limit: u32,
    },
    /// More guests than the property allows.
    MaxGuests {
        /// The maximum.
        limit: u32,
    },
    /// The stay starts before the property's local today.
    PastDates {
        /// The property's local today.
        today: NaiveDate,
    },
    /// The stay starts after the last night that can be booked ([`crate::stay::HORIZON_MONTHS`]).
    BeyondHorizon {
        /// The last night a stay may start on.
        last: NaiveDate,
    },
}

impl Problem {
    /// The problem's code (`min_nights`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Problem::NightsTaken { .. } => "dates_unavailable",
            Problem::MinNights { .. } => "min_nights",
            Problem::MaxNights { .. } => "max_nights",
            Problem::MaxGuests { .. } => "max_guests",
            Problem::PastDates { .. } => "past_dates",
            Problem::BeyondHorizon { .. } => "beyond_horizon",
        }
    }

    /// A sentence for people.
    pub fn message(&self) -> String {
        match self {
            Problem::NightsTaken { dates } => {
                format!("{} night(s) already taken", dates.len())
            }
            Problem::MinNights { limit } => {
                format!("stays starting then are at least {limit} nights")
            }
            Problem::MaxNights { limit } => {
                format!("stays starting then are at most {limit} nights")
            }
            Problem::MaxGuests { limit } => format!("at most {limit} guests"),
            Problem::PastDates { today } => format!("check-in is before today ({today})"),
            Problem::BeyondHorizon { last } => format!("stays can be booked up to a check-in on {last}"),
        }
    }
}

/// The problem as a sentence for people ([`Problem::message`]).
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// Prices `stay` for `guests` at `property`, whose local today is `today`,
/// given the entries already on its calendar.
///
/// ```
/// use rental_core::{demo, pricing, Stay};
///
/// let d = |s: &str| s.parse().unwrap();
/// let stay = Stay::new(d("2026-12-20"), d("2026-12-27"))?;
/// let quote = pricing::quote(&demo::sea_view(), stay, 3, d("2026-11-22"), &[]);
/// assert_eq!(quote.total, 134_288);
/// assert!(quote.available);
/// # Ok::<(), rental_core::StayError>(())
/// ```
pub fn quote(property: &Property, stay: Stay, guests: u32, today: NaiveDate, calendar: &[CalendarEntry]) -> Quote {
    let nightly: Vec<NightPrice> =
        stay.dates().map(|date| NightPrice { date, price: property.rate_on(date).price }).collect();
    let nights = stay.nights();
    let accommodation: Cents = nightly.iter().map(|n| n.price).sum();
    let discount = discount(property, nights, accommodation);
    let extra_guests = i64::from(guests.saturating_sub(property.pricing.base_guests));
    let extra_guest_fee = property.pricing.extra_guest_fee * extra_guests * i64::from(nights);
    let cleaning_fee = property.pricing.cleaning_fee;
    let taxes = basis_points(accommodation - discount + extra_guest_fee + cleaning_fee, property.pricing.tax_rate);
    let problems = problems(property, stay, guests, today, calendar);
    Quote {
        property: property.slug.clone(),
        check_in: stay.check_in(),
        check_out: stay.check_out(),
        guests,
        nights,
        available: problems.is_empty(),
        currency: property.currency.clone(),
        nightly,
        accommodation,
        discount,
        extra_guest_fee,
        cleaning_fee,
        taxes,
        total: accommodation - discount + extra_guest_fee + cleaning_fee + taxes,
        problems,
    }
}

/// Monthly (28+ nights) or else weekly (7+ nights) discount on `accommodation`.
fn discount(property: &Property, nights: u32, accommodation: Cents) -> Cents {
    let rate = match nights {
        28.. => property.pricing.monthly_discount,
        7.. => property.pricing.weekly_discount,
        _ => 0,
    };
    basis_points(accommodation, rate)
}

/// `amount * bp / 10000`, rounded half away from zero.
pub fn basis_points(amount: Cents, bp: u32) -> Cents {
    let scaled = i128::from(amount) * i128::from(bp);
    let (q, r) = (scaled / 10_000, scaled % 10_000);
    let rounded = if r.abs() * 2 >= 10_000 { q + scaled.signum() } else { q };
    // Amounts are bounded by property validation, so this always fits.
    Cents::try_from(rounded).unwrap_or(Cents::MAX)
}

/// Every stay rule the stay breaks, in a fixed order.
fn problems(
    property: &Property,
    stay: Stay,
    guests: u32,
    today: NaiveDate,
    calendar: &[CalendarEntry],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let taken = taken_nights(calendar, stay);
    if !taken.is_empty() {
        problems.push(Problem::NightsTaken { dates: taken });
    }
    let first = property.rate_on(stay.check_in());
    if stay.nights() < first.min_nights {
        problems.push(Problem::MinNights { limit: first.min_nights });
    }
    if stay.nights() > first.max_nights {
        problems.push(Problem::MaxNights { limit: first.max_nights });
    }
    if guests > property.pricing.max_guests {
        problems.push(Problem::MaxGuests { limit: property.pricing.max_guests });
    }
    if stay.check_in() < today {
        problems.push(Problem::PastDates { today });
    }
    let last = crate::basics::stay::last_check_in(today);
    if stay.check_in() > last {
        problems.push(Problem::BeyondHorizon { last });
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::calendar::EntryKind;
    use crate::demo;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn stay(a: &str, b: &str) -> Stay {
        Stay::new(d(a), d(b)).unwrap()
    }

    const TODAY: &str = "2026-11-22";

    #[test]
    fn the_contract_example_comes_out_to_the_cent() {
        let q = quote(&demo::sea_view(), stay("2026-12-20", "2026-12-27"), 3, d(TODAY), &[]);
        assert_eq!(q.nights, 7);
        assert_eq!(q.nightly[0], NightPrice { date: d("2026-12-20"), price: 15_000 });
        assert_eq!(
            (q.accommodation, q.discount, q.extra_guest_fee, q.cleaning_fee, q.taxes, q.total),
            (111_000, 11_100, 14_000, 6_000, 14_388, 134_288)
        );
        assert!(q.available);
    }

    #[test]
    fn discounts_are_weekly_from_7_nights_and_monthly_from_28() {
        let p = demo::sea_view(); // weekly 10 %, monthly 20 %
        let cases = [
            ("2027-01-04", "2027-01-10", 0),
            ("2027-01-04", "2027-01-11", 1000),
            ("2027-01-04", "2027-01-31", 1000),
            ("2027-01-04", "2027-02-01", 2000),
        ];
        for (a, b, bp) in cases {
            let q = quote(&p, stay(a, b), 2, d(TODAY), &[]);
            assert_eq!(q.discount, basis_points(q.accommodation, bp), "{a}..{b}");
        }
    }

    #[test]
    fn rounding_is_half_away_from_zero_once_per_line() {
        let cases = [
            (5, 1000, 1),
            (4, 1000, 0),
            (15, 1000, 2),
            (14, 1000, 1),
            (-5, 1000, -1),
            (119_900, 1200, 14_388),
            (0, 1200, 0),
        ];
        for (amount, bp, want) in cases {
            assert_eq!(basis_points(amount, bp), want, "{amount} * {bp}bp");
        }
    }

    #[test]
    fn each_broken_rule_is_a_problem_and_the_quote_is_still_priced() {
        let p = demo::sea_view(); // min 2 (Summer 3), max 28, 4 guests
        let cases: [(&str, &str, u32, &[&str]); 6] = [
            ("2026-12-20", "2026-12-21", 2, &["min_nights"]),
            ("2026-06-01", "2026-06-03", 2, &["min_nights"]), // Summer's minimum is 3
            ("2027-01-01", "2027-02-01", 2, &["max_nights"]),
            ("2026-12-20", "2026-12-23", 5, &["max_guests"]),
            ("2026-04-30", "2026-05-03", 2, &["past_dates"]),
            ("2026-05-01", "2026-05-03", 2, &[]), // arriving today is fine
        ];
        let today = d("2026-05-01");
        for (a, b, guests, want) in cases {
            let q = quote(&p, stay(a, b), guests, today, &[]);
            let codes: Vec<&str> = q.problems.iter().map(Problem::code).collect();
            assert_eq!(codes, want, "{a}..{b} x{guests}");
            assert_eq!(q.available, want.is_empty());
            assert!(q.total > 0);
        }
    }

    #[test]
    fn the_direct_json_is_what_serde_writes() {
        let taken = CalendarEntry {
            holder: "BK-AAAAAA".into(),
            stay: stay("2026-12-24", "2026-12-25"),
            kind: EntryKind::Held,
            guest_name: "X".into(),
            guests: 1,
        };
        for (a, b, guests, calendar) in
            [("2026-12-20", "2026-12-27", 3, vec![]), ("2026-11-20", "2026-12-25", 9, vec![taken])]
        {
            let q = quote(&demo::sea_view(), stay(a, b), guests, d(TODAY), &calendar);
            assert_eq!(String::from_utf8(q.to_json()).unwrap(), serde_json::to_string(&q).unwrap(), "{a}..{b}");
            // A client of the API (the CLI's remote mode) reads the body back into the same quote.
            assert_eq!(serde_json::from_slice::<Quote>(&q.to_json()).unwrap(), q, "{a}..{b}");
        }
    }

    #[test]
    fn taken_nights_are_listed_in_the_problem() {
        let taken = CalendarEntry {
            holder: "BK-AAAAAA".into(),
            stay: stay("2026-12-24", "2026-12-25"),
            kind: EntryKind::Held,
            guest_name: "X".into(),
            guests: 1,
        };
        let q = quote(&demo::sea_view(), stay("2026-12-20", "2026-12-27"), 2, d(TODAY), &[taken]);
        assert_eq!(q.problems, [Problem::NightsTaken { dates: vec![d("2026-12-24")] }]);
        let json = serde_json::to_value(&q.problems).unwrap();
        assert_eq!(json, serde_json::json!([{"code": "dates_unavailable", "dates": ["2026-12-24"]}]));
    }
}
