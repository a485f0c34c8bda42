//! A rental property: who it is (slug, name, time zone, currency, listed or
//! not) and one settings value per area, each defined in its own file.

use chrono::NaiveDate;
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

pub use super::access_settings::{AccessSettings, DoorCodeMode};
use super::booking_page::BookingPage;
pub use super::builder::PropertyBuilder;
pub use super::check_in_form::{CheckInField, CheckInForm, FieldRule};
pub use super::feed_settings::{FeedSettings, IcalFeed};
pub use super::message_settings::MessageSettings;
pub use super::payment_settings::{
    CancellationPolicy, Due, Installment, PaymentSettings, PaymentTerms, RefundCheckpoint, SecurityDeposit,
};
pub use super::price_rules::{
    EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, PriceRules, PromoCode, TouristTax,
};
pub use super::public::PublicProperty;
pub use super::rates::{MAX_GUESTS, NightRate, Pricing, SeasonalRate};
pub use super::stay_page_settings::StayPageSettings;
pub use super::stay_rules::StayRules;
pub use super::weekdays::Weekdays;
use super::wire::PropertyWire;
pub use crate::basics::clock_time::ClockTime;
use crate::basics::ids::Slug;
pub use crate::basics::money::{Cents, MAX_AMOUNT, format_money};
use crate::error::{Error, FieldError};

/// A bookable property (docs/API.md section 3).
///
/// Build one with [`Property::builder`]; its JSON is one flat object (the
/// settings' fields side by side), the same for an import, the store and an
/// export:
///
/// ```
/// use rental_core::property::{Pricing, SeasonalRate, StayRules};
/// use rental_core::{Property, Tz};
///
/// let cabin = Property::builder("alpine-cabin")
///     .name("Alpine Cabin")
///     .timezone(Tz::Europe__Zurich)
///     .pricing(
///         Pricing::new(18_000)
///             .max_guests(6)
///             .weekend_rate(21_000)
///             .cleaning_fee(8_000)
///             .tax_rate(1_200)
///             .season(SeasonalRate::new("Ski", "2026-12-15".parse()?, "2027-03-31".parse()?, 30_000).min_nights(3)),
///     )
///     .stay_rules(StayRules::default().nights(2, 28))
///     .build()?;
/// assert_eq!(cabin.stay_rules.check_in_time.to_string(), "15:00");
/// assert_eq!(serde_json::to_value(&cabin)?["cleaningFee"], 8_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "PropertyWire", into = "PropertyWire")]
#[non_exhaustive]
pub struct Property {
    /// URL-safe identifier.
    pub slug: Slug,
    /// Display name.
    pub name: String,
    /// The IANA time zone the property's days are counted in.
    pub timezone: Tz,
    /// The ISO 4217 code of every amount (`USD`, `EUR`, `JPY`...; see
    /// [`crate::Currency`]): amounts are integers in its minor unit.
    pub currency: String,
    /// Listed and bookable.
    pub active: bool,
    /// Rates, seasons, fees, tax, discounts and guests.
    pub pricing: Pricing,
    /// Stay lengths, check-in and check-out times and days, notice, window, preparation.
    pub stay_rules: StayRules,
    /// Private: the door code, its mode and window, Wi-Fi and arrival notes.
    pub access: AccessSettings,
    /// The page guests book on directly, and the sites that may frame it.
    pub booking_page: BookingPage,
    /// Guest messages: the reply address, lead times and the host's wording.
    pub messages: MessageSettings,
    /// Private: channel calendars to import.
    pub feeds: FeedSettings,
    /// Instant booking or requests, installments, deposit and cancellation policy.
    pub payments: PaymentSettings,
}

impl Property {
    /// A builder for the property `slug`; [`PropertyBuilder::build`] checks
    /// the slug and every rule.
    pub fn builder(slug: &str) -> PropertyBuilder {
        PropertyBuilder::new(slug)
    }

    /// A property with these four fields and every other at the default a
    /// JSON import gives a field it omits (each area's `Default`, and
    /// [`Pricing::new`]): 2 guests with 1 included, in `USD`, `active`. It is
    /// not checked: [`Property::validate`] does that, as an import does.
    pub fn new(slug: Slug, name: impl Into<String>, timezone: Tz, nightly_rate: Cents) -> Self {
        Property {
            slug,
            name: name.into(),
            timezone,
            currency: "USD".to_owned(),
            active: true,
            pricing: Pricing::new(nightly_rate),
            stay_rules: StayRules::default(),
            access: AccessSettings::default(),
            booking_page: BookingPage::default(),
            messages: MessageSettings::default(),
            feeds: FeedSettings::default(),
            payments: PaymentSettings::default(),
        }
    }

    /// The rate and stay rules of `night`: the season that covers it (the one
    /// starting latest, where seasons overlap), else the property's own.
    pub fn rate_on(&self, night: NaiveDate) -> NightRate {
        self.pricing.rate_on(night, &self.stay_rules)
    }

    /// The public view: everything but the door code, Wi-Fi name, feeds and the active flag.
    pub fn public(&self) -> PublicProperty<'_> {
        PublicProperty(self)
    }

    /// Checks every rule of a property; all faults are reported together,
    /// each naming its JSON field.
    pub fn validate(&self) -> Result<(), Error> {
        let mut errors = Vec::new();
        if self.name.trim().is_empty() || self.name.len() > 200 {
            errors.push(FieldError::new("name", "invalid", "must be 1 to 200 characters"));
        }
        errors.extend(crate::basics::text::field_error("name", &self.name));
        if crate::basics::currency::Currency::find(&self.currency).is_none() {
            errors.push(FieldError::new(
                "currency",
                "invalid",
                "must be an upper-case ISO 4217 code the payment provider charges in (EUR, GBP, JPY, USD, ...)",
            ));
        }
        self.pricing.faults(&mut errors);
        self.stay_rules.faults(&mut errors);
        self.pricing.rules.faults(&self.stay_rules, &mut errors);
        self.access.faults(&mut errors);
        self.feeds.faults(&mut errors);
        self.messages.faults(&mut errors);
        self.payments.faults(&mut errors);
        if let Some((field, message)) = self.booking_page.fault() {
            errors.push(FieldError::new(field, "invalid", message));
        }
        if errors.is_empty() { Ok(()) } else { Err(Error::Validation(errors)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    /// `demo::sea_view()` as the flat struct of before the areas wrote it:
    /// stores hold documents like this one, byte for byte.
    const STORED_SEA_VIEW: &str = concat!(
        r#"{"slug":"sea-view","name":"Sea View Cottage","timezone":"Europe/Lisbon","currency":"USD","#,
        r#""maxGuests":4,"baseGuests":2,"extraGuestFee":2000,"nightlyRate":15000,"weekendRate":18000,"#,
        r#""cleaningFee":6000,"taxRate":1200,"minNights":2,"maxNights":28,"weeklyDiscount":1000,"#,
        r#""monthlyDiscount":2000,"checkInTime":"15:00","checkOutTime":"11:00","seasonalRates":[{"name":"Summer","#,
        r#""startDate":"2026-06-01","endDate":"2026-08-31","nightlyRate":22000,"weekendRate":25000,"minNights":3}],"#,
        r#""active":true,"doorCode":"4821","wifiSsid":"SeaView-Guest","icalFeeds":[],"doorCodeMode":"static","#,
        r#""doorCodeLength":6,"accessBeforeMinutes":0,"accessAfterMinutes":0,"#,
        r#""bookingPage":{"enabled":false,"embedOrigins":[]},"contactEmail":"","arrivalNotes":"","#,
        r#""checkInMessage":"48h","checkOutMessage":"16h"}"#
    );

    #[test]
    fn a_stored_property_loads_and_writes_back_the_same_bytes() {
        let loaded: Property = serde_json::from_str(STORED_SEA_VIEW).unwrap();
        assert_eq!(loaded, demo::sea_view());
        assert_eq!(serde_json::to_string(&loaded).unwrap(), STORED_SEA_VIEW);
    }

    #[test]
    fn the_json_stays_flat_and_unknown_fields_are_refused() {
        let mut p = demo::sea_view();
        p.messages.check_in_lead = crate::wording::Lead::parse("1d").unwrap();
        p.access.door_code_mode = DoorCodeMode::PerStay;
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!((json["checkInMessage"].as_str(), json["doorCodeMode"].as_str()), (Some("24h"), Some("per_stay")));
        for area in ["pricing", "stayRules", "access", "messages", "feeds"] {
            assert!(json.get(area).is_none(), "{area} is nested");
        }
        let mut unknown = json;
        unknown["rooms"] = 3.into();
        let err = serde_json::from_value::<Property>(unknown).unwrap_err().to_string();
        assert!(err.starts_with("unknown field `rooms`"), "{err}");
    }

    #[test]
    fn the_rate_of_a_night_follows_weekday_and_season() {
        let p = demo::sea_view();
        let cases = [
            ("2026-12-21", 15_000, 2), // Monday, no season
            ("2026-12-25", 18_000, 2), // Friday, no season
            ("2026-12-26", 18_000, 2), // Saturday
            ("2026-12-27", 15_000, 2), // Sunday is a weeknight
            ("2026-06-01", 22_000, 3), // Monday in Summer
            ("2026-06-05", 25_000, 3), // Friday in Summer
            ("2026-08-31", 22_000, 3), // last night of Summer is inclusive
            ("2026-09-01", 15_000, 2), // Tuesday after Summer
        ];
        for (night, price, min) in cases {
            let r = p.rate_on(d(night));
            assert_eq!((r.price, r.min_nights), (price, min), "{night}");
        }
    }

    #[test]
    fn where_seasons_overlap_the_later_start_wins_and_weekend_defaults_to_the_season_rate() {
        let mut p = demo::sea_view();
        p.pricing.seasonal_rates.push(SeasonalRate::new("August peak", d("2026-08-01"), d("2026-08-15"), 30_000));
        assert_eq!(p.rate_on(d("2026-08-07")).price, 30_000, "a Friday in the peak");
        assert_eq!(p.rate_on(d("2026-08-07")).min_nights, 2, "the peak sets no minimum: the property's");
        assert_eq!(p.rate_on(d("2026-08-16")).price, 22_000, "after the peak, Summer again");
    }

    #[test]
    fn a_new_property_has_the_defaults_of_a_json_import() {
        let json = r#"{"slug": "sea-view", "name": "Sea View", "timezone": "Europe/Lisbon", "maxGuests": 2, "nightlyRate": 15000}"#;
        let imported: Property = serde_json::from_str(json).unwrap();
        let made = Property::new(Slug::parse("sea-view").unwrap(), "Sea View", chrono_tz::Europe::Lisbon, 15_000);
        assert_eq!(made, imported);
        let built = Property::builder("sea-view")
            .name("Sea View")
            .timezone(chrono_tz::Europe::Lisbon)
            .pricing(Pricing::new(15_000))
            .build()
            .unwrap();
        assert_eq!(built, imported);
    }

    #[test]
    fn the_public_view_hides_door_code_wifi_and_feeds() {
        let json = serde_json::to_value(demo::sea_view().public()).unwrap();
        for private in ["doorCode", "wifiSsid", "icalFeeds", "active", "doorCodeMode", "doorCodeLength"] {
            assert!(json.get(private).is_none(), "{private} leaked");
        }
        assert_eq!(json["slug"], "sea-view");
        assert_eq!(json["seasonalRates"][0]["name"], "Summer");
    }

    #[test]
    fn validation_reports_every_fault_by_its_json_name() {
        let mut p = demo::sea_view();
        p.name = String::new();
        p.pricing.max_guests = 0;
        p.pricing.nightly_rate = -1;
        p.stay_rules.max_nights = 1;
        p.access.door_code_length = 9;
        p.access.arrival_notes = "\u{7}".into();
        p.messages.contact_email = "nobody".into();
        p.feeds.ical_feeds.push(IcalFeed {
            name: "airbnb".parse().unwrap(),
            url: "ftp://x".into(),
            reservation_patterns: vec![],
        });
        let Err(Error::Validation(errors)) = p.validate() else { panic!("accepted a broken property") };
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        let want = [
            "name",
            "maxGuests",
            "nightlyRate",
            "maxNights",
            "doorCodeLength",
            "arrivalNotes",
            "contactEmail",
            "icalFeeds.url",
        ];
        for f in want {
            assert!(fields.contains(&f), "{f} not reported in {fields:?}");
        }
        assert!(demo::sea_view().validate().is_ok());
    }

    #[test]
    fn the_stay_page_is_part_of_access_and_its_json_stays_flat() {
        let mut json = serde_json::to_value(demo::sea_view()).unwrap();
        json["guide"] = "Bins go out on Tuesdays.".into();
        json["address"] = "1 Sea Road".into();
        let p: Property = serde_json::from_value(json).unwrap();
        assert_eq!(
            (p.access.stay_page.guide.as_str(), p.access.stay_page.address.as_str()),
            ("Bins go out on Tuesdays.", "1 Sea Road")
        );
        let out = serde_json::to_value(&p).unwrap();
        assert_eq!((&out["guide"], &out["address"]), (&"Bins go out on Tuesdays.".into(), &"1 Sea Road".into()));
        assert!(out.get("stayPage").is_none() && out["doorCode"] == "4821", "{out}");
        let built = Property::builder("sea-view")
            .name("Sea")
            .timezone(Tz::UTC)
            .pricing(Pricing::new(1))
            .access(AccessSettings::default().wifi("Sea"))
            .stay_page(StayPageSettings::default().address("x".repeat(1_001)))
            .build();
        let Err(Error::Validation(errors)) = built else { panic!("accepted an address over 1000 bytes") };
        assert_eq!(errors[0].field, "address");
    }

    #[test]
    fn the_builder_checks_what_it_builds() {
        let Err(Error::Validation(errors)) =
            Property::builder("sea-view").name("Sea").pricing(Pricing::new(1).max_guests(0)).build()
        else {
            panic!("built without a time zone");
        };
        assert_eq!(errors.iter().map(|e| e.field.as_str()).collect::<Vec<_>>(), ["timezone"]);
        let Err(Error::Validation(errors)) =
            Property::builder("sea-view").name("Sea").timezone(Tz::UTC).pricing(Pricing::new(1).max_guests(0)).build()
        else {
            panic!("built with no guests allowed");
        };
        assert_eq!(errors[0].field, "maxGuests");
    }
}
