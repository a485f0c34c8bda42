//! Pure pricing: a property and a stay give nightly prices, discounts, fees,
//! taxes and the stay-rule problems of a quote (docs/API.md section 5).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

pub use super::problem::{Problem, PromoRefusal};
use super::quote_rules as rules;
pub use super::quote_rules::{DiscountKind, calendar_span};

use crate::basics::date_json::ymd;
use crate::basics::ids::Slug;
use crate::basics::json_out::{push_int, push_json_str};
use crate::basics::stay::Stay;
use crate::bookings::calendar::CalendarEntry;
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
    /// Number of guests priced, children included.
    pub guests: u32,
    /// Of the guests, children (under the tourist tax's exempt age).
    pub children: u32,
    /// Pets coming along.
    pub pets: u32,
    /// The promo code asked for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promo_code: Option<String>,
    /// Number of nights.
    pub nights: u32,
    /// True iff `problems` is empty.
    pub available: bool,
    /// `USD`.
    pub currency: String,
    /// Each night's season rate (`base`) and its price after the lead-time adjustment.
    pub nightly: Vec<NightPrice>,
    /// Sum of the nightly prices.
    pub accommodation: Cents,
    /// The one discount on accommodation (the largest of those that apply).
    pub discount: Cents,
    /// Which discount `discount` is; `null` when none applies.
    pub discount_kind: Option<DiscountKind>,
    /// Per guest above the base, per night.
    pub extra_guest_fee: Cents,
    /// Once per stay.
    pub cleaning_fee: Cents,
    /// Once per stay with pets.
    pub pet_fee: Cents,
    /// `taxRate` of everything above, less the discount.
    pub taxes: Cents,
    /// Per adult per night, up to the tax's `maxNights`; not taxed.
    pub tourist_tax: Cents,
    /// `accommodation - discount + extraGuestFee + cleaningFee + petFee + taxes + touristTax`.
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
/// let (check_in, check_out) = ("2026-12-20".parse().unwrap(), "2026-12-21".parse().unwrap());
/// let quote = rental.quote(&QuoteRequest::new("sea-view".parse()?, check_in, check_out, 2))?;
/// assert!(!quote.available);
/// assert_eq!(quote.problems, [Problem::MinNights { limit: 2 }]);
/// assert_eq!(quote.problems[0].to_string(), "stays starting then are at least 2 nights");
/// assert_eq!(quote.total, quote.accommodation - quote.discount + quote.extra_guest_fee + quote.cleaning_fee + quote.pet_fee + quote.taxes + quote.tourist_tax);
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
        out.extend_from_slice(b",\"children\":");
        push_int(&mut out, i64::from(self.children));
        out.extend_from_slice(b",\"pets\":");
        push_int(&mut out, i64::from(self.pets));
        if let Some(code) = &self.promo_code {
            out.extend_from_slice(b",\"promoCode\":");
            push_json_str(&mut out, code);
        }
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
            out.extend_from_slice(b"\",\"base\":");
            push_int(&mut out, night.base);
            out.extend_from_slice(b",\"price\":");
            push_int(&mut out, night.price);
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"accommodation\":");
        push_int(&mut out, self.accommodation);
        out.extend_from_slice(b",\"discount\":");
        push_int(&mut out, self.discount);
        out.extend_from_slice(b",\"discountKind\":");
        match self.discount_kind {
            Some(kind) => push_json_str(&mut out, kind.as_str()),
            None => out.extend_from_slice(b"null"),
        }
        let lines = [
            (",\"extraGuestFee\":", self.extra_guest_fee),
            (",\"cleaningFee\":", self.cleaning_fee),
            (",\"petFee\":", self.pet_fee),
            (",\"taxes\":", self.taxes),
            (",\"touristTax\":", self.tourist_tax),
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
    /// The season's (or the property's) rate of the night.
    pub base: Cents,
    /// `base` after the lead-time adjustment, rounded once.
    pub price: Cents,
}

/// What a guest asks a quote for: the stay, who comes and a promo code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked<'a> {
    /// The nights.
    pub stay: Stay,
    /// Every guest, children included.
    pub guests: u32,
    /// Of the guests, those under the tourist tax's exempt age.
    pub children: u32,
    /// Pets.
    pub pets: u32,
    /// A promo code, if the guest gave one.
    pub promo_code: Option<&'a str>,
}

impl Asked<'_> {
    /// `guests` adults for `stay`, no children, pets or code.
    pub fn stay(stay: Stay, guests: u32) -> Self {
        Asked { stay, guests, children: 0, pets: 0, promo_code: None }
    }
}

/// What the store knows when a quote is made.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The instant of the quote: the property's today and the notice count from it.
    pub now: DateTime<Utc>,
    /// The property's calendar over at least [`calendar_span`] of the stay.
    pub calendar: &'a [CalendarEntry],
    /// Bookings that have used the promo code asked for.
    pub promo_uses: u32,
}

/// Prices what a guest asks at `property` under every rule of docs/API.md
/// sections 5 and 25, in their order, and lists the problems: the one quote
/// function that the API, the pages, MCP, the CLI and bookings use.
///
/// ```
/// use rental_core::pricing::{self, Asked, Facts};
/// use rental_core::{demo, Stay};
///
/// let d = |s: &str| s.parse().unwrap();
/// let stay = Stay::new(d("2026-12-20"), d("2026-12-27"))?;
/// let facts = Facts { now: "2026-11-22T08:00:00Z".parse().unwrap(), calendar: &[], promo_uses: 0 };
/// let quote = pricing::quote(&demo::sea_view(), &Asked::stay(stay, 3), &facts);
/// assert_eq!(quote.total, 134_288);
/// assert!(quote.available);
/// # Ok::<(), rental_core::StayError>(())
/// ```
pub fn quote(property: &Property, asked: &Asked<'_>, facts: &Facts<'_>) -> Quote {
    let stay = asked.stay;
    let today = property.today(facts.now);
    let ahead = rules::days_ahead(today, stay.check_in());
    let adjust = i64::from(rules::lead_adjustment(property, ahead));
    let nightly: Vec<NightPrice> = stay
        .dates()
        .map(|date| {
            let base = property.rate_on(date).price;
            NightPrice { date, base, price: base + rules::basis_points_signed(base, adjust) }
        })
        .collect();
    let nights = stay.nights();
    let accommodation: Cents = nightly.iter().map(|n| n.price).sum();
    let gap = rules::fills_gap(property, stay, facts.calendar);
    let promo = asked.promo_code.map(|code| rules::promo(property, code, stay, today, facts.promo_uses));
    let price_rules = &property.pricing.rules;
    let early = price_rules.early_bird_discount.filter(|e| ahead >= i64::from(e.min_days_before));
    let candidates = [
        (DiscountKind::GapFill, price_rules.gap_fill.filter(|_| gap).map(|g| g.discount)),
        (DiscountKind::LengthOfStay, Some(rules::length_of_stay(property, nights))),
        (DiscountKind::EarlyBird, early.map(|e| e.discount)),
        (DiscountKind::Promo, promo.and_then(Result::ok)),
    ];
    let (discount, discount_kind) = rules::one_discount(accommodation, &candidates);
    let extra_guests = i64::from(asked.guests.saturating_sub(property.pricing.base_guests));
    let extra_guest_fee = property.pricing.extra_guest_fee * extra_guests * i64::from(nights);
    let cleaning_fee = property.pricing.cleaning_fee;
    let pet_fee = if asked.pets > 0 { price_rules.pet_fee } else { 0 };
    let before_taxes = accommodation - discount + extra_guest_fee + cleaning_fee + pet_fee;
    let taxes = basis_points(before_taxes, property.pricing.tax_rate);
    let tourist_tax = price_rules.tourist_tax.map_or(0, |t| {
        let adults = i64::from(asked.guests.saturating_sub(asked.children));
        t.per_person_per_night * adults * i64::from(t.max_nights.map_or(nights, |m| m.min(nights)))
    });
    let mut problems = Vec::new();
    let taken = rules::closed_nights(property, stay, facts.calendar);
    if !taken.is_empty() {
        problems.push(Problem::NightsTaken { dates: taken });
    }
    rules::day_problems(property, stay, &mut problems);
    stay_problems(property, asked, gap, &mut problems);
    rules::calendar_problems(property, stay, facts.now, &mut problems);
    if let Some(Err(reason)) = promo {
        problems.push(Problem::PromoCode { reason });
    }
    Quote {
        property: property.slug.clone(),
        check_in: stay.check_in(),
        check_out: stay.check_out(),
        guests: asked.guests,
        children: asked.children,
        pets: asked.pets,
        promo_code: asked.promo_code.map(str::to_owned),
        nights,
        available: problems.is_empty(),
        currency: property.currency.clone(),
        nightly,
        accommodation,
        discount,
        discount_kind,
        extra_guest_fee,
        cleaning_fee,
        pet_fee,
        taxes,
        tourist_tax,
        total: before_taxes + taxes + tourist_tax,
        problems,
    }
}

/// The length, guest and pet problems of a stay.
fn stay_problems(property: &Property, asked: &Asked<'_>, gap: bool, problems: &mut Vec<Problem>) {
    let first = property.rate_on(asked.stay.check_in());
    let min = rules::min_nights(property, asked.stay, gap);
    if asked.stay.nights() < min {
        problems.push(Problem::MinNights { limit: min });
    }
    if asked.stay.nights() > first.max_nights {
        problems.push(Problem::MaxNights { limit: first.max_nights });
    }
    if asked.guests > property.pricing.max_guests {
        problems.push(Problem::MaxGuests { limit: property.pricing.max_guests });
    }
    if asked.pets > property.pricing.rules.max_pets {
        problems.push(Problem::MaxPets { limit: property.pricing.rules.max_pets });
    }
}

/// `amount * bp / 10000`, rounded half away from zero.
pub fn basis_points(amount: Cents, bp: u32) -> Cents {
    rules::basis_points_signed(amount, i64::from(bp))
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

    /// The quote of `guests` adults for `stay` at noon UTC of `today`.
    fn quote_on(p: &Property, stay: Stay, guests: u32, today: NaiveDate, calendar: &[CalendarEntry]) -> Quote {
        let now = today.and_hms_opt(12, 0, 0).unwrap().and_utc();
        quote(p, &Asked::stay(stay, guests), &Facts { now, calendar, promo_uses: 0 })
    }

    #[test]
    fn the_contract_example_comes_out_to_the_cent() {
        let q = quote_on(&demo::sea_view(), stay("2026-12-20", "2026-12-27"), 3, d(TODAY), &[]);
        assert_eq!(q.nights, 7);
        assert_eq!(q.nightly[0], NightPrice { date: d("2026-12-20"), base: 15_000, price: 15_000 });
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
            let q = quote_on(&p, stay(a, b), 2, d(TODAY), &[]);
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
            let q = quote_on(&p, stay(a, b), guests, today, &[]);
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
            let q = quote_on(&demo::sea_view(), stay(a, b), guests, d(TODAY), &calendar);
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
        let q = quote_on(&demo::sea_view(), stay("2026-12-20", "2026-12-27"), 2, d(TODAY), &[taken]);
        assert_eq!(q.problems, [Problem::NightsTaken { dates: vec![d("2026-12-24")] }]);
        let json = serde_json::to_value(&q.problems).unwrap();
        assert_eq!(json, serde_json::json!([{"code": "dates_unavailable", "dates": ["2026-12-24"]}]));
    }
}
