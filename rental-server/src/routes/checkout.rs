//! The payment endpoints of the route table (docs/API.md section 23): a booking's checkout
//! for an embedder's own page, and the provider's webhook.

use http::Method;
use rental_core::Store;
use rental_core::keys::Scope;

use super::{Endpoint, Table};
use crate::openapi::{Operation, Success};
use crate::payments::{checkout, refunds, webhook};

impl<S: Store + 'static> Table<S> {
    /// Checkout and the provider's webhook.
    pub(super) const CHECKOUT: &'static [Endpoint<S>] = &[
        Endpoint {
            method: Method::POST,
            path: "/api/v1/bookings/{code}/checkout",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    checkout::start(c.state(), c.param("code"), &body).await
                })
            },
            operation: Operation {
                id: "startCheckout",
                tag: "Payments",
                summary: "Start paying for a booking",
                description: "For an embedder's own checkout page: the provider's card-saving intent for the \
                    guest's browser (`setupClientSecret`, confirmed with Stripe.js `confirmCardSetup` and the \
                    `publishableKey`), and `amountDueNow`, what `checkout/complete` will hold or charge. A repeat \
                    gives the same intent until a card is saved with it. The body is empty or `{}`: an `amount` is \
                    422 `validation_failed` (the amount is always the server's). A booking that is not pending and \
                    unpaid is 409 `invalid_transition`; without a provider, 409 `payments_not_configured`; a provider \
                    that does not answer, 503. Needs the `write` scope.",
                parameters: &["Code", "RequestId"],
                body: Some("CheckoutRequest"),
                success: Success::Json(200, "What the card form needs.", "CheckoutStarted"),
                errors: &[
                    "NotFound",
                    "InvalidTransition",
                    "PaymentsNotConfigured",
                    "PaymentFailed",
                    "ValidationFailed",
                ],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/bookings/{code}/checkout/complete",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    checkout::complete(c.state(), c.param("code"), &body).await
                })
            },
            operation: Operation {
                id: "completeCheckout",
                tag: "Payments",
                summary: "Pay for a booking with the card just saved",
                description: "Once the guest's browser confirmed the card: the server holds (a request; captured \
                    when the host confirms, released if it is cancelled, declined or lapses) or charges (an \
                    instant booking, then confirmed) `amountDueNow` with the saved card. `authorized` makes the \
                    booking's payment `authorized` (`booking.payment_authorized`); `requires_action` means the bank \
                    wants the guest, who finishes with Stripe.js `confirmCardPayment(clientSecret)`, then calls \
                    this again; `failed` (with `error`) leaves the booking as it was, and the guest may try another \
                    card. A repeat after a payment that did not fail answers with that payment as it is now and \
                    never pays twice. An `amount` is 422; before `checkout`, 409 `invalid_transition`; without a \
                    provider, 409 `payments_not_configured`. Needs the `write` scope.",
                parameters: &["Code", "RequestId"],
                body: Some("CheckoutRequest"),
                success: Success::Json(200, "The payment.", "CheckoutResult"),
                errors: &[
                    "NotFound",
                    "InvalidTransition",
                    "PaymentsNotConfigured",
                    "PaymentFailed",
                    "ValidationFailed",
                ],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/bookings/{code}/refunds",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    refunds::goodwill(c.state(), c.param("code"), &body).await
                })
            },
            operation: Operation {
                id: "createRefund",
                tag: "Payments",
                summary: "Give money back",
                description: "A goodwill refund of `amount` (the booking currency's minor unit), issued through the \
                    provider from the booking's payments before answering with the refund records it made \
                    (`succeeded`, or `due` while the provider does not answer: retried with the same idempotency \
                    key). More than was paid and not refunded is 422 `validation_failed` on `amount`, and nothing is \
                    refunded; without a provider, 409 `payments_not_configured`. Needs the `write` scope.",
                parameters: &["Code", "RequestId"],
                body: Some("RefundRequest"),
                success: Success::Json(201, "The refunds made.", "PaymentList"),
                errors: &["NotFound", "PaymentsNotConfigured", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/payments/stripe/webhook",
            scope: None,
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    webhook::receive(c.state(), "stripe", c.headers(), &body).await
                })
            },
            operation: Operation {
                id: "receiveStripeWebhook",
                tag: "Payments",
                summary: "Stripe's events",
                description: "Where Stripe sends its events (no key: the `Stripe-Signature` header, an HMAC-SHA256 of \
                    `{t}.{body}` with the `webhookSecret`, is the credential). A missing, wrong or stale (more than \
                    300 s either way) signature is 400 `invalid_signature` and changes nothing. For an event about \
                    a payment intent the server fetches the intent from Stripe and acts on its status, never on the \
                    event's body; an intent that is not one of ours is acknowledged and ignored, and an event already \
                    handled changes nothing. Stripe that does not answer is 503 (Stripe sends the event again). \
                    Without Stripe configured, 404.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "Received.", ""),
                errors: &["InvalidSignature", "NotFound"],
            },
        },
    ];
}
