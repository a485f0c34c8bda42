//! The `Store` trait: narrow, synchronous, in the domain's terms. A use case
//! opens one transaction, reads and writes through it, and commits once.
//!
//! Implementations here: `RedbStore` (feature `redb`: durable, the
//! default), `PgStore` (feature `postgres`: shared by several processes) and
//! [`MemoryStore`] (for tests and throwaway use); the `rental-sqlite` crate
//! is one written outside, on the public API alone. A write transaction that
//! is dropped without [`WriteTx::commit`] changes nothing.

mod kinds;
mod marks;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
pub mod record;
#[cfg(feature = "redb")]
mod redb;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

pub(crate) use self::kinds::{AdminPassword, ClientFailures, KeyHash, PROMO_USES, StoredSession};
pub use self::kinds::{KINDS, feed_key};
pub use self::marks::{ChangeMarks, KEYS_TOPIC, property_topic, topic_property};
pub use self::memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use self::postgres::{Counts, MAX_CONNECTIONS, PgStore, PgTx, TABLES, is_postgres_url};
pub use self::record::{ReadRecords, Record, RecordKind, RecordRow, WriteRecords, prefix_end};
#[cfg(feature = "redb")]
pub use self::redb::{RedbStore, RedbTx, RedbWrite, RedoError};
use crate::basics::ids::BookingCode;
use crate::bookings::booking::{Booking, BookingQuery};
use crate::bookings::calendar::{Block, CalendarEntry, EntryKind};
use crate::bookings::event::{Event, OutboxEvent};
pub use crate::error::StoreError;
use crate::outbox::delivery::{ClaimLimits, Delivery, DeliveryClaim, DeliveryStatus, lease};
use crate::properties::property::Property;

/// The store's result type.
pub type StoreResult<T> = Result<T, StoreError>;

/// A place to keep properties, bookings, blocks, keys, webhooks, the event
/// outbox and idempotency records, with serializable transactions.
pub trait Store: Send + Sync {
    /// A consistent snapshot to read from.
    type Read<'a>: ReadTx
    where
        Self: 'a;
    /// The one write transaction; others wait for it.
    type Write<'a>: WriteTx
    where
        Self: 'a;

    /// Opens a read snapshot.
    fn read(&self) -> StoreResult<Self::Read<'_>>;
    /// Opens the write transaction, waiting while another is open. (A store
    /// may instead wait at the transaction's first statement, which no caller
    /// can tell apart: PostgreSQL sends its locks with that statement.)
    fn write(&self) -> StoreResult<Self::Write<'_>>;
    /// Opens a write transaction for work on these properties (their
    /// bookings, calendars and events; idempotency records). A store whose
    /// writers are several processes may run it beside writes for other
    /// properties; it must still take whatever else the work reaches. No
    /// default, as below: a store that wraps another passes it on, or answers
    /// with [`Store::write`].
    fn write_for(&self, properties: &[&str]) -> StoreResult<Self::Write<'_>>;
    /// How many concurrent booking creations may share one write transaction
    /// and its commit (group commit); 1 gives each its own.
    ///
    /// Sharing pays where writers take turns and each commit is a sync the
    /// next one waits for (redb; PostgreSQL behind its write lock); where
    /// writers run side by side and a conflict fails a whole transaction,
    /// it would not. No default: a store that wraps another must pass its
    /// answer on, or it silently loses group commit.
    fn group_commit(&self) -> usize;
    /// How long the store's last commit waited for its sync (the disk, or
    /// the database's flush): what a commit costs whatever it holds. The
    /// leader of a group commit waits for more creations no longer than that.
    /// `None` (the default, for a store that does not know): a commit's whole
    /// time stands in, so leaders wait as long as a commit takes. A store that
    /// wraps another should pass it on.
    fn sync_latency(&self) -> Option<std::time::Duration> {
        None
    }
    /// What other processes changed, for a store that several share: a
    /// version per topic ([`property_topic`], [`KEYS_TOPIC`]) kept up to date
    /// in memory, so looking costs no transaction. `None`: this process is
    /// the store's only writer. No default, for the same reason.
    fn change_marks(&self) -> Option<std::sync::Arc<ChangeMarks>>;
    /// Whether the stored schema is the one this build reads and writes: what
    /// a readiness check asks, beside a read. A store migrated when opened
    /// by its one process is always current; a shared one can be moved past
    /// this build by a newer process (`false`), or lose its database (an error).
    fn schema_current(&self) -> StoreResult<bool> {
        Ok(true)
    }
}

/// What a group of writes is about to read ([`ReadTx::prefetch`]).
#[derive(Debug, Default)]
pub struct Prefetch<'a> {
    /// Properties by slug.
    pub properties: Vec<&'a str>,
    /// Bookings by code, found or not.
    pub bookings: Vec<&'a str>,
    /// Calendars: a property's entries sharing a night with `from..to`.
    pub calendars: Vec<(&'a str, NaiveDate, NaiveDate)>,
}

/// What a transaction can read.
pub trait ReadTx {
    /// A property by slug, active or not. By default a record (`property`,
    /// under its slug); PostgreSQL keeps a table its bookings refer to.
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        self.get(slug)
    }
    /// Every property, by slug.
    fn properties(&self) -> StoreResult<Vec<Property>> {
        self.list_all("")
    }
    /// A booking by code.
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>>;
    /// Up to `query.limit + 1` bookings matching `query`, ordered by
    /// check-in then code, starting after `query.after`.
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>>;
    /// Codes of every pending booking, of any property.
    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        let mut codes = Vec::new();
        for property in self.properties()? {
            codes.extend(self.pending_codes_of(property.slug.as_str())?);
        }
        Ok(codes)
    }
    /// How many bookings of the property are pending.
    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        Ok(self.pending_codes_of(slug)?.len())
    }
    /// Codes of the pending bookings of property `slug`.
    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        // A pending booking holds its nights: its calendar entry is `Held`.
        let entries = self.calendar(slug, NaiveDate::MIN, NaiveDate::MAX)?;
        let mut codes: Vec<BookingCode> = entries
            .iter()
            .filter(|e| e.kind == EntryKind::Held)
            .map(|e| BookingCode::from(e.holder.as_str()))
            .collect();
        codes.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
        Ok(codes)
    }
    /// The version of each change topic as this snapshot sees it (see
    /// [`Store::change_marks`]); empty for a store with one writer.
    fn change_versions(&self) -> StoreResult<std::collections::HashMap<String, i64>> {
        Ok(std::collections::HashMap::new())
    }
    /// Up to `limit` codes of the holds a checkout TTL can expire
    /// ([`crate::lifecycle::may_lapse`]) created at or before `created_until`,
    /// oldest first, read from an index: what is not due is never read.
    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>>;
    /// The property's calendar entries that share a night with `from..to`.
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>>;
    /// For each `(slug, from)`, the entries of that property still holding a night on or after `from`.
    /// One call for many properties, so a store can read them in one pass.
    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        starts.iter().map(|(slug, from)| self.calendar(slug, *from, NaiveDate::MAX)).collect()
    }
    /// Says what a group of writes in this transaction is about to read, so
    /// that a store paying a round trip per read can fetch it all at once.
    /// Embedded stores read in memory-mapped pages and ignore it.
    fn prefetch(&self, wanted: &Prefetch<'_>) -> StoreResult<()> {
        let _ = wanted;
        Ok(())
    }
    /// How many bookings of each property are pending, in the order of `slugs`.
    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        slugs.iter().map(|slug| self.pending_count(slug)).collect()
    }
    /// A block by id.
    fn block(&self, id: &str) -> StoreResult<Option<Block>>;
    /// Up to `limit` outbox events numbered above `seq`, in order.
    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>>;
    /// The outbox event numbered `seq`.
    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        Ok(self.events_after(seq.saturating_sub(1), 1)?.into_iter().find(|e| e.seq == seq).map(|e| e.event))
    }
    /// A delivery by id.
    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>>;
    /// Up to `limit` pending deliveries due at or before `now`, the earliest first.
    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>>;
    /// Every pending delivery, due or not, the earliest first.
    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        self.due_deliveries(DateTime::<Utc>::MAX_UTC, usize::MAX)
    }
    /// Every delivery lease in the store, live or lapsed, by delivery id.
    fn delivery_leases(&self) -> StoreResult<Vec<DeliveryClaim>> {
        self.list_all("")
    }
    /// Up to `limit` outbox events not yet marked fanned out
    /// ([`WriteTx::mark_fanned_out`]), in number order. Each event carries its
    /// own mark: with several writers, numbers can commit out of order, so no
    /// high-water mark would do.
    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>>;
    /// The record of an idempotency key.
    fn idempotency(&self, key: &str) -> StoreResult<Option<IdempotencyRecord>> {
        self.get(key)
    }
    /// Up to `limit` deliveries to one webhook, the newest event first.
    ///
    /// By default a scan of every delivery, pending then finished: the
    /// dashboard asks for a few webhooks' recent deliveries, not a hot path.
    /// A store with an index on the webhook overrides it.
    fn deliveries_of(&self, webhook_id: &str, limit: usize) -> StoreResult<Vec<Delivery>> {
        let mut of = self.pending_deliveries()?;
        for id in self.finished_deliveries(end_of_time(), usize::MAX)? {
            of.extend(self.delivery(&id)?);
        }
        of.retain(|d| d.webhook_id == webhook_id);
        newest_first(&mut of, limit);
        Ok(of)
    }
    /// Up to `limit` ids of deliveries that finished (delivered or failed)
    /// before `before`, the earliest finished first, read from an index.
    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>>;
    /// The lowest event number any stored delivery refers to.
    fn first_delivered_event(&self) -> StoreResult<Option<u64>>;
    /// Up to `limit` idempotency keys recorded before `before`, the oldest first, read from an index.
    fn idempotency_before(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        let records = self.due::<IdempotencyRecord>(before - chrono::TimeDelta::milliseconds(1), limit)?;
        Ok(records.into_iter().map(|r| r.key).collect())
    }
    /// The record of `kind` under `key` (see [`Record`]; callers use [`ReadRecords::get`]).
    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>>;
    /// Up to `limit` records of `kind` whose keys start with `prefix` and are
    /// greater than `after` (`""`: from the start), in bytewise key order.
    ///
    /// A store may keep the kinds the engine keeps per booking (`payment`,
    /// `payment_plan`, `message`, `message_skipped`, `check_in`; keys
    /// `{slug}/{code}...`) in another order across bookings, as the redb store
    /// does (booking order): a prefix naming one booking (`{slug}/{code}/`)
    /// still lists in key order, and a wider one lists each record once, page
    /// after page, with `after` the last key of the page before.
    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<RecordRow>>;
    /// Up to `limit` records of `kind` whose `at` is at or before `until`
    /// (milliseconds since 1970), ordered by `at` then key, read from an index.
    fn records_due(&self, kind: &RecordKind, until: i64, limit: usize) -> StoreResult<Vec<RecordRow>>;
}

/// What the write transaction can change, on top of reading.
///
/// A store may hold writes back and send them together with its next
/// statement (PostgreSQL does, for bookings and events): a write its
/// database refuses (the overlap constraint, a taken key) then fails that
/// later call, or the commit. Either way nothing of the transaction is kept.
pub trait WriteTx: ReadTx {
    /// Inserts or replaces a property, and tells other processes sharing the
    /// store that it changed ([`WriteTx::touch`]).
    fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        self.put(property)?;
        self.touch(&property_topic(property.slug.as_str()))
    }
    /// Inserts or replaces a booking, keeping its calendar entry in step.
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()>;
    /// Inserts a new booking, as [`WriteTx::put_booking`]; a code already
    /// taken (by a write that committed meanwhile) is a [`StoreError::Conflict`].
    fn insert_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        if self.booking(booking.code.as_str())?.is_some() {
            return Err(StoreError::Conflict(format!("booking code {} is taken", booking.code)));
        }
        self.put_booking(booking)
    }
    /// Inserts or replaces a block, keeping its calendar entry in step.
    fn put_block(&mut self, block: &Block) -> StoreResult<()>;
    /// Removes a block; false when there was none.
    fn remove_block(&mut self, id: &str) -> StoreResult<bool>;
    /// Appends events to the outbox, numbered after the last one, in order.
    fn append_events(&mut self, events: &[Event]) -> StoreResult<()>;
    /// Appends one event to the outbox as [`WriteTx::append_events`] does, and returns its number.
    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.append_events(std::slice::from_ref(event))?;
        // Not fanned out yet, and numbered after every other event.
        let unfanned = self.unfanned_events(usize::MAX)?;
        unfanned.last().map(|e| e.seq).ok_or_else(|| StoreError::Corrupt("an appended event is missing".into()))
    }
    /// Appends `event` under the number `seq`, which must be past every event
    /// held: a restore keeps the numbers that deliveries and readers know.
    /// The numbers skipped stay unused, and later appends number after `seq`.
    ///
    /// The default appends placeholders up to `seq` and removes them, work in
    /// proportion to the gap; a store that can set its next number says so
    /// in one step (the memory, redb and PostgreSQL stores do).
    fn append_event_at(&mut self, seq: u64, event: &Event) -> StoreResult<()> {
        let mut placeholders = Vec::new();
        let placed = loop {
            let given = self.append_event(event)?;
            if given == seq {
                break true;
            }
            placeholders.push(given);
            if given > seq {
                break false;
            }
        };
        self.mark_fanned_out(&placeholders)?;
        placeholders.into_iter().try_for_each(|placeholder| self.remove_event(placeholder))?;
        if placed { Ok(()) } else { Err(StoreError::Conflict(format!("the outbox is already numbered past {seq}"))) }
    }
    /// Inserts or replaces a delivery, keeping the due index in step; a
    /// delivery that is no longer pending loses its lease.
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()>;
    /// Inserts or replaces the lease of `lease.delivery_id`.
    fn put_lease(&mut self, lease: &DeliveryClaim) -> StoreResult<()> {
        self.put(lease)
    }
    /// Removes a delivery's lease, if it has one.
    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        self.remove::<DeliveryClaim>(delivery_id).map(drop)
    }
    /// Claims for `owner` until `until` the deliveries due at `now` that
    /// [`lease::claimable`] allows, writing their leases and dropping lapsed
    /// ones, all in this transaction; returns them in due order.
    ///
    /// A store with one writer gets atomicity from its transaction; a shared
    /// SQL store would override this with row locks (`FOR UPDATE SKIP LOCKED`).
    fn claim_deliveries(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        until: DateTime<Utc>,
        limits: ClaimLimits,
    ) -> StoreResult<Vec<Delivery>> {
        let leases = self.delivery_leases()?;
        for lapsed in leases.iter().filter(|l| !l.lease.is_live(now)) {
            self.remove_lease(&lapsed.delivery_id)?;
        }
        // Leased deliveries stay in the due index, so read past as many as there are leases.
        let due = self.due_deliveries(now, limits.deliveries.saturating_add(leases.len()))?;
        let claimed = lease::claimable(due, &leases, now, limits);
        for d in &claimed {
            self.put_lease(&DeliveryClaim::new(d, owner, until))?;
        }
        Ok(claimed)
    }
    /// Marks the events numbered `seqs` fanned out; they no longer appear in
    /// [`ReadTx::unfanned_events`].
    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()>;
    /// Records a new idempotency key. A key already recorded (by a write that
    /// committed meanwhile) is a [`StoreError::Conflict`], never a replacement.
    fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        if self.idempotency(&record.key)?.is_some() {
            return Err(StoreError::Conflict(format!("idempotency key {:?} is recorded", record.key)));
        }
        self.put(record)
    }
    /// Removes a delivery with its attempts (retention).
    fn remove_delivery(&mut self, id: &str) -> StoreResult<()>;
    /// Removes an outbox event (retention; never the newest, whose number the next event follows).
    fn remove_event(&mut self, seq: u64) -> StoreResult<()>;
    /// Removes an idempotency record (retention).
    fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        self.remove::<IdempotencyRecord>(key).map(drop)
    }
    /// Inserts or replaces the record of `kind` under `row.key`, keeping the
    /// time index in step (callers use [`WriteRecords::put`]).
    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()>;
    /// Removes the record of `kind` under `key`; false when there was none.
    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool>;
    /// Tells the read caches of other processes that what `topic` covers
    /// changed ([`property_topic`], [`KEYS_TOPIC`]; see [`Store::change_marks`]),
    /// once the transaction commits. A store with one writer has nothing to
    /// tell and returns. No default: a store that wraps another must pass it
    /// on, or other processes keep serving what changed.
    fn touch(&mut self, topic: &str) -> StoreResult<()>;
    /// Makes every change of the transaction durable and visible, at once.
    fn commit(self) -> StoreResult<()>;
}

/// What a booking creation with an `Idempotency-Key` left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdempotencyRecord {
    /// The key as sent.
    pub key: String,
    /// Hex SHA-256 of the request it came with.
    pub fingerprint: String,
    /// The booking the first request created.
    pub code: BookingCode,
    /// The booking as the first request answered it, which a replay answers again.
    pub response: Booking,
    /// When; records older than a day are ignored.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
}

/// The due-index position of a pending delivery: its next attempt (milliseconds
/// since 1970), then its event's number, so that deliveries due together go in event order.
pub(crate) fn due_key(delivery: &Delivery) -> Option<(u64, u64)> {
    match (delivery.status, delivery.next_attempt_at) {
        (DeliveryStatus::Pending, Some(at)) => {
            Some((u64::try_from(at.timestamp_millis()).unwrap_or(0), delivery.event_seq))
        }
        _ => None,
    }
}

/// The finished-index position of a delivery that is over: when it finished
/// (its last attempt, or its creation if it never had one; milliseconds since
/// 1970); `None` while it is pending.
pub(crate) fn finished_key(delivery: &Delivery) -> Option<u64> {
    if delivery.status == DeliveryStatus::Pending {
        return None;
    }
    let at = delivery.attempts.last().map_or(delivery.created_at, |a| a.at);
    Some(u64::try_from(at.timestamp_millis()).unwrap_or(0))
}

/// Orders deliveries newest event first (then by id, so the order is stable) and keeps `limit`.
pub(crate) fn newest_first(deliveries: &mut Vec<Delivery>, limit: usize) {
    deliveries.sort_by(|a, b| b.event_seq.cmp(&a.event_seq).then_with(|| a.id.cmp(&b.id)));
    deliveries.truncate(limit);
}

/// Earlier than any stay the store can hold: where a read of a whole calendar starts
/// (a backup, a copy of one store into another).
pub(crate) fn first_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(1, 1, 1).unwrap_or(NaiveDate::MIN)
}

/// Later than any record the store can hold.
pub(crate) fn end_of_time() -> DateTime<Utc> {
    NaiveDate::from_ymd_opt(9999, 12, 31)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map_or(DateTime::<Utc>::MAX_UTC, |t| t.and_utc())
}
