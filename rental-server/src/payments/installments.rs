//! Later installments and the deposit (docs/API.md section 23): charged (a deposit: held)
//! off-session with the booking's saved card when their instant comes, each with the
//! idempotency key its ledger record fixes; a deposit hold released at its instant after
//! check-out. A refusal (a decline, or a bank that wants the guest present) marks the record
//! `failed` with the reason and tells the guest (`payment_failed`), who pays it on the stay
//! page; it is not tried again here, and `graceHours` after its instant, still unpaid, it
//! cancels the booking (`payment_overdue`).

use std::sync::Arc;
use std::time::Duration;

use rental_core::message::MessageKind;
use rental_core::payment_provider::{ChargeRequest, Payment, PaymentProvider, PaymentState, Session};
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState as LedgerState};
use rental_core::{Event, EventName, Rental, Status, Store};

use super::checkout::metadata;
use super::provider_call::{deadline, within};
use crate::reply::blocking;

/// How often due installments are looked for.
pub const INSTALLMENT_INTERVAL: Duration = Duration::from_secs(30);

/// Installments charged per pass, at most.
const PER_PASS: usize = 100;

/// Makes every movement whose step has come, leased to this pass: installments charged and
/// deposits held for a confirmed booking with a saved card, deposit holds released, refunds
/// issued.
pub async fn charge_due<S: Store + 'static>(rental: &Arc<Rental<S>>, provider: &dyn PaymentProvider) {
    let owner = crate::lease_owner::lease_owner("payments");
    let due = blocking(rental, move |r| r.worker().claim_payments(&owner, super::refunds::PAYMENT_LEASE, PER_PASS));
    let due = match due.await {
        Ok(due) => due,
        Err(problem) => return tracing::error!(detail = %problem.detail, "cannot read the due installments"),
    };
    for record in due {
        let id = record.id.clone();
        let made = match (record.kind, record.status) {
            (PaymentKind::Refund, _) => super::refunds::issue(rental, provider, record, deadline()).await,
            (PaymentKind::Installment, LedgerState::Failed) => overdue(rental, provider, record).await,
            _ => charge(rental, provider, record).await,
        };
        if let Err(reason) = made {
            tracing::warn!(payment = %id, %reason, "payment not made; tried again later");
        }
    }
}

/// Charges one installment (or finds the charge an earlier run made for its key) and records it.
async fn charge<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    record: PaymentRecord,
) -> Result<(), String> {
    let code = record.booking.to_string();
    let (booking, checkout) = {
        let code = code.clone();
        blocking(rental, move |r| Ok((r.booking(&code)?, r.checkout_of(&code)?))).await.map_err(|p| p.detail)?
    };
    let deadline = deadline();
    // A hold is released at its instant after check-out, or at once once the booking is cancelled.
    if record.kind == PaymentKind::Deposit && record.status == LedgerState::Authorized {
        return release_deposit(rental, provider, record, code, deadline).await;
    }
    // Before confirmation a request's first payment is the checkout's; without a saved card
    // the guest pays on the stay page.
    let Some((checkout, card)) = checkout.and_then(|c| c.card.clone().map(|card| (c, card))) else { return Ok(()) };
    if booking.status != Status::Confirmed || checkout.covers.contains(&record.id) {
        return Ok(());
    }
    let found = within(deadline, provider.find_payment(&checkout.customer, &record.idempotency_key)).await;
    let payment = if let Some(payment) = found.map_err(|e| e.to_string())? {
        payment
    } else {
        let mut request =
            ChargeRequest::new(record.amount, &record.currency, &checkout.customer, card, &record.idempotency_key);
        request.session = Session::Off;
        request.hold = record.kind == PaymentKind::Deposit;
        request.metadata = metadata(&booking);
        request.metadata.insert("payment".to_owned(), record.id.clone());
        within(deadline, provider.charge(request)).await.map_err(|e| e.to_string())?
    };
    record_outcome(rental, &code, &record.id, &payment).await
}

/// Records what the provider said of a charge, hold or release on its record, with its
/// event; a refusal also gives the installment its end of grace and tells the guest
/// (`payment_failed`, with the stay page link).
async fn record_outcome<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    code: &str,
    id: &str,
    payment: &Payment,
) -> Result<(), String> {
    let (code, id, payment) = (code.to_owned(), id.to_owned(), payment.clone());
    blocking(rental, move |r| {
        r.change_payments(&code, |change| {
            let now = change.now;
            let grace = change.plan.as_ref().map_or(48, |p| p.terms.grace_hours);
            let Some(stored) = change.records.iter_mut().find(|r| r.id == id) else { return Ok(()) };
            let before = stored.status;
            apply(stored, &payment, now);
            let event = match (stored.kind, stored.status) {
                (_, status) if status == before && status != LedgerState::Failed => return Ok(()),
                (PaymentKind::Installment, LedgerState::Succeeded) => EventName::PaymentSucceeded,
                (PaymentKind::Deposit, LedgerState::Authorized) => EventName::DepositHeld,
                (PaymentKind::Deposit, LedgerState::Released) => EventName::DepositReleased,
                (kind, LedgerState::Failed) => {
                    if kind == PaymentKind::Installment {
                        let without_instant = now + chrono::TimeDelta::hours(grace.into());
                        stored.overdue_at = Some(stored.end_of_grace(grace).unwrap_or(without_instant));
                    }
                    change.messages.push(MessageKind::PaymentFailed);
                    EventName::PaymentFailed
                }
                _ => return Ok(()),
            };
            let stored = stored.clone();
            let mut booking = change.booking.clone();
            rental_core::payments::follow_ledger(&mut booking, &change.records);
            change.events.push(Event::payment(event, &booking, &stored, now));
            Ok(())
        })
    })
    .await
    .map_err(|p| p.detail)
}

/// Cancels the booking of a refused installment left unpaid past its grace, then issues the
/// refund its policy gives; the deposit hold, released at once, goes with the next pass.
async fn overdue<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    record: PaymentRecord,
) -> Result<(), String> {
    let code = record.booking.to_string();
    let cancelled = {
        let code = code.clone();
        blocking(rental, move |r| r.worker().cancel_overdue(&code, &record.id)).await.map_err(|p| p.detail)?
    };
    if let Some(booking) = cancelled {
        tracing::info!(booking = %booking.code, "cancelled: an installment stayed unpaid past its grace");
        super::refunds::issue_for_booking(rental, provider, &code).await;
    }
    Ok(())
}

/// Releases a deposit hold at its instant after check-out (unless the host claimed it first).
async fn release_deposit<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    record: PaymentRecord,
    code: String,
    deadline: tokio::time::Instant,
) -> Result<(), String> {
    let Some(id) = record.provider_ref.clone() else { return Ok(()) };
    let key = format!("{}-release", record.idempotency_key);
    let payment = within(deadline, provider.release(&id, &key)).await.map_err(|e| e.to_string())?;
    record_outcome(rental, &code, &record.id, &payment).await
}

/// What the provider said of a charge or hold, on its record.
fn apply(record: &mut PaymentRecord, payment: &Payment, now: rental_core::DateTime<rental_core::Utc>) {
    match payment.state {
        PaymentState::Succeeded => {
            record.status = LedgerState::Succeeded;
            record.error = None;
            record.at = Some(now);
        }
        PaymentState::Authorized => {
            record.status = LedgerState::Authorized;
            record.error = None;
            record.at = Some(now);
        }
        PaymentState::Canceled if record.status == LedgerState::Authorized => {
            record.status = LedgerState::Released;
            record.at = Some(now);
        }
        PaymentState::Failed | PaymentState::RequiresAction | PaymentState::Canceled => {
            let reason = payment.error.clone().unwrap_or_else(|| "the bank wants the guest to pay in person".into());
            record.retry(reason, now);
        }
        _ => {}
    }
    record.provider_ref = Some(payment.id.clone());
    record.lease = None;
}
