//! A property's JSON, as imported, stored and exported: one flat object
//! (docs/API.md section 3), whatever areas the Rust value groups it into.
//!
//! An explicit wire type rather than `#[serde(flatten)]`: flatten cannot deny
//! unknown fields, and it buffers the object first, so a bad value would be
//! reported at the end of the object instead of at its own line and column.
//! The field order here is the order of stored documents; keep it.

use std::collections::BTreeMap;

use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::access_settings::{AccessSettings, DEFAULT_CODE_LENGTH, DoorCodeMode};
use super::booking_page::BookingPage;
use super::check_in_form::CheckInForm;
use super::feed_settings::{FeedSettings, IcalFeed};
use super::message_settings::MessageSettings;
use super::payment_settings::{CancellationPolicy, PaymentSettings, PaymentTerms, SecurityDeposit};
use super::price_rules::{
    EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, PriceRules, PromoCode, TouristTax,
};
use super::property::Property;
use super::rates::{Pricing, SeasonalRate};
use super::stay_page_settings::StayPageSettings;
use super::stay_rules::StayRules;
use super::weekdays::Weekdays;
use crate::basics::clock_time::ClockTime;
use crate::basics::ids::Slug;
use crate::basics::locale::Locale;
use crate::basics::money::Cents;
use crate::wording::template::MessageTemplate;
use crate::wording::{Lead, MessageKind};

/// Every field of a property, flat, with the defaults an import gives a
/// field it omits (those of each area's `Default`).
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct PropertyWire {
    slug: Slug,
    name: String,
    timezone: Tz,
    #[serde(default = "usd")]
    currency: String,
    max_guests: u32,
    #[serde(default = "one")]
    base_guests: u32,
    #[serde(default)]
    extra_guest_fee: Cents,
    nightly_rate: Cents,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weekend_rate: Option<Cents>,
    #[serde(default)]
    cleaning_fee: Cents,
    #[serde(default)]
    tax_rate: u32,
    #[serde(default = "min_nights")]
    min_nights: u32,
    #[serde(default = "max_nights")]
    max_nights: u32,
    #[serde(default)]
    weekly_discount: u32,
    #[serde(default)]
    monthly_discount: u32,
    #[serde(default = "check_in_time")]
    check_in_time: ClockTime,
    #[serde(default = "check_out_time")]
    check_out_time: ClockTime,
    #[serde(default)]
    seasonal_rates: Vec<SeasonalRate>,
    #[serde(default = "yes")]
    active: bool,
    #[serde(default)]
    door_code: String,
    #[serde(default)]
    wifi_ssid: String,
    #[serde(default)]
    ical_feeds: Vec<IcalFeed>,
    #[serde(default)]
    door_code_mode: DoorCodeMode,
    #[serde(default = "code_length")]
    door_code_length: u8,
    #[serde(default)]
    access_before_minutes: u32,
    #[serde(default)]
    access_after_minutes: u32,
    #[serde(default)]
    booking_page: BookingPage,
    #[serde(default)]
    contact_email: String,
    #[serde(default)]
    arrival_notes: String,
    #[serde(default = "check_in_lead")]
    check_in_message: Lead,
    #[serde(default = "check_out_lead")]
    check_out_message: Lead,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    messages: BTreeMap<MessageKind, MessageTemplate>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    wifi_password: String,
    #[serde(default = "reveal_hours", skip_serializing_if = "is_default_reveal")]
    access_reveal_hours: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    access_requires_payment: Option<bool>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    guide: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    address: String,
    #[serde(default, skip_serializing_if = "CheckInForm::is_default")]
    check_in_form: CheckInForm,
    // Payments: left out at their defaults, so documents stored before them keep their bytes.
    #[serde(default, skip_serializing_if = "is_false")]
    instant_booking: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    payment_terms: PaymentTerms,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    security_deposit: Option<SecurityDeposit>,
    #[serde(default, skip_serializing_if = "is_default")]
    cancellation_policy: CancellationPolicy,
    // Section 25's rules: each left out at its default, so that documents
    // stored before them read and write back the same bytes.
    #[serde(default, skip_serializing_if = "every_day")]
    check_in_days: Weekdays,
    #[serde(default, skip_serializing_if = "every_day")]
    check_out_days: Weekdays,
    #[serde(default, skip_serializing_if = "is_zero")]
    advance_notice_hours: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    booking_window_days: Option<u32>,
    #[serde(default, skip_serializing_if = "is_zero")]
    preparation_nights: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gap_fill: Option<GapFill>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    lead_time_adjustments: Vec<LeadTimeAdjustment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    length_of_stay_discounts: Option<Vec<LengthOfStayDiscount>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    early_bird_discount: Option<EarlyBirdDiscount>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    promo_codes: Vec<PromoCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tourist_tax: Option<TouristTax>,
    #[serde(default, skip_serializing_if = "is_zero_cents")]
    pet_fee: Cents,
    #[serde(default, skip_serializing_if = "is_zero")]
    max_pets: u32,
    #[serde(default, skip_serializing_if = "is_default")]
    language: Locale,
}

impl From<PropertyWire> for Property {
    fn from(w: PropertyWire) -> Self {
        Property {
            slug: w.slug,
            name: w.name,
            timezone: w.timezone,
            currency: w.currency,
            active: w.active,
            pricing: Pricing {
                max_guests: w.max_guests,
                base_guests: w.base_guests,
                extra_guest_fee: w.extra_guest_fee,
                nightly_rate: w.nightly_rate,
                weekend_rate: w.weekend_rate,
                cleaning_fee: w.cleaning_fee,
                tax_rate: w.tax_rate,
                weekly_discount: w.weekly_discount,
                monthly_discount: w.monthly_discount,
                seasonal_rates: w.seasonal_rates,
                rules: PriceRules {
                    gap_fill: w.gap_fill,
                    lead_time_adjustments: w.lead_time_adjustments,
                    length_of_stay_discounts: w.length_of_stay_discounts,
                    early_bird_discount: w.early_bird_discount,
                    promo_codes: w.promo_codes,
                    tourist_tax: w.tourist_tax,
                    pet_fee: w.pet_fee,
                    max_pets: w.max_pets,
                },
            },
            stay_rules: StayRules {
                min_nights: w.min_nights,
                max_nights: w.max_nights,
                check_in_time: w.check_in_time,
                check_out_time: w.check_out_time,
                check_in_days: w.check_in_days,
                check_out_days: w.check_out_days,
                advance_notice_hours: w.advance_notice_hours,
                booking_window_days: w.booking_window_days,
                preparation_nights: w.preparation_nights,
            },
            access: AccessSettings {
                door_code: w.door_code,
                door_code_mode: w.door_code_mode,
                door_code_length: w.door_code_length,
                access_before_minutes: w.access_before_minutes,
                access_after_minutes: w.access_after_minutes,
                wifi_ssid: w.wifi_ssid,
                arrival_notes: crate::basics::text::paragraphs(&w.arrival_notes).into_owned(),
                wifi_password: w.wifi_password,
                access_reveal_hours: w.access_reveal_hours,
                access_requires_payment: w.access_requires_payment,
                stay_page: StayPageSettings { guide: w.guide, address: w.address, check_in_form: w.check_in_form },
            },
            booking_page: w.booking_page,
            messages: MessageSettings {
                contact_email: w.contact_email,
                check_in_lead: w.check_in_message,
                check_out_lead: w.check_out_message,
                templates: w.messages,
                language: w.language,
            },
            feeds: FeedSettings { ical_feeds: w.ical_feeds },
            payments: PaymentSettings {
                instant_booking: w.instant_booking,
                terms: w.payment_terms,
                security_deposit: w.security_deposit,
                cancellation_policy: w.cancellation_policy,
            },
        }
    }
}

impl From<Property> for PropertyWire {
    fn from(p: Property) -> Self {
        let Property {
            slug,
            name,
            timezone,
            currency,
            active,
            pricing,
            stay_rules,
            access,
            booking_page,
            messages,
            feeds,
            payments,
        } = p;
        PropertyWire {
            slug,
            name,
            timezone,
            currency,
            max_guests: pricing.max_guests,
            base_guests: pricing.base_guests,
            extra_guest_fee: pricing.extra_guest_fee,
            nightly_rate: pricing.nightly_rate,
            weekend_rate: pricing.weekend_rate,
            cleaning_fee: pricing.cleaning_fee,
            tax_rate: pricing.tax_rate,
            min_nights: stay_rules.min_nights,
            max_nights: stay_rules.max_nights,
            weekly_discount: pricing.weekly_discount,
            monthly_discount: pricing.monthly_discount,
            check_in_time: stay_rules.check_in_time,
            check_out_time: stay_rules.check_out_time,
            seasonal_rates: pricing.seasonal_rates,
            active,
            door_code: access.door_code,
            wifi_ssid: access.wifi_ssid,
            ical_feeds: feeds.ical_feeds,
            door_code_mode: access.door_code_mode,
            door_code_length: access.door_code_length,
            access_before_minutes: access.access_before_minutes,
            access_after_minutes: access.access_after_minutes,
            booking_page,
            contact_email: messages.contact_email,
            arrival_notes: access.arrival_notes,
            check_in_message: messages.check_in_lead,
            check_out_message: messages.check_out_lead,
            messages: messages.templates,
            wifi_password: access.wifi_password,
            access_reveal_hours: access.access_reveal_hours,
            access_requires_payment: access.access_requires_payment,
            guide: access.stay_page.guide,
            address: access.stay_page.address,
            check_in_form: access.stay_page.check_in_form,
            instant_booking: payments.instant_booking,
            payment_terms: payments.terms,
            security_deposit: payments.security_deposit,
            cancellation_policy: payments.cancellation_policy,
            check_in_days: stay_rules.check_in_days,
            check_out_days: stay_rules.check_out_days,
            advance_notice_hours: stay_rules.advance_notice_hours,
            booking_window_days: stay_rules.booking_window_days,
            preparation_nights: stay_rules.preparation_nights,
            gap_fill: pricing.rules.gap_fill,
            lead_time_adjustments: pricing.rules.lead_time_adjustments,
            length_of_stay_discounts: pricing.rules.length_of_stay_discounts,
            early_bird_discount: pricing.rules.early_bird_discount,
            promo_codes: pricing.rules.promo_codes,
            tourist_tax: pricing.rules.tourist_tax,
            pet_fee: pricing.rules.pet_fee,
            max_pets: pricing.rules.max_pets,
            language: messages.language,
        }
    }
}

// The defaults of omitted fields: each area's own `Default`, so that the two
// cannot disagree (`a_new_property_has_the_defaults_of_a_json_import`).
fn usd() -> String {
    "USD".to_owned()
}
fn one() -> u32 {
    Pricing::new(0).base_guests
}
fn min_nights() -> u32 {
    StayRules::default().min_nights
}
fn max_nights() -> u32 {
    StayRules::default().max_nights
}
fn check_in_time() -> ClockTime {
    StayRules::default().check_in_time
}
fn check_out_time() -> ClockTime {
    StayRules::default().check_out_time
}
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}
#[expect(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_zero(n: &u32) -> bool {
    *n == 0
}
#[expect(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_zero_cents(n: &Cents) -> bool {
    *n == 0
}
#[expect(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn every_day(days: &Weekdays) -> bool {
    days.is_all()
}
fn yes() -> bool {
    true
}
fn code_length() -> u8 {
    DEFAULT_CODE_LENGTH
}
fn reveal_hours() -> u32 {
    AccessSettings::default().access_reveal_hours
}
#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
fn is_default_reveal(hours: &u32) -> bool {
    *hours == reveal_hours()
}
fn check_in_lead() -> Lead {
    Lead::CHECK_IN
}
fn check_out_lead() -> Lead {
    Lead::CHECK_OUT
}
