//! The schemas of the response bodies written by hand (the request bodies are
//! generated from the Rust types in `generated`), and their building blocks.

use serde_json::{Map, Value, json};

use super::schema;

fn object(description: &str, required: &[&str], properties: Value) -> Value {
    let mut schema = json!({"type": "object", "description": description, "required": required});
    schema["properties"] = properties;
    schema
}

fn into_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn date(description: &str) -> Value {
    json!({"type": "string", "format": "date", "description": description, "examples": ["2026-12-20"]})
}

fn cents(description: &str) -> Value {
    json!({"type": "integer", "format": "int64", "description": format!("{description} In US cents.")})
}

fn basis_points(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 10_000,
        "description": format!("{description} In basis points (1200 = 12 %).")})
}

fn nights(description: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 366, "description": description})
}

fn guests(description: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 100, "description": description})
}

pub(super) fn slug(description: &str) -> Value {
    json!({"type": "string", "pattern": SLUG_PATTERN, "description": description, "examples": ["sea-view"]})
}

fn usd() -> Value {
    json!({"type": "string", "enum": ["USD"], "description": "The currency of every amount."})
}

pub(super) const SLUG_PATTERN: &str = "^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$";
pub(super) const SOURCE_PATTERN: &str = "^[a-z0-9_-]{1,32}$";
const CLOCK_24H: &str = "^([01][0-9]|2[0-3]):[0-5][0-9]$";

pub(super) fn property_schemas() -> Map<String, Value> {
    into_map(json!({
        "Property": property_schema(),
        "SeasonalRate": object("A season: the nights `startDate` to `endDate`, both included, with their own \
            rates. Where seasons overlap, the one that starts later wins.",
            &["name", "startDate", "endDate", "nightlyRate"], json!({
                "name": string("Display name."),
                "startDate": date("First night of the season."),
                "endDate": date("Last night of the season (included)."),
                "nightlyRate": cents("Weeknight rate in the season."),
                "weekendRate": cents("Friday and Saturday rate in the season. Omitted when the season has \
                    none: its `nightlyRate` applies."),
                "minNights": nights("Shortest stay starting in the season. Omitted: the property's."),
                "maxNights": nights("Longest stay starting in the season. Omitted: the property's."),
            })),
        "PropertyList": object("The active properties.", &["data"], json!({
            "data": {"type": "array", "items": schema("Property"), "description": "Ordered by slug."},
        })),
    }))
}

fn property_schema() -> Value {
    object(
        "A bookable property. Private details (door code, Wi-Fi name, feed URLs) are never included.",
        &[
            "slug",
            "name",
            "timezone",
            "currency",
            "maxGuests",
            "baseGuests",
            "extraGuestFee",
            "nightlyRate",
            "cleaningFee",
            "taxRate",
            "minNights",
            "maxNights",
            "weeklyDiscount",
            "monthlyDiscount",
            "checkInTime",
            "checkOutTime",
            "seasonalRates",
        ],
        json!({
            "slug": slug("URL-safe identifier: 1 to 64 of a-z, 0-9 and `-`."),
            "name": string("Display name."),
            "timezone": {"type": "string", "description": "IANA time zone the property's days are counted in.",
                "examples": ["Europe/Lisbon"]},
            "currency": usd(),
            "maxGuests": guests("Most guests allowed."),
            "baseGuests": guests("Guests included in the nightly rate."),
            "extraGuestFee": cents("Per guest above `baseGuests`, per night."),
            "nightlyRate": cents("Weeknight rate outside seasons."),
            "weekendRate": cents("Friday and Saturday rate outside seasons. Omitted when the property has \
                none: `nightlyRate` applies."),
            "cleaningFee": cents("Once per stay."),
            "taxRate": basis_points("Tax on accommodation less discount, plus fees."),
            "minNights": nights("Shortest stay, outside seasons that set their own."),
            "maxNights": nights("Longest stay, outside seasons that set their own."),
            "weeklyDiscount": basis_points("Off accommodation for stays of 7 to 27 nights."),
            "monthlyDiscount": basis_points("Off accommodation for stays of 28 nights or more."),
            "checkInTime": {"type": "string", "pattern": CLOCK_24H, "description": "Local arrival time, 24-hour.",
                "examples": ["15:00"]},
            "checkOutTime": {"type": "string", "pattern": CLOCK_24H,
                "description": "Local departure time, 24-hour.", "examples": ["11:00"]},
            "seasonalRates": {"type": "array", "items": schema("SeasonalRate")},
        }),
    )
}

pub(super) fn booking_schemas() -> Map<String, Value> {
    into_map(json!({
        "BookingList": object("One page of bookings.", &["data", "nextCursor"], json!({
            "data": {"type": "array", "items": schema("Booking"), "description": "Ordered by `checkIn`, then `code`."},
            "nextCursor": {"type": ["string", "null"], "description": "Pass as `cursor` for the next page; \
                null on the last page. Opaque."},
        })),
    }))
}

pub(super) fn problem_schemas() -> Map<String, Value> {
    into_map(json!({
        "Problem": object("An RFC 9457 problem; sent as `application/problem+json`. Never contains internals.",
            &["type", "title", "status", "code", "detail"], json!({
                "type": {"type": "string", "format": "uri-reference", "description": "Always `about:blank`: \
                    `code` identifies the problem.", "examples": ["about:blank"]},
                "title": {"type": "string", "description": "The HTTP status's reason phrase.",
                    "examples": ["Conflict"]},
                "status": {"type": "integer", "minimum": 400, "maximum": 599, "description": "The HTTP status."},
                "code": {"type": "string", "description": "Stable, machine-readable: `invalid_json`, \
                    `invalid_parameter`, `unauthorized`, `insufficient_scope`, `not_found`, \
                    `method_not_allowed`, `dates_unavailable`, `invalid_transition`, `payload_too_large`, \
                    `unsupported_media_type`, `validation_failed`, `idempotency_key_reused`, `rate_limited`, \
                    `internal`, `unavailable`.", "examples": ["dates_unavailable"]},
                "detail": string("A sentence for people; do not parse it."),
                "errors": {"type": "array", "items": schema("FieldError"), "minItems": 1,
                    "description": "The fields at fault; only present where fields are at fault."},
            })),
        "FieldError": object("One field at fault.", &["field", "code", "message"], json!({
            "field": {"type": "string", "description": "The field's JSON name (`checkIn`), query parameter \
                (`limit`) or header (`Idempotency-Key`).", "examples": ["checkOut"]},
            "code": {"type": "string", "description": "Stable: `invalid`, `invalid_date`, `invalid_range`, \
                `invalid_email`, `invalid_parameter`, `min_nights`, `max_nights`, `max_guests`, `past_dates`, ...",
                "examples": ["invalid_range"]},
            "message": string("A sentence for people."),
        })),
    }))
}
