//! Payment use cases: reading a booking's ledger, and changing its records
//! together with the booking in one write (what a payment provider calls).

use chrono::{DateTime, Utc};

use super::Rental;
use crate::bookings::booking::Booking;
use crate::bookings::event::Event;
use crate::error::{Error, NotFound, Result};
use crate::outbox::message::MessageKind;
use crate::payments::ledger::{PaymentKind, PaymentPlan, PaymentRecord, PaymentState, booking_prefix};
use crate::payments::schedule::{PlannedInstallment, StayClock, deposit_instants, installments};
use crate::properties::payment_settings::PaymentSettings;
use crate::store::{ReadRecords, ReadTx, Store, StoreResult, WriteTx};

/// A booking and its ledger, open for change inside one write transaction
/// ([`Rental::change_payments`]). What the work changes is written when it
/// returns `Ok`; nothing is written when it returns an error.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PaymentChange {
    /// The booking as stored; changed, it is written back (its messages and
    /// read cache follow, as for any booking change). Its `money` is set
    /// from `records` when the work returns.
    pub booking: Booking,
    /// Its payment records; a changed or added record is written.
    pub records: Vec<PaymentRecord>,
    /// The payment settings frozen on it (`None`: made before payments, or from a channel).
    pub plan: Option<PaymentSettings>,
    /// Events to append to the outbox with the change.
    pub events: Vec<Event>,
    /// Guest messages to record with the change, due now (`payment_failed`).
    pub messages: Vec<MessageKind>,
    /// The engine's now, for the records' `at`.
    pub now: DateTime<Utc>,
}

impl<S: Store> Rental<S> {
    /// The payment records of booking `code`: installments by number, then
    /// the deposit, then refunds (docs/API.md, Payments).
    pub fn payments(&self, code: &str) -> Result<Vec<PaymentRecord>> {
        let tx = self.store.read()?;
        let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
        Ok(records_of(&tx, booking.property.as_str(), code)?)
    }

    /// Lets `work` change booking `code` and its payment records, then
    /// writes what changed (the booking, each changed or new record, the
    /// events) in one transaction: a movement of money and the booking
    /// change it causes are never stored apart. `work` may run again if the
    /// store asks for the write to be retried, so it must not have effects
    /// of its own (call the provider before, and record here).
    pub fn change_payments<R>(&self, code: &str, mut work: impl FnMut(&mut PaymentChange) -> Result<R>) -> Result<R> {
        let now = self.now();
        self.write(|tx| {
            let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            let slug = booking.property.as_str().to_owned();
            let records = records_of(&**tx, &slug, code)?;
            let plan = plan_of(&**tx, &slug, code)?;
            let mut change = PaymentChange {
                booking: booking.clone(),
                records: records.clone(),
                plan,
                events: Vec::new(),
                messages: Vec::new(),
                now,
            };
            let out = work(&mut change)?;
            crate::payments::follow_ledger(&mut change.booking, &change.records);
            if change.booking != booking {
                tx.put_booking(&change.booking)?;
            }
            for record in change.records.iter().filter(|r| !records.contains(r)) {
                tx.put(record)?;
            }
            if !change.events.is_empty() {
                tx.append_events(&change.events)?;
            }
            for kind in &change.messages {
                tx.record_message(*kind, &change.booking)?;
            }
            Ok(out)
        })
    }
}

/// The schedule of a booking just made, with its frozen plan, for the caller
/// to write in the booking's own transaction: the installments of its total
/// (the first `due`, later ones `scheduled`, the first holding the plan), and
/// the deposit's hold, if the settings take one; the plan apart only when
/// there is no installment to hold it. The booking's [`PaymentSummary`] is the records'
/// (`PaymentSummary::of(&records, true)`), for the caller to set on it.
pub(crate) fn schedule(
    booking: &Booking,
    settings: &PaymentSettings,
    clock: &StayClock,
    now: DateTime<Utc>,
) -> (Option<PaymentPlan>, Vec<PaymentRecord>) {
    let mut plan = Some(PaymentPlan {
        property: booking.property.clone(),
        booking: booking.code.clone(),
        settings: settings.into(),
    });
    let mut written = Vec::new();
    for PlannedInstallment { number, amount, due_at } in installments(booking.total, &settings.terms, clock, now) {
        let status = if due_at <= now { PaymentState::Due } else { PaymentState::Scheduled };
        let mut record = PaymentRecord::new(booking, PaymentKind::Installment, number, amount, status);
        record.due_at = Some(due_at);
        record.plan = plan.take().map(|plan| plan.settings);
        written.push(record);
    }
    if let Some(deposit) = &settings.security_deposit {
        let (hold, release) = deposit_instants(deposit, clock, now);
        let status = if hold <= now { PaymentState::Due } else { PaymentState::Scheduled };
        let mut record = PaymentRecord::new(booking, PaymentKind::Deposit, 1, deposit.amount, status);
        (record.due_at, record.release_at) = (Some(hold), Some(release));
        written.push(record);
    }
    (plan, written)
}

/// A booking's payment records: installments by number, then the deposit,
/// then refunds by number.
pub(crate) fn records_of<T: ReadRecords + ?Sized>(tx: &T, slug: &str, code: &str) -> StoreResult<Vec<PaymentRecord>> {
    let mut records: Vec<PaymentRecord> = tx.list_all(&booking_prefix(slug, code))?;
    records.sort_by_key(|r| (r.kind as u8, r.number));
    Ok(records)
}

/// The frozen payment settings of a booking; `None` for one made before
/// payments, or imported from a channel.
pub(crate) fn plan_of<T: ReadRecords + ?Sized>(tx: &T, slug: &str, code: &str) -> StoreResult<Option<PaymentSettings>> {
    let first = format!("{}pay_{code}_i1", booking_prefix(slug, code));
    if let Some(plan) = tx.get::<PaymentRecord>(&first)?.and_then(|first| first.plan) {
        return Ok(Some(plan.into()));
    }
    Ok(tx.get::<PaymentPlan>(&format!("{slug}/{code}"))?.map(|p| p.settings.into()))
}

/// Keeps a booking's ledger in step with a lifecycle change, in its
/// transaction: once cancelled, what it has not paid will not be charged
/// (`canceled`) and its body's sums say so.
pub(super) fn settle_ledger(
    tx: &mut super::write::UseCaseTx<impl WriteTx>,
    booking: &mut Booking,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let (slug, code) = (booking.property.as_str().to_owned(), booking.code.as_str().to_owned());
    let mut records = records_of(&**tx, &slug, &code)?;
    if booking.is_active() {
        // Confirming says `paid`; the ledger may say only part is.
        crate::payments::follow_ledger(booking, &records);
        return Ok(());
    }
    for record in crate::payments::ledger::cancel_unpaid(&mut records, now) {
        tx.put(&record)?;
    }
    // What the frozen policy gives back is recorded now, `due`: the provider side issues it.
    let plan = plan_of(&**tx, &slug, &code)?;
    if let (Some(plan), Some(by)) = (plan, booking.cancelled_by) {
        let tz = tx.property(&slug)?.map_or(chrono_tz::UTC, |p| p.timezone);
        let policy = &plan.cancellation_policy;
        let owed = crate::payments::refund::on_cancellation(booking, &records, policy, by, now, tz);
        let paid = crate::payments::Totals::of(&records).paid;
        if owed > 0 {
            for record in crate::payments::refund::records_for(booking, &records, owed, "cancellation") {
                tx.put(&record)?;
                records.push(record);
            }
        } else if paid > 0 {
            // A cancellation that refunds nothing leaves the payment status as it was.
            booking.payment_status = crate::bookings::booking::PaymentStatus::Paid;
        }
    }
    crate::payments::follow_ledger(booking, &records);
    Ok(())
}

/// Keeps a changed booking's ledger in step with its new total, in its transaction: the
/// unpaid installments re-priced with their shares, and what was paid beyond the new total
/// recorded as a refund to issue (`due`, reason `change`).
pub(super) fn reprice_ledger(
    tx: &mut super::write::UseCaseTx<impl WriteTx>,
    booking: &mut Booking,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let (slug, code) = (booking.property.as_str().to_owned(), booking.code.as_str().to_owned());
    if plan_of(&**tx, &slug, &code)?.is_none() {
        return Ok(());
    }
    let mut records = records_of(&**tx, &slug, &code)?;
    let repriced = crate::payments::reprice::reprice(booking, &records, now);
    for record in repriced.changed {
        tx.put(&record)?;
        match records.iter_mut().find(|r| r.id == record.id) {
            Some(old) => *old = record,
            None => records.push(record),
        }
    }
    for record in crate::payments::refund::records_for(booking, &records, repriced.overpaid, "change") {
        tx.put(&record)?;
        records.push(record);
    }
    crate::payments::follow_ledger(booking, &records);
    Ok(())
}

impl<S: Store> super::Worker<'_, S> {
    /// What booking `code`'s guest would get back by cancelling now, computed as the
    /// cancellation computes it ([`crate::payments::refund::preview`]): on its ledger and
    /// the policy frozen on it (the property's own for a booking made before payments,
    /// which has no ledger and so nothing to refund).
    pub fn guest_refund_preview(&self, code: &str) -> Result<crate::payments::refund::RefundPreview> {
        let tx = self.store.read()?;
        let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
        let slug = booking.property.as_str();
        let property = tx.property(slug)?;
        let policy = match plan_of(&tx, slug, code)? {
            Some(plan) => plan.cancellation_policy,
            None => property.as_ref().map(|p| p.payments.cancellation_policy.clone()).unwrap_or_default(),
        };
        let tz = property.map_or(chrono_tz::UTC, |p| p.timezone);
        let records = records_of(&tx, slug, code)?;
        Ok(crate::payments::refund::preview(&booking, &records, &policy, self.now(), tz))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;
    use crate::payments::ledger::FrozenSettings;
    use crate::properties::payment_settings::{PaymentTerms, SecurityDeposit};
    use crate::store::{MemoryStore, WriteRecords};

    /// A booking's plan is read from its first installment, and from its own
    /// record for a booking written before the plan moved there.
    #[test]
    fn a_plan_is_read_from_the_first_installment_or_from_its_own_older_record() {
        let store = MemoryStore::new();
        let settings = PaymentSettings::default()
            .terms(PaymentTerms::split(&[(5_000, None), (5_000, Some(30))], 48))
            .deposit(SecurityDeposit::new(30_000));
        let now = "2027-01-10T10:00:00Z".parse().unwrap();
        let (new, old) = (
            demo::booking("BK-PLAN01", "2027-04-01", "2027-04-08"),
            demo::booking("BK-PLAN02", "2027-04-10", "2027-04-12"),
        );
        let mut tx = store.write().unwrap();
        for booking in [&new, &old] {
            let clock = StayClock::of(&demo::sea_view(), booking.stay);
            let (plan, mut written) = schedule(booking, &settings, &clock, now);
            assert!(plan.is_none() && written[0].plan.is_some() && written[1..].iter().all(|r| r.plan.is_none()));
            if booking.code == old.code {
                let frozen = written[0].plan.take().map(|settings| PaymentPlan {
                    property: booking.property.clone(),
                    booking: booking.code.clone(),
                    settings,
                });
                tx.put(&frozen.unwrap()).unwrap();
            }
            written.iter().try_for_each(|record| tx.put(record)).unwrap();
        }
        tx.commit().unwrap();
        let read = store.read().unwrap();
        for booking in [&new, &old] {
            let plan = plan_of(&read, "sea-view", booking.code.as_str()).unwrap().expect("a plan");
            assert_eq!(FrozenSettings::from(&plan), FrozenSettings::from(&settings), "{}", booking.code);
        }
        assert!(plan_of(&read, "sea-view", "BK-NONE01").unwrap().is_none());
    }
}
