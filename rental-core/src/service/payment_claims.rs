//! Leasing the ledger's movements to the worker that makes them (docs/API.md section 23):
//! an installment or deposit hold to make, a hold to release, a refund to issue.

use std::time::Duration;

use chrono::TimeDelta;

use super::payments::records_of;
use crate::error::Result;
use crate::payments::ledger::{PaymentKind, PaymentLease, PaymentRecord, PaymentState};
use crate::store::{ReadRecords, ReadTx, Store, WriteRecords};

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
        let until = now + TimeDelta::from_std(lease).unwrap_or(TimeDelta::MAX);
        self.write(|tx| {
            let due: Vec<PaymentRecord> = tx.due(now, limit)?;
            let mut claimed = Vec::with_capacity(due.len());
            for mut record in due.into_iter().filter(has_a_step) {
                record.lease = Some(PaymentLease { owner: owner.to_owned(), until });
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
        let until = now + TimeDelta::from_std(lease).unwrap_or(TimeDelta::MAX);
        self.write(|tx| {
            let Some(booking) = tx.booking(code)? else { return Ok(Vec::new()) };
            let records = records_of(&**tx, booking.property.as_str(), code)?;
            let mut claimed = Vec::new();
            for mut record in
                records.into_iter().filter(|r| r.kind == PaymentKind::Refund && r.status == PaymentState::Due)
            {
                if record.lease.as_ref().is_some_and(|l| l.until > now) {
                    continue;
                }
                record.lease = Some(PaymentLease { owner: owner.to_owned(), until });
                tx.put(&record)?;
                claimed.push(record);
            }
            Ok(claimed)
        })
    }
}

/// Whether the record's next step is one the worker makes.
fn has_a_step(r: &PaymentRecord) -> bool {
    match r.kind {
        PaymentKind::Installment => matches!(r.status, PaymentState::Due | PaymentState::Scheduled),
        PaymentKind::Deposit => {
            matches!(r.status, PaymentState::Due | PaymentState::Scheduled | PaymentState::Authorized)
        }
        PaymentKind::Refund => r.status == PaymentState::Due,
    }
}
