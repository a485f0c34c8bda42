//! The booking endpoints of the route table: quotes, bookings and their guest
//! messages, each row with its handler and OpenAPI operation.

use http::Method;
use rental_core::Store;
use rental_core::keys::Scope;

use super::{Endpoint, Table};
use crate::openapi::{Operation, Success};
use crate::{handlers, messages};

impl<S: Store + 'static> Table<S> {
    /// Quotes, bookings and their guest messages.
    pub(super) const BOOKINGS: &'static [Endpoint<S>] = &[
        Endpoint {
            method: Method::POST,
            path: "/api/v1/quotes",
            scope: Some(Scope::Read),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    handlers::quote(c.rental(), &body).await
                })
            },
            operation: Operation {
                id: "createQuote",
                tag: "Quotes",
                summary: "Price a stay",
                description: "Prices a stay and checks whether it can be booked. A well-formed stay that cannot \
                    be booked (taken nights, too short or long, too many guests, in the past) is still a 200, \
                    priced, with `available: false` and its `problems`. Dates out of order, a stay over 366 \
                    nights or guests outside 1 to 100 are 422; an unknown or inactive property is 404. Nothing \
                    is held: book with `POST /api/v1/bookings`. Needs the `read` scope.",
                parameters: &["RequestId"],
                body: Some("QuoteRequest"),
                success: Success::Json(200, "The quote.", "Quote"),
                errors: &["NotFound", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/bookings",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::list_bookings(c.rental(), c.query(), &c.linker()).await }),
            operation: Operation {
                id: "listBookings",
                tag: "Bookings",
                summary: "List bookings",
                description: "Bookings of every status unless filtered, ordered by `checkIn`, then `code`, one \
                    page at a time. To read every page, repeat the request with `cursor` set to the previous \
                    page's `nextCursor` until it is null. Pollers pass `updatedSince` with the time of their last \
                    poll. A malformed or empty filter, or `limit` outside 1 to 200, is 400 `invalid_parameter`. Needs the \
                    `read` scope.",
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
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/bookings",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    handlers::create_booking(c.rental(), c.headers(), &body, (c.key_id(), c.reader()), &c.linker())
                        .await
                })
            },
            operation: Operation {
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
                parameters: &["IdempotencyKey", "RequestId"],
                body: Some("NewBooking"),
                success: Success::Created,
                errors: &["NotFound", "DatesUnavailable", "BookingUnprocessable"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/bookings/{code}",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::get_booking(c.rental(), c.param("code"), &c.linker()).await }),
            operation: Operation {
                id: "getBooking",
                tag: "Bookings",
                summary: "Get a booking",
                description: "One booking by its code, whatever its status. Unknown codes are 404. Needs the `read` scope.",
                parameters: &["Code", "RequestId"],
                body: None,
                success: Success::Json(200, "The booking.", "Booking"),
                errors: &["NotFound"],
            },
        },
        Endpoint {
            method: Method::PATCH,
            path: "/api/v1/bookings/{code}",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    let linker = c.reader().then(|| c.linker());
                    crate::payments::settle::patch_booking(c.state(), c.param("code"), &body, linker.as_ref()).await
                })
            },
            operation: Operation {
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
                parameters: &["Code", "RequestId"],
                body: Some("BookingAction"),
                success: Success::Updated,
                errors: &["NotFound", "InvalidTransition", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/bookings/{code}/stay-link",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    let linker = c.reader().then(|| c.linker());
                    crate::stay::api::rotate(c.rental(), c.param("code"), &body, linker.as_ref()).await
                })
            },
            operation: Operation {
                id: "rotateStayLink",
                tag: "Bookings",
                summary: "Make a new stay page link",
                description: "With `{\"action\": \"rotate\"}`: signs the booking's stay page anew. The \
                    old `stayUrl` answers 404 from that moment, on every server sharing the database; the \
                    answer carries the new one. Use it when a link reached someone it should not have. Any \
                    other body is 422. Needs the `write` scope; a key without `read` gets `204 No Content` \
                    (it may rotate a link but not read one).",
                parameters: &["Code", "RequestId"],
                body: Some("StayLinkAction"),
                success: Success::Updated,
                errors: &["NotFound", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/bookings/{code}/check-in",
            scope: Some(Scope::Read),
            handler: |c| {
                Box::pin(async move { crate::stay::check_in_api::get(c.rental(), c.param("code"), c.guests()).await })
            },
            operation: Operation {
                id: "getBookingCheckIn",
                tag: "Bookings",
                summary: "What the guest gave on the check-in form",
                description: "The stay page's online check-in (the property's `checkInForm`): when the guest \
                    last sent it (`givenAt`, null while they have not) and each field they gave (`email`, which \
                    also became the booking's `guestEmail`, `phone`, `arrivalTime`, `guestNames`, `address`). \
                    `documentNumber` is written only to a key that also has the `guests` scope; `documentGiven` \
                    says to any key whether one is kept. It is deleted 30 days after check-out \
                    (`documentDeletedAt`); the rest stays. Needs the `read` scope.",
                parameters: &["Code", "RequestId"],
                body: None,
                success: Success::Json(200, "The booking's check-in.", "CheckIn"),
                errors: &["NotFound"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/bookings/{code}/payments",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { crate::ledger::list(c.rental(), c.param("code")).await }),
            operation: Operation {
                id: "listBookingPayments",
                tag: "Bookings",
                summary: "A booking's payments",
                description: "The booking's ledger: every movement of money, installments by `number`, then the \
                    deposit, then refunds. An installment is `scheduled` until its `dueAt` (N days before check-in \
                    at `checkInTime` in the property's zone), `due` when it is to be paid now, `authorized` while a \
                    card hold is in place, `succeeded` once paid, `failed` when the provider refused it (`error`), \
                    `canceled` when the booking was cancelled or changed first. A deposit is `authorized` while held, \
                    then `released` or `claimed`. A refund is `due` until issued, then `succeeded`. `providerRef` is \
                    the payment provider's id of the movement. A booking imported from a channel, or made before \
                    payments, has none. Needs the `read` scope.",
                parameters: &["Code", "RequestId"],
                body: None,
                success: Success::Json(200, "The booking's payments.", "PaymentList"),
                errors: &["NotFound"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/bookings/{code}/messages",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { messages::list(c.rental(), c.param("code")).await }),
            operation: Operation {
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
                parameters: &["Code", "RequestId"],
                body: None,
                success: Success::Json(200, "The booking's messages.", "MessageList"),
                errors: &["NotFound"],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/bookings/{code}/messages",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    messages::resend(c.rental(), c.param("code"), &body, c.reader()).await
                })
            },
            operation: Operation {
                id: "resendBookingMessage",
                tag: "Bookings",
                summary: "Send a guest message again",
                description: "Records a new message of `kind` for the booking, due now, and answers 202 with it; \
                    the server sends it within a second or so, with its own `Message-ID`. The wording is rendered \
                    when it is sent, from the booking as it is then. 409 `cannot_send` when the booking has no guest \
                    e-mail, for `check_in_instructions` and `check_out_reminder` of a booking that is not \
                    confirmed, and for `host_request` without `hostEmail`; an unknown kind is 422. Needs the `write` scope; \
                    a key without `read` gets only the message's `id`, `kind`, `status` and `dueAt`.",
                parameters: &["Code", "RequestId"],
                body: Some("ResendRequest"),
                success: Success::Resent,
                errors: &["NotFound", "ValidationFailed", "CannotSend"],
            },
        },
    ];
}
