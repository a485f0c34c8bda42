//! A [`Store`] for `rental-core` on `SQLite`, written outside the core against its
//! public API only: the proof that the store is pluggable, and a single-file store.
//!
//! An embedder opens the file and hands the store to the engine:
//!
//! ```
//! use rental_core::Rental;
//! use rental_sqlite::SqliteStore;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("rental.sqlite");
//! let rental = Rental::new(SqliteStore::open(&path)?);
//! assert!(rental.properties()?.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! One writer connection behind a mutex: a write runs `BEGIN IMMEDIATE` and
//! commits once; dropped without [`WriteTx::commit`], it rolls back. Reads
//! take pooled connections of their own, so they nest and run beside the writer. Files use WAL with `synchronous = FULL`, so a committed write
//! survives a crash. Documents are JSON; the columns beside them are the
//! indexes the trait's ordered reads need, as in `rental-core`'s memory store.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Datelike, Days, NaiveDate, Utc};
use rental_core::booking::{Booking, BookingQuery, Status};
use rental_core::calendar::{Block, CalendarEntry};
use rental_core::delivery::{Delivery, DeliveryStatus};
use rental_core::event::{Event, OutboxEvent};
use rental_core::ids::BookingCode;
use rental_core::lifecycle;
use rental_core::property::Property;
use rental_core::stay::MAX_NIGHTS;
use rental_core::store::{
    ChangeMarks, ReadTx, Record, RecordKind, RecordRow, Store, StoreError, StoreResult, WriteTx, prefix_end,
};
use rusqlite::{Connection, OpenFlags, Params, Row, params};

/// The tables and indexes; created when missing.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS bookings (
    code TEXT PRIMARY KEY, property TEXT NOT NULL, check_in INTEGER NOT NULL,
    pending INTEGER NOT NULL, lapse_at INTEGER, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS bookings_order ON bookings (check_in, code);
CREATE INDEX IF NOT EXISTS bookings_pending ON bookings (property, code) WHERE pending;
CREATE INDEX IF NOT EXISTS bookings_lapsing ON bookings (lapse_at, code) WHERE lapse_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS blocks (
    id TEXT PRIMARY KEY, property TEXT NOT NULL, check_in INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calendar (
    property TEXT NOT NULL, check_in INTEGER NOT NULL, holder TEXT NOT NULL, is_block INTEGER NOT NULL,
    PRIMARY KEY (property, check_in, holder));
CREATE INDEX IF NOT EXISTS calendar_holder ON calendar (holder);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, unfanned INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_unfanned ON outbox (seq) WHERE unfanned;
CREATE TABLE IF NOT EXISTS deliveries (
    id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL, event_seq INTEGER NOT NULL,
    due_at INTEGER, finished_at INTEGER, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (due_at, event_seq, id) WHERE due_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_finished ON deliveries (finished_at, id) WHERE finished_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries (event_seq);
CREATE INDEX IF NOT EXISTS deliveries_webhook ON deliveries (webhook_id, event_seq);
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL, key TEXT NOT NULL, at INTEGER, doc BLOB NOT NULL, PRIMARY KEY (kind, key));
CREATE INDEX IF NOT EXISTS records_due ON records (kind, at, key) WHERE at IS NOT NULL;
";

/// A store in one `SQLite` database (a file, or memory).
#[derive(Debug)]
pub struct SqliteStore {
    /// The one writer's connection.
    writer: Mutex<Connection>,
    /// Idle read connections, reused; a read opens another when none is idle.
    readers: Mutex<Vec<Connection>>,
    /// What a read connection opens.
    uri: String,
}

/// Names the in-memory databases of this process apart.
static MEMORY_DATABASES: AtomicU64 = AtomicU64::new(0);

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path`, in WAL mode
    /// with every commit synced.
    pub fn open(path: impl AsRef<Path>) -> StoreResult<Self> {
        let uri = path.as_ref().to_str().ok_or_else(|| StoreError::Unavailable("the path is not UTF-8".into()))?;
        let conn = Connection::open(uri).map_err(backend)?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;").map_err(backend)?;
        Self::with(conn, uri.to_owned())
    }

    /// A new, empty database in memory; nothing survives the store.
    pub fn open_in_memory() -> StoreResult<Self> {
        // The memdb VFS lets several connections of this process share one
        // database in memory (a name starting with `/`), so reads need not wait for a writer.
        let n = MEMORY_DATABASES.fetch_add(1, Ordering::Relaxed);
        let uri = format!("file:/rental-sqlite-{}-{n}?vfs=memdb", std::process::id());
        Self::with(connect(&uri)?, uri)
    }

    fn with(conn: Connection, uri: String) -> StoreResult<Self> {
        conn.busy_timeout(BUSY_TIMEOUT).map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(backend)?;
        move_properties_to_records(&conn)?;
        Ok(SqliteStore { writer: Mutex::new(conn), readers: Mutex::new(Vec::new()), uri })
    }
}

/// A database written before properties were records kept them in a table
/// of their own: they move into `records` as they are, and the table goes,
/// in one transaction.
fn move_properties_to_records(conn: &Connection) -> StoreResult<()> {
    let old: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'properties'", [], |r| r.get(0))
        .map_err(backend)?;
    if old == 0 {
        return Ok(());
    }
    conn.execute_batch(&format!(
        "BEGIN IMMEDIATE;
         INSERT OR REPLACE INTO records (kind, key, at, doc)
             SELECT '{}', slug, NULL, CAST(doc AS BLOB) FROM properties;
         DROP TABLE properties;
         COMMIT;",
        Property::KIND.name
    ))
    .map_err(backend)
}

/// How long a statement waits for a lock another connection holds.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

fn connect(uri: &str) -> StoreResult<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags).map_err(backend)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(backend)?;
    Ok(conn)
}

/// The connection a transaction holds: the writer's, or a read connection it gives back.
#[derive(Debug)]
enum Held<'a> {
    Writer(MutexGuard<'a, Connection>),
    Reader(Option<Connection>, &'a SqliteStore),
}

/// A transaction over [`SqliteStore`]. A read is a deferred transaction on a
/// connection of its own, so reads nest and run beside the writer; a `WRITE`
/// transaction runs inside `BEGIN IMMEDIATE` and rolls back unless committed.
#[derive(Debug)]
pub struct SqliteTx<'a, const WRITE: bool> {
    held: Held<'a>,
    open: bool,
}

/// A read over [`SqliteStore`].
pub type SqliteRead<'a> = SqliteTx<'a, false>;
/// The write transaction over [`SqliteStore`].
pub type SqliteWrite<'a> = SqliteTx<'a, true>;

impl Store for SqliteStore {
    type Read<'a> = SqliteRead<'a>;
    type Write<'a> = SqliteWrite<'a>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        let idle = self.readers.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => connect(&self.uri)?,
        };
        conn.execute_batch("BEGIN DEFERRED").map_err(backend)?;
        Ok(SqliteTx { held: Held::Reader(Some(conn), self), open: true })
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        let conn = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        conn.execute_batch("BEGIN IMMEDIATE").map_err(backend)?;
        Ok(SqliteTx { held: Held::Writer(conn), open: true })
    }

    /// One writer at a time, as [`Store::write`].
    fn write_for(&self, _properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        self.write()
    }

    /// Each creation commits alone.
    fn group_commit(&self) -> usize {
        1
    }

    /// This process is the database's only writer.
    fn change_marks(&self) -> Option<std::sync::Arc<ChangeMarks>> {
        None
    }
}

impl<const WRITE: bool> SqliteTx<'_, WRITE> {
    fn conn(&self) -> &Connection {
        match &self.held {
            Held::Writer(conn) => conn,
            Held::Reader(conn, _) => conn.as_ref().expect("a read holds its connection until dropped"),
        }
    }
}

impl<const WRITE: bool> Drop for SqliteTx<'_, WRITE> {
    fn drop(&mut self) {
        if self.open {
            // Nothing to tell anyone: an uncommitted write is simply gone, and a read ends.
            let _ = self.conn().execute_batch("ROLLBACK");
        }
        if let Held::Reader(conn, store) = &mut self.held
            && let Some(conn) = conn.take()
        {
            store.readers.lock().unwrap_or_else(PoisonError::into_inner).push(conn);
        }
    }
}

fn backend(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(Box::new(e))
}

fn to_json<T: serde::Serialize>(value: &T) -> StoreResult<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Backend(Box::new(e)))
}

fn from_json<T: serde::de::DeserializeOwned>(doc: &str) -> StoreResult<T> {
    serde_json::from_str(doc).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A date as a number that orders as dates do (text would not, past year 9999).
fn day(date: NaiveDate) -> i64 {
    i64::from(date.num_days_from_ce())
}

/// An instant in nanoseconds, clamped to what fits.
fn nanos(at: DateTime<Utc>) -> i64 {
    at.timestamp_nanos_opt().unwrap_or(if at.timestamp() < 0 { i64::MIN } else { i64::MAX })
}

/// A row limit for SQL: `usize::MAX` means all.
fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Milliseconds since 1970, as the core's due and finished indexes count them.
fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis().max(0)
}

fn due_at(d: &Delivery) -> Option<i64> {
    match (d.status, d.next_attempt_at) {
        (DeliveryStatus::Pending, Some(at)) => Some(millis(at)),
        _ => None,
    }
}

fn finished_at(d: &Delivery) -> Option<i64> {
    (d.status != DeliveryStatus::Pending).then(|| millis(d.attempts.last().map_or(d.created_at, |a| a.at)))
}

fn u64_of(seq: i64) -> u64 {
    u64::try_from(seq).unwrap_or(0)
}

fn i64_of(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

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

    fn execute<P: Params>(&self, sql: &str, params: P) -> StoreResult<usize> {
        self.conn().prepare_cached(sql).and_then(|mut s| s.execute(params)).map_err(backend)
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

impl WriteTx for SqliteTx<'_, true> {
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        let code = booking.code.as_str();
        self.execute("DELETE FROM calendar WHERE holder = ?1 AND NOT is_block", [code])?;
        let lapse_at = lifecycle::may_lapse(booking).then(|| nanos(booking.created_at));
        self.execute(
            "INSERT OR REPLACE INTO bookings (code, property, check_in, pending, lapse_at, doc)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                code,
                booking.property.as_str(),
                day(booking.check_in()),
                booking.status == Status::Pending,
                lapse_at,
                to_json(booking)?
            ],
        )?;
        if booking.status != Status::Cancelled {
            self.execute(
                "INSERT OR REPLACE INTO calendar (property, check_in, holder, is_block) VALUES (?1, ?2, ?3, 0)",
                params![booking.property.as_str(), day(booking.check_in()), code],
            )?;
        }
        Ok(())
    }

    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.remove_block(&block.id)?;
        let (property, check_in) = (block.property.as_str(), day(block.stay.check_in()));
        self.execute(
            "INSERT INTO blocks (id, property, check_in, doc) VALUES (?1, ?2, ?3, ?4)",
            params![block.id, property, check_in, to_json(block)?],
        )?;
        self.execute(
            "INSERT OR REPLACE INTO calendar (property, check_in, holder, is_block) VALUES (?1, ?2, ?3, 1)",
            params![property, check_in, block.id],
        )
        .map(drop)
    }

    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        self.execute("DELETE FROM calendar WHERE holder = ?1 AND is_block", [id])?;
        Ok(self.execute("DELETE FROM blocks WHERE id = ?1", [id])? > 0)
    }

    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        for event in events {
            self.execute(
                "INSERT INTO outbox (seq, unfanned, doc) SELECT coalesce(max(seq), 0) + 1, 1, ?1 FROM outbox",
                [to_json(event)?],
            )?;
        }
        Ok(())
    }

    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.append_events(std::slice::from_ref(event))?;
        let last: i64 = self
            .conn()
            .prepare_cached("SELECT max(seq) FROM outbox")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(backend)?;
        Ok(u64_of(last))
    }

    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        let due = due_at(delivery);
        if due.is_none() {
            self.remove_lease(&delivery.id)?;
        }
        self.execute(
            "INSERT OR REPLACE INTO deliveries (id, webhook_id, event_seq, due_at, finished_at, doc)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                delivery.id,
                delivery.webhook_id,
                i64_of(delivery.event_seq),
                due,
                finished_at(delivery),
                to_json(delivery)?
            ],
        )
        .map(drop)
    }

    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        for &seq in seqs {
            self.execute("UPDATE outbox SET unfanned = 0 WHERE seq = ?1", [i64_of(seq)])?;
        }
        Ok(())
    }

    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        self.execute("DELETE FROM deliveries WHERE id = ?1", [id]).map(drop)
    }

    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.execute("DELETE FROM outbox WHERE seq = ?1", [i64_of(seq)]).map(drop)
    }

    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO records (kind, key, at, doc) VALUES (?1, ?2, ?3, ?4)",
            params![kind.name, row.key, row.at, row.doc],
        )
        .map(drop)
    }

    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        Ok(self.execute("DELETE FROM records WHERE kind = ?1 AND key = ?2", [kind.name, key])? > 0)
    }

    /// Nothing to tell: this process is the database's only writer.
    fn touch(&mut self, _topic: &str) -> StoreResult<()> {
        Ok(())
    }

    fn commit(mut self) -> StoreResult<()> {
        self.open = false;
        if let Err(e) = self.conn().execute_batch("COMMIT") {
            let _ = self.conn().execute_batch("ROLLBACK");
            return Err(backend(e));
        }
        Ok(())
    }
}
