//! The shared components: query, path and header parameters, response
//! headers, and one reusable response per problem `code`.

use serde_json::{Map, Value, json};

use super::schemas::{SLUG_PATTERN, SOURCE_PATTERN, slug};
use super::{header_ref, schema};

fn query_param(name: &str, description: &str, schema: Value) -> Value {
    let mut parameter = json!({"name": name, "in": "query", "required": false, "description": description});
    parameter["schema"] = schema;
    parameter
}

pub(super) fn parameters() -> Value {
    json!({
        "Slug": {"name": "slug", "in": "path", "required": true, "description": "The property's slug.",
            "schema": slug("The property's slug.")},
        "Code": {"name": "code", "in": "path", "required": true, "description": "The booking's code.",
            "schema": {"type": "string", "examples": ["BK-7QX2MF"]}},
        "BlockId": {"name": "id", "in": "path", "required": true, "description": "The block's id.",
            "schema": {"type": "string", "examples": ["blk_7QX2MF4H8KPA"]}},
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
        "Exclude": query_param("exclude", "A feed name (for example `airbnb`) whose imported stays and blocks \
            are left out.", json!({"type": "string"})),
        "IfNoneMatch": {"name": "If-None-Match", "in": "header", "required": false,
            "description": "The `ETag` of a copy you have.", "schema": {"type": "string"}},
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

pub(super) fn headers() -> Value {
    let header = |description: &str, schema: Value| json!({"description": description, "schema": schema});
    let always =
        |description: &str, schema: Value| json!({"description": description, "required": true, "schema": schema});
    json!({
        "XRequestId": always("The request's id: the client's `X-Request-Id`, or a new one. Logged with the \
            request.", json!({"type": "string"})),
        "Location": always("The new resource's URL: `/api/v1/bookings/{code}` for a booking, \
            `/api/v1/properties/{slug}/blocks/{id}` for a block.",
            json!({"type": "string", "format": "uri-reference"})),
        "IdempotentReplayed": header("`true` when this is the replay of an earlier request with the same \
            `Idempotency-Key`; absent otherwise.", json!({"type": "string", "enum": ["true"]})),
        "RetryAfter": always("Seconds to wait before retrying.", json!({"type": "integer", "minimum": 1})),
        "WwwAuthenticate": always("The challenge: `Bearer realm=\"rental\"`.", json!({"type": "string"})),
        "Allow": always("The methods the path supports, comma-separated.", json!({"type": "string"})),
    })
}

/// A problem response: its component name, status, description, the headers
/// it carries (name, component) and an example detail per `code` it can carry.
type ProblemResponse =
    (&'static str, u16, &'static str, &'static [(&'static str, &'static str)], &'static [(&'static str, &'static str)]);

/// One reusable response per problem.
const PROBLEMS: &[ProblemResponse] = &[
    (
        "InvalidJson",
        400,
        "The body is not valid JSON, or not a JSON object.",
        &[],
        &[("invalid_json", "the body is not valid JSON: EOF while parsing an object at line 1 column 1")],
    ),
    (
        "InvalidParameter",
        400,
        "A query parameter is malformed (an empty value included); `errors` names it.",
        &[],
        &[("invalid_parameter", "query parameter limit: 500 is not from 1 to 200")],
    ),
    (
        "Unauthorized",
        401,
        "The API key is missing, unknown, malformed or revoked.",
        &[("WWW-Authenticate", "WwwAuthenticate")],
        &[("unauthorized", "send an API key as Authorization: Bearer <key>")],
    ),
    (
        "Forbidden",
        403,
        "The key is valid but lacks the scope this operation needs.",
        &[],
        &[("insufficient_scope", "this key lacks the write scope")],
    ),
    (
        "NotFound",
        404,
        "The property (unknown or inactive), booking or block does not exist.",
        &[],
        &[("not_found", "property sea-vew not found")],
    ),
    (
        "MethodNotAllowed",
        405,
        "The path exists but not with this method; `Allow` lists its methods.",
        &[("Allow", "Allow")],
        &[("method_not_allowed", "DELETE is not allowed here; use GET, POST")],
    ),
    (
        "DatesUnavailable",
        409,
        "Some nights of the stay are already held, booked or blocked. Nothing about \
        the other bookings is disclosed.",
        &[],
        &[("dates_unavailable", "dates unavailable: 2026-12-24")],
    ),
    (
        "InvalidTransition",
        409,
        "The action is not allowed from the booking's state, or the booking or block is \
        owned by its channel feed.",
        &[],
        &[("invalid_transition", "cannot confirm a booking that is cancelled")],
    ),
    (
        "CannotSend",
        409,
        "This kind of guest message cannot be sent for the booking as it is: it has no guest e-mail, \
        the kind is timed and the stay is not confirmed, or `host_request` without `hostEmail`.",
        &[],
        &[("cannot_send", "cannot send check_in_instructions: it is sent for confirmed stays only")],
    ),
    (
        "PaymentsNotConfigured",
        409,
        "No payment provider is configured on this server: no money moves through it.",
        &[],
        &[("payments_not_configured", "no payment provider is configured on this server")],
    ),
    (
        "PayloadTooLarge",
        413,
        "The body is over 64 KiB.",
        &[],
        &[("payload_too_large", "bodies are at most 65536 bytes")],
    ),
    (
        "UnsupportedMediaType",
        415,
        "The body is not sent as `application/json`.",
        &[],
        &[("unsupported_media_type", "send the body as Content-Type: application/json")],
    ),
    (
        "ValidationFailed",
        422,
        "Well-formed JSON that breaks a rule; `errors` lists the fields.",
        &[],
        &[("validation_failed", "validation failed: checkOut: checkOut must be after checkIn")],
    ),
    (
        "BookingUnprocessable",
        422,
        "The request breaks a rule (`validation_failed`, with `errors`: each stay rule the stay \
        breaks, under the quote problem's code), its promo code cannot be used and nothing else is \
        wrong (`promo_code`, whose one error's `code` is the reason: `unknown`, `not_yet_valid`, \
        `expired`, `used_up`, `stay_dates`, `min_nights`), or its `Idempotency-Key` was used before \
        with a different body (`idempotency_key_reused`).",
        &[],
        &[
            ("validation_failed", "validation failed: guests: at most 4 guests"),
            ("promo_code", "the promo code cannot be used: used_up"),
            ("idempotency_key_reused", "idempotency key was already used with a different request"),
        ],
    ),
    (
        "RateLimited",
        429,
        "Too many requests for this key; wait `Retry-After` seconds.",
        &[("Retry-After", "RetryAfter")],
        &[("rate_limited", "too many requests for this key; slow down")],
    ),
    (
        "Internal",
        500,
        "Something unexpected; logged under the `X-Request-Id`. The body says nothing more.",
        &[],
        &[("internal", "an unexpected error occurred; it has been logged")],
    ),
    (
        "PaymentFailed",
        502,
        "The payment provider refused the movement (a capture, a charge); nothing changed here.",
        &[],
        &[("payment_failed", "the payment provider refused: card declined: Your card was declined.")],
    ),
    (
        "Unavailable",
        503,
        "The server is shutting down or its storage is unavailable; retry after \
        `Retry-After` seconds.",
        &[("Retry-After", "RetryAfter")],
        &[("unavailable", "the server is shutting down")],
    ),
];

/// The status of the problem response `name` of [`PROBLEMS`].
pub(super) fn status_of(name: &str) -> u16 {
    PROBLEMS.iter().find(|p| p.0 == name).map_or(500, |p| p.1)
}

/// The `#/components/responses/`: one per problem, each with `X-Request-Id`,
/// its own headers, and an example per `code` it can carry.
pub(super) fn problem_responses() -> Value {
    let all = PROBLEMS.iter().map(|(name, status, description, headers, codes)| {
        ((*name).to_owned(), problem(*status, description, headers, codes))
    });
    Value::Object(all.collect())
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
        "promo_code" => Some(json!({"field": "promoCode", "code": "used_up",
            "message": "the promo code cannot be used: used_up"})),
        _ => None,
    }
}
