//! The one write path: every use case that writes runs its domain logic
//! through [`Rental::write`], which owns the lock, the commit and the read cache.
//!
//! A use case gets a [`Recorder`]: the store's write transaction, which also
//! notes what the write changed, so the read cache is updated from those
//! changes alone and never reads a calendar again.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};

use super::{Rental, access_sync};
use crate::booking::{Booking, BookingQuery};
use crate::calendar::{Block, CalendarEntry};
use crate::clock::Entropy;
use crate::delivery::{ClaimLimits, Delivery, Lease};
use crate::error::{Error, Result};
use crate::event::{Event, OutboxEvent};
use crate::ids::BookingCode;
use crate::message::plan::{PlanInput, plan as message_plan};
use crate::message::{Message, booking_prefix};
use crate::property::Property;
use crate::store::{
    IdempotencyRecord, KEYS_TOPIC, Prefetch, ReadTx, RecordKind, RecordRow, Store, StoreResult, WriteTx,
};
use crate::store::{ReadRecords, WriteRecords};

/// What a committed write changed that the read cache holds.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// Properties written, in order.
    pub properties: Vec<Property>,
    /// Bookings written, in order.
    pub bookings: Vec<Booking>,
    /// Blocks written, in order.
    pub blocks: Vec<Block>,
    /// Blocks removed, as they were.
    pub removed_blocks: Vec<Block>,
    /// A key was revoked.
    pub keys_revoked: bool,
    /// Anything at all was written.
    pub any: bool,
}

/// A write transaction that records what it changes. It also keeps every
/// booking's door code in step with it (see `access_sync`): the randomness
/// and instant for that are the engine's.
pub(super) struct Recorder<T> {
    tx: T,
    changes: Changes,
    entropy: Arc<dyn Entropy>,
    now: DateTime<Utc>,
    /// `access.updated` events, appended after the use case's own events.
    access_events: Vec<Event>,
    /// Where `host_request` messages go (`hostEmail`); empty: nowhere.
    host_email: Arc<str>,
}

/// The transaction a use case writes through.
pub(super) type Tx<'a, S> = Recorder<<S as Store>::Write<'a>>;

impl<S: Store> Rental<S> {
    /// Runs `work` in one write transaction and commits what it wrote. An
    /// error from `work` writes nothing. Writes take turns, and the read
    /// cache takes each one's changes in commit order before the next starts.
    ///
    /// A transient store failure ([`StoreError::is_transient`]: a conflict
    /// with another writer, a lost connection) runs `work` again from the
    /// start in a new transaction, up to [`WRITE_ATTEMPTS`] times in all with
    /// a growing pause; the last failure is returned if none succeeds.
    pub(super) fn write<R>(&self, work: impl FnMut(&mut Tx<'_, S>) -> Result<R>) -> Result<R> {
        self.write_in(None, work)
    }

    /// [`Rental::write`] for work on these properties alone ([`Store::write_for`]):
    /// a store shared by several processes may run it beside their writes for others.
    pub(super) fn write_for<R>(&self, properties: &[&str], work: impl FnMut(&mut Tx<'_, S>) -> Result<R>) -> Result<R> {
        self.write_in(Some(properties), work)
    }

    fn write_in<R>(&self, properties: Option<&[&str]>, mut work: impl FnMut(&mut Tx<'_, S>) -> Result<R>) -> Result<R> {
        let _turn = self.writes.lock().unwrap_or_else(PoisonError::into_inner);
        let mut attempt = 1;
        loop {
            match self.write_once(properties, &mut work) {
                Err(Error::Store(e)) if e.is_transient() && attempt < WRITE_ATTEMPTS => {
                    std::thread::sleep(self.retry_pause(attempt));
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    /// One try of [`Rental::write`], with the turn held.
    fn write_once<R>(
        &self,
        properties: Option<&[&str]>,
        work: &mut impl FnMut(&mut Tx<'_, S>) -> Result<R>,
    ) -> Result<R> {
        let tx = match properties {
            Some(properties) => self.store.write_for(properties)?,
            None => self.store.write()?,
        };
        let mut tx = Recorder {
            tx,
            changes: Changes::default(),
            entropy: Arc::clone(&self.entropy),
            now: self.now(),
            access_events: Vec::new(),
            host_email: Arc::from(self.settings.host_email.as_str()),
        };
        let out = work(&mut tx)?;
        let access_events = std::mem::take(&mut tx.access_events);
        if !access_events.is_empty() {
            tx.append_events(&access_events)?;
        }
        let Recorder { tx, changes, .. } = tx;
        if changes.any {
            let started = std::time::Instant::now();
            tx.commit()?;
            crate::metrics::commit(started.elapsed());
            if let Some(cache) = &self.cache {
                cache.apply(&changes, self.now());
            }
        }
        Ok(out)
    }

    /// The pause before try `attempt + 1`: [`retry_pause`] with a random jitter.
    fn retry_pause(&self, attempt: u32) -> Duration {
        let mut byte = [0u8; 1];
        self.entropy.fill(&mut byte);
        retry_pause(attempt, byte[0])
    }
}

/// How many times `Rental::write` tries a write that fails transiently.
pub const WRITE_ATTEMPTS: u32 = 6;

/// The pause after failed try `attempt` (1-based): 5 ms doubling each time,
/// at most 160 ms, plus up to half again by `jitter` (0 to 255), so writers
/// that collided do not collide again in step.
///
/// ```
/// use std::time::Duration;
/// use rental_core::retry_pause;
///
/// assert_eq!(retry_pause(1, 0), Duration::from_millis(5));
/// assert_eq!(retry_pause(3, 0), Duration::from_millis(20));
/// assert!(retry_pause(3, 255) < Duration::from_millis(30));
/// assert_eq!(retry_pause(40, 0), Duration::from_millis(160));
/// ```
pub fn retry_pause(attempt: u32, jitter: u8) -> Duration {
    let base = 5u64 << attempt.saturating_sub(1).min(5);
    Duration::from_millis(base + base * u64::from(jitter) / 512)
}

impl<T: ReadTx> ReadTx for Recorder<T> {
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        self.tx.property(slug)
    }
    fn properties(&self) -> StoreResult<Vec<Property>> {
        self.tx.properties()
    }
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        self.tx.booking(code)
    }
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        self.tx.bookings(query)
    }
    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        self.tx.pending_codes()
    }
    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        self.tx.pending_count(slug)
    }
    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        self.tx.pending_codes_of(slug)
    }
    fn change_versions(&self) -> StoreResult<std::collections::HashMap<String, i64>> {
        self.tx.change_versions()
    }
    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>> {
        self.tx.lapsing_holds(created_until, limit)
    }
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        self.tx.calendar(slug, from, to)
    }
    fn prefetch(&self, wanted: &Prefetch<'_>) -> StoreResult<()> {
        self.tx.prefetch(wanted)
    }
    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        self.tx.calendars_from(starts)
    }
    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        self.tx.pending_counts(slugs)
    }
    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        self.tx.block(id)
    }
    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.tx.events_after(seq, limit)
    }
    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        self.tx.event(seq)
    }
    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.tx.delivery(id)
    }
    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>> {
        self.tx.due_deliveries(now, limit)
    }
    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        self.tx.pending_deliveries()
    }
    fn delivery_leases(&self) -> StoreResult<Vec<Lease>> {
        self.tx.delivery_leases()
    }
    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.tx.unfanned_events(limit)
    }
    fn idempotency(&self, key: &str) -> StoreResult<Option<IdempotencyRecord>> {
        self.tx.idempotency(key)
    }
    fn deliveries_of(&self, webhook_id: &str, limit: usize) -> StoreResult<Vec<Delivery>> {
        self.tx.deliveries_of(webhook_id, limit)
    }
    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        self.tx.finished_deliveries(before, limit)
    }
    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        self.tx.first_delivered_event()
    }
    fn idempotency_before(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        self.tx.idempotency_before(before, limit)
    }
    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        self.tx.record(kind, key)
    }
    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<RecordRow>> {
        self.tx.records(kind, prefix, after, limit)
    }
    fn records_due(&self, kind: &RecordKind, until: i64, limit: usize) -> StoreResult<Vec<RecordRow>> {
        self.tx.records_due(kind, until, limit)
    }
}

impl<T: WriteTx> Recorder<T> {
    /// Records the guest messages of `after` replacing `before` (`None`: new),
    /// in this transaction (docs/API.md section 21).
    fn record_messages(&mut self, before: Option<&Booking>, after: &Booking) -> StoreResult<()> {
        if after.guest_email.is_empty() {
            return Ok(());
        }
        let Some(property) = self.tx.property(after.property.as_str())? else { return Ok(()) };
        let existing = match before {
            Some(_) => {
                let prefix = booking_prefix(after.property.as_str(), after.code.as_str());
                self.tx.list::<Message>(&prefix, "", 1_000)?
            }
            None => Vec::new(),
        };
        let input = PlanInput { property: &property, existing: &existing, host_email: &self.host_email, now: self.now };
        let entropy = Arc::clone(&self.entropy);
        let planned = message_plan(before, after, input, &mut || crate::keys::new_id("msg_", entropy.as_ref()));
        for message in &planned {
            self.tx.put(message)?;
        }
        Ok(())
    }

    /// Marks the transaction written and returns the change list.
    fn changed(&mut self) -> &mut Changes {
        self.changes.any = true;
        &mut self.changes
    }
}

impl<T: WriteTx> WriteTx for Recorder<T> {
    fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        self.tx.put_property(property)?;
        self.changed().properties.push(property.clone());
        Ok(())
    }
    /// Writes `booking` with its door code settled (`access_sync::settle`):
    /// what is stored, and read back, may differ from `booking` in `access`.
    /// The guest messages the change causes are recorded with it (`message::plan`).
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        let mut booking = booking.clone();
        let before = if booking.guest_email.is_empty() { None } else { self.tx.booking(booking.code.as_str())? };
        if let Some(event) = access_sync::settle(&self.tx, &mut booking, self.entropy.as_ref(), self.now)? {
            self.access_events.push(event);
        }
        self.tx.put_booking(&booking)?;
        self.record_messages(before.as_ref(), &booking)?;
        self.changed().bookings.push(booking);
        Ok(())
    }
    /// Inserts `booking` with its door code settled, as [`Recorder::put_booking`] writes.
    fn insert_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        let mut booking = booking.clone();
        if let Some(event) = access_sync::settle(&self.tx, &mut booking, self.entropy.as_ref(), self.now)? {
            self.access_events.push(event);
        }
        self.tx.insert_booking(&booking)?;
        self.record_messages(None, &booking)?;
        self.changed().bookings.push(booking);
        Ok(())
    }
    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.tx.put_block(block)?;
        self.changed().blocks.push(block.clone());
        Ok(())
    }
    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        let Some(block) = self.tx.block(id)? else { return Ok(false) };
        self.tx.remove_block(id)?;
        self.changed().removed_blocks.push(block);
        Ok(true)
    }
    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        self.changed();
        self.tx.append_events(events)
    }
    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.changed();
        self.tx.append_event(event)
    }
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.changed();
        self.tx.put_delivery(delivery)
    }
    fn put_lease(&mut self, lease: &Lease) -> StoreResult<()> {
        self.changed();
        self.tx.put_lease(lease)
    }
    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        self.changed();
        self.tx.remove_lease(delivery_id)
    }
    /// The store's own claim (a shared SQL store's may use row locks). A claim
    /// that took nothing commits nothing: dropping lapsed leases alone is only tidying.
    fn claim_deliveries(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        until: DateTime<Utc>,
        limits: ClaimLimits,
    ) -> StoreResult<Vec<Delivery>> {
        let claimed = self.tx.claim_deliveries(now, owner, until, limits)?;
        if !claimed.is_empty() {
            self.changed();
        }
        Ok(claimed)
    }
    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        self.changed();
        self.tx.mark_fanned_out(seqs)
    }
    fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        self.changed();
        self.tx.insert_idempotency(record)
    }
    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        self.changed();
        self.tx.remove_delivery(id)
    }
    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.changed();
        self.tx.remove_event(seq)
    }
    fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        self.changed();
        self.tx.remove_idempotency(key)
    }
    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        self.changed();
        self.tx.put_record(kind, row)
    }
    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        self.changed();
        self.tx.remove_record(kind, key)
    }
    /// Notes a key revocation for this process's read cache too.
    fn touch(&mut self, topic: &str) -> StoreResult<()> {
        self.changed().keys_revoked |= topic == KEYS_TOPIC;
        self.tx.touch(topic)
    }
    /// Commits through [`Rental::write`] only, which also updates the cache.
    fn commit(self) -> StoreResult<()> {
        self.tx.commit()
    }
}
