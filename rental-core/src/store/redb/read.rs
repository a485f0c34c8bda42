//! Reading the redb store: the [`Tables`] that both kinds of transaction
//! open, and [`ReadTx`] on them.

use std::ops::Deref;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use redb::{Key, ReadTransaction, ReadableTable, TableDefinition, Value, WriteTransaction};
use serde::de::DeserializeOwned;

use super::booking_records::by_booking;
use super::kept::{self, Keep, Open};
use super::tables::{
    BLOCKS, BOOKING_ORDER, BOOKING_SEQS, BOOKINGS, CALENDAR, CALENDAR_REACH, CalendarKey, CalendarValue, DELIVERIES,
    DELIVERY_DUE, DELIVERY_EVENTS, DELIVERY_FINISHED, DELIVERY_LEASES, LAPSING_HOLDS, OUTBOX, RECORD_TIMES, RECORDS,
    UNFANNED,
};
use super::view::View;
use super::{RedbTx, backend, decode};
use crate::basics::ids::BookingCode;
use crate::basics::lease::Lease;
use crate::basics::stay::{MAX_NIGHTS, Stay};
use crate::bookings::booking::{Booking, BookingQuery};
use crate::bookings::calendar::{Block, CalendarEntry, EntryKind};
use crate::bookings::event::{Event, OutboxEvent};
use crate::outbox::delivery::{Delivery, DeliveryClaim};
use crate::properties::property::Property;
use crate::store::{ReadTx, RecordKind, RecordRow, StoreError, StoreResult};

/// Opening a table to read, the same way for both kinds of transaction.
pub trait Tables {
    /// The table handle.
    type Table<'t, K: Key + 'static, V: Value + 'static>: Deref<Target: ReadableTable<K, V> + Sized>
    where
        Self: 't;
    /// Opens a table.
    fn open<K: Keep<V>, V: Value + 'static>(&self, def: TableDefinition<K, V>) -> StoreResult<Self::Table<'_, K, V>>;
    /// The property stored as `row`, decoded.
    fn decode_property(&self, row: RecordRow) -> StoreResult<Property> {
        crate::store::record::decode(&row)
    }
}

/// A table of a read snapshot.
#[derive(Debug)]
pub struct Snapshot<K: Key + 'static, V: Value + 'static>(redb::ReadOnlyTable<K, V>);

impl<K: Key + 'static, V: Value + 'static> Deref for Snapshot<K, V> {
    type Target = redb::ReadOnlyTable<K, V>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Tables for ReadTransaction {
    type Table<'t, K: Key + 'static, V: Value + 'static> = Snapshot<K, V>;
    fn open<K: Keep<V>, V: Value + 'static>(&self, def: TableDefinition<K, V>) -> StoreResult<Self::Table<'_, K, V>> {
        self.open_table(def).map(Snapshot).map_err(backend)
    }
}

/// A bare write transaction (a migration's) opens each table on its own.
impl Tables for WriteTransaction {
    type Table<'t, K: Key + 'static, V: Value + 'static> = Open<'t, 't, K, V>;
    fn open<K: Keep<V>, V: Value + 'static>(&self, def: TableDefinition<K, V>) -> StoreResult<Self::Table<'_, K, V>> {
        self.open_table(def).map(Open::Own).map_err(backend)
    }
}

/// A write transaction reads through the tables it keeps open.
impl<'s, 'q> Tables for View<'s, 'q> {
    type Table<'t, K: Key + 'static, V: Value + 'static>
        = Open<'s, 'q, K, V>
    where
        Self: 't;
    fn open<K: Keep<V>, V: Value + 'static>(&self, def: TableDefinition<K, V>) -> StoreResult<Self::Table<'_, K, V>> {
        kept::open(self.tx, self.kept, def)
    }
    /// Through the store's memo: a creation reads its property in each group.
    fn decode_property(&self, row: RecordRow) -> StoreResult<Property> {
        self.store.properties.decode(row)
    }
}

/// A borrowed transaction reads the same way, so a migration can use the read methods.
impl<T: Tables> Tables for &T {
    type Table<'t, K: Key + 'static, V: Value + 'static>
        = T::Table<'t, K, V>
    where
        Self: 't;
    fn open<K: Keep<V>, V: Value + 'static>(&self, def: TableDefinition<K, V>) -> StoreResult<Self::Table<'_, K, V>> {
        (**self).open(def)
    }
}

impl<T: Tables> RedbTx<T> {
    pub(super) fn get_json<D: DeserializeOwned>(
        &self,
        def: TableDefinition<&str, &[u8]>,
        key: &str,
    ) -> StoreResult<Option<D>> {
        let table = self.0.open(def)?;
        let value = table.get(key).map_err(backend)?;
        value.map(|v| decode(v.value())).transpose()
    }

    /// The booking with this code, with its number in `booking_rows`.
    pub(super) fn numbered_booking(&self, code: &str) -> StoreResult<Option<(u64, Booking)>> {
        let Some(seq) = self.0.open(BOOKING_SEQS)?.get(code).map_err(backend)?.map(|v| v.value()) else {
            return Ok(None);
        };
        let rows = self.0.open(BOOKINGS)?;
        let raw = rows.get(seq).map_err(backend)?;
        let raw = raw.ok_or_else(|| StoreError::Corrupt(format!("booking {code} has number {seq} but no row")))?;
        Ok(Some((seq, decode(raw.value())?)))
    }

    pub(super) fn all_json<D: DeserializeOwned>(&self, def: TableDefinition<&str, &[u8]>) -> StoreResult<Vec<D>> {
        let table = self.0.open(def)?;
        let mut out = Vec::new();
        for row in table.iter().map_err(backend)? {
            let (_, v) = row.map_err(backend)?;
            out.push(decode(v.value())?);
        }
        Ok(out)
    }
}

impl<T: Tables> ReadTx for RedbTx<T> {
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        let row = self.record(&<Property as crate::store::Record>::KIND, slug)?;
        row.map(|row| self.0.decode_property(row)).transpose()
    }

    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        Ok(self.numbered_booking(code)?.map(|(_, booking)| booking))
    }

    /// Walks the listing order from the cursor, within the dates asked for:
    /// a stay with a night on or after `from` starts at most [`MAX_NIGHTS`]
    /// before it, and one with a night before `to` starts before `to`.
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        let order = self.0.open(BOOKING_ORDER)?;
        let seqs = self.0.open(BOOKING_SEQS)?;
        let bookings = self.0.open(BOOKINGS)?;
        let cursor = query.after.as_ref().map(|c| (day(c.check_in), c.code.as_str()));
        let earliest = query.from.map_or(0, |from| day(from).saturating_sub(MAX_NIGHTS));
        let start = cursor.filter(|c| c.0 >= earliest).unwrap_or((earliest, ""));
        let end = query.to.map_or(u32::MAX, day);
        let mut out = Vec::new();
        for row in order.range(start..).map_err(backend)? {
            let (pos, _) = row.map_err(backend)?;
            let pos = pos.value();
            if pos.0 >= end {
                break;
            }
            if Some(pos) == cursor {
                continue;
            }
            let Some(seq) = seqs.get(pos.1).map_err(backend)?.map(|v| v.value()) else {
                continue;
            };
            let Some(raw) = bookings.get(seq).map_err(backend)? else {
                continue;
            };
            let booking: Booking = decode(raw.value())?;
            if query.matches(&booking) {
                out.push(booking);
                if out.len() > query.limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        held_codes(&*self.0.open(CALENDAR)?, ..)
    }

    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>> {
        let table = self.0.open(LAPSING_HOLDS)?;
        let mut out = Vec::new();
        for row in table.range(..=(millis(created_until), "\u{10FFFF}")).map_err(backend)?.take(limit) {
            out.push(BookingCode::from(row.map_err(backend)?.0.value().1));
        }
        Ok(out)
    }

    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        let table = self.0.open(DELIVERY_FINISHED)?;
        let mut out = Vec::new();
        for row in table.range(..(millis(before), "")).map_err(backend)?.take(limit) {
            out.push(row.map_err(backend)?.0.value().1.to_owned());
        }
        Ok(out)
    }

    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        let table = self.0.open(DELIVERY_EVENTS)?;
        let first = table.first().map_err(backend)?;
        Ok(first.map(|(key, _)| key.value().0))
    }

    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        count_held(&*self.0.open(CALENDAR)?, slug)
    }

    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        if let Some(seq) = self.booking_seq(kind, key)?
            && let Some(row) = self.booking_record(seq, kind, key)?
        {
            return Ok(Some(row));
        }
        let table = self.0.open(RECORDS)?;
        let row = table.get((kind.name, key)).map_err(backend)?;
        Ok(row.map(|v| {
            let (at, doc) = v.value();
            RecordRow { key: key.to_owned(), at, doc: doc.to_vec() }
        }))
    }

    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<RecordRow>> {
        if by_booking(kind) {
            return self.by_booking_records(kind, prefix, after, limit);
        }
        self.keyed_records(kind, prefix, after, limit)
    }

    fn records_due(&self, kind: &RecordKind, until: i64, limit: usize) -> StoreResult<Vec<RecordRow>> {
        let times = self.0.open(RECORD_TIMES)?;
        let mut out = Vec::new();
        for row in times.range((kind.name, i64::MIN, "")..).map_err(backend)? {
            let row = row.map_err(backend)?.0;
            let (of, at, key) = row.value();
            if out.len() == limit || of != kind.name || at > until {
                break;
            }
            let row = self.record(kind, key)?;
            out.push(
                row.ok_or_else(|| StoreError::Corrupt(format!("{} record {key:?} is indexed but gone", kind.name)))?,
            );
        }
        Ok(out)
    }

    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        held_codes(&*self.0.open(CALENDAR)?, of_property(slug))
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        let reach = reach_of(&*self.0.open(CALENDAR_REACH)?, slug)?;
        entries_from(&*self.0.open(CALENDAR)?, slug, reach, from, to)
    }

    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        let (table, reaches) = (self.0.open(CALENDAR)?, self.0.open(CALENDAR_REACH)?);
        starts
            .iter()
            .map(|(slug, from)| entries_from(&*table, slug, reach_of(&*reaches, slug)?, *from, NaiveDate::MAX))
            .collect()
    }

    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        let table = self.0.open(CALENDAR)?;
        slugs.iter().map(|slug| count_held(&*table, slug)).collect()
    }

    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        self.get_json(BLOCKS, id)
    }

    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        let table = self.0.open(OUTBOX)?;
        let mut out = Vec::new();
        for row in table.range(seq + 1..).map_err(backend)?.take(limit) {
            let (seq, raw) = row.map_err(backend)?;
            out.push(OutboxEvent { seq: seq.value(), event: decode(raw.value())? });
        }
        Ok(out)
    }

    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        let table = self.0.open(OUTBOX)?;
        let raw = table.get(seq).map_err(backend)?;
        raw.map(|v| decode(v.value())).transpose()
    }

    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.get_json(DELIVERIES, id)
    }

    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>> {
        let now = millis(now);
        self.deliveries_due_before(now, limit)
    }

    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        self.deliveries_due_before(u64::MAX, usize::MAX)
    }

    /// From the lease table (schema 8), not the records: see `tables::DELIVERY_LEASES`.
    fn delivery_leases(&self) -> StoreResult<Vec<DeliveryClaim>> {
        let table = self.0.open(DELIVERY_LEASES)?;
        let mut out = Vec::new();
        for row in table.iter().map_err(backend)? {
            let (key, value) = row.map_err(backend)?;
            let (webhook, owner, until) = value.value();
            let until = i64::try_from(until)
                .ok()
                .and_then(DateTime::from_timestamp_millis)
                .ok_or_else(|| StoreError::Corrupt(format!("bad lease end {until}")))?;
            let (delivery_id, webhook_id, lease) =
                (key.value().to_owned(), webhook.to_owned(), Lease::new(owner, until));
            out.push(DeliveryClaim { delivery_id, webhook_id, lease });
        }
        Ok(out)
    }

    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        let (unfanned, outbox) = (self.0.open(UNFANNED)?, self.0.open(OUTBOX)?);
        let mut out = Vec::new();
        for row in unfanned.iter().map_err(backend)?.take(limit) {
            let seq = row.map_err(backend)?.0.value();
            if let Some(value) = outbox.get(seq).map_err(backend)? {
                out.push(OutboxEvent { seq, event: decode(value.value())? });
            }
        }
        Ok(out)
    }

    fn deliveries_of(&self, webhook_id: &str, limit: usize) -> StoreResult<Vec<Delivery>> {
        // A scan: the dashboard asks for a few webhooks' recent deliveries, not a hot path.
        let mut of: Vec<Delivery> = self.all_json::<Delivery>(DELIVERIES)?;
        of.retain(|d| d.webhook_id == webhook_id);
        crate::store::newest_first(&mut of, limit);
        Ok(of)
    }
}

impl<T: Tables> RedbTx<T> {
    pub(super) fn deliveries_due_before(&self, until_ms: u64, limit: usize) -> StoreResult<Vec<Delivery>> {
        let due = self.0.open(DELIVERY_DUE)?;
        let deliveries = self.0.open(DELIVERIES)?;
        let mut out = Vec::new();
        for row in due.range((0, 0, "")..).map_err(backend)? {
            let (key, _) = row.map_err(backend)?;
            let (at, _, id) = key.value();
            if at > until_ms || out.len() >= limit {
                break;
            }
            if let Some(raw) = deliveries.get(id).map_err(backend)? {
                out.push(decode(raw.value())?);
            }
        }
        Ok(out)
    }
}

/// The entries of `slug` in an open calendar table that share a night with `from..to`.
///
/// The rows are walked from the earliest check-in that can reach `from`
/// (`reach`, the property's longest entry, before it), and only those that
/// end after `from` are decoded.
pub(super) fn entries_from(
    table: &impl ReadableTable<CalendarKey<'static>, CalendarValue<'static>>,
    slug: &str,
    reach: u32,
    from: NaiveDate,
    to: NaiveDate,
) -> StoreResult<Vec<CalendarEntry>> {
    let first_night = day(from);
    let earliest = first_night.saturating_sub(reach);
    let mut out = Vec::new();
    for row in table.range((slug, earliest, "")..(slug, day(to), "")).map_err(backend)? {
        let (key, value) = row.map_err(backend)?;
        let value = value.value();
        let (check_out, ..) = value;
        if check_out > first_night {
            out.push(entry(key.value(), value)?);
        }
    }
    Ok(out)
}

/// The most nights any calendar entry of `slug` has held; 0 for a property
/// without entries.
pub(super) fn reach_of(table: &impl ReadableTable<&'static str, u32>, slug: &str) -> StoreResult<u32> {
    Ok(table.get(slug).map_err(backend)?.map_or(0, |v| v.value()))
}

/// The calendar keys of property `slug`, every night.
pub(super) fn of_property(slug: &str) -> std::ops::Range<CalendarKey<'_>> {
    (slug, 0, "")..(slug, u32::MAX, "")
}

/// Calls `visit` with the slug and holder of each `Held` calendar row in
/// `keys`: a pending booking's entry is the one kind `Held`.
pub(super) fn each_held<'k>(
    table: &impl ReadableTable<CalendarKey<'static>, CalendarValue<'static>>,
    keys: impl std::ops::RangeBounds<CalendarKey<'k>> + 'k,
    mut visit: impl FnMut(&str, &str),
) -> StoreResult<()> {
    let held = kind_code(EntryKind::Held);
    for row in table.range(keys).map_err(backend)? {
        let (key, value) = row.map_err(backend)?;
        if value.value().1 == held {
            let (slug, _, holder) = key.value();
            visit(slug, holder);
        }
    }
    Ok(())
}

/// The codes of the pending bookings among the calendar rows in `keys`, by property then code.
pub(super) fn held_codes<'k>(
    table: &impl ReadableTable<CalendarKey<'static>, CalendarValue<'static>>,
    keys: impl std::ops::RangeBounds<CalendarKey<'k>> + 'k,
) -> StoreResult<Vec<BookingCode>> {
    let mut found = Vec::new();
    each_held(table, keys, |slug, holder| found.push((slug.to_owned(), BookingCode::from(holder))))?;
    found.sort_unstable();
    Ok(found.into_iter().map(|(_, code)| code).collect())
}

/// How many bookings of `slug` are pending.
pub(super) fn count_held(
    table: &impl ReadableTable<CalendarKey<'static>, CalendarValue<'static>>,
    slug: &str,
) -> StoreResult<usize> {
    let mut count = 0;
    each_held(table, of_property(slug), |_, _| count += 1)?;
    Ok(count)
}

/// Days since 0001-01-01: dates as ordered keys.
pub(super) fn day(date: NaiveDate) -> u32 {
    date.num_days_from_ce() as u32
}

pub(super) fn date(day: u32) -> StoreResult<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(day as i32).ok_or_else(|| StoreError::Corrupt(format!("bad day number {day}")))
}

pub(super) fn kind_code(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::Held => 0,
        EntryKind::Booked => 1,
        EntryKind::Blocked => 2,
    }
}

pub(super) fn entry(
    (_, check_in, holder): CalendarKey,
    (check_out, kind, guests, name): CalendarValue,
) -> StoreResult<CalendarEntry> {
    let kind = match kind {
        0 => EntryKind::Held,
        1 => EntryKind::Booked,
        2 => EntryKind::Blocked,
        other => return Err(StoreError::Corrupt(format!("bad calendar kind {other}"))),
    };
    let stay = Stay::new(date(check_in)?, date(check_out)?).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(CalendarEntry { holder: holder.into(), stay, kind, guest_name: name.into(), guests })
}

/// Milliseconds since 1970 (0 for earlier instants), the order of time-keyed indexes.
pub(super) fn millis(at: DateTime<Utc>) -> u64 {
    u64::try_from(at.timestamp_millis()).unwrap_or(0)
}
