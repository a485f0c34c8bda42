//! `POST /api/v1/bookings/{code}/deposit` (docs/API.md section 23): the host claims part or
//! all of the security deposit's hold (captured through the provider; the rest is released)
//! or releases it, before its automatic release after check-out.

use std::sync::Arc;

use http::StatusCode;
use rental_core::payment_provider::{Payment, PaymentState};
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState as Ledger, PaymentView};
use rental_core::{Error, Event, EventName, Store};
use serde::Deserialize;
use serde_json::json;

use super::provider_call::{deadline, failed, not_configured, within};
use super::refunds::PAYMENT_LEASE;
use crate::AppState;
use crate::problem::Problem;
use crate::reply::{Reply, blocking, json};

/// The body: what the host does with the hold.
#[derive(Debug, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
enum DepositAction {
    /// Capture `amount` (at most the hold) for `reason`; the rest is released.
    Claim {
        amount: i64,
        #[serde(default)]
        reason: Option<String>,
    },
    /// Let the whole hold go (a struct variant, so that a stray field is refused).
    Release {},
}

/// The longest reason kept, in bytes.
const MAX_REASON: usize = 500;

/// 409 `invalid_transition`: the deposit is not held (not yet, or already settled).
fn not_held(detail: &str) -> Problem {
    Problem::new(StatusCode::CONFLICT, "invalid_transition", detail.to_owned())
}

/// `POST .../deposit`: a claim or release of the deposit's hold, answered with its record.
pub async fn act<S: Store + 'static>(state: &Arc<AppState<S>>, code: String, body: &[u8]) -> Reply {
    let provider = state.payments.clone().ok_or_else(not_configured)?;
    let action: DepositAction = crate::request::json(body)?;
    if let DepositAction::Claim { amount, reason } = &action {
        if *amount < 1 {
            return Err(Problem::from(Error::invalid("amount", "out_of_range", "must be at least 1")));
        }
        if reason.as_ref().is_some_and(|r| r.len() > MAX_REASON) {
            let message = format!("must be at most {MAX_REASON} bytes");
            return Err(Problem::from(Error::invalid("reason", "too_long", message)));
        }
    }
    let rental = state.rental();
    let found = {
        let code = code.clone();
        blocking(rental, move |r| Ok(r.payments(&code)?.into_iter().find(|p| p.kind == PaymentKind::Deposit))).await?
    };
    let Some(found) = found else { return Err(not_held("the booking has no security deposit")) };
    match (&action, found.status) {
        // Released already: a release again is a no-op.
        (DepositAction::Release {}, Ledger::Released) => return Ok(answer(&found)),
        (DepositAction::Claim { amount, .. }, Ledger::Authorized) if *amount > found.amount => {
            let message = format!("is more than the hold ({})", found.amount);
            return Err(Problem::from(Error::invalid("amount", "out_of_range", message)));
        }
        (_, Ledger::Authorized) => {}
        _ => return Err(not_held("the deposit is not held: there is nothing to claim or release")),
    }
    // Leased for the call, so that its automatic release does not run at the same time.
    let owner = crate::lease_owner::lease_owner("deposit");
    let deposit = {
        let (code, owner) = (code.clone(), owner.clone());
        blocking(rental, move |r| r.worker().claim_deposit(&code, &owner, PAYMENT_LEASE)).await?
    };
    let ours = deposit.filter(|d| d.status == Ledger::Authorized && d.lease.as_ref().is_some_and(|l| l.owner == owner));
    let Some(deposit) = ours else { return Err(not_held("the deposit's hold is being settled now")) };
    let id = deposit.provider_ref.clone().unwrap_or_default();
    let payment = match &action {
        DepositAction::Claim { amount, .. } => {
            let key = format!("{}-claim", deposit.idempotency_key);
            within(deadline(), provider.capture(&id, Some(*amount), &key)).await
        }
        DepositAction::Release {} => {
            let key = format!("{}-release", deposit.idempotency_key);
            within(deadline(), provider.release(&id, &key)).await
        }
    };
    let payment = match payment {
        Ok(payment) => payment,
        Err(error) => {
            unlease(rental, &code, &deposit.id).await;
            return Err(failed(&error));
        }
    };
    match record(rental, &code, &deposit, &action, &payment).await {
        Ok(recorded) => Ok(answer(&recorded)),
        Err(problem) => {
            unlease(rental, &code, &deposit.id).await;
            Err(problem)
        }
    }
}

/// Lets the call's lease on the deposit go, after the provider did nothing.
async fn unlease<S: Store + 'static>(rental: &Arc<rental_core::Rental<S>>, code: &str, id: &str) {
    let (code, id) = (code.to_owned(), id.to_owned());
    let done = blocking(rental, move |r| {
        r.change_payments(&code, |change| {
            if let Some(stored) = change.records.iter_mut().find(|r| r.id == id) {
                stored.lease = None;
            }
            Ok(())
        })
    });
    if let Err(problem) = done.await {
        tracing::warn!(detail = %problem.detail, "a deposit's lease was not let go; it lapses");
    }
}

/// Records the claim or release the provider made, with its event, and lets the lease go.
async fn record<S: Store + 'static>(
    rental: &Arc<rental_core::Rental<S>>,
    code: &str,
    deposit: &PaymentRecord,
    action: &DepositAction,
    payment: &Payment,
) -> Result<PaymentRecord, Problem> {
    let (status, event) = match (action, payment.state) {
        (DepositAction::Claim { .. }, PaymentState::Succeeded) => (Ledger::Claimed, EventName::PaymentSucceeded),
        (DepositAction::Release {}, PaymentState::Canceled) => (Ledger::Released, EventName::DepositReleased),
        _ => {
            let reason = payment.error.clone().unwrap_or_else(|| "the hold could not be settled".to_owned());
            return Err(Problem::new(
                StatusCode::BAD_GATEWAY,
                "payment_failed",
                format!("the payment provider refused: {reason}"),
            ));
        }
    };
    let (claimed, reason) = match action {
        DepositAction::Claim { amount, reason } => (Some(*amount), reason.clone()),
        DepositAction::Release {} => (None, None),
    };
    let (code, id) = (code.to_owned(), deposit.id.clone());
    blocking(rental, move |r| {
        r.change_payments(&code, |change| {
            let now = change.now;
            let stored = change
                .records
                .iter_mut()
                .find(|r| r.id == id)
                .ok_or_else(|| Error::invalid("deposit", "gone", "the deposit record is gone"))?;
            (stored.status, stored.at, stored.lease, stored.error) = (status, Some(now), None, None);
            if let Some(amount) = claimed {
                // The record shows what was taken; the hold's amount stays with the provider.
                (stored.amount, stored.reason) = (amount, reason.clone());
            }
            let stored = stored.clone();
            let mut booking = change.booking.clone();
            rental_core::payments::follow_ledger(&mut booking, &change.records);
            change.events.push(Event::payment(event, &booking, &stored, now));
            Ok(stored)
        })
    })
    .await
}

fn answer(record: &PaymentRecord) -> http::Response<http_body_util::Full<bytes::Bytes>> {
    json(StatusCode::OK, &json!(PaymentView::from(record)))
}
