//! An in-memory store: copy-on-write snapshots behind a lock. Serializable
//! like redb (one writer at a time), but nothing survives the process.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use chrono::{DateTime, Days, NaiveDate, Utc};

use super::{ReadTx, RecordKind, RecordRow, Store, StoreError, StoreResult, WriteTx, due_key, finished_key};
use crate::basics::ids::BookingCode;
use crate::bookings::booking::{Booking, BookingQuery, Cursor, Status};
use crate::bookings::calendar::{Block, CalendarEntry};
use crate::bookings::lifecycle;
use crate::outbox::delivery::Delivery;
use crate::outbox::event::{Event, OutboxEvent};
use crate::stays::stay::MAX_NIGHTS;

/// A store that keeps everything in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    current: RwLock<Arc<Data>>,
    writer: Mutex<()>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Everything the store holds, with the same indexes as the redb tables.
#[derive(Debug, Clone, Default)]
pub struct Data {
    bookings: BTreeMap<String, Booking>,
    order: BTreeSet<(NaiveDate, String)>,
    calendar: BTreeMap<(String, NaiveDate, String), CalendarEntry>,
    pending: BTreeSet<(String, String)>,
    /// (created at, code) of every hold a checkout TTL can expire.
    holds: BTreeSet<(DateTime<Utc>, String)>,
    blocks: BTreeMap<String, Block>,
    outbox: BTreeMap<u64, Event>,
    deliveries: BTreeMap<String, Delivery>,
    /// Numbers of the outbox events not yet fanned out.
    unfanned: BTreeSet<u64>,
    due: BTreeSet<(u64, u64, String)>,
    finished: BTreeSet<(u64, String)>,
    delivery_events: BTreeSet<(u64, String)>,
    /// (kind, key) -> record.
    records: BTreeMap<(&'static str, String), RecordRow>,
    /// (kind, at, key) of every record with a time.
    record_times: BTreeSet<(&'static str, i64, String)>,
}

/// A transaction over [`MemoryStore`]: a shared snapshot to read, or a private copy to write.
#[derive(Debug)]
pub struct MemoryTx<'a, D> {
    data: D,
    writer: Option<(MutexGuard<'a, ()>, &'a MemoryStore)>,
}

impl Store for MemoryStore {
    type Read<'a> = MemoryTx<'a, Arc<Data>>;
    type Write<'a> = MemoryTx<'a, Data>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        let data = Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner));
        Ok(MemoryTx { data, writer: None })
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        let guard = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let data = Data::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner));
        Ok(MemoryTx { data, writer: Some((guard, self)) })
    }

    /// The one writer, as [`Store::write`].
    fn write_for(&self, _properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        self.write()
    }

    /// Each creation commits alone: a commit here is a pointer swap, with no sync to share.
    fn group_commit(&self) -> usize {
        1
    }

    fn change_marks(&self) -> Option<Arc<super::ChangeMarks>> {
        None
    }
}

impl<D: Borrow<Data>> ReadTx for MemoryTx<'_, D> {
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        Ok(self.data().bookings.get(code).cloned())
    }

    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        let data = self.data();
        let start = query.after.as_ref().map(|c: &Cursor| (c.check_in, c.code.to_string()));
        let positions = data.order.iter().filter(|pos| start.as_ref().is_none_or(|s| *pos > s));
        Ok(positions
            .filter_map(|(_, code)| data.bookings.get(code))
            .filter(|b| query.matches(b))
            .take(query.limit + 1)
            .cloned()
            .collect())
    }

    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        Ok(self.data().pending.iter().map(|(_, code)| BookingCode::from(code.as_str())).collect())
    }

    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>> {
        let holds = self.data().holds.iter().take_while(|(at, _)| *at <= created_until);
        Ok(holds.take(limit).map(|(_, code)| BookingCode::from(code.as_str())).collect())
    }

    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        Ok(self.data().pending_of(slug).count())
    }

    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        Ok(self.data().pending_of(slug).map(BookingCode::from).collect())
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        let earliest = from.checked_sub_days(Days::new(MAX_NIGHTS.into())).unwrap_or(NaiveDate::MIN);
        let range = (slug.to_owned(), earliest, String::new())..(slug.to_owned(), to, String::new());
        let entries = self.data().calendar.range(range).map(|(_, e)| e);
        Ok(entries.filter(|e| e.stay.overlaps(from, to)).cloned().collect())
    }

    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        Ok(self.data().blocks.get(id).cloned())
    }

    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        let events = self.data().outbox.range(seq + 1..).take(limit);
        Ok(events.map(|(&seq, event)| OutboxEvent { seq, event: event.clone() }).collect())
    }

    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        Ok(self.data().deliveries.get(id).cloned())
    }

    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>> {
        let now = u64::try_from(now.timestamp_millis()).unwrap_or(0);
        let data = self.data();
        let due = data.due.iter().take_while(|(at, _, _)| *at <= now).take(limit);
        Ok(due.filter_map(|(_, _, id)| data.deliveries.get(id)).cloned().collect())
    }

    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        let data = self.data();
        let seqs = data.unfanned.iter().take(limit);
        Ok(seqs.filter_map(|&seq| data.outbox.get(&seq).map(|e| OutboxEvent { seq, event: e.clone() })).collect())
    }

    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        let data = self.data();
        Ok(data.due.iter().filter_map(|(_, _, id)| data.deliveries.get(id)).cloned().collect())
    }

    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        let before = u64::try_from(before.timestamp_millis()).unwrap_or(0);
        let finished = self.data().finished.iter().take_while(|(at, _)| *at < before);
        Ok(finished.take(limit).map(|(_, id)| id.clone()).collect())
    }

    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        Ok(self.data().delivery_events.first().map(|(seq, _)| *seq))
    }

    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        Ok(self.data().records.get(&(kind.name, key.to_owned())).cloned())
    }

    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<RecordRow>> {
        let start = (kind.name, std::cmp::max(prefix, after).to_owned());
        let rows = self.data().records.range(start..).take_while(|((k, _), _)| *k == kind.name);
        let rows = rows.map(|(_, row)| row).skip_while(|row| row.key.as_str() <= after);
        Ok(rows.take_while(|row| row.key.starts_with(prefix)).take(limit).cloned().collect())
    }

    fn records_due(&self, kind: &RecordKind, until: i64, limit: usize) -> StoreResult<Vec<RecordRow>> {
        let data = self.data();
        let times = data.record_times.range((kind.name, i64::MIN, String::new())..);
        let due = times.take_while(|(k, at, _)| *k == kind.name && *at <= until).take(limit);
        Ok(due.filter_map(|(k, _, key)| data.records.get(&(*k, key.clone()))).cloned().collect())
    }
}

impl<D: Borrow<Data>> MemoryTx<'_, D> {
    fn data(&self) -> &Data {
        self.data.borrow()
    }
}

impl Data {
    /// The codes of property `slug`'s pending bookings, from its part of the index.
    fn pending_of<'a>(&'a self, slug: &'a str) -> impl Iterator<Item = &'a str> {
        let of = self.pending.range((slug.to_owned(), String::new())..);
        of.take_while(move |(s, _)| s == slug).map(|(_, code)| code.as_str())
    }
}

impl WriteTx for MemoryTx<'_, Data> {
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        let data = &mut self.data;
        let code = booking.code.to_string();
        if let Some(old) = data.bookings.get(&code) {
            let slug = old.property.to_string();
            data.order.remove(&(old.check_in(), code.clone()));
            data.calendar.remove(&(slug.clone(), old.check_in(), code.clone()));
            data.pending.remove(&(slug, code.clone()));
            data.holds.remove(&(old.created_at, code.clone()));
        }
        let slug = booking.property.to_string();
        data.order.insert((booking.check_in(), code.clone()));
        if let Some(entry) = CalendarEntry::of_booking(booking) {
            data.calendar.insert((slug.clone(), booking.check_in(), code.clone()), entry);
        }
        if booking.status == Status::Pending {
            data.pending.insert((slug, code.clone()));
        }
        if lifecycle::may_lapse(booking) {
            data.holds.insert((booking.created_at, code.clone()));
        }
        data.bookings.insert(code, booking.clone());
        Ok(())
    }

    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.remove_block(&block.id)?;
        let key = (block.property.to_string(), block.stay.check_in(), block.id.clone());
        self.data.calendar.insert(key, CalendarEntry::of_block(block));
        self.data.blocks.insert(block.id.clone(), block.clone());
        Ok(())
    }

    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        let Some(old) = self.data.blocks.remove(id) else {
            return Ok(false);
        };
        self.data.calendar.remove(&(old.property.to_string(), old.stay.check_in(), old.id));
        Ok(true)
    }

    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        let mut seq = self.data.outbox.last_key_value().map_or(0, |(&seq, _)| seq);
        for event in events {
            seq += 1;
            self.data.outbox.insert(seq, event.clone());
            self.data.unfanned.insert(seq);
        }
        Ok(())
    }

    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.append_events(std::slice::from_ref(event))?;
        Ok(self.data.outbox.last_key_value().map_or(0, |(&seq, _)| seq))
    }

    fn append_event_at(&mut self, seq: u64, event: &Event) -> StoreResult<()> {
        if self.data.outbox.last_key_value().is_some_and(|(&last, _)| last >= seq) {
            return Err(StoreError::Conflict(format!("the outbox is already numbered past {seq}")));
        }
        self.data.outbox.insert(seq, event.clone());
        self.data.unfanned.insert(seq);
        Ok(())
    }

    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        for seq in seqs {
            self.data.unfanned.remove(seq);
        }
        Ok(())
    }

    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.remove_delivery(&delivery.id)?;
        if due_key(delivery).is_none() {
            self.remove_lease(&delivery.id)?;
        }
        let (data, id) = (&mut self.data, delivery.id.clone());
        if let Some((at, seq)) = due_key(delivery) {
            data.due.insert((at, seq, id.clone()));
        }
        if let Some(at) = finished_key(delivery) {
            data.finished.insert((at, id.clone()));
        }
        data.delivery_events.insert((delivery.event_seq, id.clone()));
        data.deliveries.insert(id, delivery.clone());
        Ok(())
    }

    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        let data = &mut self.data;
        let Some(old) = data.deliveries.remove(id) else { return Ok(()) };
        if let Some((at, seq)) = due_key(&old) {
            data.due.remove(&(at, seq, old.id.clone()));
        }
        if let Some(at) = finished_key(&old) {
            data.finished.remove(&(at, old.id.clone()));
        }
        data.delivery_events.remove(&(old.event_seq, old.id));
        Ok(())
    }

    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.data.outbox.remove(&seq);
        self.data.unfanned.remove(&seq);
        Ok(())
    }

    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        self.remove_record(kind, &row.key)?;
        if let Some(at) = row.at {
            self.data.record_times.insert((kind.name, at, row.key.clone()));
        }
        self.data.records.insert((kind.name, row.key.clone()), row.clone());
        Ok(())
    }

    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        let Some(old) = self.data.records.remove(&(kind.name, key.to_owned())) else { return Ok(false) };
        if let Some(at) = old.at {
            self.data.record_times.remove(&(kind.name, at, old.key));
        }
        Ok(true)
    }

    /// Nothing to tell: this process is the store's only writer.
    fn touch(&mut self, _topic: &str) -> StoreResult<()> {
        Ok(())
    }

    fn commit(self) -> StoreResult<()> {
        if let Some((_guard, store)) = self.writer {
            *store.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(self.data);
        }
        Ok(())
    }
}
