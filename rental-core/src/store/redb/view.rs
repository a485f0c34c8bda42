//! A write transaction seen through the tables it keeps open: [`ReadTx`] and
//! [`WriteTx`] on [`RedbWrite`] run each method on a [`View`] of it.
//!
//! The open tables borrow the transaction inside [`RedbWrite`], so they can
//! only be lent for the length of a call: each method below is that loan.

use chrono::{DateTime, NaiveDate, Utc};
use redb::WriteTransaction;

use super::changes::Changes;
use super::kept::Kept;
use super::{RedbStore, RedbTx, RedbWrite};
use crate::basics::ids::BookingCode;
use crate::bookings::booking::{Booking, BookingQuery};
use crate::bookings::calendar::{Block, CalendarEntry};
use crate::bookings::event::{Event, OutboxEvent};
use crate::outbox::delivery::{Delivery, DeliveryClaim};
use crate::properties::property::Property;
use crate::store::{ReadTx, RecordKind, RecordRow, StoreResult, WriteTx};

/// The write transaction with its kept tables, for one call.
pub struct View<'s, 'q> {
    pub(super) tx: &'q WriteTransaction,
    pub(super) kept: &'s Kept<'q>,
    pub(super) changes: &'s Changes,
    pub(super) store: &'s RedbStore,
    pub(super) inserted: &'s std::cell::RefCell<Option<(String, u64)>>,
}

impl std::fmt::Debug for View<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").finish_non_exhaustive()
    }
}

impl RedbWrite<'_> {
    /// Runs `f` on a view of this transaction.
    pub(super) fn view<R>(&self, f: impl FnOnce(&RedbTx<View<'_, '_>>) -> R) -> R {
        self.tx.with_dependent(|tx, kept| {
            f(&RedbTx(View { tx, kept, changes: &self.changes, store: self.store, inserted: &self.inserted }))
        })
    }
}

impl ReadTx for RedbTx<RedbWrite<'_>> {
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        self.0.view(|v| v.property(slug))
    }
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        self.0.view(|v| v.booking(code))
    }
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        self.0.view(|v| v.bookings(query))
    }
    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        self.0.view(|v| v.pending_codes())
    }
    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>> {
        self.0.view(|v| v.lapsing_holds(created_until, limit))
    }
    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        self.0.view(|v| v.finished_deliveries(before, limit))
    }
    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        self.0.view(|v| v.first_delivered_event())
    }
    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        self.0.view(|v| v.pending_count(slug))
    }
    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        self.0.view(|v| v.record(kind, key))
    }
    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<RecordRow>> {
        self.0.view(|v| v.records(kind, prefix, after, limit))
    }
    fn records_due(&self, kind: &RecordKind, until: i64, limit: usize) -> StoreResult<Vec<RecordRow>> {
        self.0.view(|v| v.records_due(kind, until, limit))
    }
    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        self.0.view(|v| v.pending_codes_of(slug))
    }
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        self.0.view(|v| v.calendar(slug, from, to))
    }
    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        self.0.view(|v| v.calendars_from(starts))
    }
    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        self.0.view(|v| v.pending_counts(slugs))
    }
    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        self.0.view(|v| v.block(id))
    }
    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.0.view(|v| v.events_after(seq, limit))
    }
    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        self.0.view(|v| v.event(seq))
    }
    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.0.view(|v| v.delivery(id))
    }
    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>> {
        self.0.view(|v| v.due_deliveries(now, limit))
    }
    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        self.0.view(|v| v.pending_deliveries())
    }
    fn delivery_leases(&self) -> StoreResult<Vec<DeliveryClaim>> {
        self.0.view(|v| v.delivery_leases())
    }
    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.0.view(|v| v.unfanned_events(limit))
    }
    fn deliveries_of(&self, webhook_id: &str, limit: usize) -> StoreResult<Vec<Delivery>> {
        self.0.view(|v| v.deliveries_of(webhook_id, limit))
    }
}

impl WriteTx for RedbTx<RedbWrite<'_>> {
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        self.0.view(|v| v.put_booking(booking))
    }
    fn insert_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        self.0.view(|v| v.insert_booking(booking))
    }
    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.0.view(|v| v.put_block(block))
    }
    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        self.0.view(|v| v.remove_block(id))
    }
    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        self.0.view(|v| v.append_events(events))
    }
    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.0.view(|v| v.append_event(event))
    }
    fn append_event_at(&mut self, seq: u64, event: &Event) -> StoreResult<()> {
        self.0.view(|v| v.append_event_at(seq, event))
    }
    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        self.0.view(|v| v.mark_fanned_out(seqs))
    }
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.0.view(|v| v.put_delivery(delivery))
    }
    fn put_lease(&mut self, claim: &DeliveryClaim) -> StoreResult<()> {
        self.0.view(|v| v.put_lease(claim))
    }
    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        self.0.view(|v| v.remove_lease(delivery_id))
    }
    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        self.0.view(|v| v.remove_delivery(id))
    }
    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.0.view(|v| v.remove_event(seq))
    }
    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        self.0.view(|v| v.put_record(kind, row))
    }
    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        self.0.view(|v| v.remove_record(kind, key))
    }
    /// Nothing to tell: the file lock makes this process the only writer.
    fn touch(&mut self, _topic: &str) -> StoreResult<()> {
        Ok(())
    }
    fn commit(self) -> StoreResult<()> {
        self.0.commit()
    }
}
