//! Sample data: three properties in different time zones, seasons and fees,
//! used by `rental serve --demo`, the examples, the docs and the tests.

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};

use crate::basics::ids::{BookingCode, Slug, Source};
use crate::bookings::booking::{Booking, PaymentStatus, Status};
use crate::bookings::booking_page::BookingPage;
use crate::properties::property::{ClockTime, Property, SeasonalRate};
use crate::stays::access::{DEFAULT_CODE_LENGTH, DoorCodeMode};
use crate::stays::stay::Stay;
use crate::stays::visit::Visit;

fn date(s: &str) -> NaiveDate {
    s.parse().unwrap_or_default()
}

fn time(h: u32, m: u32) -> ClockTime {
    ClockTime(NaiveTime::from_hms_opt(h, m, 0).unwrap_or_default())
}

fn slug(s: &str) -> Slug {
    Slug::parse(s).unwrap_or_else(|e| unreachable!("demo slug: {e}"))
}

/// The property of docs/API.md section 3: Sea View Cottage in Lisbon.
pub fn sea_view() -> Property {
    Property {
        slug: slug("sea-view"),
        name: "Sea View Cottage".into(),
        timezone: chrono_tz::Europe::Lisbon,
        currency: "USD".into(),
        max_guests: 4,
        base_guests: 2,
        extra_guest_fee: 2_000,
        nightly_rate: 15_000,
        weekend_rate: Some(18_000),
        cleaning_fee: 6_000,
        tax_rate: 1_200,
        min_nights: 2,
        max_nights: 28,
        weekly_discount: 1_000,
        monthly_discount: 2_000,
        check_in_time: time(15, 0),
        check_out_time: time(11, 0),
        seasonal_rates: vec![SeasonalRate {
            name: "Summer".into(),
            start_date: date("2026-06-01"),
            end_date: date("2026-08-31"),
            nightly_rate: 22_000,
            weekend_rate: Some(25_000),
            min_nights: Some(3),
            max_nights: None,
        }],
        active: true,
        door_code: "4821".into(),
        wifi_ssid: "SeaView-Guest".into(),
        ical_feeds: vec![],
        door_code_mode: DoorCodeMode::Static,
        door_code_length: DEFAULT_CODE_LENGTH,
        access_before_minutes: 0,
        access_after_minutes: 0,
        booking_page: BookingPage::default(),
        contact_email: String::new(),
        arrival_notes: String::new(),
        check_in_message: crate::outbox::message::Lead::CHECK_IN,
        check_out_message: crate::outbox::message::Lead::CHECK_OUT,
        messages: std::collections::BTreeMap::new(),
    }
}

/// A mountain cabin in Colorado with a ski season and a 3-night minimum.
pub fn alpine_cabin() -> Property {
    Property {
        slug: slug("alpine-cabin"),
        name: "Alpine Cabin".into(),
        timezone: chrono_tz::America::Denver,
        max_guests: 6,
        base_guests: 4,
        extra_guest_fee: 2_500,
        nightly_rate: 21_000,
        weekend_rate: Some(26_000),
        cleaning_fee: 9_500,
        tax_rate: 875,
        min_nights: 3,
        max_nights: 30,
        weekly_discount: 800,
        monthly_discount: 1_500,
        check_in_time: time(16, 0),
        check_out_time: time(10, 0),
        seasonal_rates: vec![SeasonalRate {
            name: "Ski season".into(),
            start_date: date("2026-12-15"),
            end_date: date("2027-03-31"),
            nightly_rate: 32_000,
            weekend_rate: Some(38_000),
            min_nights: Some(4),
            max_nights: None,
        }],
        door_code: "1357".into(),
        wifi_ssid: "AlpineCabin".into(),
        ..sea_view()
    }
}

/// A city loft in Auckland: no weekend rate, a holiday season, one-night stays.
pub fn harbour_loft() -> Property {
    Property {
        slug: slug("harbour-loft"),
        name: "Harbour Loft".into(),
        timezone: chrono_tz::Pacific::Auckland,
        max_guests: 2,
        base_guests: 2,
        extra_guest_fee: 0,
        nightly_rate: 12_000,
        weekend_rate: None,
        cleaning_fee: 4_500,
        tax_rate: 1_500,
        min_nights: 1,
        max_nights: 14,
        weekly_discount: 500,
        monthly_discount: 0,
        check_in_time: time(14, 0),
        check_out_time: time(10, 30),
        seasonal_rates: vec![SeasonalRate {
            name: "Summer holidays".into(),
            start_date: date("2026-12-20"),
            end_date: date("2027-01-31"),
            nightly_rate: 16_000,
            weekend_rate: None,
            min_nights: Some(2),
            max_nights: None,
        }],
        door_code: "2468".into(),
        wifi_ssid: "Loft-5G".into(),
        ..sea_view()
    }
}

/// All three sample properties.
pub fn properties() -> Vec<Property> {
    vec![sea_view(), alpine_cabin(), harbour_loft()]
}

/// `properties` with their booking pages on, as `rental serve --demo` loads them.
pub fn with_booking_pages(mut properties: Vec<Property>) -> Vec<Property> {
    for p in &mut properties {
        p.booking_page.enabled = true;
    }
    properties
}

/// A pending, unpaid booking of `sea_view` for 3 guests, made at 2026-11-22T07:39:21.123Z.
pub fn booking(code: &str, check_in: &str, check_out: &str) -> Booking {
    let stay = Stay::new(date(check_in), date(check_out)).unwrap_or_else(|e| unreachable!("demo stay: {e}"));
    let at: DateTime<Utc> = "2026-11-22T07:39:21.123Z".parse().unwrap_or_default();
    Booking {
        code: BookingCode::from(code),
        property: slug("sea-view"),
        property_name: "Sea View Cottage".into(),
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 3,
        stay,
        nights: stay.nights(),
        status: Status::Pending,
        payment_status: PaymentStatus::Unpaid,
        total: 134_288,
        currency: "USD".into(),
        source: Source::api(),
        notes: vec![],
        created_at: at,
        updated_at: at,
        cancelled_by: None,
        cancel_reason: None,
        visit: Visit::default(),
        external: None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_sample_property_is_valid() {
        for p in super::properties() {
            p.validate().unwrap_or_else(|e| panic!("{}: {e}", p.slug));
        }
    }
}
