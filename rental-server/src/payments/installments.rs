//! Later installments and the deposit (docs/API.md section 23): charged (a deposit: held)
//! off-session with the booking's saved card when their instant comes, each with the
//! idempotency key its ledger record fixes; a deposit hold released at its instant after
//! check-out. A refusal (a decline, or a bank that wants the guest present) marks the record
//! `failed` with the reason, and the guest pays it on the stay page; it is not tried again here.

use std::sync::Arc;
use std::time::Duration;

use rental_core::payment_provider::{ChargeRequest, Payment, PaymentProvider, PaymentState, Session};
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState as LedgerState};
use rental_core::{Rental, Status, Store};

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
        let made = if record.kind == PaymentKind::Refund {
            super::refunds::issue(rental, provider, record, deadline()).await
        } else {
            charge(rental, provider, record).await
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
    // Before confirmation a request's first payment is the checkout's; without a saved card
    // the guest pays on the stay page.
    let Some((checkout, card)) = checkout.and_then(|c| c.card.clone().map(|card| (c, card))) else { return Ok(()) };
    if booking.status != Status::Confirmed || checkout.covers.contains(&record.id) {
        return Ok(());
    }
    let deadline = deadline();
    if record.kind == PaymentKind::Deposit && record.status == LedgerState::Authorized {
        return release_deposit(rental, provider, record, code, deadline).await;
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
    let now = rental.now();
    blocking(rental, move |r| {
        r.change_payments(&code, |change| {
            if let Some(stored) = change.records.iter_mut().find(|r| r.id == record.id) {
                apply(stored, &payment, now);
            }
            Ok(())
        })
    })
    .await
    .map_err(|p| p.detail)
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
    let now = rental.now();
    blocking(rental, move |r| {
        r.change_payments(&code, |change| {
            if let Some(stored) = change.records.iter_mut().find(|r| r.id == record.id) {
                apply(stored, &payment, now);
            }
            Ok(())
        })
    })
    .await
    .map_err(|p| p.detail)
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
