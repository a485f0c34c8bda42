//! Reading the `SQLite` store: the query helpers both kinds of transaction
//! use, and [`ReadTx`] on them.

use chrono::{DateTime, Days, NaiveDate, Utc};
use rental_core::booking::{Booking, BookingQuery};
use rental_core::calendar::{Block, CalendarEntry};
use rental_core::delivery::Delivery;
use rental_core::event::OutboxEvent;
use rental_core::ids::BookingCode;
use rental_core::stay::MAX_NIGHTS;
use rental_core::store::{ReadTx, RecordKind, RecordRow, StoreError, StoreResult, prefix_end};
use rusqlite::{Params, Row, params};

use crate::schema::{day, from_json, i64_of, limit, millis, nanos, u64_of};
use crate::{SqliteTx, backend};

impl<const WRITE: bool> SqliteTx<'_, WRITE> {
    /// Every row of `sql`, each mapped by `f`.
    fn rows<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> StoreResult<Vec<T>> {
        let mut stmt = self.conn().prepare_cached(sql).map_err(backend)?;
        let rows = stmt.query_map(params, f).map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }

    /// The documents `sql` selects (one text column), decoded.
    fn docs<T: serde::de::DeserializeOwned, P: Params>(&self, sql: &str, params: P) -> StoreResult<Vec<T>> {
        self.rows(sql, params, |r| r.get::<_, String>(0))?.iter().map(|d| from_json(d)).collect()
    }

    fn doc<T: serde::de::DeserializeOwned, P: Params>(&self, sql: &str, params: P) -> StoreResult<Option<T>> {
        Ok(self.docs(sql, params)?.into_iter().next())
    }

    fn codes<P: Params>(&self, sql: &str, params: P) -> StoreResult<Vec<BookingCode>> {
        Ok(self.rows(sql, params, |r| r.get::<_, String>(0))?.iter().map(|c| BookingCode::from(c.as_str())).collect())
    }

    fn record_rows<P: Params>(&self, sql: &str, params: P) -> StoreResult<Vec<RecordRow>> {
        self.rows(sql, params, |r| Ok(RecordRow { key: r.get(0)?, at: r.get(1)?, doc: r.get(2)? }))
    }
}

impl<const WRITE: bool> ReadTx for SqliteTx<'_, WRITE> {
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        self.doc("SELECT doc FROM bookings WHERE code = ?1", [code])
    }

    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        let (check_in, code) =
            query.after.as_ref().map_or((i64::MIN, String::new()), |c| (day(c.check_in), c.code.to_string()));
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT doc FROM bookings WHERE (check_in, code) > (?1, ?2) ORDER BY check_in, code")
            .map_err(backend)?;
        let mut rows = stmt.query(params![check_in, code]).map_err(backend)?;
        let mut found = Vec::new();
        while found.len() <= query.limit {
            let Some(row) = rows.next().map_err(backend)? else { break };
            let booking: Booking = from_json(&row.get::<_, String>(0).map_err(backend)?)?;
            if query.matches(&booking) {
                found.push(booking);
            }
        }
        Ok(found)
    }

    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        self.codes("SELECT code FROM bookings WHERE pending ORDER BY property, code", [])
    }

    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        let n: i64 = self
            .conn()
            .prepare_cached("SELECT count(*) FROM bookings WHERE pending AND property = ?1")
            .and_then(|mut s| s.query_row([slug], |r| r.get(0)))
            .map_err(backend)?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        self.codes("SELECT code FROM bookings WHERE pending AND property = ?1 ORDER BY code", [slug])
    }

    fn lapsing_holds(&self, created_until: DateTime<Utc>, n: usize) -> StoreResult<Vec<BookingCode>> {
        self.codes(
            "SELECT code FROM bookings WHERE lapse_at IS NOT NULL AND lapse_at <= ?1 ORDER BY lapse_at, code LIMIT ?2",
            params![nanos(created_until), limit(n)],
        )
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        // No stay is longer than MAX_NIGHTS: entries starting earlier cannot reach `from`.
        let earliest = from.checked_sub_days(Days::new(MAX_NIGHTS.into())).unwrap_or(NaiveDate::MIN);
        let rows = self.rows(
            "SELECT c.is_block, coalesce(b.doc, k.doc) FROM calendar c
             LEFT JOIN bookings b ON NOT c.is_block AND b.code = c.holder
             LEFT JOIN blocks k ON c.is_block AND k.id = c.holder
             WHERE c.property = ?1 AND c.check_in >= ?2 AND c.check_in < ?3 ORDER BY c.check_in, c.holder",
            params![slug, day(earliest), day(to)],
            |r| Ok((r.get::<_, bool>(0)?, r.get::<_, Option<String>>(1)?)),
        )?;
        let mut entries = Vec::new();
        for (is_block, doc) in rows {
            let doc = doc.ok_or_else(|| StoreError::Corrupt("a calendar entry has no holder".into()))?;
            let entry = if is_block {
                Some(CalendarEntry::of_block(&from_json::<Block>(&doc)?))
            } else {
                CalendarEntry::of_booking(&from_json::<Booking>(&doc)?)
            };
            entries.extend(entry.filter(|e| e.stay.overlaps(from, to)));
        }
        Ok(entries)
    }

    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        self.doc("SELECT doc FROM blocks WHERE id = ?1", [id])
    }

    fn events_after(&self, seq: u64, n: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.events("SELECT seq, doc FROM outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2", params![i64_of(seq), limit(n)])
    }

    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        self.doc("SELECT doc FROM deliveries WHERE id = ?1", [id])
    }

    fn due_deliveries(&self, now: DateTime<Utc>, n: usize) -> StoreResult<Vec<Delivery>> {
        self.docs(
            "SELECT doc FROM deliveries WHERE due_at IS NOT NULL AND due_at <= ?1
             ORDER BY due_at, event_seq, id LIMIT ?2",
            params![millis(now), limit(n)],
        )
    }

    fn unfanned_events(&self, n: usize) -> StoreResult<Vec<OutboxEvent>> {
        self.events("SELECT seq, doc FROM outbox WHERE unfanned ORDER BY seq LIMIT ?1", [limit(n)])
    }

    fn deliveries_of(&self, webhook_id: &str, n: usize) -> StoreResult<Vec<Delivery>> {
        self.docs(
            "SELECT doc FROM deliveries WHERE webhook_id = ?1 ORDER BY event_seq DESC, id LIMIT ?2",
            params![webhook_id, limit(n)],
        )
    }

    fn finished_deliveries(&self, before: DateTime<Utc>, n: usize) -> StoreResult<Vec<String>> {
        self.rows(
            "SELECT id FROM deliveries WHERE finished_at IS NOT NULL AND finished_at < ?1
             ORDER BY finished_at, id LIMIT ?2",
            params![millis(before), limit(n)],
            |r| r.get(0),
        )
    }

    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        let first: Option<i64> = self
            .conn()
            .prepare_cached("SELECT min(event_seq) FROM deliveries")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(backend)?;
        Ok(first.map(u64_of))
    }

    fn record(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        let rows =
            self.record_rows("SELECT key, at, doc FROM records WHERE kind = ?1 AND key = ?2", [kind.name, key])?;
        Ok(rows.into_iter().next())
    }

    fn records(&self, kind: &RecordKind, prefix: &str, after: &str, n: usize) -> StoreResult<Vec<RecordRow>> {
        // TEXT compares bytewise (BINARY collation), as the trait orders keys.
        let start = std::cmp::max(prefix, after);
        match prefix_end(prefix) {
            Some(end) => self.record_rows(
                "SELECT key, at, doc FROM records WHERE kind = ?1 AND key >= ?2 AND key > ?3 AND key < ?4
                 ORDER BY key LIMIT ?5",
                params![kind.name, start, after, end, limit(n)],
            ),
            None => self.record_rows(
                "SELECT key, at, doc FROM records WHERE kind = ?1 AND key >= ?2 AND key > ?3 ORDER BY key LIMIT ?4",
                params![kind.name, start, after, limit(n)],
            ),
        }
    }

    fn records_due(&self, kind: &RecordKind, until: i64, n: usize) -> StoreResult<Vec<RecordRow>> {
        self.record_rows(
            "SELECT key, at, doc FROM records WHERE kind = ?1 AND at IS NOT NULL AND at <= ?2 ORDER BY at, key LIMIT ?3",
            params![kind.name, until, limit(n)],
        )
    }
}

impl<const WRITE: bool> SqliteTx<'_, WRITE> {
    fn events<P: Params>(&self, sql: &str, params: P) -> StoreResult<Vec<OutboxEvent>> {
        let rows = self.rows(sql, params, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        rows.into_iter().map(|(seq, doc)| Ok(OutboxEvent { seq: u64_of(seq), event: from_json(&doc)? })).collect()
    }
}
