//! Sample data: three properties in different time zones, seasons and fees,
//! used by `rental serve --demo`, the examples, the docs and the tests, and
//! the made-up booking a message's preview renders when no stay is coming.

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};

use crate::basics::ids::{BookingCode, Slug, Source};
use crate::basics::stay::Stay;
use crate::bookings::booking::{Booking, PaymentStatus, Status};
use crate::bookings::visit::Visit;
use crate::properties::property::{
    AccessSettings, ClockTime, Pricing, Property, PropertyBuilder, SeasonalRate, StayRules,
};

fn date(s: &str) -> NaiveDate {
    s.parse().unwrap_or_default()
}

fn time(h: u32, m: u32) -> ClockTime {
    ClockTime(NaiveTime::from_hms_opt(h, m, 0).unwrap_or_default())
}

fn slug(s: &str) -> Slug {
    Slug::parse(s).unwrap_or_else(|e| unreachable!("demo slug: {e}"))
}

fn built(builder: PropertyBuilder) -> Property {
    builder.build().unwrap_or_else(|e| unreachable!("demo property: {e}"))
}

/// The property of docs/API.md section 3: Sea View Cottage in Lisbon.
pub fn sea_view() -> Property {
    built(
        Property::builder("sea-view")
            .name("Sea View Cottage")
            .timezone(chrono_tz::Europe::Lisbon)
            .pricing(
                Pricing::new(15_000)
                    .max_guests(4)
                    .base_guests(2)
                    .extra_guest_fee(2_000)
                    .weekend_rate(18_000)
                    .cleaning_fee(6_000)
                    .tax_rate(1_200)
                    .discounts(1_000, 2_000)
                    .season(
                        SeasonalRate::new("Summer", date("2026-06-01"), date("2026-08-31"), 22_000)
                            .weekend_rate(25_000)
                            .min_nights(3),
                    ),
            )
            .stay_rules(StayRules::default().nights(2, 28).check_in(time(15, 0)).check_out(time(11, 0)))
            .access(AccessSettings::default().door_code("4821").wifi("SeaView-Guest")),
    )
}

/// A mountain cabin in Colorado with a ski season and a 3-night minimum.
pub fn alpine_cabin() -> Property {
    built(
        Property::builder("alpine-cabin")
            .name("Alpine Cabin")
            .timezone(chrono_tz::America::Denver)
            .pricing(
                Pricing::new(21_000)
                    .max_guests(6)
                    .base_guests(4)
                    .extra_guest_fee(2_500)
                    .weekend_rate(26_000)
                    .cleaning_fee(9_500)
                    .tax_rate(875)
                    .discounts(800, 1_500)
                    .season(
                        SeasonalRate::new("Ski season", date("2026-12-15"), date("2027-03-31"), 32_000)
                            .weekend_rate(38_000)
                            .min_nights(4),
                    ),
            )
            .stay_rules(StayRules::default().nights(3, 30).check_in(time(16, 0)).check_out(time(10, 0)))
            .access(AccessSettings::default().door_code("1357").wifi("AlpineCabin")),
    )
}

/// A city loft in Auckland: no weekend rate, a holiday season, one-night stays.
pub fn harbour_loft() -> Property {
    built(
        Property::builder("harbour-loft")
            .name("Harbour Loft")
            .timezone(chrono_tz::Pacific::Auckland)
            .pricing(
                Pricing::new(12_000)
                    .max_guests(2)
                    .base_guests(2)
                    .cleaning_fee(4_500)
                    .tax_rate(1_500)
                    .discounts(500, 0)
                    .season(
                        SeasonalRate::new("Summer holidays", date("2026-12-20"), date("2027-01-31"), 16_000)
                            .min_nights(2),
                    ),
            )
            .stay_rules(StayRules::default().nights(1, 14).check_in(time(14, 0)).check_out(time(10, 30)))
            .access(AccessSettings::default().door_code("2468").wifi("Loft-5G")),
    )
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
        locale: crate::basics::locale::Locale::En,
        notes: vec![],
        created_at: at,
        updated_at: at,
        cancelled_by: None,
        cancel_reason: None,
        visit: Visit::default(),
        extras: crate::bookings::booking::Extras::default(),
        stay_link_rotations: 0,
        money: crate::payments::PaymentSummary::default(),
        external: None,
        guest_email_verified_at: None,
    }
}

/// A made-up confirmed booking of two nights from `check_in` at `property`,
/// for the previews of a property's messages when it has no stay coming.
pub fn sample_booking(property: &Property, check_in: NaiveDate) -> Booking {
    let check_out = check_in.succ_opt().and_then(|d| d.succ_opt()).unwrap_or(check_in);
    let mut b = booking("BK-SAMPLE", &check_in.to_string(), &check_out.to_string());
    (b.property, b.property_name, b.status) = (property.slug.clone(), property.name.clone(), Status::Confirmed);
    b
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
