//! The operations: one function per endpoint giving its parameters, body,
//! success response and the problem responses it can answer.

use serde_json::{Map, Value, json};

use super::examples::{
    availability_example, booking_example, property_example, quote_example, summary_example, sync_example,
};
use super::{header_ref, param, schema, scope};

pub(super) fn paths() -> Value {
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
