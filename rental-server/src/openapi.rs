//! The OpenAPI 3.1 description of the API, served at `/api/openapi.json`.
//!
//! The document is assembled from small functions: [`document`] puts
//! together `info` (with the decisions SPEC.md and CONTRACT.md leave open),
//! one function per path, and the components: schemas by group, the shared
//! parameters and headers, and one reusable response per problem `code`.
//! `tests/openapi.rs` checks the paths against [`crate::routes::ROUTES`],
//! resolves every `$ref`, validates the document with an independent
//! validator, and validates real payloads of the library against the schemas.

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body_util::Full;
use serde_json::{Map, Value, json};

/// The document as JSON.
pub fn document() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": info(),
        "servers": [{"url": "/", "description": "The server that serves this document."}],
        "security": [{"bearer": []}],
        "tags": tags(),
        "paths": paths(),
        "components": components(),
    })
}

/// The `GET /api/openapi.json` response.
pub fn response() -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(document().to_string())));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn info() -> Value {
    json!({
        "title": "rental",
        "version": env!("CARGO_PKG_VERSION"),
        "summary": "Short-term rental bookings: properties, availability, quotes, bookings, occupancy.",
        "description": ([CONVENTIONS, ERRORS, DECISIONS].concat()),
        "license": {"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"},
    })
}

const CONVENTIONS: &str = "\
The JSON API of `rental`, a short-term rental booking engine.

## Conventions

- Field names are camelCase. Money is an integer number of US cents. Dates are `YYYY-MM-DD`. \
Timestamps are RFC 3339 in UTC with milliseconds, `2026-11-22T07:39:21.123Z`.
- A night is named by the date it starts on: a stay `checkIn..checkOut` holds the nights from \
`checkIn` up to, not including, `checkOut`.
- Rates given in basis points (`taxRate`, `weeklyDiscount`, `monthlyDiscount`): 1200 = 12 %.
- Send `Authorization: Bearer <key>` on every `/api/v1` request. Keys have the `read` scope, the \
`write` scope, or both; neither implies the other. The key and its scope are checked before the \
body is read, so a read-only key posting a malformed body gets 403, not 400.
- Send bodies as `Content-Type: application/json`, at most 64 KiB.
- Every response carries `X-Request-Id`: the one the client sent (1 to 128 visible ASCII \
characters), else a new one. Quote it when reporting a problem.
";

const ERRORS: &str = "
## Errors

Every error is an RFC 9457 problem (`application/problem+json`, schema `Problem`) with a stable \
machine-readable `code`: 400 `invalid_json` / `invalid_parameter`, 401 `unauthorized` (with \
`WWW-Authenticate: Bearer realm=\"rental\"`), 403 `insufficient_scope`, 404 `not_found`, 405 \
`method_not_allowed` (with `Allow`), 409 `dates_unavailable` / `invalid_transition`, 413 \
`payload_too_large`, 415 `unsupported_media_type`, 422 `validation_failed` / \
`idempotency_key_reused`, 429 `rate_limited` (with `Retry-After`), 500 `internal`, 503 \
`unavailable` (with `Retry-After`). Each operation lists the ones it can give, with three that \
apply everywhere and are not repeated: a path that does not exist is 404 `not_found`; a method a \
path does not list is 405 `method_not_allowed` with an `Allow` header naming the methods it does \
(response `MethodNotAllowed`); a query string that is not valid percent-encoding is 400 \
`invalid_parameter` on any endpoint.
";

const DECISIONS: &str = "
## Decisions where the contract is silent

- A stay is at most 366 nights, the same bound as an availability range; a property's `maxNights` \
is at most that. Seasons may set `maxNights` as well as `minNights`.
- Creating a booking reports broken stay rules (`min_nights`, `max_nights`, `max_guests`, \
`past_dates`) as 422 before taken nights: a request that is both too short and overlapping gets \
the 422.
- Quote `problems` carry a `limit` (`min_nights`, `max_nights`, `max_guests`) or the property's \
local `today` (`past_dates`) beside their `code`.
- An `Idempotency-Key` is remembered for 24 hours. The check shares the booking's write \
transaction, so a concurrent repeat waits for the first request and then replays it: \
`idempotency_in_progress` is never returned. A replay answers 201 with the first booking and \
`Idempotent-Replayed: true`.
- A key's `lastUsedAt` is written at most once a minute, so reads stay reads.
- Checkout expiry cancels pending, `unpaid` bookings older than `checkoutTtl`; an `authorized` \
hold does not lapse.
- A booking request may name its `source`; only bookings imported from a channel feed (those with \
an `external` reference) are owned by the channel and refuse `confirm` and `cancel`.
- `cancel` without `by` is a cancellation by the host.
- Unknown fields in quote and booking requests are ignored; a PATCH action with an unknown field \
is 422.
- A query parameter given with an empty value (`?to=`) is given, not absent: a date, timestamp, \
slug, status, number or cursor that is empty is 400 `invalid_parameter`.
- `X-Request-Id` never fails a request: a value that cannot be echoed is replaced by a new one.
- `POST /api/v1/sync/ical` answers with an empty result (no feeds) until channel calendar import \
lands.
- When the operator sets a rate limit, it applies per API key: over it, a request gets 429 \
`rate_limited` with `Retry-After` in seconds.
";

fn tags() -> Value {
    json!([
        {"name": "Properties", "description": "Active properties, their rates and per-night availability."},
        {"name": "Quotes", "description": "Price a stay and see whether it can be booked."},
        {"name": "Bookings", "description": "Create, list, look up, confirm, cancel and annotate bookings."},
        {"name": "Home automation", "description": "Who is in, who arrives and leaves today."},
        {"name": "Calendars", "description": "Channel calendar (iCal) synchronisation."},
        {"name": "Meta", "description": "This description."},
    ])
}

// ---------------------------------------------------------------- paths

fn paths() -> Value {
    json!({
        "/api/openapi.json": {"get": get_openapi()},
        "/api/v1/properties": {"get": list_properties()},
        "/api/v1/properties/{slug}": {"parameters": [param("Slug")], "get": get_property()},
        "/api/v1/properties/{slug}/availability": {"parameters": [param("Slug")], "get": get_availability()},
        "/api/v1/quotes": {"post": create_quote()},
        "/api/v1/bookings": {"get": list_bookings(), "post": create_booking()},
        "/api/v1/bookings/{code}": {"parameters": [param("Code")], "get": get_booking(), "patch": update_booking()},
        "/api/v1/ha/summary": {"get": get_summary()},
        "/api/v1/sync/ical": {"post": sync_ical()},
        "/api/v1/calendar/{slug}.ics": {"parameters": [param("Slug")], "get": get_calendar()},
    })
}

/// The errors every authenticated operation can give.
const AUTHENTICATED: &[(&str, &str)] = &[
    ("401", "Unauthorized"),
    ("403", "Forbidden"),
    ("429", "RateLimited"),
    ("500", "Internal"),
    ("503", "Unavailable"),
];

/// The errors of reading a JSON body.
const WITH_BODY: &[(&str, &str)] =
    &[("400", "InvalidJson"), ("413", "PayloadTooLarge"), ("415", "UnsupportedMediaType")];

fn get_openapi() -> Value {
    json!({
        "operationId": "getOpenApi",
        "tags": ["Meta"],
        "summary": "This OpenAPI description",
        "description": "The machine-readable description of the API, as OpenAPI 3.1 JSON. Public: no key needed.",
        "security": [],
        "parameters": [param("RequestId")],
        "responses": responses(
            ("200", json_response("The OpenAPI document.", json!({"type": "object"}), None)),
            &[&[("503", "Unavailable")]],
        ),
    })
}

fn list_properties() -> Value {
    json!({
        "operationId": "listProperties",
        "tags": ["Properties"],
        "summary": "List active properties",
        "description": "Every active property, ordered by slug, with its rates and seasons. \
            Inactive properties are left out. Needs the `read` scope.",
        "security": scope("read"),
        "parameters": [param("RequestId")],
        "responses": responses(
            ("200", json_response("The active properties.", schema("PropertyList"),
                Some(json!({"data": [property_example()]})))),
            &[AUTHENTICATED],
        ),
    })
}

fn get_property() -> Value {
    json!({
        "operationId": "getProperty",
        "tags": ["Properties"],
        "summary": "Get a property",
        "description": "One active property with its rates and seasonal rates. An unknown or inactive \
            property is 404. Door code, Wi-Fi name and feed URLs are never shown here. Needs the `read` scope.",
        "security": scope("read"),
        "parameters": [param("RequestId")],
        "responses": responses(
            ("200", json_response("The property.", schema("Property"), Some(property_example()))),
            &[AUTHENTICATED, &[("404", "NotFound")]],
        ),
    })
}

fn get_availability() -> Value {
    json!({
        "operationId": "getAvailability",
        "tags": ["Properties"],
        "summary": "Per-night availability and prices",
        "description": "One record per night from `from` up to, not including, `to`: whether it is free, \
            why not (`booked`, `held`, `blocked`, `past`), its price before discounts, fees and taxes, and \
            the minimum stay starting on it. A malformed date is 400 `invalid_parameter`; `to` on or \
            before `from`, or a range over 366 nights, is 422 `validation_failed`. Needs the `read` scope.",
        "security": scope("read"),
        "parameters": [param("AvailabilityFrom"), param("AvailabilityTo"), param("RequestId")],
        "responses": responses(
            ("200", json_response("The nights of the range, in order.", schema("Availability"),
                Some(availability_example()))),
            &[AUTHENTICATED, &[("400", "InvalidParameter"), ("404", "NotFound"), ("422", "ValidationFailed")]],
        ),
    })
}

fn create_quote() -> Value {
    json!({
        "operationId": "createQuote",
        "tags": ["Quotes"],
        "summary": "Price a stay",
        "description": "Prices a stay and checks whether it can be booked. A well-formed stay that cannot \
            be booked (taken nights, too short or long, too many guests, in the past) is still a 200, \
            priced, with `available: false` and its `problems`. Dates out of order, a stay over 366 \
            nights or guests outside 1 to 100 are 422; an unknown or inactive property is 404. Nothing \
            is held: book with `POST /api/v1/bookings`. Needs the `read` scope.",
        "security": scope("read"),
        "parameters": [param("RequestId")],
        "requestBody": request_body("QuoteRequest",
            json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3})),
        "responses": responses(
            ("200", json_response("The quote.", schema("Quote"), Some(quote_example()))),
            &[AUTHENTICATED, WITH_BODY, &[("404", "NotFound"), ("422", "ValidationFailed")]],
        ),
    })
}

fn list_bookings() -> Value {
    json!({
        "operationId": "listBookings",
        "tags": ["Bookings"],
        "summary": "List bookings",
        "description": "Bookings of every status unless filtered, ordered by `checkIn`, then `code`, one \
            page at a time. To read every page, repeat the request with `cursor` set to the previous \
            page's `nextCursor` until it is null. Pollers pass `updatedSince` with the time of their last \
            poll. A malformed filter, or `limit` outside 1 to 200, is 400 `invalid_parameter`. Needs the \
            `read` scope.",
        "security": scope("read"),
        "parameters": [
            param("Status"), param("PropertyFilter"), param("Source"), param("From"), param("To"),
            param("UpdatedSince"), param("Limit"), param("Cursor"), param("RequestId"),
        ],
        "responses": responses(
            ("200", json_response("One page of bookings.", schema("BookingList"),
                Some(json!({"data": [booking_example()], "nextCursor": null})))),
            &[AUTHENTICATED, &[("400", "InvalidParameter")]],
        ),
    })
}

fn create_booking() -> Value {
    let created = json!({
        "description": "Created: a `pending`, `unpaid` booking that holds its nights; `booking.created` \
            is emitted. A replay of an `Idempotency-Key` returns the first booking again, also 201.",
        "headers": {
            "X-Request-Id": header_ref("XRequestId"),
            "Location": header_ref("Location"),
            "Idempotent-Replayed": header_ref("IdempotentReplayed"),
        },
        "content": {"application/json": {"schema": schema("Booking"), "example": booking_example()}},
    });
    json!({
        "operationId": "createBooking",
        "tags": ["Bookings"],
        "summary": "Create a booking",
        "description": "Requests a stay. The booking starts `pending` with payment `unpaid` and holds its \
            nights until it is confirmed or cancelled. Availability is checked and the booking inserted \
            atomically: of two requests for overlapping nights exactly one wins, the other gets 409 \
            `dates_unavailable`. A stay that breaks a rule (`min_nights`, `max_nights`, `max_guests`, \
            `past_dates`), a malformed e-mail, or guests outside 1 to the property's `maxGuests` is 422 \
            `validation_failed` with the fields at fault. Send an `Idempotency-Key` to retry safely. \
            Needs the `write` scope.",
        "security": scope("write"),
        "parameters": [param("IdempotencyKey"), param("RequestId")],
        "requestBody": request_body("NewBooking", json!({
            "property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27",
            "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 3, "notes": "late arrival",
        })),
        "responses": responses(
            ("201", created),
            &[AUTHENTICATED, WITH_BODY, &[("404", "NotFound"), ("409", "DatesUnavailable"),
                ("422", "BookingUnprocessable")]],
        ),
    })
}

fn get_booking() -> Value {
    json!({
        "operationId": "getBooking",
        "tags": ["Bookings"],
        "summary": "Get a booking",
        "description": "One booking by its code, whatever its status. Unknown codes are 404. Needs the `read` scope.",
        "security": scope("read"),
        "parameters": [param("RequestId")],
        "responses": responses(
            ("200", json_response("The booking.", schema("Booking"), Some(booking_example()))),
            &[AUTHENTICATED, &[("404", "NotFound")]],
        ),
    })
}

fn update_booking() -> Value {
    json!({
        "operationId": "updateBooking",
        "tags": ["Bookings"],
        "summary": "Confirm, cancel, annotate or authorize a booking",
        "description": "Applies one action, named by `action`. `confirm` (from `pending`): `confirmed`, \
            payment captured (`paid`). `cancel` (from `pending`, or `confirmed` before the stay ends): \
            `cancelled`, nights released, `paid` becomes `refunded` and `authorized` becomes `unpaid`. \
            `annotate` (any status): appends a note. `authorize` (from `pending` and `unpaid`): the \
            guest's card hold succeeded, payment `authorized`. Repeating a transition already made is a \
            200 with the booking unchanged and no event. A known action from any other state is 409 \
            `invalid_transition`, as is every `confirm` or `cancel` of a booking imported from a channel \
            (it carries `external`; the channel owns it). An unknown or missing `action` is 422. Needs \
            the `write` scope.",
        "security": scope("write"),
        "parameters": [param("RequestId")],
        "requestBody": {
            "required": true,
            "content": {"application/json": {
                "schema": schema("BookingAction"),
                "examples": {
                    "confirm": {"summary": "Confirm a request", "value": {"action": "confirm"}},
                    "cancel": {"summary": "Cancel at the guest's request",
                        "value": {"action": "cancel", "by": "guest", "reason": "plans changed"}},
                    "annotate": {"summary": "Add a note", "value": {"action": "annotate", "note": "late arrival"}},
                    "authorize": {"summary": "Record a card hold", "value": {"action": "authorize"}},
                },
            }},
        },
        "responses": responses(
            ("200", json_response("The booking after the action.", schema("Booking"), Some(booking_example()))),
            &[AUTHENTICATED, WITH_BODY, &[("404", "NotFound"), ("409", "InvalidTransition"),
                ("422", "ValidationFailed")]],
        ),
    })
}

fn get_summary() -> Value {
    json!({
        "operationId": "getSummary",
        "tags": ["Home automation"],
        "summary": "Occupancy summary",
        "description": "For home automation: per active property, whether a confirmed guest is in \
            tonight, who arrives and leaves today (pending requests included), the current and next \
            booking, check-in and check-out times, door code and Wi-Fi name. Each property is judged on \
            today in its own time zone; the top-level `date` is today in the service's default zone. \
            Contains the door code: give this scope only to trusted systems. Needs the `read` scope.",
        "security": scope("read"),
        "parameters": [param("RequestId")],
        "responses": responses(
            ("200", json_response("The summary.", schema("Summary"), Some(summary_example()))),
            &[AUTHENTICATED],
        ),
    })
}

fn sync_ical() -> Value {
    json!({
        "operationId": "syncIcal",
        "tags": ["Calendars"],
        "summary": "Pull channel calendars now",
        "description": "Pulls every configured channel iCal feed (or only those of `property`), waits for \
            them, and answers with the counts of the pull; `calendar.synced` is emitted with the same \
            object. No body is needed. A feed that fails (network, non-2xx, not a calendar, over 5 MiB, \
            over 20 s) changes nothing it owns and is reported with `ok: false` and its `error`; the \
            request still answers 200. An unknown or inactive `property` is a 404. Needs the `write` scope.",
        "security": scope("write"),
        "parameters": [param("SyncProperty"), param("RequestId")],
        "responses": responses(
            ("200", json_response("The result of the pull.", schema("SyncResult"), Some(sync_example()))),
            &[AUTHENTICATED, &[("400", "InvalidParameter"), ("404", "NotFound")]],
        ),
    })
}

fn get_calendar() -> Value {
    json!({
        "operationId": "getCalendar",
        "tags": ["Calendars"],
        "summary": "The property's calendar, for the channels",
        "description": "An iCalendar (RFC 5545) file for Airbnb, Vrbo, Booking.com or any calendar app: one \
            all-day event per pending or confirmed stay (`SUMMARY:Reserved`) and per block \
            (`SUMMARY:Not available`), from 30 days ago on. `DTSTART` is the first night, `DTEND` the day \
            after the last; each `UID` stays the same when the dates change. No guest data. `exclude=<feed>` \
            leaves out what was imported from that feed. Send the `ETag` back as `If-None-Match` to get a 304 \
            while nothing changed. Public: no key needed.",
        "security": [],
        "parameters": [
            {"name": "exclude", "in": "query", "required": false, "schema": {"type": "string"},
             "description": "A feed name (for example `airbnb`) whose imported stays and blocks are left out."},
            {"name": "If-None-Match", "in": "header", "required": false, "schema": {"type": "string"},
             "description": "The `ETag` of a copy you have."},
            param("RequestId"),
        ],
        "responses": {
            "200": {
                "description": "The calendar.",
                "headers": {"ETag": {"schema": {"type": "string"}, "description": "Changes when the calendar does."},
                            "X-Request-Id": header_ref("XRequestId")},
                "content": {"text/calendar": {"schema": {"type": "string"}}},
            },
            "304": {"description": "Not changed since the `ETag` sent in `If-None-Match`.",
                    "headers": {"ETag": {"schema": {"type": "string"}}, "X-Request-Id": header_ref("XRequestId")}},
            "404": {"$ref": "#/components/responses/NotFound"},
            "503": {"$ref": "#/components/responses/Unavailable"},
        },
    })
}

fn scope(name: &str) -> Value {
    json!([{"bearer": [name]}])
}

fn param(name: &str) -> Value {
    json!({"$ref": format!("#/components/parameters/{name}")})
}

fn schema(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn header_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/headers/{name}")})
}

/// A success response with `X-Request-Id` and a JSON body.
fn json_response(description: &str, schema: Value, example: Option<Value>) -> Value {
    let mut media = Map::new();
    media.insert("schema".to_owned(), schema);
    if let Some(example) = example {
        media.insert("example".to_owned(), example);
    }
    let mut response = json!({"description": description, "headers": {"X-Request-Id": header_ref("XRequestId")}});
    response["content"] = json!({});
    response["content"]["application/json"] = Value::Object(media);
    response
}

fn request_body(schema_name: &str, example: Value) -> Value {
    let mut body = json!({"required": true, "content": {"application/json": {"schema": schema(schema_name)}}});
    body["content"]["application/json"]["example"] = example;
    body
}

/// The success response and references to the shared error responses.
fn responses(success: (&str, Value), errors: &[&[(&str, &str)]]) -> Value {
    let mut all = Map::new();
    all.insert(success.0.to_owned(), success.1);
    for (status, name) in errors.iter().copied().flatten() {
        all.insert((*status).to_owned(), json!({"$ref": format!("#/components/responses/{name}")}));
    }
    Value::Object(all)
}

// ---------------------------------------------------------------- components

fn components() -> Value {
    let mut schemas = Map::new();
    for group in [property_schemas(), quote_schemas(), booking_schemas(), action_schemas(), summary_schemas()] {
        schemas.extend(group);
    }
    schemas.extend(sync_schemas());
    schemas.extend(problem_schemas());
    json!({
        "securitySchemes": {"bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key, `rk_` followed by 32 letters and digits, as `Authorization: Bearer \
                <key>`. The security requirement of each operation names the scope it needs (`read` or \
                `write`); a key lacking it gets 403.",
        }},
        "schemas": schemas,
        "parameters": parameters(),
        "headers": headers(),
        "responses": problem_responses(),
    })
}

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

fn slug(description: &str) -> Value {
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

const SLUG_PATTERN: &str = "^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$";
const CODE_PATTERN: &str = "^[A-Z0-9]{1,8}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$";
const SOURCE_PATTERN: &str = "^[a-z0-9_-]{1,32}$";
const CLOCK_24H: &str = "^([01][0-9]|2[0-3]):[0-5][0-9]$";
const CLOCK_12H: &str = "^(1[0-2]|[1-9]):[0-5][0-9] (AM|PM)$";

fn property_schemas() -> Map<String, Value> {
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

fn quote_schemas() -> Map<String, Value> {
    into_map(json!({
        "QuoteRequest": object("A stay to price.", &["property", "checkIn", "checkOut"], json!({
            "property": slug("The property's slug."),
            "checkIn": date("Arrival: the first night."),
            "checkOut": date("Departure: the day after the last night. At most 366 nights after `checkIn`."),
            "guests": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1,
                "description": "Number of guests."},
        })),
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

fn booking_schemas() -> Map<String, Value> {
    into_map(json!({
        "NewBooking": object("A booking request.",
            &["property", "checkIn", "checkOut", "guestName", "guestEmail", "guests"], json!({
                "property": slug("The property's slug."),
                "checkIn": date("Arrival: the first night."),
                "checkOut": date("Departure: the day after the last night."),
                "guestName": {"type": "string", "minLength": 1, "maxLength": 200,
                    "description": "The guest's name; trimmed."},
                "guestEmail": {"type": "string", "format": "email", "maxLength": 254,
                    "description": "The guest's e-mail address; trimmed."},
                "guests": guests("Number of guests, at most the property's `maxGuests`."),
                "notes": {"type": "string", "maxLength": 2000, "description": "A first note (at most 2000 bytes)."},
                "source": {"type": "string", "pattern": SOURCE_PATTERN, "default": "api",
                    "description": "Where the request comes from: `api`, `admin`, `cli`, `agent`, or a channel's \
                        name."},
            })),
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

fn action_schemas() -> Map<String, Value> {
    let action = |name: &str| json!({"type": "string", "enum": [name]});
    let closed = |description: &str, required: &[&str], properties: Value| {
        let mut schema = object(description, required, properties);
        schema["additionalProperties"] = json!(false);
        schema
    };
    into_map(json!({
        "BookingAction": {
            "description": "One action on a booking, chosen by `action`.",
            "oneOf": [schema("ConfirmAction"), schema("CancelAction"), schema("AnnotateAction"),
                schema("AuthorizeAction")],
            "discriminator": {"propertyName": "action", "mapping": {
                "confirm": "#/components/schemas/ConfirmAction",
                "cancel": "#/components/schemas/CancelAction",
                "annotate": "#/components/schemas/AnnotateAction",
                "authorize": "#/components/schemas/AuthorizeAction",
            }},
        },
        "ConfirmAction": closed("Approve a pending request; payment is captured.", &["action"],
            json!({"action": action("confirm")})),
        "CancelAction": closed("Cancel; the nights are released.", &["action"], json!({
            "action": action("cancel"),
            "by": {"type": "string", "enum": ["host", "guest"], "default": "host", "description": "Who asks."},
            "reason": {"type": ["string", "null"], "maxLength": 2000, "description": "Why, for the record."},
        })),
        "AnnotateAction": closed("Append a note.", &["action", "note"], json!({
            "action": action("annotate"),
            "note": {"type": "string", "minLength": 1, "maxLength": 2000,
                "description": "The note: not blank, at most 2000 bytes."},
        })),
        "AuthorizeAction": closed("Record that the guest's card hold succeeded (for payment integrations).",
            &["action"], json!({"action": action("authorize")})),
    }))
}

fn summary_schemas() -> Map<String, Value> {
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

fn sync_schemas() -> Map<String, Value> {
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

fn problem_schemas() -> Map<String, Value> {
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

fn query_param(name: &str, description: &str, schema: Value) -> Value {
    let mut parameter = json!({"name": name, "in": "query", "required": false, "description": description});
    parameter["schema"] = schema;
    parameter
}

fn parameters() -> Value {
    json!({
        "Slug": {"name": "slug", "in": "path", "required": true, "description": "The property's slug.",
            "schema": slug("The property's slug.")},
        "Code": {"name": "code", "in": "path", "required": true, "description": "The booking's code.",
            "schema": {"type": "string", "examples": ["BK-7QX2MF"]}},
        "AvailabilityFrom": query_param("from", "First night. Default: the property's local today.",
            json!({"type": "string", "format": "date"})),
        "AvailabilityTo": query_param("to", "Day after the last night (exclusive). Default: `from` + 30 days. At \
            most 366 nights after `from`.", json!({"type": "string", "format": "date"})),
        "Status": query_param("status", "Only these statuses, comma-separated (`pending,confirmed`). Default: all.",
            json!({"type": "string", "pattern": "^(pending|confirmed|cancelled)(,(pending|confirmed|cancelled))*$"})),
        "PropertyFilter": query_param("property", "Only this property's bookings (slug).",
            json!({"type": "string", "pattern": SLUG_PATTERN})),
        "Source": query_param("source", "Only bookings from this source (`api`, `airbnb`, ...).",
            json!({"type": "string", "pattern": SOURCE_PATTERN})),
        "From": query_param("from", "Only stays with a night on or after this date (stays overlapping [from, to)).",
            json!({"type": "string", "format": "date"})),
        "To": query_param("to", "Only stays with a night before this date (stays overlapping [from, to)).",
            json!({"type": "string", "format": "date"})),
        "UpdatedSince": query_param("updatedSince", "Only bookings changed at or after this RFC 3339 timestamp.",
            json!({"type": "string", "format": "date-time"})),
        "Limit": query_param("limit", "Page size, 1 to 200.",
            json!({"type": "integer", "minimum": 1, "maximum": 200, "default": 50})),
        "Cursor": query_param("cursor", "Where the page starts: the `nextCursor` of the previous page. Opaque.",
            json!({"type": "string"})),
        "SyncProperty": query_param("property", "Only pull this property's feeds (slug). Default: every feed.",
            json!({"type": "string", "pattern": SLUG_PATTERN})),
        "IdempotencyKey": {"name": "Idempotency-Key", "in": "header", "required": false,
            "description": "Makes a retry safe: a repeat with the same key and the same body within 24 hours \
                returns the first response again (201, `Idempotent-Replayed: true`) and creates nothing; the \
                same key with a different body is 422 `idempotency_key_reused`. 1 to 255 visible ASCII \
                characters, else 422 `validation_failed`.",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255}},
        "RequestId": {"name": "X-Request-Id", "in": "header", "required": false,
            "description": "A request id to correlate logs. Any value is accepted and none is refused: one of \
                1 to 128 visible ASCII characters is echoed in the response, any other (empty, longer, \
                other characters) is replaced by a new one.",
            "schema": {"type": "string"}},
    })
}

fn headers() -> Value {
    let header = |description: &str, schema: Value| json!({"description": description, "schema": schema});
    let always =
        |description: &str, schema: Value| json!({"description": description, "required": true, "schema": schema});
    json!({
        "XRequestId": always("The request's id: the client's `X-Request-Id`, or a new one. Logged with the \
            request.", json!({"type": "string"})),
        "Location": always("The new booking's URL, `/api/v1/bookings/{code}`.",
            json!({"type": "string", "format": "uri-reference"})),
        "IdempotentReplayed": header("`true` when this is the replay of an earlier request with the same \
            `Idempotency-Key`; absent otherwise.", json!({"type": "string", "enum": ["true"]})),
        "RetryAfter": always("Seconds to wait before retrying.", json!({"type": "integer", "minimum": 1})),
        "WwwAuthenticate": always("The challenge: `Bearer realm=\"rental\"`.", json!({"type": "string"})),
        "Allow": always("The methods the path supports, comma-separated.", json!({"type": "string"})),
    })
}

/// One reusable response per problem, each with `X-Request-Id`, its own
/// headers, and an example per `code` it can carry.
fn problem_responses() -> Value {
    json!({
        "InvalidJson": problem(400, "The body is not valid JSON, or not a JSON object.", &[],
            &[("invalid_json", "the body is not valid JSON: EOF while parsing an object at line 1 column 1")]),
        "InvalidParameter": problem(400, "A query parameter is malformed; `errors` names it.", &[],
            &[("invalid_parameter", "query parameter limit: 500 is not from 1 to 200")]),
        "Unauthorized": problem(401, "The API key is missing, unknown, malformed or revoked.",
            &[("WWW-Authenticate", "WwwAuthenticate")],
            &[("unauthorized", "send an API key as Authorization: Bearer <key>")]),
        "Forbidden": problem(403, "The key is valid but lacks the scope this operation needs.", &[],
            &[("insufficient_scope", "this key lacks the write scope")]),
        "NotFound": problem(404, "The property (unknown or inactive) or booking does not exist.", &[],
            &[("not_found", "property sea-vew not found")]),
        "MethodNotAllowed": problem(405, "The path exists but not with this method; `Allow` lists its methods.",
            &[("Allow", "Allow")], &[("method_not_allowed", "DELETE is not allowed here; use GET, POST")]),
        "DatesUnavailable": problem(409, "Some nights of the stay are already held, booked or blocked. Nothing \
            about the other bookings is disclosed.", &[], &[("dates_unavailable", "dates unavailable: 2026-12-24")]),
        "InvalidTransition": problem(409, "The action is not allowed from the booking's state, or the booking \
            is owned by its channel.", &[], &[("invalid_transition", "cannot confirm a booking that is cancelled")]),
        "PayloadTooLarge": problem(413, "The body is over 64 KiB.", &[],
            &[("payload_too_large", "bodies are at most 65536 bytes")]),
        "UnsupportedMediaType": problem(415, "The body is not sent as `application/json`.", &[],
            &[("unsupported_media_type", "send the body as Content-Type: application/json")]),
        "ValidationFailed": problem(422, "Well-formed JSON that breaks a rule; `errors` lists the fields.", &[],
            &[("validation_failed", "validation failed: checkOut: checkOut must be after checkIn")]),
        "BookingUnprocessable": problem(422, "The request breaks a rule (`validation_failed`, with `errors`), \
            or its `Idempotency-Key` was used before with a different body (`idempotency_key_reused`).", &[],
            &[("validation_failed", "validation failed: guests: at most 4 guests"),
                ("idempotency_key_reused", "idempotency key was already used with a different request")]),
        "RateLimited": problem(429, "Too many requests for this key; wait `Retry-After` seconds.",
            &[("Retry-After", "RetryAfter")], &[("rate_limited", "too many requests for this key; slow down")]),
        "Internal": problem(500, "Something unexpected; logged under the `X-Request-Id`. The body says nothing \
            more.", &[], &[("internal", "an unexpected error occurred; it has been logged")]),
        "Unavailable": problem(503, "The server is shutting down or its storage is unavailable; retry after \
            `Retry-After` seconds.", &[("Retry-After", "RetryAfter")],
            &[("unavailable", "the server is shutting down")]),
    })
}

fn problem(status: u16, description: &str, headers: &[(&str, &str)], codes: &[(&str, &str)]) -> Value {
    let mut all = Map::new();
    all.insert("X-Request-Id".to_owned(), header_ref("XRequestId"));
    for (name, component) in headers {
        all.insert((*name).to_owned(), header_ref(component));
    }
    let title = http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("Error");
    let examples: Map<String, Value> = codes
        .iter()
        .map(|(code, detail)| {
            let mut value = json!({"type": "about:blank", "title": title, "status": status, "code": code,
                "detail": detail});
            if let Some(field) = example_field(code) {
                value["errors"] = json!([field]);
            }
            ((*code).to_owned(), json!({"summary": code, "value": value}))
        })
        .collect();
    json!({
        "description": description,
        "headers": all,
        "content": {"application/problem+json": {"schema": schema("Problem"), "examples": examples}},
    })
}

fn example_field(code: &str) -> Option<Value> {
    match code {
        "invalid_parameter" => Some(json!({"field": "limit", "code": "invalid_parameter",
            "message": "500 is not from 1 to 200"})),
        "validation_failed" => Some(json!({"field": "guests", "code": "max_guests", "message": "at most 4 guests"})),
        _ => None,
    }
}

// ---------------------------------------------------------------- examples

fn property_example() -> Value {
    json!({
        "slug": "sea-view", "name": "Sea View Cottage", "timezone": "Europe/Lisbon", "currency": "USD",
        "maxGuests": 4, "baseGuests": 2, "extraGuestFee": 2000, "nightlyRate": 15000, "weekendRate": 18000,
        "cleaningFee": 6000, "taxRate": 1200, "minNights": 2, "maxNights": 28, "weeklyDiscount": 1000,
        "monthlyDiscount": 2000, "checkInTime": "15:00", "checkOutTime": "11:00",
        "seasonalRates": [{"name": "Summer", "startDate": "2026-06-01", "endDate": "2026-08-31",
            "nightlyRate": 22000, "weekendRate": 25000, "minNights": 3}],
    })
}

fn availability_example() -> Value {
    json!({
        "property": "sea-view", "from": "2026-12-01", "to": "2026-12-03", "currency": "USD",
        "nights": [
            {"date": "2026-12-01", "available": true, "price": 15000, "minNights": 2, "status": "available"},
            {"date": "2026-12-02", "available": false, "price": 15000, "minNights": 2, "status": "held"},
        ],
    })
}

fn quote_example() -> Value {
    json!({
        "property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3,
        "nights": 7, "available": false, "currency": "USD",
        "nightly": [{"date": "2026-12-20", "price": 15000}, {"date": "2026-12-21", "price": 15000},
            {"date": "2026-12-22", "price": 15000}, {"date": "2026-12-23", "price": 15000},
            {"date": "2026-12-24", "price": 15000}, {"date": "2026-12-25", "price": 18000},
            {"date": "2026-12-26", "price": 18000}],
        "accommodation": 111_000, "discount": 11100, "extraGuestFee": 14000, "cleaningFee": 6000,
        "taxes": 14388, "total": 134_288,
        "problems": [{"code": "dates_unavailable", "dates": ["2026-12-24"]}],
    })
}

fn booking_example() -> Value {
    json!({
        "code": "BK-7QX2MF", "property": "sea-view", "propertyName": "Sea View Cottage",
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 3,
        "checkIn": "2026-12-20", "checkOut": "2026-12-27", "nights": 7,
        "status": "pending", "paymentStatus": "unpaid", "total": 134_288, "currency": "USD",
        "source": "api", "notes": [{"text": "late arrival", "at": "2026-11-22T07:39:21.123Z"}],
        "createdAt": "2026-11-22T07:39:21.123Z", "updatedAt": "2026-11-22T07:39:21.123Z",
        "cancelledBy": null, "cancelReason": null,
    })
}

fn summary_example() -> Value {
    json!({
        "date": "2026-11-22", "generatedAt": "2026-11-22T07:39:21.123Z",
        "totals": {"properties": 1, "occupiedTonight": 1, "checkInsToday": 0, "checkOutsToday": 0,
            "pendingBookings": 1},
        "properties": [{
            "slug": "sea-view", "name": "Sea View Cottage", "date": "2026-11-22", "occupied": true,
            "checkInToday": false, "checkOutToday": false,
            "currentBooking": {"code": "BK-7QX2MF", "guestName": "Ada Lovelace", "guests": 3,
                "checkIn": "2026-11-20", "checkOut": "2026-11-24"},
            "nextArrival": {"code": "BK-K3M9PW", "guestName": "Alan Turing", "checkIn": "2026-12-01",
                "status": "pending"},
            "checkInTime": "3:00 PM", "checkOutTime": "11:00 AM", "doorCode": "4821", "wifiSsid": "SeaView-Guest",
        }],
    })
}

fn sync_example() -> Value {
    json!({
        "startedAt": "2026-11-22T07:39:21.123Z", "finishedAt": "2026-11-22T07:39:21.123Z",
        "feeds": 0, "succeeded": 0, "failed": 0, "created": 0, "updated": 0, "cancelled": 0, "conflicts": 0,
        "results": [],
    })
}
