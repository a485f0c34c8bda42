//! The prose of the document's `info.description`: conventions, errors, and
//! the decisions recorded in docs/API.md where the first interface was silent.

pub(super) const CONVENTIONS: &str = "\
The JSON API of `rental`, a short-term rental booking engine.

## Conventions

- Field names are camelCase. Money is an integer number of US cents. Dates are `YYYY-MM-DD`. \
Timestamps are RFC 3339 in UTC with milliseconds, `2026-11-22T07:39:21.123Z`.
- A night is named by the date it starts on: a stay `checkIn..checkOut` holds the nights from \
`checkIn` up to, not including, `checkOut`.
- Rates given in basis points (`taxRate`, `weeklyDiscount`, `monthlyDiscount`): 1200 = 12 %.
- Send `Authorization: Bearer <key>` on every `/api/v1` request. Keys have the `read` scope, the \
`write` scope, or both; neither implies the other. The key and its scope are checked before the \
body is read, so a read-only key posting a malformed body gets 403, not 400. A key without \
`read` never receives a booking body it did not send: its `PATCH /api/v1/bookings/{code}` is \
`204 No Content`, and its `POST /api/v1/bookings` gets back the booking it sent (code, status, \
total) with `access` null, never a door code.
- Send bodies as `Content-Type: application/json`, at most 64 KiB.
- Every response carries `X-Request-Id`: the one the client sent (1 to 128 visible ASCII \
characters), else a new one. Quote it when reporting a problem.
";

pub(super) const ERRORS: &str = "
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
`invalid_parameter` on any endpoint. A request the server cannot read as HTTP at all is answered \
before any operation, with `Connection: close`: 400 `bad_request` (a malformed request line or \
header), 414 `uri_too_long` (a target over 65,534 bytes), 431 `headers_too_large` (over 100 \
headers).
";

pub(super) const DECISIONS: &str = "
## Decisions where the contract is silent

- A stay is at most 366 nights, the same bound as an availability range; a property's `maxNights` \
is at most that. Seasons may set `maxNights` as well as `minNights`.
- Creating a booking reports broken stay rules (`min_nights`, `max_nights`, `max_guests`, \
`past_dates`) as 422 before taken nights: a request that is both too short and overlapping gets \
the 422.
- Quote `problems` carry a `limit` (`min_nights`, `max_nights`, `max_guests`), the property's \
local `today` (`past_dates`) or the `last` possible check-in (`beyond_horizon`) beside their `code`.
- A cancel `reason` is at most 2000 bytes, like a note: longer is 422.
- Free text (guest names, reasons, block notes, property and season names, feed names \
and patterns, door codes, Wi-Fi names, key names) is one line of printable text: C0 controls \
but tab, DEL, C1 controls (U+0080 to U+009F), the line and paragraph separators (U+2028, \
U+2029) and the bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to \
U+2069) are 422 `validation_failed`, code \
`control_character`, on the field. Text made for paragraphs (a booking's `notes`, an `annotate` \
note, `arrivalNotes`, message bodies) also takes line breaks: CRLF and CR are stored as LF.
- Dates are years 0001 to 9999: `0000-12-20` is refused like any malformed date.
- A manual block may start at most 36 months after the property's today, as a booking may \
(422 `beyond_horizon` on `startDate`).
- A stay checked out (`check_out`, or at `checkOutTime`) cannot be changed: `change` is 409 \
`invalid_transition`.
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
