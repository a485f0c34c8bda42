//! One store chosen at run time: the redb file of a data directory, or a
//! PostgreSQL database named by URL (docs/API.md section 17).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use super::{
    ChangeMarks, IdempotencyRecord, PgStore, PgTx, Prefetch, ReadTx, RecordKind, RecordRow, RedbStore, RedbTx,
    RedbWrite, Store, StoreResult, WriteTx,
};
use crate::booking::{Booking, BookingQuery};
use crate::calendar::{Block, CalendarEntry};
use crate::delivery::{ClaimLimits, Delivery, Lease};
use crate::event::{Event, OutboxEvent};
use crate::ids::BookingCode;
use crate::property::Property;

/// The redb store or the PostgreSQL store, whichever the configuration names.
#[derive(Debug)]
pub enum AnyStore {
    /// The embedded store in a data directory: one process.
    Redb(Box<RedbStore>),
    /// The shared store: any number of processes on one database. (Both are
    /// boxed: the handles are a few hundred bytes, and differ in size.)
    Postgres(Box<PgStore>),
}

/// A transaction of an [`AnyStore`].
#[derive(Debug)]
pub enum AnyTx<R, P> {
    /// On redb.
    Redb(R),
    /// On PostgreSQL.
    Postgres(P),
}

macro_rules! each {
    ($self:ident, $tx:ident => $call:expr) => {
        match $self {
            AnyTx::Redb($tx) => $call,
            AnyTx::Postgres($tx) => $call,
        }
    };
}

impl Store for AnyStore {
    type Read<'a> = AnyTx<RedbTx<redb::ReadTransaction>, PgTx<'a>>;
    type Write<'a> = AnyTx<RedbTx<RedbWrite<'a>>, PgTx<'a>>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        Ok(match self {
            AnyStore::Redb(s) => AnyTx::Redb(s.read()?),
            AnyStore::Postgres(s) => AnyTx::Postgres(s.read()?),
        })
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        Ok(match self {
            AnyStore::Redb(s) => AnyTx::Redb(s.write()?),
            AnyStore::Postgres(s) => AnyTx::Postgres(s.write()?),
        })
    }

    fn write_for(&self, properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        Ok(match self {
            AnyStore::Redb(s) => AnyTx::Redb(s.write_for(properties)?),
            AnyStore::Postgres(s) => AnyTx::Postgres(s.write_for(properties)?),
        })
    }

    fn group_commit(&self) -> usize {
        match self {
            AnyStore::Redb(s) => s.group_commit(),
            AnyStore::Postgres(s) => s.group_commit(),
        }
    }

    fn change_marks(&self) -> Option<Arc<ChangeMarks>> {
        match self {
            AnyStore::Redb(s) => s.change_marks(),
            AnyStore::Postgres(s) => s.change_marks(),
        }
    }

    fn schema_current(&self) -> StoreResult<bool> {
        match self {
            AnyStore::Redb(s) => s.schema_current(),
            AnyStore::Postgres(s) => s.schema_current(),
        }
    }
}

impl<R: ReadTx, P: ReadTx> ReadTx for AnyTx<R, P> {
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        each!(self, tx => tx.property(slug))
    }
    fn properties(&self) -> StoreResult<Vec<Property>> {
        each!(self, tx => tx.properties())
    }
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        each!(self, tx => tx.booking(code))
    }
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        each!(self, tx => tx.bookings(query))
    }
    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        each!(self, tx => tx.pending_codes())
    }
    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        each!(self, tx => tx.pending_count(slug))
    }
    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        each!(self, tx => tx.pending_codes_of(slug))
    }
    fn change_versions(&self) -> StoreResult<HashMap<String, i64>> {
        each!(self, tx => tx.change_versions())
    }
    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>> {
        each!(self, tx => tx.lapsing_holds(created_until, limit))
    }
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        each!(self, tx => tx.calendar(slug, from, to))
    }
    fn prefetch(&self, wanted: &Prefetch<'_>) -> StoreResult<()> {
        each!(self, tx => tx.prefetch(wanted))
    }
    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        each!(self, tx => tx.calendars_from(starts))
    }
    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        each!(self, tx => tx.pending_counts(slugs))
    }
    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        each!(self, tx => tx.block(id))
    }
    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        each!(self, tx => tx.events_after(seq, limit))
    }
    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        each!(self, tx => tx.event(seq))
    }
    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        each!(self, tx => tx.delivery(id))
    }
    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.due_deliveries(now, limit))
    }
    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.pending_deliveries())
    }
    fn delivery_leases(&self) -> StoreResult<Vec<Lease>> {
        each!(self, tx => tx.delivery_leases())
    }
    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        each!(self, tx => tx.unfanned_events(limit))
    }
    fn idempotency(&self, key: &str) -> StoreResult<Option<IdempotencyRecord>> {
        each!(self, tx => tx.idempotency(key))
    }
    fn deliveries_of(&self, webhook_id: &str, limit: usize) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.deliveries_of(webhook_id, limit))
    }

    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        each!(self, tx => tx.finished_deliveries(before, limit))
    }
    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        each!(self, tx => tx.first_delivered_event())
    }
    fn idempotency_before(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        each!(self, tx => tx.idempotency_before(before, limit))
    }
    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        each!(self, tx => tx.record(kind, key))
    }
    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<RecordRow>> {
        each!(self, tx => tx.records(kind, prefix, after, limit))
    }
    fn records_due(&self, kind: &RecordKind, until: i64, limit: usize) -> StoreResult<Vec<RecordRow>> {
        each!(self, tx => tx.records_due(kind, until, limit))
    }
}

impl<R: WriteTx, P: WriteTx> WriteTx for AnyTx<R, P> {
    fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        each!(self, tx => tx.put_property(property))
    }
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        each!(self, tx => tx.put_booking(booking))
    }
    fn insert_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        each!(self, tx => tx.insert_booking(booking))
    }
    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        each!(self, tx => tx.put_block(block))
    }
    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        each!(self, tx => tx.remove_block(id))
    }
    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        each!(self, tx => tx.append_events(events))
    }
    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        each!(self, tx => tx.append_event(event))
    }
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        each!(self, tx => tx.put_delivery(delivery))
    }
    fn put_lease(&mut self, lease: &Lease) -> StoreResult<()> {
        each!(self, tx => tx.put_lease(lease))
    }
    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_lease(delivery_id))
    }
    fn claim_deliveries(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        until: DateTime<Utc>,
        limits: ClaimLimits,
    ) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.claim_deliveries(now, owner, until, limits))
    }
    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        each!(self, tx => tx.mark_fanned_out(seqs))
    }
    fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        each!(self, tx => tx.insert_idempotency(record))
    }

    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_delivery(id))
    }
    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        each!(self, tx => tx.remove_event(seq))
    }
    fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_idempotency(key))
    }
    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        each!(self, tx => tx.put_record(kind, row))
    }
    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        each!(self, tx => tx.remove_record(kind, key))
    }
    fn touch(&mut self, topic: &str) -> StoreResult<()> {
        each!(self, tx => tx.touch(topic))
    }
    fn commit(self) -> StoreResult<()> {
        each!(self, tx => tx.commit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_store_keeps_its_group_commit_and_has_no_other_writers() {
        let dir = tempfile::tempdir().unwrap();
        let store = AnyStore::Redb(Box::new(RedbStore::open_dir(dir.path()).unwrap()));
        assert_eq!(store.group_commit(), 64, "rental serve on redb shares each sync among creations");
        assert!(store.change_marks().is_none());
    }
}
