//! The use cases of paying through a provider (docs/API.md section 23): a booking's
//! [`Checkout`] read and saved, and what the provider said of its payment recorded together
//! with the booking change it causes, in one transaction. The calls to the provider are the
//! server's: this crate never waits on the network.

use super::payments::{plan_of, records_of};
use crate::bookings::booking::{Booking, PaymentStatus, Status};
use crate::bookings::event::{Event, EventName};
use crate::bookings::lifecycle::{self, Action, Outcome};
use crate::error::{Error, NotFound, Result};
use crate::payment_provider::Checkout;
use crate::payments::ledger::{PaymentRecord, PaymentState};
use crate::store::{ReadRecords, ReadTx, Store};

use super::Rental;
use super::write::Tx;
use crate::payment_provider::CheckoutOutcome;

impl<S: Store> Rental<S> {
    /// The checkout of booking `code`, if one was started.
    pub fn checkout_of(&self, code: &str) -> Result<Option<Checkout>> {
        Ok(self.store.read()?.get::<Checkout>(code)?)
    }

    /// Up to `limit` checkouts whose payment is made (or an attempt begun) and not settled, after booking code
    /// `after` (`""`: from the start), in code order: what reconciliation walks.
    pub fn open_checkouts(&self, after: &str, limit: usize) -> Result<Vec<Checkout>> {
        let mut open = Vec::new();
        let mut cursor = after.to_owned();
        let tx = self.store.read()?;
        while open.len() < limit {
            let page = tx.list::<Checkout>("", &cursor, 200)?;
            let Some(last) = page.last() else { break };
            cursor = last.booking.to_string();
            // An attempt begun without a payment recorded may have lost its answer.
            open.extend(page.into_iter().filter(|c| !c.settled && (c.payment.is_some() || c.attempts > 0)));
        }
        open.truncate(limit);
        Ok(open)
    }

    /// Saves `checkout` (a new setup, a saved card, an attempt begun) without changing its
    /// booking, which must exist and not be cancelled (409 `invalid_transition`).
    pub fn save_checkout(&self, checkout: &Checkout) -> Result<()> {
        self.write(|tx| {
            let booking = booking_in::<S>(tx, checkout)?;
            if booking.status == Status::Cancelled {
                return Err(Error::InvalidTransition {
                    from: booking.status,
                    action: "checkout",
                    channel_owned: false,
                });
            }
            tx.put(checkout)?;
            Ok(())
        })
    }

    /// Saves `checkout` and applies what the provider said of its payment to the booking,
    /// in one transaction; the booking as it is after. A hold or charge for a booking that
    /// was cancelled meanwhile leaves the booking as it is: the caller releases or refunds it.
    pub fn record_checkout(&self, checkout: &Checkout, outcome: &CheckoutOutcome) -> Result<Booking> {
        let now = self.now();
        self.write(|tx| {
            let mut booking = booking_in::<S>(tx, checkout)?;
            tx.put(checkout)?;
            let mut moved_records = Vec::new();
            // A confirmed booking's installment refused here has the same end of grace as one
            // refused off-session; a request's first payment lapses with its checkout instead.
            let grace = match booking.status {
                Status::Confirmed => Some(plan_of(&**tx, booking.property.as_str(), checkout.booking.as_str())?),
                _ => None,
            }
            .map(|plan| plan.unwrap_or_default().terms.grace_hours);
            for record in covered::<S>(tx, &booking, checkout)? {
                if let Some(record) = moved(record, checkout, outcome, grace, now) {
                    tx.put(&record)?;
                    moved_records.push(record);
                }
            }
            if !moved_records.is_empty() {
                // The body's sums follow the ledger (amountPaid once captured or charged).
                let records = records_of(&**tx, booking.property.as_str(), booking.code.as_str())?;
                crate::payments::follow_ledger(&mut booking, &records);
                tx.put_booking(&booking)?;
            }
            // A payment that succeeded or was refused is news whatever the booking's step: a
            // declined first payment (the guest may try again) as much as a later installment's.
            if booking.status != Status::Cancelled {
                tx.append_events(&payment_events(&booking, &moved_records, now))?;
            }
            let action = match (outcome, booking.status, booking.payment_status) {
                (CheckoutOutcome::Held, Status::Pending, PaymentStatus::Unpaid) => Action::Authorize,
                (CheckoutOutcome::Paid | CheckoutOutcome::Captured, Status::Pending, _) => Action::Confirm,
                _ => return Ok(booking),
            };
            match lifecycle::apply(&booking, &action, now, now.date_naive())? {
                Outcome::Unchanged => Ok(booking),
                Outcome::Changed { mut booking, events } => {
                    // Confirming says `paid`; the ledger may say only the first installment is.
                    booking.payment_status = crate::payments::derive_status(booking.payment_status, &booking.money);
                    tx.put_booking(&booking)?;
                    tx.append_events(&events)?;
                    Ok(tx.booking(booking.code.as_str())?.unwrap_or(booking))
                }
            }
        })
    }
}

/// The events of installments a checkout's payment moved: `booking.payment_succeeded` or
/// `booking.payment_failed`, one per installment (a hold taken is the lifecycle's
/// `booking.payment_authorized`).
fn payment_events(booking: &Booking, moved: &[PaymentRecord], now: chrono::DateTime<chrono::Utc>) -> Vec<Event> {
    let event = |r: &PaymentRecord| match r.status {
        PaymentState::Succeeded => Some(EventName::PaymentSucceeded),
        PaymentState::Failed => Some(EventName::PaymentFailed),
        _ => None,
    };
    moved.iter().filter_map(|r| event(r).map(|name| Event::payment(name, booking, r, now))).collect()
}

/// The ledger records the checkout's payment pays.
fn covered<S: Store>(tx: &Tx<'_, S>, booking: &Booking, checkout: &Checkout) -> Result<Vec<PaymentRecord>> {
    let records = records_of(&**tx, booking.property.as_str(), booking.code.as_str())?;
    Ok(records.into_iter().filter(|r| checkout.covers.contains(&r.id)).collect())
}

/// `record` after what the provider said of the payment that pays it; `None` when unchanged
/// (a repeat of the same news). A refusal with a `grace` (in hours) gives the installment
/// its end of grace, if it has none yet: the worker cancels the booking then, still unpaid.
fn moved(
    mut record: PaymentRecord,
    checkout: &Checkout,
    outcome: &CheckoutOutcome,
    grace: Option<u32>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<PaymentRecord> {
    let before = record.clone();
    let reference = checkout.payment.clone();
    let status = match outcome {
        CheckoutOutcome::Held => PaymentState::Authorized,
        CheckoutOutcome::Paid | CheckoutOutcome::Captured => PaymentState::Succeeded,
        CheckoutOutcome::Released if record.status == PaymentState::Authorized => PaymentState::Released,
        CheckoutOutcome::Failed { error } => {
            // The same refusal reported again is not a new attempt.
            if !(record.status == PaymentState::Failed && record.provider_ref == reference) {
                record.retry(error.clone(), now);
                record.provider_ref = reference;
            }
            if record.overdue_at.is_none() {
                record.overdue_at = grace.and_then(|hours| record.end_of_grace(hours));
            }
            return (record != before).then_some(record);
        }
        _ => record.status,
    };
    if record.status.is_final() && status != PaymentState::Released {
        return None;
    }
    (record.status, record.provider_ref, record.error) = (status, reference, None);
    if record.status != before.status {
        record.at = Some(now);
    }
    (record != before).then_some(record)
}

fn booking_in<S: Store>(tx: &mut Tx<'_, S>, checkout: &Checkout) -> Result<Booking> {
    let code = checkout.booking.as_str();
    tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))
}
