//! The host's actions that move the checkout's money (docs/API.md section 23): `confirm`
//! captures the hold before answering (a refusal is 502 `payment_failed` and the booking stays
//! pending); `cancel` releases it after the booking is cancelled (a provider that is down
//! does not stop the cancellation: reconciliation releases it later) and issues the refund
//! the cancellation recorded, shown on the answer as `refund`.

use std::sync::Arc;

use http::StatusCode;
use rental_core::payment_provider::{Checkout, CheckoutOutcome, PaymentProvider, PaymentState};
use rental_core::payments::PaymentKind;
use rental_core::{Action, Booking, Rental, Store};

use super::provider_call::{deadline, failed, within};
use crate::AppState;
use crate::problem::Problem;
use crate::reply::{Reply, blocking, json};
use crate::stay::body::Linker;

/// `PATCH /api/v1/bookings/{code}`: the action, with the checkout's hold captured before a
/// confirmation and released after a cancellation when a provider is configured.
pub async fn patch_booking<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    code: String,
    body: &[u8],
    linker: Option<&Linker<'_>>,
) -> Reply {
    let Some(provider) = state.payments.clone() else {
        return crate::handlers::patch_booking(state.rental(), code, body, linker).await;
    };
    let action: Action = crate::request::json(body)?;
    let rental = state.rental();
    let (current, checkout) = {
        let code = code.clone();
        blocking(rental, move |r| Ok((r.booking(&code)?, r.checkout_of(&code)?))).await?
    };
    // Only a pending booking's hold is captured: any other confirm is refused or a no-op as before.
    let capturable = !matches!(action, Action::Confirm) || current.status == rental_core::Status::Pending;
    let open_hold = checkout.filter(|c| c.hold && c.payment.is_some() && !c.settled && capturable);
    let booking = match (&action, open_hold) {
        (Action::Confirm, Some(checkout)) => capture(rental, provider.as_ref(), checkout).await?,
        (Action::Cancel { .. }, open_hold) => {
            let (before, booking) = blocking(rental, move |r| {
                let before = r.payments(&code)?.iter().filter(|p| p.kind == PaymentKind::Refund).count();
                Ok((before, r.update_booking(&code, &action)?))
            })
            .await?;
            if let Some(checkout) = open_hold {
                release(rental, provider.as_ref(), checkout).await;
            }
            // The policy's refund, recorded with the cancellation, issued before answering.
            let refunds = super::refunds::issue_for_booking(rental, provider.as_ref(), booking.code.as_str()).await;
            let code = booking.code.to_string();
            let booking = blocking(rental, move |r| r.booking(&code)).await?;
            let Some(linker) = linker else { return Ok(crate::handlers::no_content()) };
            let mut body = serde_json::to_value(linker.body(&booking)).unwrap_or_default();
            body["refund"] = super::refunds::cancel_answer(&refunds[before.min(refunds.len())..], &booking.currency);
            return Ok(json(StatusCode::OK, &body));
        }
        _ => blocking(rental, move |r| r.update_booking(&code, &action)).await?,
    };
    match linker {
        Some(linker) => Ok(json(StatusCode::OK, &linker.body(&booking))),
        None => Ok(crate::handlers::no_content()),
    }
}

/// Captures the hold, then confirms the booking with it, in one transaction.
async fn capture<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    mut checkout: Checkout,
) -> Result<Booking, Problem> {
    let id = checkout.payment.clone().unwrap_or_default();
    let key = checkout.settle_key("capture");
    let payment = within(deadline(), provider.capture(&id, None, &key)).await.map_err(|e| failed(&e))?;
    if payment.state != PaymentState::Succeeded {
        let reason = payment.error.unwrap_or_else(|| "the hold could not be captured".to_owned());
        return Err(Problem::new(
            StatusCode::BAD_GATEWAY,
            "payment_failed",
            format!("the payment provider refused: {reason}"),
        ));
    }
    checkout.settled = true;
    blocking(rental, move |r| r.record_checkout(&checkout, &CheckoutOutcome::Captured)).await
}

/// Releases the hold of a booking just cancelled; a failure is logged and left to reconciliation.
pub(crate) async fn release<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    mut checkout: Checkout,
) {
    let id = checkout.payment.clone().unwrap_or_default();
    let key = checkout.settle_key("release");
    match within(deadline(), provider.release(&id, &key)).await {
        Ok(payment) if payment.state == PaymentState::Canceled => {
            checkout.settled = true;
            let booking = checkout.booking.to_string();
            if let Err(problem) =
                blocking(rental, move |r| r.record_checkout(&checkout, &CheckoutOutcome::Released)).await
            {
                tracing::warn!(%booking, detail = %problem.detail, "a released hold was not recorded");
            }
        }
        Ok(payment) => tracing::warn!(booking = %checkout.booking, state = ?payment.state, "a hold was not released"),
        Err(error) => tracing::warn!(booking = %checkout.booking, %error, "a hold was not released; retried later"),
    }
}
