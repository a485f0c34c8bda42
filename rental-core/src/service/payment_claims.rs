//! Leasing the ledger's movements to the worker that makes them (docs/API.md section 23):
//! an installment or deposit hold to make, a hold to release, a refund to issue.

use std::time::Duration;

use super::payments::{plan_of, records_of};
use crate::basics::lease;
use crate::bookings::booking::{Booking, Status};
use crate::bookings::lifecycle::{self, Outcome};
use crate::error::Result;
use crate::payments::ledger::{PaymentKind, PaymentRecord, PaymentState};
use crate::store::{ReadRecords, ReadTx, Store};

impl<S: Store> super::Worker<'_, S> {
    /// Takes up to `limit` movements whose next step has come (an installment or deposit
    /// hold not yet made, a deposit hold to release, a refund to issue) for `owner`, each
    /// until `lease` from now, in one write; returns them, leased. A movement another worker
    /// holds is left alone until its lease lapses, so two servers (or a run after a crash
    /// and the lease's end) never make it at once; one taken and not recorded (its booking
    /// not ready yet) is looked at again when its lease lapses.
    pub fn claim_payments(&self, owner: &str, lease: Duration, limit: usize) -> Result<Vec<PaymentRecord>> {
        let now = self.now();
        if self.store.read()?.due::<PaymentRecord>(now, 1)?.is_empty() {
            return Ok(Vec::new());
        }
        let until = lease::end(now, lease);
        self.write(|tx| {
            let due: Vec<PaymentRecord> = tx.due(now, limit)?;
            let mut claimed = Vec::with_capacity(due.len());
            for mut record in due.into_iter().filter(has_a_step) {
                // Due means its lease, if any, has lapsed (the due index waits for it): this takes it.
                if lease::claim(&mut record.lease, owner, now, until).is_err() {
                    continue;
                }
                tx.put(&record)?;
                claimed.push(record);
            }
            Ok(claimed)
        })
    }

    /// Takes booking `code`'s refunds to issue for `owner` until `lease` from now (those no
    /// other worker holds): what a cancellation or a goodwill refund issues before answering.
    pub fn claim_refunds(&self, code: &str, owner: &str, lease: Duration) -> Result<Vec<PaymentRecord>> {
        let now = self.now();
        let until = lease::end(now, lease);
        self.write(|tx| {
            let Some(booking) = tx.booking(code)? else { return Ok(Vec::new()) };
            let records = records_of(&**tx, booking.property.as_str(), code)?;
            let mut claimed = Vec::new();
            for mut record in
                records.into_iter().filter(|r| r.kind == PaymentKind::Refund && r.status == PaymentState::Due)
            {
                if lease::claim(&mut record.lease, owner, now, until).is_err() {
                    continue;
                }
                tx.put(&record)?;
                claimed.push(record);
            }
            Ok(claimed)
        })
    }
}

impl<S: Store> super::Worker<'_, S> {
    /// Takes booking `code`'s deposit for `owner` until `lease` from now, for the host's claim
    /// or release: the record as it is (held or not), or `None` when the booking has no
    /// deposit; `Err` only from the store. A deposit another worker holds (its release at its
    /// instant, under way) is returned without a lease of `owner`'s: the caller refuses then.
    pub fn claim_deposit(&self, code: &str, owner: &str, lease: Duration) -> Result<Option<PaymentRecord>> {
        let now = self.now();
        let until = lease::end(now, lease);
        self.write(|tx| {
            let Some(booking) = tx.booking(code)? else { return Ok(None) };
            let records = records_of(&**tx, booking.property.as_str(), code)?;
            let Some(mut deposit) = records.into_iter().find(|r| r.kind == PaymentKind::Deposit) else {
                return Ok(None);
            };
            if deposit.status == PaymentState::Authorized && lease::claim(&mut deposit.lease, owner, now, until).is_ok()
            {
                tx.put(&deposit)?;
            }
            Ok(Some(deposit))
        })
    }

    /// Cancels confirmed booking `code` for its installment `payment` refused and left unpaid
    /// past its grace, the frozen `graceHours` after its instant (`cancelledBy` `system`,
    /// `cancelReason` `payment_overdue`), recording in the same write the refund its frozen
    /// policy gives as for a guest's cancellation; the booking after, or `None` when nothing
    /// is overdue (paid meanwhile, already cancelled, or a request, which lapses instead).
    pub fn cancel_overdue(&self, code: &str, payment: &str) -> Result<Option<Booking>> {
        let now = self.now();
        self.write(|tx| {
            let Some(booking) = tx.booking(code)? else { return Ok(None) };
            let (slug, code) = (booking.property.as_str(), booking.code.as_str());
            let records = records_of(&**tx, slug, code)?;
            let grace = plan_of(&**tx, slug, code)?.unwrap_or_default().terms.grace_hours;
            let overdue = records.iter().any(|r| {
                r.id == payment
                    && r.status == PaymentState::Failed
                    && r.end_of_grace(grace).or(r.overdue_at).is_some_and(|at| at <= now)
            });
            if !overdue || booking.status != Status::Confirmed {
                return Ok(None);
            }
            let Some(Outcome::Changed { mut booking, events }) = lifecycle::overdue(&booking, now) else {
                return Ok(None);
            };
            super::payments::settle_ledger(tx, &mut booking, now)?;
            tx.put_booking(&booking)?;
            tx.append_events(&events)?;
            Ok(tx.booking(code)?)
        })
    }
}

/// Whether the record's next step is one the worker makes.
fn has_a_step(r: &PaymentRecord) -> bool {
    match r.kind {
        // A refused one's step is the overdue cancellation, at the end of its grace.
        PaymentKind::Installment => {
            matches!(r.status, PaymentState::Due | PaymentState::Scheduled | PaymentState::Failed)
        }
        PaymentKind::Deposit => {
            matches!(r.status, PaymentState::Due | PaymentState::Scheduled | PaymentState::Authorized)
        }
        PaymentKind::Refund => r.status == PaymentState::Due,
    }
}
