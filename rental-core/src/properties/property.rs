//! A rental property: its rates, seasons, fees, stay rules and private
//! arrival details, and the per-night rate lookup that pricing builds on.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate, NaiveTime, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize, Serializer};

pub use crate::basics::clock_time::ClockTime;
use crate::basics::ids::{Slug, Source};
use crate::bookings::booking_page::BookingPage;
use crate::error::{Error, FieldError};
use crate::outbox::message::template::MessageTemplate;
use crate::outbox::message::{Lead, MessageKind};
use crate::stays::access::{CODE_LENGTHS, DEFAULT_CODE_LENGTH, DoorCodeMode, MAX_ACCESS_MINUTES};
use crate::stays::stay::MAX_NIGHTS;

/// Money in US cents.
pub type Cents = i64;

/// An amount as people read it: dollars with thousands separators and two
/// decimals, the sign in front. Messages, the admin and booking pages and the
/// CLI all write money this way.
///
/// ```
/// use rental_core::format_money;
///
/// assert_eq!(format_money(134_288), "$1,342.88");
/// assert_eq!(format_money(5), "$0.05");
/// assert_eq!(format_money(-2_500), "-$25.00");
/// ```
pub fn format_money(cents: Cents) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    let dollars = (cents / 100).to_string();
    let mut grouped = String::with_capacity(dollars.len() + dollars.len() / 3);
    for (i, c) in dollars.chars().enumerate() {
        if i > 0 && (dollars.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}${grouped}.{:02}", cents % 100)
}

/// The largest nightly rate or fee accepted: $1,000,000.00. It keeps every
/// total of a [`MAX_NIGHTS`] stay far from overflowing.
pub const MAX_AMOUNT: Cents = 100_000_000;

/// The most guests a property may allow.
pub const MAX_GUESTS: u32 = 100;

/// A bookable property, as imported (docs/API.md section 3).
///
/// [`Property::new`] fills every field but the four it takes with the
/// defaults a JSON import uses; struct update syntax sets the rest:
///
/// ```
/// use rental_core::{Property, SeasonalRate, Tz};
///
/// let cabin = Property {
///     max_guests: 6,
///     weekend_rate: Some(21_000),
///     cleaning_fee: 8_000,
///     tax_rate: 1_200,
///     seasonal_rates: vec![SeasonalRate {
///         name: "Ski".into(),
///         start_date: "2026-12-15".parse().unwrap(),
///         end_date: "2027-03-31".parse().unwrap(),
///         nightly_rate: 30_000,
///         weekend_rate: None,
///         min_nights: Some(3),
///         max_nights: None,
///     }],
///     ..Property::new("alpine-cabin".parse()?, "Alpine Cabin", Tz::Europe__Zurich, 18_000)
/// };
/// assert!(cabin.validate().is_ok());
/// assert_eq!(cabin.check_in_time.to_string(), "15:00");
/// # Ok::<(), rental_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Property {
    /// URL-safe identifier.
    pub slug: Slug,
    /// Display name.
    pub name: String,
    /// The IANA time zone the property's days are counted in.
    pub timezone: Tz,
    /// Currency code of every amount; `USD`.
    #[serde(default = "usd")]
    pub currency: String,
    /// Most guests allowed.
    pub max_guests: u32,
    /// Guests included in the nightly rate.
    #[serde(default = "one")]
    pub base_guests: u32,
    /// Per guest above `base_guests`, per night.
    #[serde(default)]
    pub extra_guest_fee: Cents,
    /// Rate of a weeknight outside any season.
    pub nightly_rate: Cents,
    /// Rate of a Friday or Saturday night outside any season; absent means the nightly rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekend_rate: Option<Cents>,
    /// Once per stay.
    #[serde(default)]
    pub cleaning_fee: Cents,
    /// Basis points (1200 = 12 %).
    #[serde(default)]
    pub tax_rate: u32,
    /// Shortest stay outside seasons that set their own.
    #[serde(default = "one")]
    pub min_nights: u32,
    /// Longest stay.
    #[serde(default = "max_nights")]
    pub max_nights: u32,
    /// Basis points off accommodation for stays of 7 to 27 nights.
    #[serde(default)]
    pub weekly_discount: u32,
    /// Basis points off accommodation for stays of 28 nights or more.
    #[serde(default)]
    pub monthly_discount: u32,
    /// Local time of arrival.
    #[serde(default = "three_pm")]
    pub check_in_time: ClockTime,
    /// Local time of departure.
    #[serde(default = "eleven_am")]
    pub check_out_time: ClockTime,
    /// Seasons with their own rates.
    #[serde(default)]
    pub seasonal_rates: Vec<SeasonalRate>,
    /// Listed and bookable.
    #[serde(default = "yes")]
    pub active: bool,
    /// Private: the door code given to arriving guests.
    #[serde(default)]
    pub door_code: String,
    /// Private: the Wi-Fi network name.
    #[serde(default)]
    pub wifi_ssid: String,
    /// Private: channel calendars to import.
    #[serde(default)]
    pub ical_feeds: Vec<IcalFeed>,
    /// Private: `static` (the `doorCode` for every stay) or `per_stay` (a code of its own per stay).
    #[serde(default)]
    pub door_code_mode: DoorCodeMode,
    /// Private: digits of a per-stay code, 4 to 8.
    #[serde(default = "code_length")]
    pub door_code_length: u8,
    /// Private: minutes a stay's code opens the door before its check-in time.
    #[serde(default)]
    pub access_before_minutes: u32,
    /// Private: minutes a stay's code opens the door after its check-out time.
    #[serde(default)]
    pub access_after_minutes: u32,
    /// The page guests book on directly, and the sites that may frame it.
    #[serde(default)]
    pub booking_page: BookingPage,
    /// The `Reply-To` of guest messages; empty: `mailFrom` (docs/API.md section 21).
    #[serde(default)]
    pub contact_email: String,
    /// Private: what arriving guests should know, sent with the check-in instructions. Lines break with `\n`.
    #[serde(default)]
    pub arrival_notes: String,
    /// How long before the access window opens the check-in instructions go out (`48h`).
    #[serde(default = "check_in_lead")]
    pub check_in_message: Lead,
    /// How long before the check-out time the reminder goes out (`16h`).
    #[serde(default = "check_out_lead")]
    pub check_out_message: Lead,
    /// The property's own wording of guest messages, by kind; a kind left out keeps the built-in one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub messages: BTreeMap<MessageKind, MessageTemplate>,
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

/// A channel calendar to import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IcalFeed {
    /// The channel's name; imported bookings get it as their source.
    pub name: Source,
    /// Where the feed is fetched from.
    pub url: String,
    /// Summaries that mean a reservation in this feed, besides the channels' own wording
    /// (`Reserved`, `Booked`...): case-insensitive, `*` matches anything, e.g. `"* (Booking.com)"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reservation_patterns: Vec<String>,
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

impl Property {
    /// A property with these four fields and every other at the default a
    /// JSON import gives a field it omits: `max_guests` 2 (which an import
    /// requires), `base_guests` 1, in `USD`; no weekend rate, fees, tax,
    /// discounts or seasons; stays of 1 to 366 nights; check-in at 15:00 and
    /// check-out at 11:00; `active`; no door code, Wi-Fi name or channel
    /// calendars; a static door code (6 digits when per stay) that opens
    /// from check-in to check-out; the booking page off; guest messages in
    /// their built-in wording, instructions 48 h and the reminder 16 h ahead,
    /// replies to `mailFrom`. Check what you
    /// build with [`Property::validate`] (an import does).
    pub fn new(slug: Slug, name: impl Into<String>, timezone: Tz, nightly_rate: Cents) -> Self {
        Property {
            slug,
            name: name.into(),
            timezone,
            currency: usd(),
            max_guests: 2,
            base_guests: one(),
            extra_guest_fee: 0,
            nightly_rate,
            weekend_rate: None,
            cleaning_fee: 0,
            tax_rate: 0,
            min_nights: one(),
            max_nights: max_nights(),
            weekly_discount: 0,
            monthly_discount: 0,
            check_in_time: three_pm(),
            check_out_time: eleven_am(),
            seasonal_rates: Vec::new(),
            active: yes(),
            door_code: String::new(),
            wifi_ssid: String::new(),
            ical_feeds: Vec::new(),
            door_code_mode: DoorCodeMode::default(),
            door_code_length: code_length(),
            access_before_minutes: 0,
            access_after_minutes: 0,
            booking_page: BookingPage::default(),
            contact_email: String::new(),
            arrival_notes: String::new(),
            check_in_message: check_in_lead(),
            check_out_message: check_out_lead(),
            messages: BTreeMap::new(),
        }
    }

    /// The rate and stay rules of `night`: the season that covers it (the one
    /// starting latest, where seasons overlap), else the property's own.
    pub fn rate_on(&self, night: NaiveDate) -> NightRate {
        let weekend = matches!(night.weekday(), Weekday::Fri | Weekday::Sat);
        let season = self
            .seasonal_rates
            .iter()
            .filter(|s| s.start_date <= night && night <= s.end_date)
            .max_by_key(|s| s.start_date);
        match season {
            Some(s) => NightRate {
                price: if weekend { s.weekend_rate.unwrap_or(s.nightly_rate) } else { s.nightly_rate },
                min_nights: s.min_nights.unwrap_or(self.min_nights),
                max_nights: s.max_nights.unwrap_or(self.max_nights),
            },
            None => NightRate {
                price: if weekend { self.weekend_rate.unwrap_or(self.nightly_rate) } else { self.nightly_rate },
                min_nights: self.min_nights,
                max_nights: self.max_nights,
            },
        }
    }

    /// The public view: everything but the door code, Wi-Fi name, feeds and the active flag.
    pub fn public(&self) -> PublicProperty<'_> {
        PublicProperty(self)
    }

    /// Checks every rule of a property; all faults are reported together.
    pub fn validate(&self) -> Result<(), Error> {
        let mut errors = Vec::new();
        let mut check = |ok: bool, field: &str, message: &str| {
            if !ok {
                errors.push(FieldError::new(field, "invalid", message));
            }
        };
        check(!self.name.trim().is_empty() && self.name.len() <= 200, "name", "must be 1 to 200 characters");
        check(self.currency == "USD", "currency", "must be USD");
        check((1..=MAX_GUESTS).contains(&self.max_guests), "maxGuests", "must be 1 to 100");
        check((1..=self.max_guests).contains(&self.base_guests), "baseGuests", "must be 1 to maxGuests");
        for (field, amount) in self.amounts() {
            check((0..=MAX_AMOUNT).contains(&amount), field, "must be 0 to 100000000 cents");
        }
        check(self.tax_rate <= 10_000, "taxRate", "must be 0 to 10000 basis points");
        check(self.weekly_discount <= 10_000, "weeklyDiscount", "must be 0 to 10000 basis points");
        check(self.monthly_discount <= 10_000, "monthlyDiscount", "must be 0 to 10000 basis points");
        check((1..=MAX_NIGHTS).contains(&self.min_nights), "minNights", "must be 1 to 366");
        check((self.min_nights..=MAX_NIGHTS).contains(&self.max_nights), "maxNights", "must be minNights to 366");
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
        check(CODE_LENGTHS.contains(&self.door_code_length), "doorCodeLength", "must be 4 to 8");
        check(self.access_before_minutes <= MAX_ACCESS_MINUTES, "accessBeforeMinutes", "must be 0 to 10080");
        check(self.access_after_minutes <= MAX_ACCESS_MINUTES, "accessAfterMinutes", "must be 0 to 10080");
        let mut names: Vec<&str> = self.ical_feeds.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        check(names.windows(2).all(|w| w[0] != w[1]), "icalFeeds.name", "feed names must be unique");
        let urls_ok = self.ical_feeds.iter().all(|f| f.url.starts_with("http://") || f.url.starts_with("https://"));
        check(urls_ok, "icalFeeds.url", "must be an http or https URL");
        let years_ok = self.seasonal_rates.iter().all(|s| [s.start_date, s.end_date].iter().all(|d| d.year() >= 1));
        check(years_ok, "seasonalRates.startDate", "must be in the years 0001 to 9999");
        check(
            self.contact_email.is_empty() || crate::basics::text::looks_like_email(&self.contact_email),
            "contactEmail",
            "must be an e-mail address",
        );
        check(self.arrival_notes.len() <= 4_000, "arrivalNotes", "must be at most 4000 bytes");
        errors.extend(self.texts().filter_map(|(field, text)| crate::basics::text::field_error(field, text)));
        if self.arrival_notes.chars().any(|c| c != '\n' && crate::basics::text::is_refused(c)) {
            errors.push(FieldError::new(
                "arrivalNotes",
                crate::basics::text::CONTROL_CHARACTER,
                "must not contain control characters other than tab and line feed",
            ));
        }
        errors.extend(crate::outbox::message::template::check(&self.messages));
        if let Some((field, message)) = self.booking_page.fault() {
            errors.push(FieldError::new(field, "invalid", message));
        }
        if errors.is_empty() { Ok(()) } else { Err(Error::Validation(errors)) }
    }

    /// Every free-text field, named as in JSON: each follows [`crate::text`]'s rule.
    fn texts(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let own = [
            ("name", self.name.as_str()),
            ("doorCode", &self.door_code),
            ("wifiSsid", &self.wifi_ssid),
            ("contactEmail", &self.contact_email),
        ];
        let seasons = self.seasonal_rates.iter().map(|s| ("seasonalRates.name", s.name.as_str()));
        let urls = self.ical_feeds.iter().map(|f| ("icalFeeds.url", f.url.as_str()));
        let patterns = self.ical_feeds.iter().flat_map(|f| &f.reservation_patterns);
        own.into_iter()
            .chain(seasons)
            .chain(urls)
            .chain(patterns.map(|p| ("icalFeeds.reservationPatterns", p.as_str())))
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

/// A property as the API shows it (docs/API.md section 3): no private fields.
#[derive(Debug, Clone, Copy)]
pub struct PublicProperty<'a>(&'a Property);

impl Serialize for PublicProperty<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        PropertyView {
            slug: &p.slug,
            name: &p.name,
            timezone: &p.timezone,
            currency: &p.currency,
            max_guests: p.max_guests,
            base_guests: p.base_guests,
            extra_guest_fee: p.extra_guest_fee,
            nightly_rate: p.nightly_rate,
            weekend_rate: p.weekend_rate,
            cleaning_fee: p.cleaning_fee,
            tax_rate: p.tax_rate,
            min_nights: p.min_nights,
            max_nights: p.max_nights,
            weekly_discount: p.weekly_discount,
            monthly_discount: p.monthly_discount,
            check_in_time: p.check_in_time,
            check_out_time: p.check_out_time,
            seasonal_rates: &p.seasonal_rates,
            booking_page: &p.booking_page,
        }
        .serialize(serializer)
    }
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
    /// `USD`, the currency of every amount.
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
}

fn check_in_lead() -> Lead {
    Lead::CHECK_IN
}
fn check_out_lead() -> Lead {
    Lead::CHECK_OUT
}
fn code_length() -> u8 {
    DEFAULT_CODE_LENGTH
}
fn usd() -> String {
    "USD".to_owned()
}
fn one() -> u32 {
    1
}
fn max_nights() -> u32 {
    MAX_NIGHTS
}
fn yes() -> bool {
    true
}
fn three_pm() -> ClockTime {
    ClockTime(NaiveTime::from_hms_opt(15, 0, 0).unwrap_or_default())
}
fn eleven_am() -> ClockTime {
    ClockTime(NaiveTime::from_hms_opt(11, 0, 0).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn money_is_dollars_with_thousands_separators() {
        let cases = [
            (0, "$0.00"),
            (5, "$0.05"),
            (134_288, "$1,342.88"),
            (99_999, "$999.99"),
            (100_000, "$1,000.00"),
            (100_000_000, "$1,000,000.00"),
            (12_345_678_900, "$123,456,789.00"),
            (-2500, "-$25.00"),
            (i64::MIN, "-$92,233,720,368,547,758.08"),
        ];
        for (cents, want) in cases {
            assert_eq!(format_money(cents), want);
        }
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
        p.seasonal_rates.push(SeasonalRate {
            name: "August peak".into(),
            start_date: d("2026-08-01"),
            end_date: d("2026-08-15"),
            nightly_rate: 30_000,
            weekend_rate: None,
            min_nights: None,
            max_nights: None,
        });
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
        assert!(made.validate().is_ok());
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
    fn validation_reports_every_fault() {
        let mut p = demo::sea_view();
        p.name = String::new();
        p.max_guests = 0;
        p.nightly_rate = -1;
        p.max_nights = 1;
        let Err(Error::Validation(errors)) = p.validate() else { panic!("accepted a broken property") };
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        for f in ["name", "maxGuests", "nightlyRate", "maxNights"] {
            assert!(fields.contains(&f), "{f} not reported in {fields:?}");
        }
        assert!(demo::sea_view().validate().is_ok());
    }
}
