//! A property as the API shows it (docs/API.md section 3): the public
//! fields, flat, without the door code, Wi-Fi name, feeds or the active flag.

use chrono_tz::Tz;
use serde::{Serialize, Serializer};

use super::booking_page::BookingPage;
use super::payment_settings::{CancellationPolicy, PaymentTerms, SecurityDeposit};
use super::price_rules::{EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, TouristTax};
use super::property::Property;
use super::rates::SeasonalRate;
use super::weekdays::Weekdays;
use crate::basics::clock_time::ClockTime;
use crate::basics::ids::Slug;
use crate::basics::money::Cents;

/// A property as the API shows it (docs/API.md section 3): no private fields.
#[derive(Debug, Clone, Copy)]
pub struct PublicProperty<'a>(pub(super) &'a Property);

impl Serialize for PublicProperty<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        PropertyView {
            slug: &p.slug,
            name: &p.name,
            timezone: &p.timezone,
            currency: &p.currency,
            max_guests: p.pricing.max_guests,
            base_guests: p.pricing.base_guests,
            extra_guest_fee: p.pricing.extra_guest_fee,
            nightly_rate: p.pricing.nightly_rate,
            weekend_rate: p.pricing.weekend_rate,
            cleaning_fee: p.pricing.cleaning_fee,
            tax_rate: p.pricing.tax_rate,
            min_nights: p.stay_rules.min_nights,
            max_nights: p.stay_rules.max_nights,
            weekly_discount: p.pricing.weekly_discount,
            monthly_discount: p.pricing.monthly_discount,
            check_in_time: p.stay_rules.check_in_time,
            check_out_time: p.stay_rules.check_out_time,
            seasonal_rates: &p.pricing.seasonal_rates,
            booking_page: &p.booking_page,
            instant_booking: p.payments.instant_booking.then_some(true),
            payment_terms: (p.payments.terms != PaymentTerms::default()).then_some(&p.payments.terms),
            security_deposit: p.payments.security_deposit.as_ref(),
            cancellation_policy: (p.payments.cancellation_policy != CancellationPolicy::default())
                .then_some(&p.payments.cancellation_policy),
            check_in_days: (!p.stay_rules.check_in_days.is_all()).then_some(p.stay_rules.check_in_days),
            check_out_days: (!p.stay_rules.check_out_days.is_all()).then_some(p.stay_rules.check_out_days),
            advance_notice_hours: nonzero(p.stay_rules.advance_notice_hours),
            booking_window_days: p.stay_rules.booking_window_days,
            preparation_nights: nonzero(p.stay_rules.preparation_nights),
            gap_fill: p.pricing.rules.gap_fill,
            lead_time_adjustments: &p.pricing.rules.lead_time_adjustments,
            length_of_stay_discounts: p.pricing.rules.length_of_stay_discounts.as_deref(),
            early_bird_discount: p.pricing.rules.early_bird_discount,
            tourist_tax: p.pricing.rules.tourist_tax,
            pet_fee: (p.pricing.rules.pet_fee != 0).then_some(p.pricing.rules.pet_fee),
            max_pets: nonzero(p.pricing.rules.max_pets),
        }
        .serialize(serializer)
    }
}

fn nonzero(n: u32) -> Option<u32> {
    (n != 0).then_some(n)
}

/// The schema of what [`PublicProperty`] writes.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for PublicProperty<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Property".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        PropertyView::json_schema(generator)
    }
}

/// A bookable property as the API shows it. Private details (door code,
/// Wi-Fi name, feed URLs) are never included.
#[derive(Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
struct PropertyView<'a> {
    /// URL-safe identifier: 1 to 64 of a-z, 0-9 and `-`.
    slug: &'a Slug,
    /// Display name.
    name: &'a str,
    /// IANA time zone the property's days are counted in (`Europe/Lisbon`).
    #[cfg_attr(feature = "schemars", schemars(with = "String"))]
    timezone: &'a Tz,
    /// The ISO 4217 code of every amount (`USD`, `EUR`, `JPY`...), in its minor unit.
    currency: &'a str,
    /// Most guests allowed.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 100)))]
    max_guests: u32,
    /// Guests included in the nightly rate.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 100)))]
    base_guests: u32,
    /// Per guest above `baseGuests`, per night, in cents.
    extra_guest_fee: Cents,
    /// Weeknight rate outside seasons, in cents.
    nightly_rate: Cents,
    /// Friday and Saturday rate outside seasons, in cents. Omitted when the
    /// property has none: `nightlyRate` applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    weekend_rate: Option<Cents>,
    /// Once per stay, in cents.
    cleaning_fee: Cents,
    /// Tax on accommodation less discount, plus fees, in basis points (1200 = 12 %).
    #[cfg_attr(feature = "schemars", schemars(range(max = 10_000)))]
    tax_rate: u32,
    /// Shortest stay, outside seasons that set their own.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 366)))]
    min_nights: u32,
    /// Longest stay, outside seasons that set their own.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 366)))]
    max_nights: u32,
    /// Off accommodation for stays of 7 to 27 nights, in basis points.
    #[cfg_attr(feature = "schemars", schemars(range(max = 10_000)))]
    weekly_discount: u32,
    /// Off accommodation for stays of 28 nights or more, in basis points.
    #[cfg_attr(feature = "schemars", schemars(range(max = 10_000)))]
    monthly_discount: u32,
    /// Local arrival time, 24-hour.
    check_in_time: ClockTime,
    /// Local departure time, 24-hour.
    check_out_time: ClockTime,
    /// Seasons with their own rates.
    seasonal_rates: &'a [SeasonalRate],
    /// The booking page at `/book/{slug}`: on or off, and the sites allowed to frame it.
    booking_page: &'a BookingPage,
    /// `true`: a booking is confirmed when its first payment succeeds; omitted: a request the host confirms.
    #[serde(skip_serializing_if = "Option::is_none")]
    instant_booking: Option<bool>,
    /// Up to 4 installments whose shares (basis points) sum to 10000, the first due at booking; omitted: all at booking.
    #[serde(skip_serializing_if = "Option::is_none")]
    payment_terms: Option<&'a PaymentTerms>,
    /// A card hold around the stay; omitted when the property takes none.
    #[serde(skip_serializing_if = "Option::is_none")]
    security_deposit: Option<&'a SecurityDeposit>,
    /// What a guest's cancellation refunds; omitted: everything, up to check-in.
    #[serde(skip_serializing_if = "Option::is_none")]
    cancellation_policy: Option<&'a CancellationPolicy>,
    /// Weekdays a stay may start on (`mon` … `sun`); omitted: every day.
    #[serde(skip_serializing_if = "Option::is_none")]
    check_in_days: Option<Weekdays>,
    /// Weekdays a stay may end on; omitted: every day.
    #[serde(skip_serializing_if = "Option::is_none")]
    check_out_days: Option<Weekdays>,
    /// The check-in instant is at least this many hours after the booking; omitted: 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    advance_notice_hours: Option<u32>,
    /// Check-in at most this many days after the property's today; omitted: the 36-month horizon.
    #[serde(skip_serializing_if = "Option::is_none")]
    booking_window_days: Option<u32>,
    /// Nights kept free before and after every stay or block; omitted: 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    preparation_nights: Option<u32>,
    /// A stay exactly filling a short gap may be shorter, at a discount.
    #[serde(skip_serializing_if = "Option::is_none")]
    gap_fill: Option<GapFill>,
    /// Basis points added to nightly prices by days to check-in; the first match applies.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    lead_time_adjustments: &'a [LeadTimeAdjustment],
    /// Discounts by stay length (the largest `minNights` reached); omitted: weekly and monthly.
    #[serde(skip_serializing_if = "Option::is_none")]
    length_of_stay_discounts: Option<&'a [LengthOfStayDiscount]>,
    /// A discount for a check-in far ahead.
    #[serde(skip_serializing_if = "Option::is_none")]
    early_bird_discount: Option<EarlyBirdDiscount>,
    /// Per adult per night, in cents, not taxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    tourist_tax: Option<TouristTax>,
    /// Once per stay with pets, in cents; omitted: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pet_fee: Option<Cents>,
    /// Most pets allowed; omitted: no pets.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_pets: Option<u32>,
}
