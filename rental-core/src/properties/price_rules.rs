//! A property's price rules beyond seasons (docs/API.md section 25): gap
//! fill, lead-time adjustments, stay-length, early-bird and promo discounts,
//! the tourist tax and pets. Pure data and the checks made on save.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::stay_rules::StayRules;
use crate::basics::money::{Cents, MAX_AMOUNT};
use crate::basics::stay::MAX_NIGHTS;
use crate::error::FieldError;

/// The largest lead-time adjustment: +1000 % (the smallest is −100 %).
pub const MAX_ADJUST: i32 = 100_000;
/// The most pets a property may allow.
pub const MAX_PETS: u32 = 20;
/// The most entries of each list (adjustments, stay-length discounts, promo codes).
pub const MAX_ENTRIES: usize = 100;

/// The price rules of a property. The default has none: the weekly and
/// monthly discounts are the stay-length discounts, nothing else applies.
///
/// ```
/// use rental_core::property::{GapFill, PriceRules, TouristTax};
///
/// let rules = PriceRules::default()
///     .gap_fill(GapFill { max_gap_nights: 3, min_nights: 1, discount: 2_000 })
///     .tourist_tax(TouristTax { per_person_per_night: 250, max_nights: Some(7), exempt_under_age: Some(12) })
///     .pets(1_500, 2);
/// assert_eq!((rules.pet_fee, rules.max_pets), (1_500, 2));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PriceRules {
    /// Short stays that exactly fill a gap between taken nights (`gapFill`).
    pub gap_fill: Option<GapFill>,
    /// Basis points added to each night by how soon the stay starts
    /// (`leadTimeAdjustments`); the first matching entry applies.
    pub lead_time_adjustments: Vec<LeadTimeAdjustment>,
    /// `None`: 7 nights get `weeklyDiscount`, 28 `monthlyDiscount` (`lengthOfStayDiscounts`).
    pub length_of_stay_discounts: Option<Vec<LengthOfStayDiscount>>,
    /// A discount for booking far ahead (`earlyBirdDiscount`).
    pub early_bird_discount: Option<EarlyBirdDiscount>,
    /// Codes a guest may give for a discount (`promoCodes`).
    pub promo_codes: Vec<PromoCode>,
    /// Per adult per night (`touristTax`).
    pub tourist_tax: Option<TouristTax>,
    /// Once per stay that brings pets (`petFee`).
    pub pet_fee: Cents,
    /// Most pets allowed; 0 means none (`maxPets`).
    pub max_pets: u32,
}

/// A stay that exactly fills a free gap of at most `max_gap_nights` between
/// taken nights may be as short as `min_nights`, and gets `discount`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GapFill {
    /// The longest gap that counts, in nights.
    pub max_gap_nights: u32,
    /// The shortest stay that may fill it.
    pub min_nights: u32,
    /// Basis points off accommodation.
    pub discount: u32,
}

/// Basis points added to every nightly price of a stay whose check-in is at
/// most `within_days` or at least `beyond_days` after the property's today.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeadTimeAdjustment {
    /// Matches a check-in at most this many days after today.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_days: Option<u32>,
    /// Matches a check-in at least this many days after today.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beyond_days: Option<u32>,
    /// Basis points, −10000 (free) up to 100000.
    pub adjust: i32,
}

/// Basis points off accommodation for stays of at least `min_nights`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LengthOfStayDiscount {
    /// The stay length from which it applies.
    pub min_nights: u32,
    /// Basis points off accommodation.
    pub discount: u32,
}

/// Basis points off accommodation for a check-in at least `min_days_before`
/// days after the property's today.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EarlyBirdDiscount {
    /// Days between today and check-in.
    pub min_days_before: u32,
    /// Basis points off accommodation.
    pub discount: u32,
}

/// A code a guest gives for `discount`; codes match whatever their case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromoCode {
    /// 1 to 32 letters, digits, `-` and `_`.
    pub code: String,
    /// Basis points off accommodation.
    pub discount: u32,
    /// First day (the property's) the code may be used on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<NaiveDate>,
    /// Last day (inclusive) the code may be used on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<NaiveDate>,
    /// Earliest check-in it applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stay_from: Option<NaiveDate>,
    /// Latest check-in (inclusive) it applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stay_to: Option<NaiveDate>,
    /// Shortest stay it applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_nights: Option<u32>,
    /// How many bookings may use the code; unlimited when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
}

/// A tax per adult (guests less children) per night, not itself taxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TouristTax {
    /// Per adult per night.
    pub per_person_per_night: Cents,
    /// Nights taxed at most; every night when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nights: Option<u32>,
    /// Children (under this age) are exempt; shown to guests, who say how many come.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exempt_under_age: Option<u32>,
}

impl PromoCode {
    /// A code for `discount` basis points, valid any day, for any stay.
    pub fn new(code: impl Into<String>, discount: u32) -> Self {
        PromoCode {
            code: code.into(),
            discount,
            valid_from: None,
            valid_to: None,
            stay_from: None,
            stay_to: None,
            min_nights: None,
            max_uses: None,
        }
    }

    /// True when `given` is this code, whatever its case.
    pub fn matches(&self, given: &str) -> bool {
        self.code.eq_ignore_ascii_case(given.trim())
    }

    /// True when the code may be used on the property's day `today`.
    pub fn valid_on(&self, today: NaiveDate) -> bool {
        self.valid_from.is_none_or(|d| d <= today) && self.valid_to.is_none_or(|d| today <= d)
    }

    fn window(&self) -> (NaiveDate, NaiveDate) {
        (self.valid_from.unwrap_or(NaiveDate::MIN), self.valid_to.unwrap_or(NaiveDate::MAX))
    }
}

impl LeadTimeAdjustment {
    /// True when it applies to a check-in `days` after today.
    pub fn matches(&self, days: i64) -> bool {
        self.within_days.is_some_and(|n| days <= i64::from(n)) || self.beyond_days.is_some_and(|n| days >= i64::from(n))
    }
}

impl PriceRules {
    /// Sets the gap-fill rule.
    #[must_use]
    pub fn gap_fill(mut self, gap_fill: GapFill) -> Self {
        self.gap_fill = Some(gap_fill);
        self
    }

    /// Adds a lead-time adjustment (after those already set: the first that matches applies).
    #[must_use]
    pub fn lead_time(mut self, adjustment: LeadTimeAdjustment) -> Self {
        self.lead_time_adjustments.push(adjustment);
        self
    }

    /// Sets the stay-length discounts (replacing the weekly and monthly ones).
    #[must_use]
    pub fn length_of_stay(mut self, discounts: Vec<LengthOfStayDiscount>) -> Self {
        self.length_of_stay_discounts = Some(discounts);
        self
    }

    /// Sets the early-bird discount.
    #[must_use]
    pub fn early_bird(mut self, discount: EarlyBirdDiscount) -> Self {
        self.early_bird_discount = Some(discount);
        self
    }

    /// Adds a promo code.
    #[must_use]
    pub fn promo(mut self, code: PromoCode) -> Self {
        self.promo_codes.push(code);
        self
    }

    /// Sets the tourist tax.
    #[must_use]
    pub fn tourist_tax(mut self, tax: TouristTax) -> Self {
        self.tourist_tax = Some(tax);
        self
    }

    /// Sets the fee per stay with pets and the most pets allowed.
    #[must_use]
    pub fn pets(mut self, fee: Cents, max: u32) -> Self {
        (self.pet_fee, self.max_pets) = (fee, max);
        self
    }

    /// The entry for `code` valid on `today`, else any entry for it.
    pub fn promo_code(&self, code: &str, today: NaiveDate) -> Option<&PromoCode> {
        let all: Vec<&PromoCode> = self.promo_codes.iter().filter(|p| p.matches(code)).collect();
        all.iter().find(|p| p.valid_on(today)).or_else(|| all.first()).copied()
    }

    /// The faults of these rules, each naming its JSON field; `stay` for the
    /// contradictions with the stay minimum.
    pub(crate) fn faults(&self, stay: &StayRules, errors: &mut Vec<FieldError>) {
        let mut check = |ok: bool, field: &str, message: String| {
            if !ok {
                errors.push(FieldError::new(field, "invalid", message));
            }
        };
        let bp = |d: u32| d <= 10_000;
        let bp_text = || "must be 0 to 10000 basis points".to_owned();
        if let Some(g) = self.gap_fill {
            check((1..=MAX_NIGHTS).contains(&g.max_gap_nights), "gapFill.maxGapNights", "must be 1 to 366".into());
            check(g.min_nights >= 1, "gapFill.minNights", "must be at least 1".into());
            let above = format!("must not be above minNights ({}): gap fill relaxes the minimum", stay.min_nights);
            check(g.min_nights <= stay.min_nights, "gapFill.minNights", above);
            check(bp(g.discount), "gapFill.discount", bp_text());
        }
        check(self.lead_time_adjustments.len() <= MAX_ENTRIES, "leadTimeAdjustments", "at most 100 entries".into());
        for a in &self.lead_time_adjustments {
            let one = a.within_days.is_some() != a.beyond_days.is_some();
            check(one, "leadTimeAdjustments", "each entry has exactly one of withinDays and beyondDays".into());
            let days = [a.within_days, a.beyond_days].into_iter().flatten().all(|d| d <= 2_000);
            check(days, "leadTimeAdjustments", "days must be 0 to 2000".into());
            let floor = "must not be below -10000 (-100 %): a price cannot go below zero";
            check(a.adjust >= -10_000, "leadTimeAdjustments.adjust", floor.into());
            check(a.adjust <= MAX_ADJUST, "leadTimeAdjustments.adjust", "must be at most 100000 (+1000 %)".into());
        }
        if let Some(list) = &self.length_of_stay_discounts {
            check(list.len() <= MAX_ENTRIES, "lengthOfStayDiscounts", "at most 100 entries".into());
            for d in list {
                let nights = (1..=MAX_NIGHTS).contains(&d.min_nights);
                check(nights, "lengthOfStayDiscounts.minNights", "must be 1 to 366".into());
                check(bp(d.discount), "lengthOfStayDiscounts.discount", bp_text());
            }
        }
        if let Some(e) = self.early_bird_discount {
            check(e.min_days_before <= 2_000, "earlyBirdDiscount.minDaysBefore", "must be 0 to 2000".into());
            check(bp(e.discount), "earlyBirdDiscount.discount", bp_text());
        }
        self.promo_faults(&mut check);
        if let Some(t) = self.tourist_tax {
            let amount = (0..=MAX_AMOUNT).contains(&t.per_person_per_night);
            check(amount, "touristTax.perPersonPerNight", "must be 0 to 100000000 cents".into());
            let nights = t.max_nights.is_none_or(|n| (1..=MAX_NIGHTS).contains(&n));
            check(nights, "touristTax.maxNights", "must be 1 to 366".into());
            check(t.exempt_under_age.is_none_or(|a| a <= 25), "touristTax.exemptUnderAge", "must be 0 to 25".into());
        }
        check((0..=MAX_AMOUNT).contains(&self.pet_fee), "petFee", "must be 0 to 100000000 cents".into());
        check(self.max_pets <= MAX_PETS, "maxPets", format!("must be 0 to {MAX_PETS}"));
    }

    fn promo_faults(&self, check: &mut impl FnMut(bool, &str, String)) {
        check(self.promo_codes.len() <= MAX_ENTRIES, "promoCodes", "at most 100 entries".into());
        for p in &self.promo_codes {
            let shape = (1..=32).contains(&p.code.len())
                && p.code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            check(shape, "promoCodes.code", "must be 1 to 32 letters, digits, - and _".into());
            check(p.discount <= 10_000, "promoCodes.discount", "must be 0 to 10000 basis points".into());
            let valid = p.valid_from.zip(p.valid_to).is_none_or(|(a, b)| a <= b);
            check(valid, "promoCodes.validTo", "must not be before validFrom".into());
            let stay = p.stay_from.zip(p.stay_to).is_none_or(|(a, b)| a <= b);
            check(stay, "promoCodes.stayTo", "must not be before stayFrom".into());
            let nights = p.min_nights.is_none_or(|n| (1..=MAX_NIGHTS).contains(&n));
            check(nights, "promoCodes.minNights", "must be 1 to 366".into());
            check(p.max_uses.is_none_or(|n| n >= 1), "promoCodes.maxUses", "must be at least 1".into());
        }
        for (i, a) in self.promo_codes.iter().enumerate() {
            let clash = self.promo_codes[i + 1..].iter().find(|b| {
                let ((a0, a1), (b0, b1)) = (a.window(), b.window());
                a.matches(&b.code) && a0 <= b1 && b0 <= a1
            });
            if let Some(b) = clash {
                let message = format!("{} appears twice with overlapping validFrom..validTo windows", b.code);
                check(false, "promoCodes.code", message);
            }
        }
    }
}
