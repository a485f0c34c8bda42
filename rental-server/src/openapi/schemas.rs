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

fn timestamp(description: &str) -> Value {
    json!({
        "type": "string",
        "format": "date-time",
        "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$",
        "description": format!("{description} RFC 3339 in UTC with milliseconds."),
        "examples": ["2026-11-22T07:39:21.123Z"],
    })
}

fn cents(description: &str) -> Value {
    json!({"type": "integer", "format": "int64", "description": format!("{description} In US cents.")})
}

fn basis_points(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 10_000,
        "description": format!("{description} In basis points (1200 = 12 %).")})
}

fn count(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "description": description})
}

fn nights(description: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 366, "description": description})
}

fn guests(description: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 100, "description": description})
}

fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

pub(super) fn slug(description: &str) -> Value {
    json!({"type": "string", "pattern": SLUG_PATTERN, "description": description, "examples": ["sea-view"]})
}

fn booking_code(description: &str) -> Value {
    json!({"type": "string", "pattern": CODE_PATTERN, "description": description, "examples": ["BK-7QX2MF"]})
}

fn source(description: &str) -> Value {
    json!({"type": "string", "pattern": SOURCE_PATTERN, "description": description, "examples": ["api", "airbnb"]})
}

fn usd() -> Value {
    json!({"type": "string", "enum": ["USD"], "description": "The currency of every amount."})
}

fn nullable(schema: Value) -> Value {
    let mut either = Map::new();
    either.insert("oneOf".to_owned(), Value::Array(vec![schema, json!({"type": "null"})]));
    Value::Object(either)
}

pub(super) const SLUG_PATTERN: &str = "^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$";
const CODE_PATTERN: &str = "^[A-Z0-9]{1,8}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$";
pub(super) const SOURCE_PATTERN: &str = "^[a-z0-9_-]{1,32}$";
const CLOCK_24H: &str = "^([01][0-9]|2[0-3]):[0-5][0-9]$";
const CLOCK_12H: &str = "^(1[0-2]|[1-9]):[0-5][0-9] (AM|PM)$";

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
        "Availability": object("Availability of a property over a range of nights.",
            &["property", "from", "to", "currency", "nights"], json!({
                "property": slug("The property's slug."),
                "from": date("First night of the range."),
                "to": date("Day after the last night (exclusive)."),
                "currency": usd(),
                "nights": {"type": "array", "items": schema("Night"), "description": "One per night, in order."},
            })),
        "Night": object("One night.", &["date", "available", "price", "minNights", "status"], json!({
            "date": date("The night (the date it starts on)."),
            "available": boolean("True iff `status` is `available`."),
            "price": cents("The night's rate before discounts, fees and taxes."),
            "minNights": nights("Shortest stay starting on this night."),
            "status": {"type": "string", "enum": ["available", "booked", "held", "blocked", "past"],
                "description": "`booked`: a confirmed stay. `held`: a pending request. `blocked`: an imported \
                    or manual block. `past`: before the property's local today. Where several apply, the \
                    first of `past`, `booked`, `held`, `blocked` wins."},
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

pub(super) fn quote_schemas() -> Map<String, Value> {
    into_map(json!({
        "Quote": quote_schema(),
        "NightPrice": object("One night's price.", &["date", "price"], json!({
            "date": date("The night."),
            "price": cents("Its rate before discounts, fees and taxes."),
        })),
        "QuoteProblem": {
            "description": "Why a well-formed stay cannot be booked as asked.",
            "oneOf": [schema("DatesUnavailableProblem"), schema("StayLimitProblem"), schema("PastDatesProblem")],
            "discriminator": {"propertyName": "code", "mapping": {
                "dates_unavailable": "#/components/schemas/DatesUnavailableProblem",
                "min_nights": "#/components/schemas/StayLimitProblem",
                "max_nights": "#/components/schemas/StayLimitProblem",
                "max_guests": "#/components/schemas/StayLimitProblem",
                "past_dates": "#/components/schemas/PastDatesProblem",
            }},
        },
        "DatesUnavailableProblem": object("Some nights are held, booked or blocked.", &["code", "dates"], json!({
            "code": {"type": "string", "enum": ["dates_unavailable"]},
            "dates": {"type": "array", "items": date("A taken night."), "description": "The taken nights, in order."},
        })),
        "StayLimitProblem": object("The stay is shorter or longer than allowed, or has too many guests.",
            &["code", "limit"], json!({
                "code": {"type": "string", "enum": ["min_nights", "max_nights", "max_guests"]},
                "limit": {"type": "integer", "minimum": 1, "description": "The minimum nights, maximum nights or \
                    maximum guests: those of the stay's first night (its season's where it has one)."},
            })),
        "PastDatesProblem": object("The stay starts before the property's local today.", &["code", "today"], json!({
            "code": {"type": "string", "enum": ["past_dates"]},
            "today": date("The property's local today."),
        })),
    }))
}

fn quote_schema() -> Value {
    object(
        "The price of a stay and whether it can be booked. Every division rounds half away from zero, \
         once, at the end of each line.",
        &[
            "property",
            "checkIn",
            "checkOut",
            "guests",
            "nights",
            "available",
            "currency",
            "nightly",
            "accommodation",
            "discount",
            "extraGuestFee",
            "cleaningFee",
            "taxes",
            "total",
            "problems",
        ],
        json!({
            "property": slug("The property's slug."),
            "checkIn": date("Arrival."),
            "checkOut": date("Departure."),
            "guests": guests("Number of guests priced."),
            "nights": nights("Number of nights."),
            "available": boolean("True iff `problems` is empty: the stay can be booked as asked."),
            "currency": usd(),
            "nightly": {"type": "array", "items": schema("NightPrice"), "description": "Each night, in order."},
            "accommodation": cents("Sum of `nightly`."),
            "discount": cents("Weekly (7 to 27 nights) or monthly (28 nights or more) discount on `accommodation`."),
            "extraGuestFee": cents("Per guest above the property's `baseGuests`, per night."),
            "cleaningFee": cents("Once per stay."),
            "taxes": cents("`taxRate` of accommodation - discount + extraGuestFee + cleaningFee."),
            "total": cents("accommodation - discount + extraGuestFee + cleaningFee + taxes."),
            "problems": {"type": "array", "items": schema("QuoteProblem"),
                "description": "Why the stay cannot be booked as asked, in the order dates_unavailable, \
                    min_nights, max_nights, max_guests, past_dates; empty when it can."},
        }),
    )
}

pub(super) fn booking_schemas() -> Map<String, Value> {
    into_map(json!({
        "Booking": booking_schema(),
        "Note": object("A note on a booking.", &["text", "at"], json!({
            "text": string("What was noted."),
            "at": timestamp("When."),
        })),
        "ExternalRef": object("The channel feed event an imported booking comes from.", &["feed", "uid"], json!({
            "feed": source("The feed's name."),
            "uid": string("The event's `UID` in that feed."),
        })),
        "BookingList": object("One page of bookings.", &["data", "nextCursor"], json!({
            "data": {"type": "array", "items": schema("Booking"), "description": "Ordered by `checkIn`, then `code`."},
            "nextCursor": {"type": ["string", "null"], "description": "Pass as `cursor` for the next page; \
                null on the last page. Opaque."},
        })),
    }))
}

fn booking_schema() -> Value {
    object(
        "A booking.",
        &[
            "code",
            "property",
            "propertyName",
            "guestName",
            "guestEmail",
            "guests",
            "checkIn",
            "checkOut",
            "nights",
            "status",
            "paymentStatus",
            "total",
            "currency",
            "source",
            "notes",
            "createdAt",
            "updatedAt",
            "cancelledBy",
            "cancelReason",
        ],
        json!({
            "code": booking_code("The booking's code: a prefix, `-`, and 6 characters."),
            "property": slug("The property's slug."),
            "propertyName": string("The property's display name when the booking was made."),
            "guestName": string("The guest's name (`Reserved` for channel imports that give none)."),
            "guestEmail": string("The guest's e-mail address; empty for channel imports."),
            "guests": guests("Number of guests."),
            "checkIn": date("Arrival: the first night."),
            "checkOut": date("Departure: the day after the last night."),
            "nights": nights("Number of nights."),
            "status": {"type": "string", "enum": ["pending", "confirmed", "cancelled"],
                "description": "`pending` (a request; holds its nights) → `confirmed` → `cancelled`; or \
                    `pending` → `cancelled`."},
            "paymentStatus": {"type": "string",
                "enum": ["unpaid", "authorized", "paid", "refunded", "expired", "external"],
                "description": "`external`: paid on the channel the booking came from."},
            "total": cents("The quoted total."),
            "currency": usd(),
            "source": source("Where the booking came from: `api`, `admin`, `cli`, `agent`, or a channel \
                feed's name."),
            "notes": {"type": "array", "items": schema("Note"), "description": "Oldest first."},
            "createdAt": timestamp("When the booking was made."),
            "updatedAt": timestamp("When it last changed."),
            "cancelledBy": {"type": ["string", "null"], "enum": ["host", "guest", "system", "channel", null],
                "description": "Who cancelled it; null unless cancelled. `system`: its checkout link lapsed. \
                    `channel`: its channel dropped it."},
            "cancelReason": {"type": ["string", "null"], "description": "Why, when a reason was given."},
            "external": {"allOf": [schema("ExternalRef")], "description": "Only on bookings imported from a \
                channel feed, which owns them; omitted otherwise."},
        }),
    )
}

pub(super) fn summary_schemas() -> Map<String, Value> {
    into_map(json!({
        "Summary": object("The occupancy summary of every active property.",
            &["date", "generatedAt", "totals", "properties"], json!({
                "date": date("Today in the service's default time zone."),
                "generatedAt": timestamp("When the summary was made."),
                "totals": schema("Totals"),
                "properties": {"type": "array", "items": schema("PropertySummary"),
                    "description": "One per active property, by slug."},
            })),
        "Totals": object("Counts over all active properties.",
            &["properties", "occupiedTonight", "checkInsToday", "checkOutsToday", "pendingBookings"], json!({
                "properties": count("Number of properties."),
                "occupiedTonight": count("Properties with a confirmed guest tonight."),
                "checkInsToday": count("Pending or confirmed stays arriving today."),
                "checkOutsToday": count("Pending or confirmed stays leaving today."),
                "pendingBookings": count("Bookings now pending, whatever their dates."),
            })),
        "PropertySummary": property_summary_schema(),
        "CurrentBooking": object("The confirmed stay holding tonight.",
            &["code", "guestName", "guests", "checkIn", "checkOut"], json!({
                "code": booking_code("Booking code."),
                "guestName": string("Guest's name."),
                "guests": guests("Number of guests."),
                "checkIn": date("Arrival."),
                "checkOut": date("Departure."),
            })),
        "NextArrival": object("The next stay to arrive.", &["code", "guestName", "checkIn", "status"], json!({
            "code": booking_code("Booking code."),
            "guestName": string("Guest's name."),
            "checkIn": date("Arrival."),
            "status": {"type": "string", "enum": ["pending", "confirmed"]},
        })),
    }))
}

fn property_summary_schema() -> Value {
    object(
        "One property's day, judged on today in its own time zone.",
        &[
            "slug",
            "name",
            "date",
            "occupied",
            "checkInToday",
            "checkOutToday",
            "currentBooking",
            "nextArrival",
            "checkInTime",
            "checkOutTime",
            "doorCode",
            "wifiSsid",
        ],
        json!({
            "slug": slug("The property's slug."),
            "name": string("The property's name."),
            "date": date("Today in the property's own time zone."),
            "occupied": boolean("A confirmed stay holds tonight (pending requests do not count)."),
            "checkInToday": boolean("A pending or confirmed stay arrives today."),
            "checkOutToday": boolean("A pending or confirmed stay leaves today."),
            "currentBooking": nullable(schema("CurrentBooking")),
            "nextArrival": nullable(schema("NextArrival")),
            "checkInTime": {"type": "string", "pattern": CLOCK_12H, "examples": ["3:00 PM"]},
            "checkOutTime": {"type": "string", "pattern": CLOCK_12H, "examples": ["11:00 AM"]},
            "doorCode": string("The current door code; empty when none is set."),
            "wifiSsid": string("The Wi-Fi network name; empty when none is set."),
        }),
    )
}

pub(super) fn sync_schemas() -> Map<String, Value> {
    into_map(json!({
        "SyncResult": object("The result of pulling channel calendars. `created`, `updated` and `cancelled` \
            count bookings; changes to blocks are not counted.",
            &["startedAt", "finishedAt", "feeds", "succeeded", "failed", "created", "updated", "cancelled",
                "conflicts", "results"], json!({
                "startedAt": timestamp("When the pull started."),
                "finishedAt": timestamp("When the last feed finished."),
                "feeds": count("Feeds pulled."),
                "succeeded": count("Feeds read successfully."),
                "failed": count("Feeds that failed; their bookings and blocks are unchanged."),
                "created": count("Bookings created."),
                "updated": count("Bookings whose dates changed."),
                "cancelled": count("Bookings cancelled because their event left the feed."),
                "conflicts": count("Imported stays that overlap a direct booking (imported anyway)."),
                "results": {"type": "array", "items": schema("FeedResult"), "description": "One per feed."},
            })),
        "FeedResult": object("The result of one feed.",
            &["property", "feed", "ok", "events", "created", "updated", "cancelled", "conflicts", "error"], json!({
                "property": slug("The property the feed belongs to."),
                "feed": source("The feed's name."),
                "ok": boolean("The feed was fetched and read."),
                "events": count("Events in the feed."),
                "created": count("Bookings created."),
                "updated": count("Bookings updated."),
                "cancelled": count("Bookings cancelled."),
                "conflicts": count("Imported stays overlapping a direct booking."),
                "error": {"type": ["string", "null"], "description": "Why the feed failed; null when `ok`."},
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
