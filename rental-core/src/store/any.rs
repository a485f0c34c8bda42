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

/// Calls the same method on whichever store or transaction `$it` holds,
/// wrapping a transaction it returns in `$wrap`.
macro_rules! each {
    ($it:expr, $x:ident => $call:expr) => {
        each!($it, $x => $call; |r| r, |p| p)
    };
    ($it:expr, $x:ident => $call:expr; $redb:expr, $pg:expr) => {
        match $it {
            AnyStore::Redb($x) => ($redb)($call),
            AnyStore::Postgres($x) => ($pg)($call),
        }
    };
}

macro_rules! each_tx {
    ($it:expr, $x:ident => $call:expr) => {
        match $it {
            AnyTx::Redb($x) => $call,
            AnyTx::Postgres($x) => $call,
        }
    };
}

/// Every method of the trait, passed on: a default body left to run here
/// would skip the store's own (PostgreSQL's idempotency table, row-locked
/// claims, prefetch), so each one is listed, defaults too.
macro_rules! forward {
    ($($recv:ident $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(forward!(@one $recv $name($($arg: $ty),*) -> $ret);)*
    };
    (@one read $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        fn $name(&self, $($arg: $ty),*) -> StoreResult<$ret> { each_tx!(self, tx => tx.$name($($arg),*)) }
    };
    (@one write $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        fn $name(&mut self, $($arg: $ty),*) -> StoreResult<$ret> { each_tx!(self, tx => tx.$name($($arg),*)) }
    };
}

impl Store for AnyStore {
    type Read<'a> = AnyTx<RedbTx<redb::ReadTransaction>, PgTx<'a>>;
    type Write<'a> = AnyTx<RedbTx<RedbWrite<'a>>, PgTx<'a>>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        Ok(each!(self, s => s.read()?; AnyTx::Redb, AnyTx::Postgres))
    }
    fn write(&self) -> StoreResult<Self::Write<'_>> {
        Ok(each!(self, s => s.write()?; AnyTx::Redb, AnyTx::Postgres))
    }
    fn write_for(&self, properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        Ok(each!(self, s => s.write_for(properties)?; AnyTx::Redb, AnyTx::Postgres))
    }
    fn group_commit(&self) -> usize {
        each!(self, s => s.group_commit())
    }
    fn change_marks(&self) -> Option<Arc<ChangeMarks>> {
        each!(self, s => s.change_marks())
    }

    fn schema_current(&self) -> StoreResult<bool> {
        match self {
            AnyStore::Redb(s) => s.schema_current(),
            AnyStore::Postgres(s) => s.schema_current(),
        }
    }
}

#[rustfmt::skip]
impl<R: ReadTx, P: ReadTx> ReadTx for AnyTx<R, P> {
    forward! {
        read property(slug: &str) -> Option<Property>;
        read properties() -> Vec<Property>;
        read booking(code: &str) -> Option<Booking>;
        read bookings(query: &BookingQuery) -> Vec<Booking>;
        read pending_codes() -> Vec<BookingCode>;
        read pending_count(slug: &str) -> usize;
        read pending_codes_of(slug: &str) -> Vec<BookingCode>;
        read change_versions() -> HashMap<String, i64>;
        read lapsing_holds(created_until: DateTime<Utc>, limit: usize) -> Vec<BookingCode>;
        read calendar(slug: &str, from: NaiveDate, to: NaiveDate) -> Vec<CalendarEntry>;
        read calendars_from(starts: &[(&str, NaiveDate)]) -> Vec<Vec<CalendarEntry>>;
        read prefetch(wanted: &Prefetch<'_>) -> ();
        read pending_counts(slugs: &[&str]) -> Vec<usize>;
        read block(id: &str) -> Option<Block>;
        read events_after(seq: u64, limit: usize) -> Vec<OutboxEvent>;
        read event(seq: u64) -> Option<Event>;
        read delivery(id: &str) -> Option<Delivery>;
        read due_deliveries(now: DateTime<Utc>, limit: usize) -> Vec<Delivery>;
        read pending_deliveries() -> Vec<Delivery>;
        read delivery_leases() -> Vec<Lease>;
        read unfanned_events(limit: usize) -> Vec<OutboxEvent>;
        read idempotency(key: &str) -> Option<IdempotencyRecord>;
        read deliveries_of(webhook_id: &str, limit: usize) -> Vec<Delivery>;
        read finished_deliveries(before: DateTime<Utc>, limit: usize) -> Vec<String>;
        read first_delivered_event() -> Option<u64>;
        read idempotency_before(before: DateTime<Utc>, limit: usize) -> Vec<String>;
        read record(kind: &RecordKind, key: &str) -> Option<RecordRow>;
        read records(kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> Vec<RecordRow>;
        read records_due(kind: &RecordKind, until: i64, limit: usize) -> Vec<RecordRow>;
    }
}

#[rustfmt::skip]
impl<R: WriteTx, P: WriteTx> WriteTx for AnyTx<R, P> {
    forward! {
        write put_property(property: &Property) -> ();
        write put_booking(booking: &Booking) -> ();
        write insert_booking(booking: &Booking) -> ();
        write put_block(block: &Block) -> ();
        write remove_block(id: &str) -> bool;
        write append_events(events: &[Event]) -> ();
        write append_event(event: &Event) -> u64;
        write put_delivery(delivery: &Delivery) -> ();
        write put_lease(lease: &Lease) -> ();
        write remove_lease(delivery_id: &str) -> ();
        write claim_deliveries(now: DateTime<Utc>, owner: &str, until: DateTime<Utc>, limits: ClaimLimits) -> Vec<Delivery>;
        write mark_fanned_out(seqs: &[u64]) -> ();
        write insert_idempotency(record: &IdempotencyRecord) -> ();
        write remove_delivery(id: &str) -> ();
        write remove_event(seq: u64) -> ();
        write remove_idempotency(key: &str) -> ();
        write put_record(kind: &RecordKind, row: &RecordRow) -> ();
        write remove_record(kind: &RecordKind, key: &str) -> bool;
        write touch(topic: &str) -> ();
    }
    fn commit(self) -> StoreResult<()> {
        each_tx!(self, tx => tx.commit())
    }
}
