//! Writing the redb store: the write methods on a transaction's [`View`], every
//! change noted for the redo log, and the commit that appends and syncs it.

use std::sync::atomic::Ordering;

use chrono::NaiveDate;
use redb::{Durability, ReadableTable, TableDefinition, Value};
use serde::Serialize;

use super::changes::Logged;
use super::kept::{self, Keep};
use super::read::{day, kind_code, millis, reach_of};
use super::redo::checkpoint;
use super::tables::{
    BLOCKS, BOOKING_ORDER, BOOKING_RECORDS, BOOKING_SEQS, BOOKINGS, CALENDAR, CALENDAR_REACH, DELIVERIES, DELIVERY_DUE,
    DELIVERY_EVENTS, DELIVERY_FINISHED, DELIVERY_LEASES, LAPSING_HOLDS, OUTBOX, RECORD_TIMES, RECORDS, UNFANNED,
};
use super::view::View;
use super::{RedbTx, RedbWrite, backend, booking_records, encode};
use crate::bookings::booking::Booking;
use crate::bookings::calendar::{Block, CalendarEntry};
use crate::bookings::event::Event;
use crate::bookings::lifecycle;
use crate::outbox::delivery::{Delivery, DeliveryClaim};
use crate::store::{ReadTx, RecordKind, RecordRow, StoreError, StoreResult, due_key, finished_key};

impl<'s, 'q> RedbTx<View<'s, 'q>> {
    /// Opens a table to change; its changes go to the redo log.
    pub(super) fn table<K: Keep<V>, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> StoreResult<Logged<'s, 'q, K, V>> {
        Ok(Logged::new(kept::open(self.0.tx, self.0.kept, def)?, self.0.changes))
    }

    fn put_json(&self, def: TableDefinition<&str, &[u8]>, key: &str, value: &impl Serialize) -> StoreResult<()> {
        let bytes = encode(value)?;
        self.table(def)?.insert(key, bytes.as_slice())?;
        Ok(())
    }

    fn remove(&self, def: TableDefinition<&str, &[u8]>, key: &str) -> StoreResult<bool> {
        let removed = self.table(def)?.remove(key)?;
        Ok(removed)
    }

    fn put_entry(&self, slug: &str, e: &CalendarEntry) -> StoreResult<()> {
        let nights = day(e.stay.check_out()) - day(e.stay.check_in());
        let mut reaches = self.table(CALENDAR_REACH)?;
        if nights > reach_of(&*reaches, slug)? {
            reaches.insert(slug, nights)?;
        }
        let mut table = self.table(CALENDAR)?;
        let value = (day(e.stay.check_out()), kind_code(e.kind), e.guests, e.guest_name.as_str());
        table.insert((slug, day(e.stay.check_in()), e.holder.as_str()), value)?;
        Ok(())
    }

    fn remove_entry(&self, slug: &str, check_in: NaiveDate, holder: &str) -> StoreResult<()> {
        self.table(CALENDAR)?.remove((slug, day(check_in), holder))?;
        Ok(())
    }

    /// Writes the index rows of a delivery (its record is written by the caller).
    fn index_delivery(&self, delivery: &Delivery) -> StoreResult<()> {
        let id = delivery.id.as_str();
        if let Some((at, seq)) = due_key(delivery) {
            self.table(DELIVERY_DUE)?.insert((at, seq, id), ())?;
        }
        if let Some(at) = finished_key(delivery) {
            self.table(DELIVERY_FINISHED)?.insert((at, id), ())?;
        }
        self.table(DELIVERY_EVENTS)?.insert((delivery.event_seq, id), ())
    }

    /// The next booking number, given to `code`.
    fn number_booking(&self, code: &str) -> StoreResult<u64> {
        let seq = self.next_booking_seq()?;
        self.table(BOOKING_SEQS)?.insert(code, seq)?;
        *self.0.inserted.borrow_mut() = Some((code.to_owned(), seq));
        Ok(seq)
    }

    /// The number a new booking takes: the one after the booking this
    /// transaction numbered last, or after the last in `booking_rows`.
    fn next_booking_seq(&self) -> StoreResult<u64> {
        if let Some((_, seq)) = &*self.0.inserted.borrow() {
            return Ok(seq + 1);
        }
        Ok(self.table(BOOKINGS)?.last().map_err(backend)?.map_or(1, |(k, _)| k.value() + 1))
    }

    /// A booking's row under its number and its index rows (the old ones removed by the caller).
    fn write_booking(&self, seq: u64, booking: &Booking) -> StoreResult<()> {
        self.table(BOOKINGS)?.insert(seq, encode(booking)?.as_slice())?;
        self.index_booking(booking)
    }

    /// A booking's index rows: its place in the listing order, among the
    /// lapsing holds, and in its property's calendar.
    fn index_booking(&self, booking: &Booking) -> StoreResult<()> {
        let (slug, code) = (booking.property.as_str(), booking.code.as_str());
        self.table(BOOKING_ORDER)?.insert((day(booking.check_in()), code), ())?;
        if lifecycle::may_lapse(booking) {
            let mut holds = self.table(LAPSING_HOLDS)?;
            holds.insert((millis(booking.created_at), code), ())?;
        }
        match CalendarEntry::of_booking(booking) {
            Some(entry) => self.put_entry(slug, &entry),
            None => Ok(()),
        }
    }

    fn unindex_booking(&self, old: &Booking) -> StoreResult<()> {
        let (slug, code) = (old.property.as_str(), old.code.as_str());
        self.table(BOOKING_ORDER)?.remove((day(old.check_in()), code))?;
        self.table(LAPSING_HOLDS)?.remove((millis(old.created_at), code))?;
        self.remove_entry(slug, old.check_in(), code)
    }

    pub(super) fn put_booking(&self, booking: &Booking) -> StoreResult<()> {
        let seq = if let Some((seq, old)) = self.numbered_booking(booking.code.as_str())? {
            self.unindex_booking(&old)?;
            seq
        } else {
            self.number_booking(booking.code.as_str())?
        };
        self.write_booking(seq, booking)
    }

    /// A new booking: the insert of its code's number is also the look for a
    /// booking with that code (a conflict), with no read before it.
    pub(super) fn insert_booking(&self, booking: &Booking) -> StoreResult<()> {
        let code = booking.code.as_str();
        let seq = self.next_booking_seq()?;
        // Each table opened once: opening one is a good part of a row's cost in redb.
        let mut seqs = self.table(BOOKING_SEQS)?;
        if let Some(taken) = seqs.replace(code, seq, |old| old)? {
            seqs.insert(code, taken)?;
            return Err(StoreError::Conflict(format!("booking code {code} is taken")));
        }
        let mut rows = self.table(BOOKINGS)?;
        *self.0.inserted.borrow_mut() = Some((code.to_owned(), seq));
        rows.insert(seq, encode(booking)?.as_slice())?;
        drop((seqs, rows));
        self.index_booking(booking)
    }

    pub(super) fn put_block(&self, block: &Block) -> StoreResult<()> {
        self.remove_block(&block.id)?;
        self.put_json(BLOCKS, &block.id, block)?;
        self.put_entry(block.property.as_str(), &CalendarEntry::of_block(block))
    }

    pub(super) fn remove_block(&self, id: &str) -> StoreResult<bool> {
        let Some(old) = self.block(id)? else {
            return Ok(false);
        };
        self.remove_entry(old.property.as_str(), old.stay.check_in(), id)?;
        self.remove(BLOCKS, id)
    }

    pub(super) fn append_events(&self, events: &[Event]) -> StoreResult<()> {
        let mut table = self.table(OUTBOX)?;
        let mut seq = table.last().map_err(backend)?.map_or(0, |(k, _)| k.value());
        let mut unfanned = self.table(UNFANNED)?;
        for event in events {
            seq += 1;
            table.insert(seq, encode(event)?.as_slice())?;
            unfanned.insert(seq, ())?;
        }
        Ok(())
    }

    pub(super) fn append_event(&self, event: &Event) -> StoreResult<u64> {
        self.append_events(std::slice::from_ref(event))?;
        let table = self.table(OUTBOX)?;
        Ok(table.last().map_err(backend)?.map_or(0, |(k, _)| k.value()))
    }

    pub(super) fn append_event_at(&self, seq: u64, event: &Event) -> StoreResult<()> {
        let mut table = self.table(OUTBOX)?;
        if table.last().map_err(backend)?.is_some_and(|(k, _)| k.value() >= seq) {
            return Err(StoreError::Conflict(format!("the outbox is already numbered past {seq}")));
        }
        table.insert(seq, encode(event)?.as_slice())?;
        self.table(UNFANNED)?.insert(seq, ())?;
        Ok(())
    }

    pub(super) fn mark_fanned_out(&self, seqs: &[u64]) -> StoreResult<()> {
        let mut unfanned = self.table(UNFANNED)?;
        for &seq in seqs {
            unfanned.remove(seq)?;
        }
        Ok(())
    }

    pub(super) fn put_delivery(&self, delivery: &Delivery) -> StoreResult<()> {
        self.remove_delivery(&delivery.id)?;
        self.index_delivery(delivery)?;
        if due_key(delivery).is_none() {
            self.remove_lease(&delivery.id)?;
        }
        self.put_json(DELIVERIES, &delivery.id, delivery)
    }

    /// One row in the lease table: no read first, one tree (see `tables::DELIVERY_LEASES`).
    pub(super) fn put_lease(&self, claim: &DeliveryClaim) -> StoreResult<()> {
        let value = (claim.webhook_id.as_str(), claim.lease.owner.as_str(), millis(claim.lease.until));
        self.table(DELIVERY_LEASES)?.insert(claim.delivery_id.as_str(), value)
    }

    pub(super) fn remove_lease(&self, delivery_id: &str) -> StoreResult<()> {
        self.table(DELIVERY_LEASES)?.remove(delivery_id).map(drop)
    }

    pub(super) fn remove_delivery(&self, id: &str) -> StoreResult<()> {
        let Some(old) = self.delivery(id)? else { return Ok(()) };
        if let Some((at, seq)) = due_key(&old) {
            self.table(DELIVERY_DUE)?.remove((at, seq, id))?;
        }
        if let Some(at) = finished_key(&old) {
            self.table(DELIVERY_FINISHED)?.remove((at, id))?;
        }
        self.table(DELIVERY_EVENTS)?.remove((old.event_seq, id))?;
        self.remove(DELIVERIES, id).map(drop)
    }

    pub(super) fn remove_event(&self, seq: u64) -> StoreResult<()> {
        self.table(OUTBOX)?.remove(seq)?;
        self.table(UNFANNED)?.remove(seq)?;
        Ok(())
    }

    /// The row goes in first and says what it replaced, so a new record (most
    /// of them: a booking's messages and payments) costs no read of its own
    /// beyond finding where it goes: under its booking's sequence for a kind
    /// kept by booking (`booking_records.rs`), unless `records` already holds it.
    pub(super) fn put_record(&self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        let key = row.key.as_str();
        let value = (row.at, row.doc.as_slice());
        let may_be_in_records = self.0.store.booking_kinds_in_records.load(Ordering::SeqCst);
        let old_at = match self.put_seq(kind, key)? {
            Some(seq) if !(may_be_in_records && self.in_records(kind, key)?) => {
                self.table(BOOKING_RECORDS)?.replace((seq, kind.name, key), value, |(at, _)| at)?
            }
            seq => {
                if seq.is_none() && booking_records::by_booking(kind) {
                    self.0.store.booking_kinds_in_records.store(true, Ordering::SeqCst);
                }
                self.table(RECORDS)?.replace((kind.name, key), value, |(at, _)| at)?
            }
        };
        if old_at == Some(row.at) {
            return Ok(());
        }
        let mut times = self.table(RECORD_TIMES)?;
        if let Some(Some(at)) = old_at {
            times.remove((kind.name, at, key))?;
        }
        if let Some(at) = row.at {
            times.insert((kind.name, at, key), ())?;
        }
        Ok(())
    }

    /// [`RedbTx::booking_seq`] for a put: the booking this transaction
    /// inserted last needs no look (a creation's records follow it).
    fn put_seq(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<u64>> {
        if let Some((code, seq)) = &*self.0.inserted.borrow()
            && booking_records::by_booking(kind)
            && booking_records::code_of(key) == Some(code.as_str())
        {
            return Ok(Some(*seq));
        }
        self.booking_seq(kind, key)
    }

    pub(super) fn remove_record(&self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        let Some(old) = self.record(kind, key)? else { return Ok(false) };
        if let Some(at) = old.at {
            self.table(RECORD_TIMES)?.remove((kind.name, at, key))?;
        }
        if let Some(seq) = self.booking_seq(kind, key)?
            && self.table(BOOKING_RECORDS)?.remove((seq, kind.name, key))?
        {
            return Ok(true);
        }
        self.table(RECORDS)?.remove((kind.name, key))
    }
}

impl RedbWrite<'_> {
    /// Appends the changes to the redo log and commits redb without a sync
    /// of its own; about once a second, a durable redb commit instead (a
    /// checkpoint). A commit that changed nothing writes nothing.
    pub(super) fn commit(self) -> StoreResult<()> {
        let RedbWrite { tx, changes, store, .. } = self;
        let mut tx = tx.close();
        if changes.is_empty() {
            // Nothing to make durable, so nothing a refusing log could lose.
            tx.set_durability(Durability::None).map_err(backend)?;
            return tx.commit().map_err(backend);
        }
        let mut log = store.log();
        log.refuse()?;
        if log.checkpoint_due() {
            return checkpoint(tx, &mut log);
        }
        tx.set_durability(Durability::None).map_err(backend)?;
        log.append(&changes.into_bytes())?;
        tx.commit().map_err(|e| {
            log.take_back_last();
            backend(e)
        })?;
        store.flusher.committed();
        Ok(())
    }
}
