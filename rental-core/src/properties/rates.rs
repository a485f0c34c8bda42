//! A property's pricing settings: rates, seasons, fees, tax, discounts and
//! guests, and the rate of one night that every quote starts from.

use super::price_rules::PriceRules;
use chrono::{Datelike, NaiveDate, Weekday};
use serde::{Deserialize, Serialize};

use super::stay_rules::StayRules;
use crate::basics::money::{Cents, MAX_AMOUNT};
use crate::basics::stay::MAX_NIGHTS;
use crate::error::FieldError;

/// The most guests a property may allow.
pub const MAX_GUESTS: u32 = 100;

/// What a property charges and for how many guests (docs/API.md section 3).
///
/// [`Pricing::new`] takes the weeknight rate and sets everything else to the
/// default a JSON import gives it; the setters change one field each:
///
/// ```
/// use rental_core::property::{Pricing, SeasonalRate};
///
/// let pricing = Pricing::new(15_000)
///     .max_guests(4)
///     .weekend_rate(18_000)
///     .cleaning_fee(6_000)
///     .season(SeasonalRate::new("Summer", "2026-06-01".parse()?, "2026-08-31".parse()?, 22_000));
/// assert_eq!((pricing.base_guests, pricing.tax_rate), (1, 0));
/// # Ok::<(), chrono::ParseError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pricing {
    /// Most guests allowed.
    pub max_guests: u32,
    /// Guests included in the nightly rate.
    pub base_guests: u32,
    /// Per guest above `base_guests`, per night.
    pub extra_guest_fee: Cents,
    /// Rate of a weeknight outside any season.
    pub nightly_rate: Cents,
    /// Rate of a Friday or Saturday night outside any season; absent means the nightly rate.
    pub weekend_rate: Option<Cents>,
    /// Once per stay.
    pub cleaning_fee: Cents,
    /// Basis points (1200 = 12 %).
    pub tax_rate: u32,
    /// Basis points off accommodation for stays of 7 to 27 nights.
    pub weekly_discount: u32,
    /// Basis points off accommodation for stays of 28 nights or more.
    pub monthly_discount: u32,
    /// Seasons with their own rates.
    pub seasonal_rates: Vec<SeasonalRate>,
    /// The rules beyond seasons (docs/API.md section 25): gap fill, lead-time
    /// adjustments, length-of-stay and early-bird discounts, promo codes, tourist tax, pets.
    pub rules: PriceRules,
}

/// A season: nights `start_date..=end_date` with their own rates. Where
/// seasons overlap, the one that starts later wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeasonalRate {
    /// Display name (`Summer`).
    pub name: String,
    /// First night of the season.
    pub start_date: NaiveDate,
    /// Last night of the season (inclusive).
    pub end_date: NaiveDate,
    /// Weeknight rate in the season.
    pub nightly_rate: Cents,
    /// Friday and Saturday rate in the season; absent means the season's nightly rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekend_rate: Option<Cents>,
    /// Shortest stay starting in the season; absent means the property's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_nights: Option<u32>,
    /// Longest stay starting in the season; absent means the property's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nights: Option<u32>,
}

/// What one night costs and which stay rules a stay starting on it follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NightRate {
    /// The night's rate before discounts, fees and taxes.
    pub price: Cents,
    /// Shortest stay starting on this night.
    pub min_nights: u32,
    /// Longest stay starting on this night.
    pub max_nights: u32,
}

impl Pricing {
    /// Pricing at `nightly_rate` every night, for 2 guests with 1 included,
    /// with no weekend rate, fees, tax, discounts or seasons.
    pub fn new(nightly_rate: Cents) -> Self {
        Pricing {
            max_guests: 2,
            base_guests: 1,
            extra_guest_fee: 0,
            nightly_rate,
            weekend_rate: None,
            cleaning_fee: 0,
            tax_rate: 0,
            weekly_discount: 0,
            monthly_discount: 0,
            seasonal_rates: Vec::new(),
            rules: PriceRules::default(),
        }
    }

    /// Sets the rules beyond seasons (docs/API.md section 25).
    #[must_use]
    pub fn rules(mut self, rules: PriceRules) -> Self {
        self.rules = rules;
        self
    }

    /// Sets the most guests allowed.
    #[must_use]
    pub fn max_guests(mut self, guests: u32) -> Self {
        self.max_guests = guests;
        self
    }

    /// Sets how many guests the nightly rate includes.
    #[must_use]
    pub fn base_guests(mut self, guests: u32) -> Self {
        self.base_guests = guests;
        self
    }

    /// Sets the fee per guest above the base guests, per night.
    #[must_use]
    pub fn extra_guest_fee(mut self, fee: Cents) -> Self {
        self.extra_guest_fee = fee;
        self
    }

    /// Sets the Friday and Saturday rate outside seasons.
    #[must_use]
    pub fn weekend_rate(mut self, rate: Cents) -> Self {
        self.weekend_rate = Some(rate);
        self
    }

    /// Sets the fee charged once per stay.
    #[must_use]
    pub fn cleaning_fee(mut self, fee: Cents) -> Self {
        self.cleaning_fee = fee;
        self
    }

    /// Sets the tax rate, in basis points.
    #[must_use]
    pub fn tax_rate(mut self, basis_points: u32) -> Self {
        self.tax_rate = basis_points;
        self
    }

    /// Sets the weekly and monthly discounts, in basis points.
    #[must_use]
    pub fn discounts(mut self, weekly: u32, monthly: u32) -> Self {
        (self.weekly_discount, self.monthly_discount) = (weekly, monthly);
        self
    }

    /// Adds a season.
    #[must_use]
    pub fn season(mut self, season: SeasonalRate) -> Self {
        self.seasonal_rates.push(season);
        self
    }

    /// The rate and stay rules of `night`: the season that covers it (the one
    /// starting latest, where seasons overlap), else these rates and `rules`.
    pub fn rate_on(&self, night: NaiveDate, rules: &StayRules) -> NightRate {
        let weekend = matches!(night.weekday(), Weekday::Fri | Weekday::Sat);
        let season = self
            .seasonal_rates
            .iter()
            .filter(|s| s.start_date <= night && night <= s.end_date)
            .max_by_key(|s| s.start_date);
        match season {
            Some(s) => NightRate {
                price: if weekend { s.weekend_rate.unwrap_or(s.nightly_rate) } else { s.nightly_rate },
                min_nights: s.min_nights.unwrap_or(rules.min_nights),
                max_nights: s.max_nights.unwrap_or(rules.max_nights),
            },
            None => NightRate {
                price: if weekend { self.weekend_rate.unwrap_or(self.nightly_rate) } else { self.nightly_rate },
                min_nights: rules.min_nights,
                max_nights: rules.max_nights,
            },
        }
    }

    /// The faults of these settings, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut check = |ok: bool, field: &str, message: &str| {
            if !ok {
                errors.push(FieldError::new(field, "invalid", message));
            }
        };
        check((1..=MAX_GUESTS).contains(&self.max_guests), "maxGuests", "must be 1 to 100");
        check((1..=self.max_guests).contains(&self.base_guests), "baseGuests", "must be 1 to maxGuests");
        for (field, amount) in self.amounts() {
            check((0..=MAX_AMOUNT).contains(&amount), field, "must be 0 to 100000000 cents");
        }
        check(self.tax_rate <= 10_000, "taxRate", "must be 0 to 10000 basis points");
        check(self.weekly_discount <= 10_000, "weeklyDiscount", "must be 0 to 10000 basis points");
        check(self.monthly_discount <= 10_000, "monthlyDiscount", "must be 0 to 10000 basis points");
        for s in &self.seasonal_rates {
            check(!s.name.trim().is_empty(), "seasonalRates.name", "must not be empty");
            check(s.start_date <= s.end_date, "seasonalRates.endDate", "must not be before startDate");
            let nights = [s.min_nights, s.max_nights].into_iter().flatten();
            check(
                nights.into_iter().all(|n| (1..=MAX_NIGHTS).contains(&n)),
                "seasonalRates.minNights",
                "must be 1 to 366",
            );
        }
        let years_ok = self.seasonal_rates.iter().all(|s| [s.start_date, s.end_date].iter().all(|d| d.year() >= 1));
        check(years_ok, "seasonalRates.startDate", "must be in the years 0001 to 9999");
        let names = self.seasonal_rates.iter().map(|s| s.name.as_str());
        errors.extend(names.filter_map(|name| crate::basics::text::field_error("seasonalRates.name", name)));
    }

    fn amounts(&self) -> Vec<(&'static str, Cents)> {
        let mut all = vec![
            ("nightlyRate", self.nightly_rate),
            ("weekendRate", self.weekend_rate.unwrap_or(0)),
            ("extraGuestFee", self.extra_guest_fee),
            ("cleaningFee", self.cleaning_fee),
        ];
        for s in &self.seasonal_rates {
            all.push(("seasonalRates.nightlyRate", s.nightly_rate));
            all.push(("seasonalRates.weekendRate", s.weekend_rate.unwrap_or(0)));
        }
        all
    }
}

impl SeasonalRate {
    /// A season from `start_date` to `end_date` (inclusive) at `nightly_rate`
    /// every night, with the property's stay rules.
    pub fn new(name: impl Into<String>, start_date: NaiveDate, end_date: NaiveDate, nightly_rate: Cents) -> Self {
        SeasonalRate {
            name: name.into(),
            start_date,
            end_date,
            nightly_rate,
            weekend_rate: None,
            min_nights: None,
            max_nights: None,
        }
    }

    /// Sets the season's Friday and Saturday rate.
    #[must_use]
    pub fn weekend_rate(mut self, rate: Cents) -> Self {
        self.weekend_rate = Some(rate);
        self
    }

    /// Sets the shortest stay starting in the season.
    #[must_use]
    pub fn min_nights(mut self, nights: u32) -> Self {
        self.min_nights = Some(nights);
        self
    }

    /// Sets the longest stay starting in the season.
    #[must_use]
    pub fn max_nights(mut self, nights: u32) -> Self {
        self.max_nights = Some(nights);
        self
    }
}
