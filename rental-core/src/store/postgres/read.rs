//! What a PostgreSQL transaction reads: each [`ReadTx`] method is one query,
//! its rows decoded from the records' JSON documents.

use std::collections::HashMap;

use chrono::{DateTime, Days, NaiveDate, Utc};
use serde::de::DeserializeOwned;
use tokio_postgres::Row;
use tokio_postgres::types::{Json, ToSql};

use super::PgTx;
use super::local::Local;
use crate::basics::ids::BookingCode;
use crate::basics::lease::Lease;
use crate::basics::stay::{MAX_NIGHTS, Stay};
use crate::bookings::booking::{Booking, BookingQuery};
use crate::bookings::calendar::{Block, CalendarEntry, EntryKind};
use crate::bookings::event::{Event, OutboxEvent};
use crate::outbox::delivery::{Delivery, DeliveryClaim};
use crate::properties::property::Property;
use crate::store::{IdempotencyRecord, Prefetch, ReadTx, RecordKind, RecordRow, StoreError, StoreResult, prefix_end};

/// A row count or limit as a query parameter.
pub(super) fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// An event number as a column value.
pub(super) fn seq_value(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

pub(super) fn seq_of(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Milliseconds since 1970, as the delivery indexes keep instants.
pub(super) fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// The document in column `i`.
fn doc<T: DeserializeOwned>(row: &Row, i: usize) -> StoreResult<T> {
    row.try_get::<_, Json<T>>(i).map(|Json(v)| v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn docs<T: DeserializeOwned>(rows: &[Row]) -> StoreResult<Vec<T>> {
    rows.iter().map(|r| doc(r, 0)).collect()
}

fn first_doc<T: DeserializeOwned>(rows: &[Row]) -> StoreResult<Option<T>> {
    rows.first().map(|r| doc(r, 0)).transpose()
}

/// The `calendar.kind` of an entry kind.
pub(super) fn kind_code(kind: EntryKind) -> i16 {
    match kind {
        EntryKind::Held => 0,
        EntryKind::Booked => 1,
        EntryKind::Blocked => 2,
    }
}

/// The calendar entry in columns `at..at + 6` (holder, check-in, check-out, kind, guests, guest name).
fn entry_at(row: &Row, at: usize) -> StoreResult<CalendarEntry> {
    let kind = match row.get::<_, i16>(at + 3) {
        0 => EntryKind::Held,
        1 => EntryKind::Booked,
        2 => EntryKind::Blocked,
        other => return Err(StoreError::Corrupt(format!("bad calendar kind {other}"))),
    };
    let stay = Stay::new(row.get(at + 1), row.get(at + 2)).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let guests = u32::try_from(row.get::<_, i32>(at + 4)).unwrap_or(0);
    let (holder, guest_name): (&str, &str) = (row.get(at), row.get(at + 5));
    Ok(CalendarEntry { holder: holder.into(), stay, kind, guest_name: guest_name.into(), guests })
}

fn codes(rows: &[Row]) -> Vec<BookingCode> {
    rows.iter().map(|r| BookingCode::from(r.get::<_, &str>(0))).collect()
}

fn strings(rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| r.get(0)).collect()
}

/// The record in columns key, at, doc (as text).
fn record_row(row: &Row) -> RecordRow {
    RecordRow { key: row.get(0), at: row.get(1), doc: row.get::<_, String>(2).into_bytes() }
}

impl PgTx<'_> {
    /// Before scanning the records of `kind` whose keys start with `prefix`:
    /// the property's lock when they are one property's (a per-property
    /// kind, and the prefix reaches the `/` after the slug: `sea-view` alone
    /// would also reach `sea-view-2/...`), the whole write lock otherwise.
    pub(super) fn hold_records(&self, kind: &RecordKind, prefix: &str) -> StoreResult<()> {
        match kind.property_of(prefix) {
            Some(slug) if prefix.len() > slug.len() => self.hold_property(slug),
            _ => self.hold_all(),
        }
    }

    /// Before reading or writing the record of `kind` under the whole `key`:
    /// its property's lock for a per-property kind (`{slug}/...`, or the
    /// slug alone for the property itself), the whole write lock otherwise.
    pub(super) fn hold_record(&self, kind: &RecordKind, key: &str) -> StoreResult<()> {
        match kind.property_of(key) {
            Some(slug) => self.hold_property(slug),
            None => self.hold_all(),
        }
    }
}

impl ReadTx for PgTx<'_> {
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        self.hold_property(slug)?;
        if let Some(known) = self.local.borrow().properties.get(slug) {
            return Ok(known.clone());
        }
        let property: Option<Property> =
            first_doc(&self.query("SELECT doc FROM properties WHERE slug = $1", &[&slug])?)?;
        if self.locked {
            self.local.borrow_mut().properties.insert(slug.to_owned(), property.clone());
        }
        Ok(property)
    }

    fn properties(&self) -> StoreResult<Vec<Property>> {
        self.hold_all()?;
        docs(&self.query("SELECT doc FROM properties ORDER BY slug", &[])?)
    }

    /// In a write for some properties, a booking of another property is read
    /// again once the write holds that property's lock.
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        if let Some(known) = self.local.borrow().bookings.get(code) {
            return Ok(known.clone());
        }
        let read = || first_doc::<Booking>(&self.query("SELECT doc FROM bookings WHERE code = $1", &[&code])?);
        let mut booking = read()?;
        if let Some(other) = booking.as_ref().map(|b| b.property.as_str()).filter(|slug| !self.holds(slug)) {
            self.hold_property(other)?;
            booking = read()?;
        }
        if self.locked {
            self.local.borrow_mut().bookings.insert(code.to_owned(), booking.clone());
        }
        Ok(booking)
    }

    /// Walks `bookings_order` from the cursor, within the dates asked for (as
    /// redb's: a stay with a night on or after `from` starts at most
    /// [`MAX_NIGHTS`] before it), bounds the index scan can start and stop at.
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        self.hold_all()?;
        let statuses: Vec<String> = query.statuses.iter().map(ToString::to_string).collect();
        let earliest = query.from.and_then(|from| from.checked_sub_days(Days::new(MAX_NIGHTS.into())));
        let (start_day, start_code) = match &query.after {
            Some(c) if earliest.is_none_or(|earliest| c.check_in >= earliest) => (Some(c.check_in), c.code.to_string()),
            _ => (earliest, String::new()),
        };
        let property = query.property.as_ref().map(ToString::to_string);
        let source = query.source.as_ref().map(ToString::to_string);
        let rows = self.query(
            "SELECT doc FROM bookings
             WHERE (check_in, code) > (coalesce($1, '-infinity'::date), $2::text COLLATE \"C\")
               AND check_in < coalesce($3, 'infinity'::date)
               AND (cardinality($4::text[]) = 0 OR status = ANY($4))
               AND ($5::text IS NULL OR property = $5)
               AND ($6::text IS NULL OR source = $6)
               AND ($7::date IS NULL OR check_out > $7)
               AND ($8::timestamptz IS NULL OR updated_at >= $8)
             ORDER BY check_in, code LIMIT $9",
            &[
                &start_day,
                &start_code,
                &query.to,
                &statuses,
                &property,
                &source,
                &query.from,
                &query.updated_since,
                &limit(query.limit.saturating_add(1)),
            ],
        )?;
        let mut out: Vec<Booking> = docs(&rows)?;
        out.retain(|b| query.matches(b));
        Ok(out)
    }

    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        self.hold_all()?;
        let rows = self.query("SELECT code FROM bookings WHERE status = 'pending' ORDER BY property, code", &[])?;
        Ok(codes(&rows))
    }

    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        self.hold_property(slug)?;
        let rows = self.query("SELECT count(*) FROM bookings WHERE status = 'pending' AND property = $1", &[&slug])?;
        Ok(usize::try_from(rows.first().map_or(0, |r| r.get::<_, i64>(0))).unwrap_or(0))
    }

    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        self.hold_property(slug)?;
        let rows =
            self.query("SELECT code FROM bookings WHERE status = 'pending' AND property = $1 ORDER BY code", &[&slug])?;
        Ok(codes(&rows))
    }

    fn change_versions(&self) -> StoreResult<HashMap<String, i64>> {
        let rows = self.query("SELECT topic, version FROM changes", &[])?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit_to: usize) -> StoreResult<Vec<BookingCode>> {
        self.hold_all()?;
        let rows = self.query(
            "SELECT code FROM bookings WHERE may_lapse AND created_at <= $1 ORDER BY created_at, code LIMIT $2",
            &[&created_until, &limit(limit_to)],
        )?;
        Ok(codes(&rows))
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        self.hold_property(slug)?;
        if let Some(known) = self.local.borrow().calendar(slug, from, to) {
            return Ok(known);
        }
        let entries = self.lookup_calendars(&[(slug, from, to)])?.remove(slug).unwrap_or_default();
        if self.locked {
            self.local.borrow_mut().know_calendar(slug, from, to, entries.clone());
        }
        Ok(entries)
    }

    /// Reads, in one round trip, what a group of writes is about to read;
    /// the reads that follow are answered from it. Only a write keeps it.
    ///
    /// A write for some properties first holds every property named; bookings
    /// found of others are not kept (`booking` reads them again under their lock).
    fn prefetch(&self, wanted: &Prefetch<'_>) -> StoreResult<()> {
        if !self.locked {
            return Ok(());
        }
        let mut slugs: Vec<&str> =
            wanted.properties.iter().copied().chain(wanted.calendars.iter().map(|c| c.0)).collect();
        slugs.sort_unstable();
        slugs.dedup();
        for slug in slugs {
            self.hold_property(slug)?;
        }
        let properties = self.unknown(&wanted.properties, |l| &mut l.properties);
        let bookings = self.unknown(&wanted.bookings, |l| &mut l.bookings);
        let spans = self.unknown_spans(&wanted.calendars);
        let span_columns = SpanColumns::of(&spans);
        let (property_params, booking_params) =
            ([&properties as &(dyn ToSql + Sync)], [&bookings as &(dyn ToSql + Sync)]);
        let span_params = span_columns.params();
        let queries: Vec<(&'static str, &[&(dyn ToSql + Sync)])> = [
            (!properties.is_empty()).then_some((LOOKUP_PROPERTIES, &property_params[..])),
            (!bookings.is_empty()).then_some((LOOKUP_BOOKINGS, &booking_params[..])),
            (!spans.is_empty()).then_some((LOOKUP_CALENDARS, &span_params[..])),
        ]
        .into_iter()
        .flatten()
        .collect();
        if queries.is_empty() {
            return Ok(());
        }
        let mut found = self.query_many(&queries)?.into_iter();
        if !properties.is_empty() {
            self.know_docs(&properties, &found.next().unwrap_or_default(), |l| &mut l.properties)?;
        }
        if !bookings.is_empty() {
            self.know_docs(&bookings, &found.next().unwrap_or_default(), |l| &mut l.bookings)?;
            if self.is_scoped() {
                let mut local = self.local.borrow_mut();
                local.bookings.retain(|_, b| b.as_ref().is_none_or(|b| self.holds(b.property.as_str())));
            }
        }
        if !spans.is_empty() {
            let mut by_slug = calendars_by_slug(&found.next().unwrap_or_default())?;
            let mut local = self.local.borrow_mut();
            for (slug, from, to) in spans {
                local.know_calendar(slug, from, to, by_slug.remove(slug).unwrap_or_default());
            }
        }
        Ok(())
    }

    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        self.hold_all()?;
        first_doc(&self.query("SELECT doc FROM blocks WHERE id = $1", &[&id])?)
    }

    fn events_after(&self, seq: u64, limit_to: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.hold_all()?;
        let rows = self.query(
            "SELECT seq, doc FROM outbox WHERE seq > $1 ORDER BY seq LIMIT $2",
            &[&seq_value(seq), &limit(limit_to)],
        )?;
        rows.iter().map(|r| Ok(OutboxEvent { seq: seq_of(r.get(0)), event: doc(r, 1)? })).collect()
    }

    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        self.hold_all()?;
        first_doc(&self.query("SELECT doc FROM outbox WHERE seq = $1", &[&seq_value(seq)])?)
    }

    fn unfanned_events(&self, limit_to: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.hold_all()?;
        let rows =
            self.query("SELECT seq, doc FROM outbox WHERE NOT fanned_out ORDER BY seq LIMIT $1", &[&limit(limit_to)])?;
        rows.iter().map(|r| Ok(OutboxEvent { seq: seq_of(r.get(0)), event: doc(r, 1)? })).collect()
    }

    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.hold_all()?;
        first_doc(&self.query("SELECT doc FROM deliveries WHERE id = $1", &[&id])?)
    }

    fn due_deliveries(&self, now: DateTime<Utc>, limit_to: usize) -> StoreResult<Vec<Delivery>> {
        self.hold_all()?;
        docs(&self.query(
            "SELECT doc FROM deliveries WHERE due_at <= $1 ORDER BY due_at, event_seq, id LIMIT $2",
            &[&millis(now), &limit(limit_to)],
        )?)
    }

    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        self.hold_all()?;
        docs(&self.query("SELECT doc FROM deliveries WHERE due_at IS NOT NULL ORDER BY due_at, event_seq, id", &[])?)
    }

    fn delivery_leases(&self) -> StoreResult<Vec<DeliveryClaim>> {
        self.hold_all()?;
        let rows =
            self.query("SELECT delivery_id, webhook_id, owner, until FROM delivery_leases ORDER BY delivery_id", &[])?;
        Ok(rows
            .iter()
            .map(|r| DeliveryClaim {
                delivery_id: r.get(0),
                webhook_id: r.get(1),
                lease: Lease { owner: r.get(2), until: r.get(3) },
            })
            .collect())
    }

    fn idempotency(&self, key: &str) -> StoreResult<Option<IdempotencyRecord>> {
        if let Some(waiting) = self.local.borrow().pending.idempotency.iter().find(|r| r.key == key) {
            return Ok(Some(waiting.clone()));
        }
        first_doc(&self.query("SELECT doc FROM idempotency WHERE key = $1", &[&key])?)
    }

    fn deliveries_of(&self, webhook_id: &str, limit_to: usize) -> StoreResult<Vec<Delivery>> {
        self.hold_all()?;
        docs(&self.query(
            "SELECT doc FROM deliveries WHERE webhook_id = $1 ORDER BY event_seq DESC, id LIMIT $2",
            &[&webhook_id, &limit(limit_to)],
        )?)
    }

    fn finished_deliveries(&self, before: DateTime<Utc>, limit_to: usize) -> StoreResult<Vec<String>> {
        self.hold_all()?;
        let rows = self.query(
            "SELECT id FROM deliveries WHERE finished_at < $1 ORDER BY finished_at, id LIMIT $2",
            &[&millis(before), &limit(limit_to)],
        )?;
        Ok(strings(&rows))
    }

    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        self.hold_all()?;
        let rows = self.query("SELECT min(event_seq) FROM deliveries", &[])?;
        Ok(rows.first().and_then(|r| r.get::<_, Option<i64>>(0)).map(seq_of))
    }

    fn idempotency_before(&self, before: DateTime<Utc>, limit_to: usize) -> StoreResult<Vec<String>> {
        self.hold_all()?;
        let rows = self.query(
            "SELECT key FROM idempotency WHERE created_at < $1 ORDER BY created_at, key LIMIT $2",
            &[&before, &limit(limit_to)],
        )?;
        Ok(strings(&rows))
    }

    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        self.hold_record(kind, key)?;
        let rows =
            self.query("SELECT key, at, doc::text FROM records WHERE kind = $1 AND key = $2", &[&kind.name, &key])?;
        Ok(rows.first().map(record_row))
    }

    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, limit_to: usize) -> StoreResult<Vec<RecordRow>> {
        self.hold_records(kind, prefix)?;
        let start = std::cmp::max(prefix, after);
        let rows = self.query(
            "SELECT key, at, doc::text FROM records
             WHERE kind = $1 AND key >= $2 AND key > $3 AND ($4::text IS NULL OR key < $4) AND starts_with(key, $5)
             ORDER BY key LIMIT $6",
            &[&kind.name, &start, &after, &prefix_end(prefix), &prefix, &limit(limit_to)],
        )?;
        Ok(rows.iter().map(record_row).collect())
    }

    fn records_due(&self, kind: &RecordKind, until: i64, limit_to: usize) -> StoreResult<Vec<RecordRow>> {
        self.hold_all()?;
        let rows = self.query(
            "SELECT key, at, doc::text FROM records WHERE kind = $1 AND at <= $2 ORDER BY at, key LIMIT $3",
            &[&kind.name, &until, &limit(limit_to)],
        )?;
        Ok(rows.iter().map(record_row).collect())
    }
}

/// Properties by slug, as rows of slug and document.
const LOOKUP_PROPERTIES: &str = "SELECT slug, doc FROM properties WHERE slug = ANY($1)";

/// Bookings by code, each looked up in the primary key. The lookups are
/// kept apart (`LIMIT 1`): as one join, a plan made while the table was
/// small would scan it whole for as long as the connection lives.
const LOOKUP_BOOKINGS: &str = "SELECT b.code, b.doc FROM unnest($1::text[]) AS k(code)
     CROSS JOIN LATERAL (SELECT code, doc FROM bookings WHERE code = k.code LIMIT 1) AS b";

/// The calendars of several properties, each property's apart (`OFFSET 0`,
/// as above): its direct bookings and manual blocks by overlap, from the
/// exclusion constraint's `GiST` index, and what channels imported from an
/// index of their own (from [`earliest`]: however full the calendar, only
/// the stays that overlap are read).
const LOOKUP_CALENDARS: &str = "SELECT w.slug, c.holder, c.check_in, c.check_out, c.kind, c.guests, c.guest_name
     FROM unnest($1::text[], $2::date[], $3::date[], $4::date[]) AS w(slug, earliest, start, stop)
     CROSS JOIN LATERAL (
         SELECT holder, check_in, check_out, kind, guests, guest_name FROM calendar
         WHERE property_id = (SELECT id FROM properties p WHERE p.slug = w.slug) AND guarded IS NOT NULL
           AND daterange(check_in, check_out) && daterange(w.start, w.stop, '[]')
           AND check_in < w.stop AND check_out > w.start
         UNION ALL
         SELECT holder, check_in, check_out, kind, guests, guest_name FROM calendar
         WHERE property = w.slug AND guarded IS NULL
           AND check_in >= w.earliest AND check_in < w.stop AND check_out > w.start
         OFFSET 0
     ) AS c
     ORDER BY w.slug, c.check_in, c.holder";

/// The earliest check-in of an entry that shares a night with a span from
/// `from`: entries span at most [`MAX_NIGHTS`].
fn earliest(from: NaiveDate) -> NaiveDate {
    from.checked_sub_days(Days::new(MAX_NIGHTS.into())).unwrap_or(NaiveDate::MIN)
}

/// The columns of [`LOOKUP_CALENDARS`]'s parameters, one row per span.
struct SpanColumns<'s> {
    slugs: Vec<&'s str>,
    earliest: Vec<NaiveDate>,
    froms: Vec<NaiveDate>,
    tos: Vec<NaiveDate>,
}

impl<'s> SpanColumns<'s> {
    fn of(spans: &[(&'s str, NaiveDate, NaiveDate)]) -> Self {
        SpanColumns {
            slugs: spans.iter().map(|s| s.0).collect(),
            earliest: spans.iter().map(|s| earliest(s.1)).collect(),
            froms: spans.iter().map(|s| s.1).collect(),
            tos: spans.iter().map(|s| s.2).collect(),
        }
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 4] {
        [&self.slugs, &self.earliest, &self.froms, &self.tos]
    }
}

/// The rows of [`LOOKUP_CALENDARS`], by property, in calendar order.
fn calendars_by_slug(rows: &[Row]) -> StoreResult<HashMap<String, Vec<CalendarEntry>>> {
    let mut by_slug: HashMap<String, Vec<CalendarEntry>> = HashMap::new();
    for row in rows {
        by_slug.entry(row.get(0)).or_default().push(entry_at(row, 1)?);
    }
    Ok(by_slug)
}

impl PgTx<'_> {
    /// Those of `keys` whose documents the transaction does not know yet, in
    /// the map `known` picks.
    fn unknown<'k, D>(
        &self,
        keys: &[&'k str],
        known: fn(&mut Local) -> &mut HashMap<String, Option<D>>,
    ) -> Vec<&'k str> {
        let mut local = self.local.borrow_mut();
        let known = known(&mut local);
        keys.iter().copied().filter(|k| !known.contains_key(*k)).collect()
    }

    /// Keeps the documents read for `keys` (rows of key and document) in the
    /// map `known` picks, noting the keys that have none as absent.
    fn know_docs<D: DeserializeOwned>(
        &self,
        keys: &[&str],
        rows: &[Row],
        known: fn(&mut Local) -> &mut HashMap<String, Option<D>>,
    ) -> StoreResult<()> {
        let mut local = self.local.borrow_mut();
        let known = known(&mut local);
        for key in keys {
            known.insert((*key).to_owned(), None);
        }
        for row in rows {
            known.insert(row.get(0), Some(doc(row, 1)?));
        }
        Ok(())
    }

    /// The entries of each span's property that share a night with the span
    /// ([`LOOKUP_CALENDARS`]), by property, in calendar order.
    fn lookup_calendars(
        &self,
        spans: &[(&str, NaiveDate, NaiveDate)],
    ) -> StoreResult<HashMap<String, Vec<CalendarEntry>>> {
        let columns = SpanColumns::of(spans);
        calendars_by_slug(&self.query(LOOKUP_CALENDARS, &columns.params())?)
    }

    /// The spans to read for `wanted`, which the transaction does not know
    /// yet: one per property, from the earliest `from` to the latest `to` asked for it.
    fn unknown_spans<'s>(&self, wanted: &[(&'s str, NaiveDate, NaiveDate)]) -> Vec<(&'s str, NaiveDate, NaiveDate)> {
        let mut spans: Vec<(&str, NaiveDate, NaiveDate)> = Vec::new();
        for &(slug, from, to) in wanted {
            match spans.iter_mut().find(|s| s.0 == slug) {
                Some(span) => (span.1, span.2) = (span.1.min(from), span.2.max(to)),
                None => spans.push((slug, from, to)),
            }
        }
        spans.retain(|&(slug, from, to)| self.local.borrow().calendar(slug, from, to).is_none());
        spans
    }
}
