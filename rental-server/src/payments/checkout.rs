//! `POST /api/v1/bookings/{code}/checkout` and `.../checkout/complete` (docs/API.md section
//! 23): the guest's card saved with the provider's card form, then the server's amount held
//! (a request) or charged (an instant booking) with it, while the guest is there.

use std::collections::BTreeMap;
use std::sync::Arc;

use http::StatusCode;
use rental_core::payment_provider::{
    CardSetup, CardSetupRequest, ChargeRequest, Checkout, CheckoutOutcome, Payment, PaymentProvider, PaymentState,
    Session, SetupState,
};
use rental_core::{Booking, Error, PaymentStatus, Rental, Status, Store};
use serde_json::{Value, json};

use super::provider_call::{deadline, failed, not_configured, within};
use crate::AppState;
use crate::problem::Problem;
use crate::reply::{Reply, blocking, json};

/// The provider, or 409 `payments_not_configured`.
fn provider<S>(state: &AppState<S>) -> Result<Arc<dyn PaymentProvider>, Problem> {
    state.payments.clone().ok_or_else(not_configured)
}

/// The body of either endpoint: empty or a JSON object without fields. An `amount` is 422:
/// the amount is always the server's.
fn check_body(body: &[u8]) -> Result<(), Problem> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let object: serde_json::Map<String, Value> = crate::request::json(body)?;
    if object.contains_key("amount") {
        let message = "the amount is the server's: a client never names it";
        return Err(Problem::from(Error::invalid("amount", "not_allowed", message)));
    }
    match object.keys().next() {
        Some(field) => {
            Err(Problem::from(Error::invalid(field.as_str(), "unknown_field", "is not a field of this request")))
        }
        None => Ok(()),
    }
}

/// What is due now: the booking's total while nothing is paid (the first installment of the
/// default terms); nothing once paid or held.
fn due_now(booking: &Booking) -> Result<i64, Problem> {
    let payable = booking.status == Status::Pending && booking.payment_status == PaymentStatus::Unpaid;
    if !payable {
        return Err(Problem::from(Error::InvalidTransition {
            from: booking.status,
            action: "checkout",
            channel_owned: booking.is_channel_owned(),
        }));
    }
    Ok(booking.total)
}

/// `POST .../checkout`: the card-saving intent for the guest's browser, the same one on a
/// repeat until a card is saved with it.
pub async fn start<S: Store + 'static>(state: &Arc<AppState<S>>, code: String, body: &[u8]) -> Reply {
    let provider = provider(state)?;
    check_body(body)?;
    let rental = state.rental();
    let booking = blocking(rental, {
        let code = code.clone();
        move |r| r.booking(&code)
    })
    .await?;
    let amount = due_now(&booking)?;
    let existing = blocking(rental, move |r| r.checkout_of(&code)).await?;
    let checkout = match existing {
        Some(checkout) if checkout.card.is_none() && unused(provider.as_ref(), &checkout).await? => checkout,
        _ => new_setup(rental, provider.as_ref(), &booking).await?,
    };
    let client = provider.client_config();
    Ok(json(
        StatusCode::OK,
        &json!({
            "provider": provider.name(),
            "publishableKey": client.publishable_key,
            "setupClientSecret": checkout.setup_client_secret,
            "amountDueNow": amount,
            "currency": booking.currency,
        }),
    ))
}

/// Whether the checkout's card-saving intent can still be confirmed: not used for a card
/// (a guest trying another card after a refusal gets a new one) and not cancelled (a card
/// declined when saved cancels it).
async fn unused(provider: &dyn PaymentProvider, checkout: &Checkout) -> Result<bool, Problem> {
    let setup = within(deadline(), provider.card_setup(&checkout.setup)).await.map_err(|e| failed(&e))?;
    Ok(matches!(setup.state, SetupState::NeedsCard | SetupState::RequiresAction))
}

/// A new card-saving intent for the booking's guest (a new customer the first time), saved.
async fn new_setup<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    booking: &Booking,
) -> Result<Checkout, Problem> {
    let existing = {
        let code = booking.code.to_string();
        blocking(rental, move |r| r.checkout_of(&code)).await?
    };
    let mut request = CardSetupRequest::new(&booking.guest_email, &booking.guest_name);
    request.customer = existing.as_ref().map(|c| c.customer.clone());
    request.metadata = metadata(booking);
    let setup: CardSetup = within(deadline(), provider.start_card_setup(request)).await.map_err(|e| failed(&e))?;
    let now = rental.now();
    let mut checkout = Checkout::new(booking.code.clone(), provider.name(), &setup, now);
    if let Some(previous) = existing {
        checkout.attempts = previous.attempts;
    }
    let saved = checkout.clone();
    blocking(rental, move |r| r.save_checkout(&saved)).await?;
    Ok(checkout)
}

/// What every object made for a booking records at the provider.
pub(crate) fn metadata(booking: &Booking) -> BTreeMap<String, String> {
    BTreeMap::from([("booking".to_owned(), booking.code.to_string())])
}

/// `POST .../checkout/complete`: the server's amount held or charged with the saved card.
pub async fn complete<S: Store + 'static>(state: &Arc<AppState<S>>, code: String, body: &[u8]) -> Reply {
    let provider = provider(state)?;
    check_body(body)?;
    let rental = state.rental();
    let deadline = deadline();
    let (booking, checkout, instant) = blocking(rental, move |r| {
        let booking = r.booking(&code)?;
        let instant = r.property(booking.property.as_str())?.payments.instant_booking;
        Ok((booking, r.checkout_of(&code)?, instant))
    })
    .await?;
    let Some(mut checkout) = checkout else {
        return Err(Problem::from(Error::InvalidTransition {
            from: booking.status,
            action: "checkout/complete",
            channel_owned: false,
        }));
    };
    // A repeat after a payment that did not fail answers with that payment, as it is now.
    if let Some(id) = checkout.payment.clone() {
        let payment = within(deadline, provider.payment(&id)).await.map_err(|e| failed(&e))?;
        if payment.state != PaymentState::Failed {
            record(rental, &checkout, &payment).await?;
            return Ok(answer(&payment));
        }
    }
    let amount = due_now(&booking)?;
    let setup = within(deadline, provider.card_setup(&checkout.setup)).await.map_err(|e| failed(&e))?;
    let Some(card) = setup.card.filter(|_| setup.state == SetupState::Saved) else {
        let body = json!({"status": "failed", "error": "no card is saved yet: confirm the card form first"});
        return Ok(json(StatusCode::OK, &body));
    };
    // The attempt's key is stored before the provider is asked: if the answer is lost (a
    // crash), reconciliation finds the payment by it.
    checkout.card = Some(card.clone());
    checkout.attempts += 1;
    checkout.payment = None;
    // A request's payment is a hold, captured when the host confirms; an instant booking's a charge.
    checkout.hold = !instant;
    let saved = checkout.clone();
    blocking(rental, move |r| r.save_checkout(&saved)).await?;
    let mut request = ChargeRequest::new(amount, &booking.currency, &checkout.customer, card, checkout.payment_key());
    request.hold = checkout.hold;
    request.session = Session::On;
    request.metadata = metadata(&booking);
    let payment = within(deadline, provider.charge(request)).await.map_err(|e| failed(&e))?;
    checkout.payment = Some(payment.id.clone());
    record(rental, &checkout, &payment).await?;
    Ok(answer(&payment))
}

/// What `payment`'s state means for the booking, recorded with the checkout.
pub(crate) async fn record<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    checkout: &Checkout,
    payment: &Payment,
) -> Result<Booking, Problem> {
    let outcome = outcome(checkout, payment);
    let checkout = checkout.clone();
    blocking(rental, move |r| r.record_checkout(&checkout, &outcome)).await
}

/// The booking's side of a payment's state.
pub(crate) fn outcome(checkout: &Checkout, payment: &Payment) -> CheckoutOutcome {
    match payment.state {
        PaymentState::Authorized => CheckoutOutcome::Held,
        PaymentState::Succeeded if checkout.hold => CheckoutOutcome::Captured,
        PaymentState::Succeeded => CheckoutOutcome::Paid,
        PaymentState::Canceled => CheckoutOutcome::Released,
        PaymentState::Failed => CheckoutOutcome::Failed,
        _ => CheckoutOutcome::Pending,
    }
}

/// The answer of `checkout/complete`.
fn answer(payment: &Payment) -> http::Response<http_body_util::Full<bytes::Bytes>> {
    let status = match payment.state {
        PaymentState::Authorized => "authorized",
        PaymentState::Succeeded => "succeeded",
        PaymentState::RequiresAction | PaymentState::Processing => "requires_action",
        _ => "failed",
    };
    let mut body = json!({"status": status});
    if status == "requires_action" {
        body["clientSecret"] = json!(payment.client_secret);
    }
    if status == "failed" {
        body["error"] = json!(payment.error.as_deref().unwrap_or("the payment was not made"));
    }
    json(StatusCode::OK, &body)
}
