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
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState as LedgerState};
use rental_core::{Booking, DateTime, Error, PaymentStatus, Rental, Status, Store, Utc};
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

/// What a checkout pays now, on-session with a card the guest saves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DueNow {
    /// The sum, in the currency's minor unit.
    pub amount: i64,
    /// The installments it pays (their ids); none for a booking made before payments.
    pub covers: Vec<String>,
    /// For a confirmed booking's installments: the first one's idempotency key (see
    /// [`Checkout::movement_key`]); `None` for the first payment of a pending booking.
    pub movement_key: Option<String>,
}

/// What the guest can pay now: a pending, unpaid booking's first payment (the installments
/// due, the first and any whose instant has come; for a booking made before payments, no
/// ledger, its total), or a confirmed booking's installments whose instant has come, not yet
/// charged or refused (the stay page's way to pay a refused off-session charge before its
/// grace ends). `None`
/// when nothing is: the checkout is then 409 `invalid_transition`.
pub(crate) fn due_now(booking: &Booking, records: &[PaymentRecord], now: DateTime<Utc>) -> Option<DueNow> {
    let first = booking.status == Status::Pending && booking.payment_status == PaymentStatus::Unpaid;
    let later = booking.status == Status::Confirmed
        && !booking.is_channel_owned()
        && booking.payment_status != PaymentStatus::External;
    if !first && !later {
        return None;
    }
    if records.is_empty() {
        return first.then(|| DueNow { amount: booking.total, covers: Vec::new(), movement_key: None });
    }
    let due: Vec<&PaymentRecord> = records
        .iter()
        .filter(|r| r.kind == PaymentKind::Installment)
        // Unpaid and its instant come: a scheduled one the server has not charged yet is due too.
        .filter(|r| matches!(r.status, LedgerState::Due | LedgerState::Failed | LedgerState::Scheduled))
        .filter(|r| r.due_at.is_none_or(|at| at <= now))
        .collect();
    let head = due.first()?;
    Some(DueNow {
        amount: due.iter().map(|r| r.amount).sum(),
        covers: due.iter().map(|r| r.id.clone()).collect(),
        movement_key: later.then(|| head.idempotency_key.clone()),
    })
}

/// 409 `invalid_transition`: nothing can be paid now.
fn nothing_due(booking: &Booking) -> Problem {
    Problem::from(Error::InvalidTransition {
        from: booking.status,
        action: "checkout",
        channel_owned: booking.is_channel_owned(),
    })
}

/// `POST .../checkout`: the card-saving intent for the guest's browser, the same one on a
/// repeat until a card is saved with it.
pub async fn start<S: Store + 'static>(state: &Arc<AppState<S>>, code: String, body: &[u8]) -> Reply {
    let provider = provider(state)?;
    check_body(body)?;
    let rental = state.rental();
    let (booking, records, instant) = blocking(rental, {
        let code = code.clone();
        move |r| {
            let booking = r.booking(&code)?;
            let instant = r.property(booking.property.as_str())?.payments.instant_booking;
            Ok((booking, r.payments(&code)?, instant))
        }
    })
    .await?;
    let due = due_now(&booking, &records, rental.now()).ok_or_else(|| nothing_due(&booking))?;
    let amount = due.amount;
    let existing = blocking(rental, move |r| r.checkout_of(&code)).await?;
    let checkout = match existing {
        Some(checkout) if unused(provider.as_ref(), &checkout).await? => checkout,
        _ => new_setup(rental, provider.as_ref(), &booking, Plan::of(&booking, due, instant)).await?,
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
/// A new checkout is saved with its first attempt begun for `plan`, so that `complete` can
/// ask the provider at once (see [`begun`]).
async fn new_setup<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    booking: &Booking,
    plan: Plan,
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
    // Only the card-saving intent is new for an existing checkout: the card saved before
    // still serves the later installments until another is saved, and the last attempt stays
    // as it was.
    let checkout = if let Some(mut previous) = existing {
        (previous.setup, previous.setup_client_secret) = (setup.id, setup.client_secret);
        previous.updated_at = now;
        previous
    } else {
        let mut checkout = Checkout::new(booking.code.clone(), provider.name(), &setup, now);
        begin(&mut checkout, plan);
        checkout
    };
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
    let (booking, checkout, instant, records) = blocking(rental, move |r| {
        let booking = r.booking(&code)?;
        let instant = r.property(booking.property.as_str())?.payments.instant_booking;
        Ok((booking, r.checkout_of(&code)?, instant, r.payments(&code)?))
    })
    .await?;
    let Some(mut checkout) = checkout else {
        return Err(Problem::from(Error::InvalidTransition {
            from: booking.status,
            action: "checkout/complete",
            channel_owned: false,
        }));
    };
    let due = due_now(&booking, &records, rental.now());
    // A repeat answers with the attempt's payment as it is now: one still open (a refusal
    // since, such as a failed 3-D Secure, is recorded and answered, not tried again at once),
    // or the last one when nothing is due; a confirmed booking's earlier payment, settled,
    // does not answer for an installment refused since.
    if let Some(id) = checkout.payment.clone().filter(|_| due.is_none() || !checkout.settled) {
        let payment = within(deadline, provider.payment(&id)).await.map_err(|e| failed(&e))?;
        if payment.state != PaymentState::Failed || !checkout.settled {
            record(rental, &checkout, &payment).await?;
            return Ok(answer(&payment));
        }
    }
    let due = due.ok_or_else(|| nothing_due(&booking))?;
    let amount = due.amount;
    let plan = Plan::of(&booking, due, instant);
    let setup = within(deadline, provider.card_setup(&checkout.setup)).await.map_err(|e| failed(&e))?;
    let Some(card) = setup.card.filter(|_| setup.state == SetupState::Saved) else {
        let body = json!({"status": "failed", "error": "no card is saved yet: confirm the card form first"});
        return Ok(json(StatusCode::OK, &body));
    };
    // The attempt's key is stored before the provider is asked: if the answer is lost (a
    // crash), reconciliation finds the payment by it. An attempt begun and not answered (the
    // one `checkout` began, or one whose answer was lost) is asked again under its own key,
    // without a write of its own: the provider gives the payment it made, if any.
    if !begun(&checkout, &plan, &card) {
        begin(&mut checkout, plan);
        checkout.card = Some(card.clone());
        let saved = checkout.clone();
        blocking(rental, move |r| r.save_checkout(&saved)).await?;
    }
    checkout.card = Some(card.clone());
    let mut request = ChargeRequest::new(amount, &booking.currency, &checkout.customer, card, checkout.payment_key());
    request.hold = checkout.hold;
    request.session = Session::On;
    request.metadata = metadata(&booking);
    let payment = within(deadline, provider.charge(request)).await.map_err(|e| failed(&e))?;
    checkout.payment = Some(payment.id.clone());
    record(rental, &checkout, &payment).await?;
    Ok(answer(&payment))
}

/// How the payment due now is made: what it pays and with which key, hold or charge.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plan {
    covers: Vec<String>,
    movement_key: Option<String>,
    hold: bool,
}

impl Plan {
    /// The plan for `due`: a request's first payment is a hold, captured when the host
    /// confirms; an instant booking's, and a confirmed booking's later installment, a charge.
    fn of(booking: &Booking, due: DueNow, instant: bool) -> Plan {
        Plan { covers: due.covers, movement_key: due.movement_key, hold: !instant && booking.status == Status::Pending }
    }
}

/// Begins the checkout's next attempt for `plan`: a new key, nothing paid yet.
fn begin(checkout: &mut Checkout, plan: Plan) {
    checkout.attempts += 1;
    checkout.payment = None;
    checkout.settled = false;
    (checkout.covers, checkout.movement_key, checkout.hold) = (plan.covers, plan.movement_key, plan.hold);
}

/// Whether the checkout's current attempt is begun (stored) for this plan and card and has
/// no payment recorded: asking the provider again under its key cannot pay twice.
fn begun(checkout: &Checkout, plan: &Plan, card: &str) -> bool {
    checkout.attempts > 0
        && checkout.payment.is_none()
        && !checkout.settled
        && checkout.card.as_deref().is_none_or(|saved| saved == card)
        && (&checkout.covers, &checkout.movement_key, checkout.hold) == (&plan.covers, &plan.movement_key, plan.hold)
}

/// What `payment`'s state means for the booking, recorded with the checkout.
pub(crate) async fn record<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    checkout: &Checkout,
    payment: &Payment,
) -> Result<Booking, Problem> {
    let outcome = outcome(checkout, payment);
    let mut checkout = checkout.clone();
    // A payment that can no longer move leaves nothing to reconcile.
    checkout.settled |=
        matches!(payment.state, PaymentState::Succeeded | PaymentState::Canceled | PaymentState::Failed);
    blocking(rental, move |r| r.record_checkout(&checkout, &outcome)).await
}

/// The booking's side of a payment's state.
pub(crate) fn outcome(checkout: &Checkout, payment: &Payment) -> CheckoutOutcome {
    match payment.state {
        PaymentState::Authorized => CheckoutOutcome::Held,
        PaymentState::Succeeded if checkout.hold => CheckoutOutcome::Captured,
        PaymentState::Succeeded => CheckoutOutcome::Paid,
        PaymentState::Canceled => CheckoutOutcome::Released,
        PaymentState::Failed => CheckoutOutcome::Failed {
            error: payment.error.clone().unwrap_or_else(|| "the payment was not made".to_owned()),
        },
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
