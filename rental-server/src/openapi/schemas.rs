//! The schemas still written by hand: the list envelopes and the problem body
//! (everything else is generated from the Rust types in `generated`).

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

pub(super) fn slug(description: &str) -> Value {
    json!({"type": "string", "pattern": SLUG_PATTERN, "description": description, "examples": ["sea-view"]})
}

pub(super) const SLUG_PATTERN: &str = "^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$";
pub(super) const SOURCE_PATTERN: &str = "^[a-z0-9_-]{1,32}$";

pub(super) fn property_schemas() -> Map<String, Value> {
    into_map(json!({
        "PropertyList": object("The active properties.", &["data"], json!({
            "data": {"type": "array", "items": schema("Property"), "description": "Ordered by slug."},
        })),
    }))
}

pub(super) fn block_schemas() -> Map<String, Value> {
    into_map(json!({
        "BlockList": object("A property's blocks.", &["data"], json!({
            "data": {"type": "array", "items": schema("Block"), "description": "Ordered by `startDate`, then `id`."},
        })),
    }))
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

pub(super) fn message_schemas() -> Map<String, Value> {
    into_map(json!({
        "MessageList": object("A booking's guest messages.", &["data"], json!({
            "data": {"type": "array", "items": schema("MessageView"), "description": "In the order recorded."},
        })),
        "PaymentList": object("A booking's payments.", &["data"], json!({
            "data": {"type": "array", "items": schema("PaymentView"),
                "description": "Installments by number, then the deposit, then refunds."},
        })),
        "MessageAccepted": object("A message sent again, as a key without the `read` scope sees it: no \
            recipient, subject or error, which are the guest's (a subject may carry a door code).",
            &["id", "kind", "status", "dueAt"], json!({
                "id": string("`msg_` + 12 characters."),
                "kind": schema("MessageKind"),
                "status": schema("MessageStatus"),
                "dueAt": {"type": "string", "format": "date-time", "description": "When it goes out."},
            })),
    }))
}

pub(super) fn checkout_schemas() -> Map<String, Value> {
    into_map(json!({
        "CheckoutRequest": {"type": "object", "additionalProperties": false, "properties": {},
            "description": "Empty (or no body at all): the amount is always the server's, and an `amount` is 422."},
        "CheckoutStarted": object("What the guest's browser needs to save a card with the provider's card form.",
            &["provider", "publishableKey", "setupClientSecret", "amountDueNow", "currency"], json!({
                "provider": {"type": "string", "description": "The provider: `stripe`.", "examples": ["stripe"]},
                "publishableKey": string("The provider's publishable (browser) key."),
                "setupClientSecret": string("Confirm it with Stripe.js `confirmCardSetup`; the same on a repeat \
                    until a card is saved with it."),
                "amountDueNow": {"type": "integer", "minimum": 0, "description": "What `checkout/complete` will \
                    hold or charge, in the currency's minor unit."},
                "currency": string("ISO 4217."),
            })),
        "RefundRequest": object("A goodwill refund.", &["amount"], json!({
            "amount": {"type": "integer", "minimum": 1, "description": "In the booking currency's minor unit; \
                at most what was paid and not refunded."},
            "reason": {"type": "string", "maxLength": 500, "description": "Why, kept on the refund records \
                (`goodwill` when left out)."},
        })),
        "CheckoutResult": object("The payment made with the saved card.", &["status"], json!({
            "status": {"type": "string", "enum": ["authorized", "succeeded", "requires_action", "failed"],
                "description": "`authorized`: a hold (a request); `succeeded`: charged (an instant booking); \
                    `requires_action`: the bank wants the guest, who finishes with Stripe.js \
                    `confirmCardPayment(clientSecret)`; `failed`: refused, try again."},
            "clientSecret": string("With `requires_action` only."),
            "error": string("With `failed` only: why."),
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
                    `unsupported_media_type`, `validation_failed`, `promo_code`, `idempotency_key_reused`, `rate_limited`, \
                    `internal`, `unavailable`, `payments_not_configured`, `payment_failed`, `invalid_signature`; before any operation, `bad_request`, `uri_too_long`, \
                    `headers_too_large`.", "examples": ["dates_unavailable"]},
                "detail": string("A sentence for people; do not parse it."),
                "errors": {"type": "array", "items": schema("FieldError"), "minItems": 1,
                    "description": "The fields at fault; only present where fields are at fault."},
                "checks": {"type": "object", "additionalProperties": {"type": "string"},
                    "description": "`/readyz` only: each check (`store`, `schema`, `shutdown`), `ok` or what                     failed (`unavailable`, `failed`, `shutting down`, ...).",
                    "examples": [{"store": "unavailable", "schema": "unknown", "shutdown": "ok"}]},
            })),
        "FieldError": object("One field at fault.", &["field", "code", "message"], json!({
            "field": {"type": "string", "description": "The field's JSON name (`checkIn`), query parameter \
                (`limit`) or header (`Idempotency-Key`).", "examples": ["checkOut"]},
            "code": {"type": "string", "description": "Stable: `invalid`, `invalid_date`, `invalid_range`, \
                `invalid_email`, `invalid_parameter`, `min_nights`, `max_nights`, `max_guests`, `past_dates`, \
                `check_in_day`, `check_out_day`, `advance_notice`, `beyond_horizon`, `max_pets`, `promo_code`, ...",
                "examples": ["invalid_range"]},
            "message": string("A sentence for people."),
        })),
    }))
}
