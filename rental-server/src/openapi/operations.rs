//! The operations, one row each: method, path, scope, parameters, body, the
//! success response and the problem responses it can answer; [`paths`] turns
//! the table into the document's `paths`.

use serde_json::{Map, Value, json};

use super::examples::{request_examples, response_example};
use super::shared::status_of;
use super::{header_ref, param, schema, scope};

/// Who may call an operation.
#[derive(Debug, Clone, Copy)]
enum Access {
    /// No key.
    Public,
    /// A key with the `read` scope.
    Read,
    /// A key with the `write` scope.
    Write,
    /// A key with the `metrics` scope.
    Metrics,
    /// A key with the `backup` scope.
    Backup,
}

/// What an operation answers when it succeeds.
#[derive(Debug, Clone, Copy)]
enum Success {
    /// A JSON body: status, description, schema (a component; empty for any object).
    Json(u16, &'static str, &'static str),
    /// 201 with the booking, `Location` and `Idempotent-Replayed`.
    Created,
    /// 201 with the block and `Location`.
    BlockCreated,
    /// 204, no body.
    NoContent(&'static str),
    /// 200 with the booking, or 204 for a key without `read`.
    Updated,
    /// 202 with the message sent again, fewer fields for a key without `read`.
    Resent,
    /// 200 `text/calendar` with an `ETag`, or 304 when `If-None-Match` names it.
    Calendar,
    /// 200 with a body that is not JSON: media type, description.
    Text(&'static str, &'static str),
}

/// One operation of the API.
#[derive(Debug)]
struct Operation {
    method: &'static str,
    path: &'static str,
    id: &'static str,
    tag: &'static str,
    summary: &'static str,
    description: &'static str,
    access: Access,
    /// Components under `#/components/parameters/`.
    parameters: &'static [&'static str],
    /// The request body's schema, a component under `#/components/schemas/`.
    body: Option<&'static str>,
    success: Success,
    /// Problem responses (`#/components/responses/`) beyond those every
    /// authenticated operation and every body can give.
    errors: &'static [&'static str],
}

/// The problems every authenticated operation can give.
const AUTHENTICATED: &[&str] = &["Unauthorized", "Forbidden", "RateLimited", "Internal", "Unavailable"];

/// The problems of reading a JSON body.
const WITH_BODY: &[&str] = &["InvalidJson", "PayloadTooLarge", "UnsupportedMediaType"];

const OPERATIONS: &[Operation] = &[
    Operation {
        method: "GET",
        path: "/api/openapi.json",
        id: "getOpenApi",
        tag: "Meta",
        summary: "This OpenAPI description",
        description: "The machine-readable description of the API, as OpenAPI 3.1 JSON. Public: no key needed.",
        access: Access::Public,
        parameters: &["RequestId"],
        body: None,
        success: Success::Json(200, "The OpenAPI document.", ""),
        errors: &["Unavailable"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/properties",
        id: "listProperties",
        tag: "Properties",
        summary: "List active properties",
        description: "Every active property, ordered by slug, with its rates and seasons. \
            Inactive properties are left out. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["RequestId"],
        body: None,
        success: Success::Json(200, "The active properties.", "PropertyList"),
        errors: &[],
    },
    Operation {
        method: "GET",
        path: "/api/v1/properties/{slug}",
        id: "getProperty",
        tag: "Properties",
        summary: "Get a property",
        description: "One active property with its rates and seasonal rates. An unknown or inactive \
            property is 404. Door code, Wi-Fi name and feed URLs are never shown here. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["Slug", "RequestId"],
        body: None,
        success: Success::Json(200, "The property.", "Property"),
        errors: &["NotFound"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/properties/{slug}/availability",
        id: "getAvailability",
        tag: "Properties",
        summary: "Per-night availability and prices",
        description: "One record per night from `from` up to, not including, `to`: whether it is free, \
            why not (`booked`, `held`, `blocked`, `past`), its price before discounts, fees and taxes, and \
            the minimum stay starting on it. A malformed or empty date is 400 `invalid_parameter`; `to` on or \
            before `from`, or a range over 366 nights, is 422 `validation_failed`. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["Slug", "AvailabilityFrom", "AvailabilityTo", "RequestId"],
        body: None,
        success: Success::Json(200, "The nights of the range, in order.", "Availability"),
        errors: &["InvalidParameter", "NotFound", "ValidationFailed"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/properties/{slug}/blocks",
        id: "listBlocks",
        tag: "Blocks",
        summary: "List a property's blocks",
        description: "The blocks holding a night in `[from, to)`: manual ones (`source: manual`) and those \
            imported from channel feeds (`source` is the feed's name). `from` defaults to the property's local \
            today and `to` to `from` + 30 days; a malformed date is 400 `invalid_parameter`, `to` on or before \
            `from` or a range over 366 nights 422 `validation_failed`. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["Slug", "AvailabilityFrom", "AvailabilityTo", "RequestId"],
        body: None,
        success: Success::Json(200, "The blocks, by start date.", "BlockList"),
        errors: &["InvalidParameter", "NotFound", "ValidationFailed"],
    },
    Operation {
        method: "POST",
        path: "/api/v1/properties/{slug}/blocks",
        id: "createBlock",
        tag: "Blocks",
        summary: "Block nights",
        description: "Closes the nights `startDate` up to, not including, `endDate` (1 to 366 nights, not \
            before the property's local today) for an owner stay, maintenance or a closure, with an optional \
            `note` of at most 500 characters. Blocks may overlap each other; nights held or booked by a stay \
            are 409 `dates_unavailable`. Availability then reports them `blocked`, quotes and bookings treat \
            them as taken and the exported calendar shows them `Not available`. Needs the `write` scope.",
        access: Access::Write,
        parameters: &["Slug", "RequestId"],
        body: Some("NewBlock"),
        success: Success::BlockCreated,
        errors: &["NotFound", "DatesUnavailable", "ValidationFailed"],
    },
    Operation {
        method: "DELETE",
        path: "/api/v1/properties/{slug}/blocks/{id}",
        id: "deleteBlock",
        tag: "Blocks",
        summary: "Remove a block",
        description: "Reopens the nights of a manual block. An unknown id, or a block of another property, is \
            404; a block imported from a channel feed is 409 `invalid_transition` (the feed owns it). Needs \
            the `write` scope.",
        access: Access::Write,
        parameters: &["Slug", "BlockId", "RequestId"],
        body: None,
        success: Success::NoContent("Removed: the nights are free again."),
        errors: &["NotFound", "InvalidTransition"],
    },
    Operation {
        method: "POST",
        path: "/api/v1/quotes",
        id: "createQuote",
        tag: "Quotes",
        summary: "Price a stay",
        description: "Prices a stay and checks whether it can be booked. A well-formed stay that cannot \
            be booked (taken nights, too short or long, too many guests, in the past) is still a 200, \
            priced, with `available: false` and its `problems`. Dates out of order, a stay over 366 \
            nights or guests outside 1 to 100 are 422; an unknown or inactive property is 404. Nothing \
            is held: book with `POST /api/v1/bookings`. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["RequestId"],
        body: Some("QuoteRequest"),
        success: Success::Json(200, "The quote.", "Quote"),
        errors: &["NotFound", "ValidationFailed"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/bookings",
        id: "listBookings",
        tag: "Bookings",
        summary: "List bookings",
        description: "Bookings of every status unless filtered, ordered by `checkIn`, then `code`, one \
            page at a time. To read every page, repeat the request with `cursor` set to the previous \
            page's `nextCursor` until it is null. Pollers pass `updatedSince` with the time of their last \
            poll. A malformed or empty filter, or `limit` outside 1 to 200, is 400 `invalid_parameter`. Needs the \
            `read` scope.",
        access: Access::Read,
        parameters: &[
            "Status",
            "PropertyFilter",
            "Source",
            "From",
            "To",
            "UpdatedSince",
            "Limit",
            "Cursor",
            "RequestId",
        ],
        body: None,
        success: Success::Json(200, "One page of bookings.", "BookingList"),
        errors: &["InvalidParameter"],
    },
    Operation {
        method: "POST",
        path: "/api/v1/bookings",
        id: "createBooking",
        tag: "Bookings",
        summary: "Create a booking",
        description: "Requests a stay. The booking starts `pending` with payment `unpaid` and holds its \
            nights until it is confirmed or cancelled. Availability is checked and the booking inserted \
            atomically: of two requests for overlapping nights exactly one wins, the other gets 409 \
            `dates_unavailable`. A stay that breaks a rule (`min_nights`, `max_nights`, `max_guests`, \
            `past_dates`), a malformed e-mail, or guests outside 1 to the property's `maxGuests` is 422 \
            `validation_failed` with the fields at fault. Send an `Idempotency-Key` to retry safely. \
            Needs the `write` scope; a key without `read` gets the booking it sent back with `access` \
            null (a new booking has no door code yet; it never learns one).",
        access: Access::Write,
        parameters: &["IdempotencyKey", "RequestId"],
        body: Some("NewBooking"),
        success: Success::Created,
        errors: &["NotFound", "DatesUnavailable", "BookingUnprocessable"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/bookings/{code}",
        id: "getBooking",
        tag: "Bookings",
        summary: "Get a booking",
        description: "One booking by its code, whatever its status. Unknown codes are 404. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["Code", "RequestId"],
        body: None,
        success: Success::Json(200, "The booking.", "Booking"),
        errors: &["NotFound"],
    },
    Operation {
        method: "PATCH",
        path: "/api/v1/bookings/{code}",
        id: "updateBooking",
        tag: "Bookings",
        summary: "Confirm, cancel, annotate, authorize, change, check in or check out a booking",
        description: "Applies one action, named by `action`. `confirm` (from `pending`): `confirmed`, \
            payment captured (`paid`). `cancel` (from `pending`, or `confirmed` before the stay ends): \
            `cancelled`, nights released, `paid` becomes `refunded` and `authorized` becomes `unpaid`. \
            `annotate` (any status): appends a note. `authorize` (from `pending` and `unpaid`): the \
            guest's card hold succeeded, payment `authorized`. `change` (from `pending` or `confirmed` before \
            the stay ends and before it is checked out, not for channel bookings): new `checkIn`, `checkOut` and/or `guests` (at least \
            one; the others keep their values), checked like a creation (422 for a stay rule, 409 \
            `dates_unavailable` for nights another stay or a block holds) and re-priced at today's rates in \
            one transaction; `paymentStatus` is unchanged and one `booking.updated` names the `changes`; the \
            same values are a 200 no-op. `check_in` (a `confirmed` stay on its arrival day or later, \
            before it ended; for a lock that reports the first unlock): sets \
            `checkedInAt`, emits `stay.checked_in`. `check_out` (a checked-in stay; an early departure): \
            sets `checkedOutAt`, emits `stay.checked_out`, and a per-stay door code stops 15 minutes \
            later. Stays are also checked in and out by the server at the property's check-in and \
            check-out times. Repeating a transition already made is a \
            200 with the booking unchanged and no event. A known action from any other state is 409 \
            `invalid_transition`, as is every `confirm` or `cancel` of a booking imported from a channel \
            (it carries `external`; the channel owns it). An unknown or missing `action` is 422. Needs \
            the `write` scope; a key without `read` gets `204 No Content` instead of the booking.",
        access: Access::Write,
        parameters: &["Code", "RequestId"],
        body: Some("BookingAction"),
        success: Success::Updated,
        errors: &["NotFound", "InvalidTransition", "ValidationFailed"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/bookings/{code}/messages",
        id: "listBookingMessages",
        tag: "Bookings",
        summary: "A booking's guest messages",
        description: "Every e-mail the booking caused, in the order recorded: `request_received`, \
            `host_request`, `confirmed`, `changed`, `cancelled`, `check_in_instructions` (the door code, sent \
            `checkInMessage` before the access window opens, in the property's time zone) and \
            `check_out_reminder` (`checkOutMessage` before the check-out time). `status` is `scheduled` \
            (with `dueAt`, the next attempt), `sent` (with `sentAt`), `failed` (an SMTP 5xx, or retries \
            exhausted), `skipped` (no mail server, turned off, or too late after downtime) or `cancelled`; \
            `error` says why. Bookings without a guest e-mail (channel imports) have none. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["Code", "RequestId"],
        body: None,
        success: Success::Json(200, "The booking's messages.", "MessageList"),
        errors: &["NotFound"],
    },
    Operation {
        method: "POST",
        path: "/api/v1/bookings/{code}/messages",
        id: "resendBookingMessage",
        tag: "Bookings",
        summary: "Send a guest message again",
        description: "Records a new message of `kind` for the booking, due now, and answers 202 with it; \
            the server sends it within a second or so, with its own `Message-ID`. The wording is rendered \
            when it is sent, from the booking as it is then. 409 `cannot_send` when the booking has no guest \
            e-mail, for `check_in_instructions` and `check_out_reminder` of a booking that is not \
            confirmed, and for `host_request` without `hostEmail`; an unknown kind is 422. Needs the `write` scope; \
            a key without `read` gets only the message's `id`, `kind`, `status` and `dueAt`.",
        access: Access::Write,
        parameters: &["Code", "RequestId"],
        body: Some("ResendRequest"),
        success: Success::Resent,
        errors: &["NotFound", "ValidationFailed", "CannotSend"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/ha/summary",
        id: "getSummary",
        tag: "Home automation",
        summary: "Occupancy summary",
        description: "For home automation: per active property, whether a confirmed guest is in \
            tonight, who arrives and leaves today (pending requests included), the current and next \
            booking, check-in and check-out times, door code and Wi-Fi name. Each property is judged on \
            today in its own time zone; the top-level `date` is today in the service's default zone. \
            Adds each property's `stayState` (`vacant`, `awaiting_check_in`, `checked_in`, `checked_out`) \
            and `nextTransitionAt`, the door code valid now or next (`access`, with its window), the \
            `turnover` after the stay that leaves today or is in progress, and each channel feed's \
            freshness (`feeds`). \
            Contains the door code: give this scope only to trusted systems. Needs the `read` scope.",
        access: Access::Read,
        parameters: &["RequestId"],
        body: None,
        success: Success::Json(200, "The summary.", "Summary"),
        errors: &[],
    },
    Operation {
        method: "POST",
        path: "/api/v1/sync/ical",
        id: "syncIcal",
        tag: "Calendars",
        summary: "Pull channel calendars now",
        description: "Pulls every configured channel iCal feed (or only those of `property`), waits for \
            them, and answers with the counts of the pull; `calendar.synced` is emitted with the same \
            object. No body is needed. A feed that fails (network, non-2xx, not a calendar, over 5 MiB, \
            over 20 s) changes nothing it owns and is reported with `ok: false` and its `error`; the \
            request still answers 200. An unknown or inactive `property` is a 404. Needs the `write` scope.",
        access: Access::Write,
        parameters: &["SyncProperty", "RequestId"],
        body: None,
        success: Success::Json(200, "The result of the pull.", "SyncResult"),
        errors: &["InvalidParameter", "NotFound"],
    },
    Operation {
        method: "GET",
        path: "/api/v1/sync/status",
        id: "getSyncStatus",
        tag: "Calendars",
        summary: "Channel feed freshness",
        description: "Every configured channel iCal feed of every active property: whether its last pull \
            succeeded, when it was last tried and last succeeded, the last error and event count, and \
            `stale` when no pull has succeeded in the last 3 × `syncInterval` (or ever). Needs the \
            `read` scope.",
        access: Access::Read,
        parameters: &["RequestId"],
        body: None,
        success: Success::Json(200, "Each feed's freshness.", "SyncStatus"),
        errors: &[],
    },
    Operation {
        method: "GET",
        path: "/api/v1/calendar/{slug}.ics",
        id: "getCalendar",
        tag: "Calendars",
        summary: "The property's calendar, for the channels",
        description: "An iCalendar (RFC 5545) file for Airbnb, Vrbo, Booking.com or any calendar app: one \
            all-day event per pending or confirmed stay (`SUMMARY:Reserved`) and per block \
            (`SUMMARY:Not available`), from 30 days ago on. `DTSTART` is the first night, `DTEND` the day \
            after the last; each `UID` stays the same when the dates change. No guest data. `exclude=<feed>` \
            leaves out what was imported from that feed. Send the `ETag` back as `If-None-Match` to get a 304 \
            while nothing changed. Public: no key needed.",
        access: Access::Public,
        parameters: &["Slug", "Exclude", "IfNoneMatch", "RequestId"],
        body: None,
        success: Success::Calendar,
        errors: &["NotFound", "Unavailable"],
    },
    Operation {
        method: "GET",
        path: "/healthz",
        id: "getHealth",
        tag: "Operations",
        summary: "Whether the process runs",
        description: "200 `{\"status\": \"ok\"}` while the process runs, also while it shuts down; it touches \
            no store. For a liveness probe. Public: no key needed.",
        access: Access::Public,
        parameters: &["RequestId"],
        body: None,
        success: Success::Json(200, "The process runs.", ""),
        errors: &[],
    },
    Operation {
        method: "GET",
        path: "/readyz",
        id: "getReadiness",
        tag: "Operations",
        summary: "Whether this server should get traffic",
        description: "200 `{\"status\": \"ready\"}` when the store answers a read within 1 s, its schema is the \
            one this build knows and shutdown has not begun; else 503 `unavailable` whose `checks` say which \
            failed. Once shutdown begins, 503 (or the listener is closed) at once. For a load balancer's \
            health check. Public: no key needed.",
        access: Access::Public,
        parameters: &["RequestId"],
        body: None,
        success: Success::Json(200, "Ready.", ""),
        errors: &["Unavailable"],
    },
    Operation {
        method: "GET",
        path: "/metrics",
        id: "getMetrics",
        tag: "Operations",
        summary: "Prometheus metrics",
        description: "The Prometheus text exposition (version 0.0.4): requests by route template and status, \
            request and commit durations, bookings created and refused, webhook deliveries and backlog, feed \
            pulls and freshness, guest messages, and the process's memory, CPU, descriptors and start time. \
            For a key with the `metrics` scope; `metricsListen` serves it on another address without a key.",
        access: Access::Metrics,
        parameters: &["RequestId"],
        body: None,
        success: Success::Text("text/plain; version=0.0.4", "The exposition."),
        errors: &[],
    },
    Operation {
        method: "GET",
        path: "/api/v1/backup",
        id: "getBackup",
        tag: "Operations",
        summary: "A backup of the whole store",
        description: "One consistent snapshot of every record as a backup file (JSON lines: a versioned header, \
            one record a line, a trailer with the counts and a SHA-256 checksum), which `rental restore` loads \
            into an empty data directory or database of either kind. The server goes on answering meanwhile. \
            The file holds secrets (webhook secrets, key and password hashes): keep it as such. For a key \
            with the `backup` scope; `rental backup --url` calls it.",
        access: Access::Backup,
        parameters: &["RequestId"],
        body: None,
        success: Success::Text("application/x-ndjson", "The backup file."),
        errors: &[],
    },
];

/// The document's `paths`: every operation of [`OPERATIONS`] under its path.
pub(super) fn paths() -> Value {
    let mut paths = Map::new();
    for op in OPERATIONS {
        let item = paths.entry(op.path).or_insert_with(|| json!({}));
        item[op.method.to_lowercase()] = operation(op);
    }
    Value::Object(paths)
}

fn operation(op: &Operation) -> Value {
    let security = match op.access {
        Access::Public => json!([]),
        Access::Read => scope("read"),
        Access::Write => scope("write"),
        Access::Metrics => scope("metrics"),
        Access::Backup => scope("backup"),
    };
    let mut value = json!({
        "operationId": op.id,
        "tags": [op.tag],
        "summary": op.summary,
        "description": op.description,
        "security": security,
        "parameters": op.parameters.iter().map(|name| param(name)).collect::<Vec<_>>(),
        "responses": responses(op),
    });
    if let Some(body) = op.body {
        let mut media = Map::from_iter([("schema".to_owned(), schema(body))]);
        media.extend(request_examples(body));
        value["requestBody"] = json!({"required": true, "content": {"application/json": media}});
    }
    value
}

fn responses(op: &Operation) -> Value {
    let mut all = Map::new();
    match op.success {
        Success::Json(status, description, name) => {
            all.insert(status.to_string(), json_response(description, name));
        }
        Success::Created => {
            all.insert("201".to_owned(), created());
        }
        Success::BlockCreated => {
            let mut response =
                json_response("Created: the nights are closed; availability reports them `blocked`.", "Block");
            response["headers"]["Location"] = header_ref("Location");
            all.insert("201".to_owned(), response);
        }
        Success::NoContent(description) => {
            let response = json!({"description": description, "headers": {"X-Request-Id": header_ref("XRequestId")}});
            all.insert("204".to_owned(), response);
        }
        Success::Calendar => {
            all.extend(calendar());
        }
        Success::Text(media, description) => {
            let response = json!({
                "description": description,
                "headers": {"X-Request-Id": header_ref("XRequestId")},
                "content": {media: {"schema": {"type": "string"}}},
            });
            all.insert("200".to_owned(), response);
        }
        Success::Resent => {
            let mut response = json_response("Accepted: the new message, scheduled now.", "MessageView");
            response["content"]["application/json"]["schema"] =
                json!({"anyOf": [schema("MessageView"), schema("MessageAccepted")]});
            all.insert("202".to_owned(), response);
        }
        Success::Updated => {
            all.insert("200".to_owned(), json_response("The booking after the action.", "Booking"));
            let description = "Done, for a key without the `read` scope: it may change a booking but not \
                read it, so no guest details or door code are sent.";
            let response = json!({"description": description, "headers": {"X-Request-Id": header_ref("XRequestId")}});
            all.insert("204".to_owned(), response);
        }
    }
    let authenticated = if matches!(op.access, Access::Public) { &[][..] } else { AUTHENTICATED };
    let body = if op.body.is_some() { WITH_BODY } else { &[][..] };
    for name in authenticated.iter().chain(body).chain(op.errors) {
        all.insert(status_of(name).to_string(), json!({"$ref": format!("#/components/responses/{name}")}));
    }
    Value::Object(all)
}

/// A success response with `X-Request-Id` and a JSON body of schema `name`.
fn json_response(description: &str, name: &str) -> Value {
    let mut media = json!({"schema": if name.is_empty() { json!({"type": "object"}) } else { schema(name) }});
    if let Some(example) = response_example(name) {
        media["example"] = example;
    }
    json!({
        "description": description,
        "headers": {"X-Request-Id": header_ref("XRequestId")},
        "content": {"application/json": media},
    })
}

fn created() -> Value {
    let mut response = json_response(
        "Created: a `pending`, `unpaid` booking that holds its nights; `booking.created` is emitted. A replay \
            of an `Idempotency-Key` returns the first booking again, also 201.",
        "Booking",
    );
    response["headers"]["Location"] = header_ref("Location");
    response["headers"]["Idempotent-Replayed"] = header_ref("IdempotentReplayed");
    response
}

fn calendar() -> Map<String, Value> {
    let etag = |description: &str| json!({"schema": {"type": "string"}, "description": description});
    let ok = json!({
        "description": "The calendar.",
        "headers": {"ETag": etag("Changes when the calendar does."), "X-Request-Id": header_ref("XRequestId")},
        "content": {"text/calendar": {"schema": {"type": "string"}}},
    });
    let not_modified = json!({
        "description": "Not changed since the `ETag` sent in `If-None-Match`.",
        "headers": {"ETag": etag("The calendar's `ETag`."), "X-Request-Id": header_ref("XRequestId")},
    });
    Map::from_iter([("200".to_owned(), ok), ("304".to_owned(), not_modified)])
}
