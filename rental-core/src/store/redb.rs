//! The durable store on redb: one file, one writer at a time, every commit
//! persisted (in its redo log) before it returns. Table layout: docs/DESIGN.md, "Storage".

mod disk;
mod errors;
mod flusher;
#[cfg(test)]
mod power_loss;
mod redo;
#[cfg(test)]
mod sim;

pub use errors::RedoError;

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use redb::{
    Database, Durability, Key, ReadTransaction, ReadableDatabase, ReadableTable, ReadableTableMetadata,
    TableDefinition, Value, WriteTransaction,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{
    IdempotencyRecord, ReadTx, Store, StoreError, StoreResult, WriteTx, due_key, feed_key, feed_keys_of, finished_key,
};
use crate::admin_session::{AdminSession, LoginFailures};
use crate::booking::{Booking, BookingQuery};
use crate::calendar::{Block, CalendarEntry, EntryKind};
use crate::channel::FeedState;
use crate::delivery::{Delivery, Lease};
use crate::event::{Event, OutboxEvent};
use crate::ids::BookingCode;
use crate::keys::ApiKey;
use crate::lifecycle;
use crate::property::Property;
use crate::stay::{MAX_NIGHTS, Stay};
use crate::webhook::Webhook;
use disk::{Disk, OsDisk};
use flusher::Flusher;
#[cfg(test)]
use redo::redo_path;
use redo::{Changes, Header, Logged, RedoLog, checkpoint};

/// The version of the table layout below; bumped with a migration when it changes.
/// 2 added `lapsing_holds`, `delivery_finished`, `delivery_events` and `idempotency_created`;
/// 3 replaced the fan-out high-water mark with the `unfanned` set; 4 dropped
/// `pending`, whose rows were the calendar's held entries over again; 5
/// added `calendar_reach`; 6 keyed the bookings by a sequence number, with
/// `booking_seqs` from code to number.
const SCHEMA_VERSION: &str = "6";

/// The most booking creations one durable commit takes (see [`Store::group_commit`]).
const GROUP_COMMIT: usize = 64;

const META: TableDefinition<&str, &str> = TableDefinition::new("meta");
/// The `meta` key of the last outbox event fanned out to webhooks, up to schema 2.
const FANNED_OUT: &str = "outbox_fanned_out";
/// Numbers of the outbox events not yet fanned out to webhooks (schema 3).
const UNFANNED: TableDefinition<u64, ()> = TableDefinition::new("unfanned");
/// The `meta` key of the admin dashboard's password hash (a PHC string).
const ADMIN_PASSWORD: &str = "admin_password";
const PROPERTIES: TableDefinition<&str, &[u8]> = TableDefinition::new("properties");
/// Sequence number -> booking (schema 6). A new booking takes the next
/// number, so creations write the tree's last leaf, not a random one; a
/// change keeps the booking's number.
const BOOKINGS: TableDefinition<u64, &[u8]> = TableDefinition::new("booking_rows");
/// Booking code -> its number in `booking_rows` (schema 6).
const BOOKING_SEQS: TableDefinition<&str, u64> = TableDefinition::new("booking_seqs");
/// Code -> booking, up to schema 5.
const CODE_KEYED_BOOKINGS: TableDefinition<&str, &[u8]> = TableDefinition::new("bookings");
/// (check-in day, code): the listing order.
const BOOKING_ORDER: TableDefinition<(u32, &str), ()> = TableDefinition::new("booking_order");
/// (slug, check-in day, holder).
type CalendarKey<'a> = (&'a str, u32, &'a str);
/// (check-out day, kind, guests, guest name).
type CalendarValue<'a> = (u32, u8, u32, &'a str);
const CALENDAR: TableDefinition<CalendarKey, CalendarValue> = TableDefinition::new("calendar");
/// Slug -> the most nights any calendar entry of the property has held (it
/// never shrinks): how far before a night its calendar is read (schema 5).
const CALENDAR_REACH: TableDefinition<&str, u32> = TableDefinition::new("calendar_reach");
/// (slug, code) of every pending booking, up to schema 3. Since schema 4 the
/// pending bookings are the calendar's held entries: one tree less to write
/// per booking.
const PENDING: TableDefinition<(&str, &str), ()> = TableDefinition::new("pending");
/// (created at in ms since 1970, code) of every hold a checkout TTL can expire.
const LAPSING_HOLDS: TableDefinition<(u64, &str), ()> = TableDefinition::new("lapsing_holds");
const BLOCKS: TableDefinition<&str, &[u8]> = TableDefinition::new("blocks");
const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
/// SHA-256 of a key's secret -> key id.
const KEY_HASHES: TableDefinition<&str, &str> = TableDefinition::new("key_hashes");
const WEBHOOKS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhooks");
const OUTBOX: TableDefinition<u64, &[u8]> = TableDefinition::new("outbox");
const IDEMPOTENCY: TableDefinition<&str, &[u8]> = TableDefinition::new("idempotency");
const DELIVERIES: TableDefinition<&str, &[u8]> = TableDefinition::new("deliveries");
/// (next attempt in ms since 1970, event number, delivery id) of every pending delivery.
const DELIVERY_DUE: TableDefinition<(u64, u64, &str), ()> = TableDefinition::new("delivery_due");

/// (finished ms since 1970, delivery id) of every delivery that is over: what retention removes first.
const DELIVERY_FINISHED: TableDefinition<(u64, &str), ()> = TableDefinition::new("delivery_finished");
/// (event number, delivery id) of every delivery: which events a delivery still needs.
const DELIVERY_EVENTS: TableDefinition<(u64, &str), ()> = TableDefinition::new("delivery_events");
/// Delivery id -> (webhook id, owner, lease end in ms since 1970): the delivery leases.
/// Added within schema 2: a file without the table has no leases, so it needs no migration.
const DELIVERY_LEASES: TableDefinition<&str, (&str, &str, u64)> = TableDefinition::new("delivery_leases");
/// (recorded ms since 1970, key) of every idempotency record.
const IDEMPOTENCY_CREATED: TableDefinition<(u64, &str), ()> = TableDefinition::new("idempotency_created");

/// "slug/feed" -> the feed's state.
const FEEDS: TableDefinition<&str, &[u8]> = TableDefinition::new("feeds");
/// Admin sessions by hex SHA-256 of their id (created on open, also in older files).
const ADMIN_SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("admin_sessions");
/// Failed logins in a row by client address.
const LOGIN_FAILURES: TableDefinition<&str, &[u8]> = TableDefinition::new("login_failures");

/// The file name inside a data directory.
pub const FILE_NAME: &str = "rental.redb";

/// The `meta` key of the number of the first redo log record the last checkpoint did not hold.
const REDO_FROM: &str = "redo_from";
/// The `meta` key of the store's id (hex), which its redo log's header repeats.
const STORE_ID: &str = "store_id";
/// The `meta` key of the epoch of the store's redo log, which the log's header repeats.
const REDO_EPOCH: &str = "redo_epoch";

/// The most memory redb's page cache (read cache and write buffer together)
/// may hold. redb's default is 1 GiB, which a growing store fills: a server
/// holding 340,000 bookings had grown to about 500 MB. Pages beyond this are
/// read again from the file, which the kernel's page cache usually serves.
/// The write buffer is what a checkpoint writes while it holds the writer:
/// at 16 MiB rather than 32 the checkpoint's stall on a grown store fell from
/// about 115 ms to 75 at the same write rate. See docs/PERFORMANCE.md, "Growth and memory".
pub const CACHE_BYTES: usize = 16 * 1024 * 1024;

/// A store in one redb file, with its redo log beside it (the file's name
/// with `.redo` added: `rental.redb.redo`).
/// Only one process may hold the file at a time.
#[derive(Debug)]
pub struct RedbStore {
    db: Database,
    log: Mutex<RedoLog>,
    flusher: Flusher,
}

impl RedbStore {
    /// Opens (or creates) the store at `path`, with a page cache of at most `CACHE_BYTES` (16 MiB).
    ///
    /// Fails with [`StoreError::Locked`] while another process, such as a
    /// running server, holds the file.
    ///
    /// A commit appends what it changed to the redo log and syncs that, and
    /// about once a second redb makes everything durable at once and the log
    /// starts again (a checkpoint). Opening replays what the log holds past
    /// the last checkpoint, such as the commits before a crash.
    pub fn open(path: impl AsRef<Path>) -> StoreResult<Self> {
        Self::open_on(&OsDisk::new(path.as_ref()))
    }

    /// Opens (or creates) the store in the data directory `dir`, creating the
    /// directory (and syncing its parent, so that a new directory survives a power loss).
    pub fn open_dir(dir: impl AsRef<Path>) -> StoreResult<Self> {
        let dir = dir.as_ref();
        let existed = dir.is_dir();
        std::fs::create_dir_all(dir).map_err(backend)?;
        if !existed {
            disk::sync_dir_of(dir).map_err(backend)?;
        }
        Self::open(dir.join(FILE_NAME))
    }

    /// Opens the store on `disk`: the real file system, or a simulated one in tests.
    ///
    /// Refuses, with a [`RedoError`], a redo log that is not this file's, or
    /// whose records do not start where the file's last checkpoint ended.
    fn open_on(disk: &dyn Disk) -> StoreResult<Self> {
        #[cfg(test)]
        let cache = disk.cache_bytes();
        #[cfg(not(test))]
        let cache = CACHE_BYTES;
        let mut builder = Database::builder();
        builder.set_cache_size(cache);
        let db = disk.open_db(&builder)?;
        let (log, records) = RedoLog::open(disk.open_log().map_err(backend)?)?;
        #[cfg(test)]
        let dir_synced = !disk.removed(disk::SyncPoint::Dir);
        #[cfg(not(test))]
        let dir_synced = true;
        if dir_synced {
            disk.sync_dir().map_err(backend)?;
        }
        let sync = disk.db_syncer().map_err(backend)?;
        #[cfg(test)]
        let sync = flusher_without_latch_if_removed(disk, sync);
        let flusher = Flusher::start(sync, log.sync_failed())?;
        let store = RedbStore { db, log: Mutex::new(log), flusher };
        store.replay(&records)?;
        store.create_tables()?;
        Ok(store)
    }

    /// Does again, in one durable commit, the logged commits the last
    /// checkpoint did not hold, and starts the log again. The log must be
    /// this file's, and its records past the checkpoint must start at
    /// `redo_from` exactly; a log without a header gets one after the checkpoint.
    fn replay(&self, records: &[redo::Record]) -> StoreResult<()> {
        let tx = self.db.begin_write().map_err(backend)?;
        let (from, identity) = {
            let meta = tx.open_table(META).map_err(backend)?;
            (meta_number(&meta, REDO_FROM, 10)?, meta_identity(&meta)?)
        };
        let mut log = self.log();
        let stamp = new_header(log.header(), identity)?;
        let from = from.unwrap_or(0);
        if let Some(first) = records.iter().find(|r| r.seq >= from)
            && first.seq != from
        {
            return Err(RedoError::Gap { redo_from: from, first: first.seq }.into());
        }
        for record in records.iter().filter(|r| r.seq >= from) {
            for change in redo::changes(&record.changes) {
                redo::apply(&tx, &change?)?;
            }
        }
        if let Some(header) = stamp {
            let mut meta = tx.open_table(META).map_err(backend)?;
            meta.insert(STORE_ID, format!("{:016x}", header.store).as_str()).map_err(backend)?;
            meta.insert(REDO_EPOCH, header.epoch.to_string().as_str()).map_err(backend)?;
        }
        log.number_from(from);
        checkpoint(tx, &mut log)?;
        match stamp {
            Some(header) => log.stamp(header),
            None => Ok(()),
        }
    }

    fn log(&self) -> MutexGuard<'_, RedoLog> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn create_tables(&self) -> StoreResult<()> {
        let tx = self.db.begin_write().map_err(backend)?;
        {
            let mut meta = tx.open_table(META).map_err(backend)?;
            let version = meta.get("schema_version").map_err(backend)?.map(|v| v.value().to_owned());
            match version.as_deref() {
                None => drop(meta.insert("schema_version", SCHEMA_VERSION).map_err(backend)?),
                Some(SCHEMA_VERSION) => {}
                Some(old @ ("1" | "2" | "3" | "4" | "5")) => {
                    if old == "1" {
                        index_lapsing_holds(&tx)?;
                        index_deliveries_and_idempotency(&tx)?;
                    }
                    if old == "1" || old == "2" {
                        mark_unfanned(&tx, &mut meta)?;
                    }
                    if old != "4" {
                        tx.delete_table(PENDING).map_err(backend)?;
                    }
                    if old != "5" {
                        measure_calendar_reach(&tx)?;
                    }
                    number_bookings(&tx)?;
                    meta.insert("schema_version", SCHEMA_VERSION).map_err(backend)?;
                }
                Some(other) => {
                    return Err(StoreError::Corrupt(format!("unknown schema version {other}")));
                }
            }
        }
        tx.open_table(PROPERTIES).map_err(backend)?;
        tx.open_table(BOOKINGS).map_err(backend)?;
        tx.open_table(BOOKING_SEQS).map_err(backend)?;
        tx.open_table(BOOKING_ORDER).map_err(backend)?;
        tx.open_table(CALENDAR).map_err(backend)?;
        tx.open_table(CALENDAR_REACH).map_err(backend)?;
        tx.open_table(LAPSING_HOLDS).map_err(backend)?;
        tx.open_table(BLOCKS).map_err(backend)?;
        tx.open_table(KEYS).map_err(backend)?;
        tx.open_table(KEY_HASHES).map_err(backend)?;
        tx.open_table(WEBHOOKS).map_err(backend)?;
        tx.open_table(OUTBOX).map_err(backend)?;
        tx.open_table(UNFANNED).map_err(backend)?;
        tx.open_table(IDEMPOTENCY).map_err(backend)?;
        tx.open_table(DELIVERIES).map_err(backend)?;
        tx.open_table(DELIVERY_DUE).map_err(backend)?;
        tx.open_table(DELIVERY_FINISHED).map_err(backend)?;
        tx.open_table(DELIVERY_EVENTS).map_err(backend)?;
        tx.open_table(DELIVERY_LEASES).map_err(backend)?;
        tx.open_table(IDEMPOTENCY_CREATED).map_err(backend)?;
        tx.open_table(FEEDS).map_err(backend)?;
        tx.open_table(ADMIN_SESSIONS).map_err(backend)?;
        tx.open_table(LOGIN_FAILURES).map_err(backend)?;
        tx.commit().map_err(backend)
    }
}

/// A number in `meta` under `key`, written in `radix`.
fn meta_number(meta: &redb::Table<&str, &str>, key: &str, radix: u32) -> StoreResult<Option<u64>> {
    let Some(value) = meta.get(key).map_err(backend)? else { return Ok(None) };
    let value = value.value();
    u64::from_str_radix(value, radix).map(Some).map_err(|_| StoreError::Corrupt(format!("bad {key} {value}")))
}

/// The store's id and its log's epoch, as the file's `meta` has them.
fn meta_identity(meta: &redb::Table<&str, &str>) -> StoreResult<Option<Header>> {
    let store = meta_number(meta, STORE_ID, 16)?;
    let epoch = meta_number(meta, REDO_EPOCH, 10)?;
    Ok(store.map(|store| Header { store, epoch: epoch.unwrap_or(0) }))
}

/// The header to write once the open's checkpoint is durable: none when the
/// log has this file's; the next epoch when the log has none (new, or written
/// before headers); a [`RedoError::ForeignLog`] when its header names another store or epoch.
fn new_header(log: Option<Header>, file: Option<Header>) -> Result<Option<Header>, RedoError> {
    match (log, file) {
        (Some(log), Some(file)) if log == file => Ok(None),
        (Some(log), file) => Err(RedoError::ForeignLog {
            log_store: log.store,
            log_epoch: log.epoch,
            file: file
                .map_or("none: a new or emptied file".into(), |f| format!("store {:016x} epoch {}", f.store, f.epoch)),
        }),
        (None, Some(file)) => Ok(Some(Header { epoch: file.epoch + 1, ..file })),
        (None, None) => Ok(Some(Header { store: new_store_id(), epoch: 1 })),
    }
}

fn new_store_id() -> u64 {
    let mut bytes = [0; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    u64::from_le_bytes(bytes)
}

/// The flusher's syncs with their errors dropped, when a test removed its latch.
#[cfg(test)]
fn flusher_without_latch_if_removed(disk: &dyn Disk, sync: disk::Syncer) -> disk::Syncer {
    if !disk.removed(disk::SyncPoint::FlusherLatch) {
        return sync;
    }
    std::sync::Arc::new(move || {
        let _ = sync();
        Ok(())
    })
}

/// A transaction over [`RedbStore`]: a read snapshot or the write transaction.
#[derive(Debug)]
pub struct RedbTx<T>(T);

/// redb's write transaction, with the rows it changed for the redo log.
pub struct RedbWrite<'a> {
    tx: WriteTransaction,
    changes: Changes,
    store: &'a RedbStore,
}

impl std::fmt::Debug for RedbWrite<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbWrite").finish_non_exhaustive()
    }
}

impl Drop for RedbStore {
    /// Checkpoints what the log holds, so the next open has nothing to replay.
    /// If that fails, the log still holds it.
    fn drop(&mut self) {
        let mut log = self.log();
        if log.holds_records()
            && let Ok(tx) = self.db.begin_write()
        {
            let _ = checkpoint(tx, &mut log);
        }
    }
}

impl Store for RedbStore {
    type Read<'a> = RedbTx<ReadTransaction>;
    type Write<'a> = RedbTx<RedbWrite<'a>>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        Ok(RedbTx(self.db.begin_read().map_err(backend)?))
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        let tx = self.db.begin_write().map_err(backend)?;
        Ok(RedbTx(RedbWrite { tx, changes: Changes::default(), store: self }))
    }

    /// The one writer, as [`Store::write`]: redb has no other kind.
    fn write_for(&self, _properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        self.write()
    }

    /// Up to 64: one writer, and each durable commit is an `fdatasync` the
    /// whole group shares (docs/PERFORMANCE.md measures it).
    fn group_commit(&self) -> usize {
        GROUP_COMMIT
    }

    /// None: the file lock makes this process its only writer.
    fn change_marks(&self) -> Option<std::sync::Arc<super::ChangeMarks>> {
        None
    }
}

/// Opening a table to read, the same way for both kinds of transaction.
pub trait Tables {
    /// The table handle.
    type Table<'t, K: Key + 'static, V: Value + 'static>: ReadableTable<K, V>
    where
        Self: 't;
    /// Opens a table.
    fn open<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> StoreResult<Self::Table<'_, K, V>>;
}

impl Tables for ReadTransaction {
    type Table<'t, K: Key + 'static, V: Value + 'static> = redb::ReadOnlyTable<K, V>;
    fn open<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> StoreResult<Self::Table<'_, K, V>> {
        self.open_table(def).map_err(backend)
    }
}

impl Tables for WriteTransaction {
    type Table<'t, K: Key + 'static, V: Value + 'static> = redb::Table<'t, K, V>;
    fn open<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> StoreResult<Self::Table<'_, K, V>> {
        self.open_table(def).map_err(backend)
    }
}

/// A write transaction reads through the redb transaction it wraps.
impl Tables for RedbWrite<'_> {
    type Table<'t, K: Key + 'static, V: Value + 'static>
        = redb::Table<'t, K, V>
    where
        Self: 't;
    fn open<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> StoreResult<Self::Table<'_, K, V>> {
        self.tx.open(def)
    }
}

/// A borrowed transaction reads the same way, so a migration can use the read methods.
impl<T: Tables> Tables for &T {
    type Table<'t, K: Key + 'static, V: Value + 'static>
        = T::Table<'t, K, V>
    where
        Self: 't;
    fn open<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> StoreResult<Self::Table<'_, K, V>> {
        (**self).open(def)
    }
}

impl<T: Tables> RedbTx<T> {
    fn get_json<D: DeserializeOwned>(&self, def: TableDefinition<&str, &[u8]>, key: &str) -> StoreResult<Option<D>> {
        let table = self.0.open(def)?;
        let value = table.get(key).map_err(backend)?;
        value.map(|v| decode(v.value())).transpose()
    }

    /// The booking with this code, with its number in `booking_rows`.
    fn numbered_booking(&self, code: &str) -> StoreResult<Option<(u64, Booking)>> {
        let Some(seq) = self.0.open(BOOKING_SEQS)?.get(code).map_err(backend)?.map(|v| v.value()) else {
            return Ok(None);
        };
        let rows = self.0.open(BOOKINGS)?;
        let raw = rows.get(seq).map_err(backend)?;
        let raw = raw.ok_or_else(|| StoreError::Corrupt(format!("booking {code} has number {seq} but no row")))?;
        Ok(Some((seq, decode(raw.value())?)))
    }

    fn all_json<D: DeserializeOwned>(&self, def: TableDefinition<&str, &[u8]>) -> StoreResult<Vec<D>> {
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
        self.get_json(PROPERTIES, slug)
    }

    fn properties(&self) -> StoreResult<Vec<Property>> {
        self.all_json(PROPERTIES)
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
        held_codes(&self.0.open(CALENDAR)?, ..)
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

    fn idempotency_before(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        let table = self.0.open(IDEMPOTENCY_CREATED)?;
        let mut out = Vec::new();
        for row in table.range(..(millis(before), "")).map_err(backend)?.take(limit) {
            out.push(row.map_err(backend)?.0.value().1.to_owned());
        }
        Ok(out)
    }

    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        count_held(&self.0.open(CALENDAR)?, slug)
    }

    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        held_codes(&self.0.open(CALENDAR)?, of_property(slug))
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        let reach = reach_of(&self.0.open(CALENDAR_REACH)?, slug)?;
        entries_from(&self.0.open(CALENDAR)?, slug, reach, from, to)
    }

    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        let (table, reaches) = (self.0.open(CALENDAR)?, self.0.open(CALENDAR_REACH)?);
        starts
            .iter()
            .map(|(slug, from)| entries_from(&table, slug, reach_of(&reaches, slug)?, *from, NaiveDate::MAX))
            .collect()
    }

    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        let table = self.0.open(CALENDAR)?;
        slugs.iter().map(|slug| count_held(&table, slug)).collect()
    }

    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        self.get_json(BLOCKS, id)
    }

    fn key(&self, id: &str) -> StoreResult<Option<ApiKey>> {
        self.get_json(KEYS, id)
    }

    fn key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        let id = {
            let table = self.0.open(KEY_HASHES)?;
            let found = table.get(hash).map_err(backend)?;
            found.map(|v| v.value().to_owned())
        };
        id.map_or(Ok(None), |id| self.key(&id))
    }

    fn keys(&self) -> StoreResult<Vec<ApiKey>> {
        self.all_json(KEYS)
    }

    fn key_hashes(&self) -> StoreResult<Vec<(String, String)>> {
        let table = self.0.open(KEY_HASHES)?;
        let mut out = Vec::new();
        for row in table.iter().map_err(backend)? {
            let (hash, id) = row.map_err(backend)?;
            out.push((hash.value().to_owned(), id.value().to_owned()));
        }
        Ok(out)
    }

    fn webhooks(&self) -> StoreResult<Vec<Webhook>> {
        self.all_json(WEBHOOKS)
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

    fn idempotency(&self, key: &str) -> StoreResult<Option<IdempotencyRecord>> {
        self.get_json(IDEMPOTENCY, key)
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

    fn delivery_leases(&self) -> StoreResult<Vec<Lease>> {
        let table = self.0.open(DELIVERY_LEASES)?;
        let mut out = Vec::new();
        for row in table.iter().map_err(backend)? {
            let (key, value) = row.map_err(backend)?;
            let (webhook, owner, until) = value.value();
            let until = i64::try_from(until)
                .ok()
                .and_then(DateTime::from_timestamp_millis)
                .ok_or_else(|| StoreError::Corrupt(format!("bad lease end {until}")))?;
            let (delivery_id, webhook_id, owner) = (key.value().to_owned(), webhook.to_owned(), owner.to_owned());
            out.push(Lease { delivery_id, webhook_id, owner, until });
        }
        Ok(out)
    }

    fn feed_state(&self, slug: &str, feed: &str) -> StoreResult<Option<FeedState>> {
        self.get_json(FEEDS, &feed_key(slug, feed))
    }

    fn feed_states(&self) -> StoreResult<Vec<FeedState>> {
        self.all_json(FEEDS)
    }

    fn feed_states_of(&self, slug: &str) -> StoreResult<Vec<FeedState>> {
        let table = self.0.open(FEEDS)?;
        let keys = feed_keys_of(slug);
        let mut out = Vec::new();
        for row in table.range(keys.start.as_str()..keys.end.as_str()).map_err(backend)? {
            let (_, value) = row.map_err(backend)?;
            out.push(decode(value.value())?);
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
        super::newest_first(&mut of, limit);
        Ok(of)
    }

    fn admin_password(&self) -> StoreResult<Option<String>> {
        let meta = self.0.open(META)?;
        let value = meta.get(ADMIN_PASSWORD).map_err(backend)?;
        Ok(value.map(|v| v.value().to_owned()))
    }

    fn admin_session(&self, key_hash: &str) -> StoreResult<Option<AdminSession>> {
        self.get_json(ADMIN_SESSIONS, key_hash)
    }

    fn login_failures(&self, client: &str) -> StoreResult<Option<LoginFailures>> {
        self.get_json(LOGIN_FAILURES, client)
    }

    fn login_failure_clients(&self) -> StoreResult<usize> {
        let len = self.0.open(LOGIN_FAILURES)?.len().map_err(backend)?;
        Ok(usize::try_from(len).unwrap_or(usize::MAX))
    }
}

impl<T: Tables> RedbTx<T> {
    fn deliveries_due_before(&self, until_ms: u64, limit: usize) -> StoreResult<Vec<Delivery>> {
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

impl RedbTx<RedbWrite<'_>> {
    /// Opens a table to change; its changes go to the redo log.
    fn table<K: Key + 'static, V: Value + 'static>(&self, def: TableDefinition<K, V>) -> StoreResult<Logged<'_, K, V>> {
        Logged::open(&self.0.tx, def, &self.0.changes)
    }

    fn put_json(&self, def: TableDefinition<&str, &[u8]>, key: &str, value: &impl Serialize) -> StoreResult<()> {
        let bytes = encode(value)?;
        self.table(def)?.insert(key, bytes.as_slice())?;
        Ok(())
    }

    /// Removes the records of a table that `doomed` picks (a scan: these tables are small).
    fn remove_where<D: DeserializeOwned>(
        &self,
        def: TableDefinition<&str, &[u8]>,
        doomed: impl Fn(&D) -> bool,
    ) -> StoreResult<usize> {
        let mut table = self.table(def)?;
        let mut keys = Vec::new();
        for row in table.iter().map_err(backend)? {
            let (k, v) = row.map_err(backend)?;
            if doomed(&decode(v.value())?) {
                keys.push(k.value().to_owned());
            }
        }
        for key in &keys {
            table.remove(key.as_str())?;
        }
        Ok(keys.len())
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

    fn unindex_booking(&self, old: &Booking) -> StoreResult<()> {
        let (slug, code) = (old.property.as_str(), old.code.as_str());
        self.table(BOOKING_ORDER)?.remove((day(old.check_in()), code))?;
        self.table(LAPSING_HOLDS)?.remove((millis(old.created_at), code))?;
        self.remove_entry(slug, old.check_in(), code)
    }
}

impl WriteTx for RedbTx<RedbWrite<'_>> {
    fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        self.put_json(PROPERTIES, property.slug.as_str(), property)
    }

    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        let (slug, code) = (booking.property.as_str(), booking.code.as_str());
        let seq = if let Some((seq, old)) = self.numbered_booking(code)? {
            self.unindex_booking(&old)?;
            seq
        } else {
            let seq = self.table(BOOKINGS)?.last().map_err(backend)?.map_or(1, |(k, _)| k.value() + 1);
            self.table(BOOKING_SEQS)?.insert(code, seq)?;
            seq
        };
        self.table(BOOKINGS)?.insert(seq, encode(booking)?.as_slice())?;
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

    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.remove_block(&block.id)?;
        self.put_json(BLOCKS, &block.id, block)?;
        self.put_entry(block.property.as_str(), &CalendarEntry::of_block(block))
    }

    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        let Some(old) = self.block(id)? else {
            return Ok(false);
        };
        self.remove_entry(old.property.as_str(), old.stay.check_in(), id)?;
        self.remove(BLOCKS, id)
    }

    fn insert_key(&mut self, key: &ApiKey, hash: &str) -> StoreResult<()> {
        self.table(KEY_HASHES)?.insert(hash, key.id.as_str())?;
        self.update_key(key)
    }

    fn update_key(&mut self, key: &ApiKey) -> StoreResult<()> {
        self.put_json(KEYS, &key.id, key)
    }

    fn put_webhook(&mut self, webhook: &Webhook) -> StoreResult<()> {
        self.put_json(WEBHOOKS, &webhook.id, webhook)
    }

    fn remove_webhook(&mut self, id: &str) -> StoreResult<bool> {
        self.remove(WEBHOOKS, id)
    }

    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
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

    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.append_events(std::slice::from_ref(event))?;
        let table = self.table(OUTBOX)?;
        Ok(table.last().map_err(backend)?.map_or(0, |(k, _)| k.value()))
    }

    fn put_feed_state(&mut self, state: &FeedState) -> StoreResult<()> {
        self.put_json(FEEDS, &feed_key(state.property.as_str(), state.feed.as_str()), state)
    }

    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        let mut unfanned = self.table(UNFANNED)?;
        for &seq in seqs {
            unfanned.remove(seq)?;
        }
        Ok(())
    }

    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.remove_delivery(&delivery.id)?;
        self.index_delivery(delivery)?;
        if due_key(delivery).is_none() {
            self.remove_lease(&delivery.id)?;
        }
        self.put_json(DELIVERIES, &delivery.id, delivery)
    }

    fn put_lease(&mut self, lease: &Lease) -> StoreResult<()> {
        let mut table = self.table(DELIVERY_LEASES)?;
        let value = (lease.webhook_id.as_str(), lease.owner.as_str(), millis(lease.until));
        table.insert(lease.delivery_id.as_str(), value)?;
        Ok(())
    }

    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        self.table(DELIVERY_LEASES)?.remove(delivery_id)?;
        Ok(())
    }

    fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        if self.idempotency(&record.key)?.is_some() {
            return Err(StoreError::Conflict(format!("idempotency key {:?} is recorded", record.key)));
        }
        let mut created = self.table(IDEMPOTENCY_CREATED)?;
        created.insert((millis(record.created_at), record.key.as_str()), ())?;
        drop(created);
        self.put_json(IDEMPOTENCY, &record.key, record)
    }

    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
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

    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.table(OUTBOX)?.remove(seq)?;
        self.table(UNFANNED)?.remove(seq)?;
        Ok(())
    }

    fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        let Some(old) = self.idempotency(key)? else { return Ok(()) };
        let mut created = self.table(IDEMPOTENCY_CREATED)?;
        created.remove((millis(old.created_at), key))?;
        drop(created);
        self.remove(IDEMPOTENCY, key).map(drop)
    }

    fn set_admin_password(&mut self, phc: &str) -> StoreResult<()> {
        let mut meta = self.table(META)?;
        meta.insert(ADMIN_PASSWORD, phc)?;
        Ok(())
    }

    fn put_admin_session(&mut self, key_hash: &str, session: &AdminSession) -> StoreResult<()> {
        self.put_json(ADMIN_SESSIONS, key_hash, session)
    }

    fn remove_admin_session(&mut self, key_hash: &str) -> StoreResult<()> {
        self.remove(ADMIN_SESSIONS, key_hash).map(drop)
    }

    fn remove_idle_admin_sessions(&mut self, seen_before: DateTime<Utc>) -> StoreResult<usize> {
        self.remove_where(ADMIN_SESSIONS, |s: &AdminSession| s.last_seen < seen_before)
    }

    fn put_login_failures(&mut self, client: &str, failures: &LoginFailures) -> StoreResult<()> {
        self.put_json(LOGIN_FAILURES, client, failures)
    }

    fn remove_login_failures(&mut self, client: &str) -> StoreResult<()> {
        self.remove(LOGIN_FAILURES, client).map(drop)
    }

    fn remove_quiet_login_failures(&mut self, last_before: DateTime<Utc>) -> StoreResult<usize> {
        self.remove_where(LOGIN_FAILURES, |f: &LoginFailures| f.last < last_before)
    }

    /// Appends the changes to the redo log and commits redb without a sync
    /// of its own; about once a second, a durable redb commit instead (a
    /// checkpoint). A commit that changed nothing writes nothing.
    fn commit(self) -> StoreResult<()> {
        let RedbWrite { mut tx, changes, store } = self.0;
        let mut log = store.log();
        log.refuse()?;
        if changes.is_empty() {
            tx.set_durability(Durability::None).map_err(backend)?;
            return tx.commit().map_err(backend);
        }
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

/// The entries of `slug` in an open calendar table that share a night with `from..to`.
///
/// The rows are walked from the earliest check-in that can reach `from`
/// (`reach`, the property's longest entry, before it), and only those that
/// end after `from` are decoded.
fn entries_from(
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
fn reach_of(table: &impl ReadableTable<&'static str, u32>, slug: &str) -> StoreResult<u32> {
    Ok(table.get(slug).map_err(backend)?.map_or(0, |v| v.value()))
}

/// Schema 4 to 5: the longest entry of each property's calendar.
fn measure_calendar_reach(tx: &WriteTransaction) -> StoreResult<()> {
    let calendar = tx.open_table(CALENDAR).map_err(backend)?;
    let mut reaches = tx.open_table(CALENDAR_REACH).map_err(backend)?;
    for row in calendar.iter().map_err(backend)? {
        let (key, value) = row.map_err(backend)?;
        let ((slug, check_in, _), (check_out, ..)) = (key.value(), value.value());
        let nights = check_out.saturating_sub(check_in);
        if nights > reach_of(&reaches, slug)? {
            reaches.insert(slug, nights).map_err(backend)?;
        }
    }
    Ok(())
}

/// The calendar keys of property `slug`, every night.
fn of_property(slug: &str) -> std::ops::Range<CalendarKey<'_>> {
    (slug, 0, "")..(slug, u32::MAX, "")
}

/// Calls `visit` with the slug and holder of each `Held` calendar row in
/// `keys`: a pending booking's entry is the one kind `Held`.
fn each_held<'k>(
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
fn held_codes<'k>(
    table: &impl ReadableTable<CalendarKey<'static>, CalendarValue<'static>>,
    keys: impl std::ops::RangeBounds<CalendarKey<'k>> + 'k,
) -> StoreResult<Vec<BookingCode>> {
    let mut found = Vec::new();
    each_held(table, keys, |slug, holder| found.push((slug.to_owned(), BookingCode::from(holder))))?;
    found.sort_unstable();
    Ok(found.into_iter().map(|(_, code)| code).collect())
}

/// How many bookings of `slug` are pending.
fn count_held(
    table: &impl ReadableTable<CalendarKey<'static>, CalendarValue<'static>>,
    slug: &str,
) -> StoreResult<usize> {
    let mut count = 0;
    each_held(table, of_property(slug), |_, _| count += 1)?;
    Ok(count)
}

/// Days since 0001-01-01: dates as ordered keys.
/// Milliseconds since 1970 (0 for earlier instants), the order of time-keyed indexes.
fn millis(at: DateTime<Utc>) -> u64 {
    u64::try_from(at.timestamp_millis()).unwrap_or(0)
}

/// Schema 1 to 2: indexes the holds already stored, found among the pending bookings.
fn index_lapsing_holds(tx: &WriteTransaction) -> StoreResult<()> {
    let pending = tx.open_table(PENDING).map_err(backend)?;
    let bookings = tx.open_table(CODE_KEYED_BOOKINGS).map_err(backend)?;
    let mut holds = tx.open_table(LAPSING_HOLDS).map_err(backend)?;
    for row in pending.iter().map_err(backend)? {
        let (key, _) = row.map_err(backend)?;
        let code = key.value().1;
        let Some(row) = bookings.get(code).map_err(backend)? else { continue };
        let booking: Booking = decode(row.value())?;
        if lifecycle::may_lapse(&booking) {
            holds.insert((millis(booking.created_at), code), ()).map_err(backend)?;
        }
    }
    Ok(())
}

/// Schema 5 to 6: numbers the bookings in code order, into `booking_rows`
/// and `booking_seqs`, and drops the table keyed by code.
fn number_bookings(tx: &WriteTransaction) -> StoreResult<()> {
    let old = tx.open_table(CODE_KEYED_BOOKINGS).map_err(backend)?;
    let mut rows = tx.open_table(BOOKINGS).map_err(backend)?;
    let mut seqs = tx.open_table(BOOKING_SEQS).map_err(backend)?;
    for (seq, row) in (1..).zip(old.iter().map_err(backend)?) {
        let (code, booking) = row.map_err(backend)?;
        rows.insert(seq, booking.value()).map_err(backend)?;
        seqs.insert(code.value(), seq).map_err(backend)?;
    }
    drop(old);
    tx.delete_table(CODE_KEYED_BOOKINGS).map_err(backend)?;
    Ok(())
}

/// Schema 2 to 3: the events after the old fan-out mark are the ones not yet fanned out.
fn mark_unfanned(tx: &WriteTransaction, meta: &mut redb::Table<'_, &str, &str>) -> StoreResult<()> {
    let mark = meta.remove(FANNED_OUT).map_err(backend)?.map(|v| v.value().to_owned());
    let mark: u64 =
        mark.map_or(Ok(0), |v| v.parse().map_err(|_| StoreError::Corrupt("bad fan-out position".into())))?;
    let outbox = tx.open_table(OUTBOX).map_err(backend)?;
    let mut unfanned = tx.open_table(UNFANNED).map_err(backend)?;
    for row in outbox.range(mark + 1..).map_err(backend)? {
        unfanned.insert(row.map_err(backend)?.0.value(), ()).map_err(backend)?;
    }
    Ok(())
}

/// Schema 1 to 2: indexes the deliveries by when they finished and by event,
/// and the idempotency records by when they were made.
fn index_deliveries_and_idempotency(tx: &WriteTransaction) -> StoreResult<()> {
    let deliveries: Vec<Delivery> = RedbTx(tx).all_json(DELIVERIES)?;
    for delivery in &deliveries {
        let id = delivery.id.as_str();
        if let Some(at) = finished_key(delivery) {
            tx.open_table(DELIVERY_FINISHED).map_err(backend)?.insert((at, id), ()).map_err(backend)?;
        }
        tx.open_table(DELIVERY_EVENTS).map_err(backend)?.insert((delivery.event_seq, id), ()).map_err(backend)?;
    }
    let records: Vec<IdempotencyRecord> = RedbTx(tx).all_json(IDEMPOTENCY)?;
    let mut created = tx.open_table(IDEMPOTENCY_CREATED).map_err(backend)?;
    for record in &records {
        created.insert((millis(record.created_at), record.key.as_str()), ()).map_err(backend)?;
    }
    Ok(())
}

fn day(date: NaiveDate) -> u32 {
    date.num_days_from_ce() as u32
}

fn date(day: u32) -> StoreResult<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(day as i32).ok_or_else(|| StoreError::Corrupt(format!("bad day number {day}")))
}

fn kind_code(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::Held => 0,
        EntryKind::Booked => 1,
        EntryKind::Blocked => 2,
    }
}

fn entry(
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

fn encode(value: &impl Serialize) -> StoreResult<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| StoreError::Backend(Box::new(e)))
}

fn decode<D: DeserializeOwned>(bytes: &[u8]) -> StoreResult<D> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn backend(e: impl Into<redb::Error>) -> StoreError {
    StoreError::Backend(Box::new(e.into()))
}

#[cfg(test)]
mod tests {
    use redb::TableHandle;

    use super::*;
    use crate::demo;

    /// Lays the bookings out as schema 5 and before did: keyed by code, unnumbered.
    fn unnumber_bookings(tx: &WriteTransaction) {
        let seqs = tx.open_table(BOOKING_SEQS).unwrap();
        let rows = tx.open_table(BOOKINGS).unwrap();
        let mut old = tx.open_table(CODE_KEYED_BOOKINGS).unwrap();
        for row in seqs.iter().unwrap() {
            let (code, seq) = row.unwrap();
            old.insert(code.value(), rows.get(seq.value()).unwrap().unwrap().value()).unwrap();
        }
        drop((seqs, rows, old));
        assert!(tx.delete_table(BOOKINGS).unwrap() && tx.delete_table(BOOKING_SEQS).unwrap());
    }

    /// Writes `bookings` at `path`, then lays the file out as schema
    /// `version` did, `older` adding or removing what that schema had.
    fn written_by_schema(path: &Path, version: &str, bookings: &[&Booking], older: impl FnOnce(&WriteTransaction)) {
        let store = RedbStore::open(path).unwrap();
        let mut tx = store.write().unwrap();
        for booking in bookings {
            tx.put_booking(booking).unwrap();
        }
        tx.commit().unwrap();
        let tx = store.db.begin_write().unwrap();
        older(&tx);
        tx.open_table(META).unwrap().insert("schema_version", version).unwrap();
        unnumber_bookings(&tx);
        tx.commit().unwrap();
    }

    /// A store written by schema 1 (without the indexes schema 2 added) gets
    /// its holds, finished deliveries and idempotency records indexed on open.
    #[test]
    fn opening_a_schema_1_store_indexes_what_it_already_has() {
        use crate::delivery::{Attempt, Delivery, record};
        use crate::event::EventName;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let hold = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
        let at = hold.created_at;
        let sent = Delivery::new("dlv_1".into(), "wh_1".into(), 1, EventName::BookingCreated, at);
        let ok = Attempt { at, status: Some(200), latency_ms: 1, error: None };
        let delivered = record(&sent, ok, &[]).delivery;
        let replay = IdempotencyRecord {
            key: "k1".into(),
            fingerprint: "f".into(),
            code: hold.code.clone(),
            response: hold.clone(),
            created_at: at,
        };
        {
            let store = RedbStore::open(&path).unwrap();
            let mut tx = store.write().unwrap();
            tx.put_booking(&hold).unwrap();
            tx.put_delivery(&delivered).unwrap();
            tx.insert_idempotency(&replay).unwrap();
            tx.commit().unwrap();
            let tx = store.db.begin_write().unwrap();
            for table in [LAPSING_HOLDS, DELIVERY_FINISHED, DELIVERY_EVENTS, IDEMPOTENCY_CREATED] {
                assert!(tx.delete_table(table).unwrap(), "schema 2 has {}", table.name());
            }
            tx.open_table(PENDING).unwrap().insert((hold.property.as_str(), hold.code.as_str()), ()).unwrap();
            tx.open_table(META).unwrap().insert("schema_version", "1").unwrap();
            unnumber_bookings(&tx);
            tx.commit().unwrap();
        }
        let store = RedbStore::open(&path).unwrap();
        let read = store.read().unwrap();
        let just_after = at + chrono::TimeDelta::milliseconds(1);
        assert_eq!(read.lapsing_holds(at, 10).unwrap(), vec![hold.code.clone()]);
        assert_eq!(read.pending_codes().unwrap(), vec![hold.code.clone()]);
        assert!(read.lapsing_holds(at - chrono::TimeDelta::milliseconds(1), 10).unwrap().is_empty());
        assert_eq!(read.finished_deliveries(just_after, 10).unwrap(), ["dlv_1"]);
        assert_eq!(read.first_delivered_event().unwrap(), Some(1));
        assert_eq!(read.idempotency_before(just_after, 10).unwrap(), ["k1"]);
    }

    /// A store written by schema 2 (a fan-out high-water mark) gets the events
    /// after its mark, and only those, to fan out on open.
    #[test]
    fn opening_a_schema_2_store_keeps_the_events_after_the_mark_to_fan_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let hold = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
        let created = crate::event::Event::created(&hold, hold.created_at);
        {
            let store = RedbStore::open(&path).unwrap();
            let mut tx = store.write().unwrap();
            tx.append_events(&[created.clone(), created.clone(), created]).unwrap();
            tx.commit().unwrap();
            let tx = store.db.begin_write().unwrap();
            assert!(tx.delete_table(UNFANNED).unwrap());
            let mut meta = tx.open_table(META).unwrap();
            meta.insert("schema_version", "2").unwrap();
            meta.insert(FANNED_OUT, "1").unwrap();
            drop(meta);
            tx.commit().unwrap();
        }
        let store = RedbStore::open(&path).unwrap();
        let seqs: Vec<u64> = store.read().unwrap().unfanned_events(10).unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [2, 3]);
    }

    /// A store written by schema 3 loses its `pending` table on open, and its
    /// pending bookings are still counted, from the calendar's held entries.
    #[test]
    fn opening_a_schema_3_store_drops_the_pending_table_and_keeps_the_pending_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let hold = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
        let mut confirmed = demo::booking("BK-9T3K8W", "2027-01-04", "2027-01-08");
        confirmed.status = crate::booking::Status::Confirmed;
        written_by_schema(&path, "3", &[&hold, &confirmed], |tx| {
            tx.open_table(PENDING).unwrap().insert((hold.property.as_str(), hold.code.as_str()), ()).unwrap();
        });
        let store = RedbStore::open(&path).unwrap();
        let slug = hold.property.as_str();
        let read = store.read().unwrap();
        assert_eq!(read.pending_codes().unwrap(), vec![hold.code.clone()]);
        assert_eq!(read.pending_codes_of(slug).unwrap(), vec![hold.code.clone()]);
        assert_eq!(
            (read.pending_count(slug).unwrap(), read.pending_counts(&[slug, "nowhere"]).unwrap()),
            (1, vec![1, 0])
        );
        let tables = store.db.begin_read().unwrap();
        assert!(matches!(tables.open_table(PENDING), Err(redb::TableError::TableDoesNotExist(_))));
    }

    /// A store written by schema 5 (bookings keyed by code) gets its bookings
    /// numbered on open: each reads back by code and in the listing, a change
    /// keeps its number, and a new booking takes the next one.
    #[test]
    fn opening_a_schema_5_store_numbers_its_bookings_and_new_ones_follow() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let first = demo::booking("BK-ZZZZZ1", "2026-12-20", "2026-12-27");
        let mut second = demo::booking("BK-22222A", "2027-01-04", "2027-01-08");
        written_by_schema(&path, "5", &[&first, &second], |_| {});
        let store = RedbStore::open(&path).unwrap();
        let codes = |store: &RedbStore| -> Vec<String> {
            let listing = store.read().unwrap().bookings(&BookingQuery { limit: 10, ..BookingQuery::default() });
            listing.unwrap().iter().map(|b| b.code.to_string()).collect()
        };
        assert_eq!(codes(&store), ["BK-ZZZZZ1", "BK-22222A"]);
        assert_eq!(store.read().unwrap().booking("BK-ZZZZZ1").unwrap(), Some(first.clone()));
        let third = demo::booking("BK-33333B", "2027-02-01", "2027-02-03");
        second.guests = 1;
        let mut tx = store.write().unwrap();
        tx.put_booking(&second).unwrap();
        tx.put_booking(&third).unwrap();
        tx.commit().unwrap();
        let read = store.read().unwrap();
        let numbered = |code: &str| read.numbered_booking(code).unwrap().unwrap();
        assert_eq!(numbered("BK-22222A"), (1, second.clone()), "numbered in code order, kept on a change");
        assert_eq!(numbered("BK-ZZZZZ1"), (2, first));
        assert_eq!(numbered("BK-33333B"), (3, third));
        let tables = store.db.begin_read().unwrap();
        assert!(matches!(tables.open_table(CODE_KEYED_BOOKINGS), Err(redb::TableError::TableDoesNotExist(_))));
    }

    /// The nights of a property's stays, seen from a night: its calendar is
    /// read from its longest stay before that night, and no further.
    fn nights_seen_from(store: &RedbStore, night: &str) -> Vec<String> {
        let from = NaiveDate::parse_from_str(night, "%Y-%m-%d").unwrap();
        let read = store.read().unwrap();
        let seen = read.calendar("sea-view", from, from.succ_opt().unwrap()).unwrap();
        seen.iter().map(|e| e.holder.to_string()).collect()
    }

    /// A stay is found from its last night, however long it is and however
    /// short the stays after it; a schema 4 store measures its stays on open.
    #[test]
    fn a_calendar_reads_back_as_far_as_its_longest_stay_also_after_an_upgrade() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let long = demo::booking("BK-LONG20", "2026-12-01", "2026-12-21");
        let short = demo::booking("BK-SHORT1", "2026-12-25", "2026-12-26");
        {
            let store = RedbStore::open(&path).unwrap();
            let mut tx = store.write().unwrap();
            tx.put_booking(&long).unwrap();
            tx.put_booking(&short).unwrap();
            tx.commit().unwrap();
            assert_eq!(nights_seen_from(&store, "2026-12-20"), ["BK-LONG20"]);
            assert!(nights_seen_from(&store, "2026-12-21").is_empty());
            let tx = store.db.begin_write().unwrap();
            assert!(tx.delete_table(CALENDAR_REACH).unwrap(), "schema 5 has calendar_reach");
            tx.open_table(META).unwrap().insert("schema_version", "4").unwrap();
            unnumber_bookings(&tx);
            tx.commit().unwrap();
        }
        let store = RedbStore::open(&path).unwrap();
        assert_eq!(nights_seen_from(&store, "2026-12-20"), ["BK-LONG20"], "measured on open");
        assert_eq!(nights_seen_from(&store, "2026-12-25"), ["BK-SHORT1"]);
    }

    /// What a crash leaves, opened: the files of a store copied while it is open.
    fn crash_copy(from: &Path, to: &Path) -> RedbStore {
        std::fs::copy(from, to).unwrap();
        std::fs::copy(redo_path(from), redo_path(to)).unwrap();
        RedbStore::open(to).unwrap()
    }

    /// What a few reads see, to compare two stores by.
    fn contents(store: &RedbStore) -> String {
        let read = store.read().unwrap();
        let from = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        let listing = read.bookings(&BookingQuery { limit: 10, ..BookingQuery::default() }).unwrap();
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            listing,
            read.calendar("sea-view", from, NaiveDate::MAX).unwrap(),
            read.events_after(0, 10).unwrap(),
            read.pending_codes().unwrap(),
            read.admin_password().unwrap(),
        )
    }

    /// Commits between checkpoints are in the redo log, not yet in redb's
    /// file: after a crash, opening the store replays them, rows removed too.
    #[test]
    fn a_crash_between_checkpoints_keeps_every_commit_the_redo_log_holds() {
        use crate::booking::Status;
        use crate::event::Event;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let store = RedbStore::open(&path).unwrap();
        store.log().checkpoint_every(std::time::Duration::MAX);
        let kept = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
        let mut cancelled = demo::booking("BK-3JD8PA", "2027-01-04", "2027-01-06");
        let mut tx = store.write().unwrap();
        tx.put_booking(&kept).unwrap();
        tx.put_booking(&cancelled).unwrap();
        tx.append_events(&[Event::created(&kept, kept.created_at)]).unwrap();
        tx.set_admin_password("$argon2id$v=19$kept").unwrap();
        tx.commit().unwrap();
        cancelled.status = Status::Cancelled;
        let mut tx = store.write().unwrap();
        tx.put_booking(&cancelled).unwrap();
        tx.commit().unwrap();
        let before = contents(&store);
        assert!(before.contains("BK-7Q4M2X") && before.contains("Cancelled") && before.contains("kept"));

        let redb_alone = dir.path().join("redb-alone.redb");
        std::fs::copy(&path, &redb_alone).unwrap();
        let unsynced = contents(&RedbStore::open(&redb_alone).unwrap());
        assert!(!unsynced.contains("BK-7Q4M2X"), "without its log the file lacks the commits: {unsynced}");

        let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
        assert_eq!(contents(&reopened), before);
        assert!(!reopened.log().holds_records(), "the replay is checkpointed");
    }

    /// A schema 5 server that crashed with a booking only in its redo log:
    /// the next version replays it into the table keyed by code, then
    /// numbers it with the rest, so the upgrade loses nothing.
    #[test]
    fn an_upgrade_after_a_crash_replays_the_old_log_before_numbering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let store = RedbStore::open(&path).unwrap();
        let durable = demo::booking("BK-ZZZZZ1", "2026-12-20", "2026-12-27");
        let logged = demo::booking("BK-22222A", "2027-01-04", "2027-01-08");
        store.log().checkpoint_every(std::time::Duration::ZERO);
        let mut tx = store.write().unwrap();
        tx.put_booking(&durable).unwrap();
        tx.commit().unwrap();
        let tx = store.db.begin_write().unwrap();
        tx.open_table(META).unwrap().insert("schema_version", "5").unwrap();
        unnumber_bookings(&tx);
        tx.commit().unwrap();
        // What schema 5 logged for a creation: its row in `bookings`, by code.
        store.log().checkpoint_every(std::time::Duration::MAX);
        let tx = store.write().unwrap();
        tx.table(CODE_KEYED_BOOKINGS).unwrap().insert("BK-22222A", encode(&logged).unwrap().as_slice()).unwrap();
        tx.commit().unwrap();

        let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
        let read = reopened.read().unwrap();
        let numbered = |code: &str| read.numbered_booking(code).unwrap().unwrap();
        assert_eq!(numbered("BK-22222A"), (1, logged));
        assert_eq!(numbered("BK-ZZZZZ1"), (2, durable));
    }

    /// A checkpoint makes what the log held durable in redb's file and starts
    /// the log again; records it already holds are not done again.
    #[test]
    fn a_checkpoint_starts_the_log_again_and_a_crash_after_it_replays_nothing_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let store = RedbStore::open(&path).unwrap();
        store.log().checkpoint_every(std::time::Duration::MAX);
        let mut booking = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
        let mut tx = store.write().unwrap();
        tx.put_booking(&booking).unwrap();
        tx.commit().unwrap();
        let logged = std::fs::read(redo_path(&path)).unwrap();
        assert!(!logged.is_empty());

        store.log().checkpoint_every(std::time::Duration::ZERO);
        booking.status = crate::booking::Status::Cancelled;
        let mut tx = store.write().unwrap();
        tx.put_booking(&booking).unwrap();
        tx.commit().unwrap();
        assert!(!store.log().holds_records(), "the checkpoint started the log again");

        // The record stays in the file until overwritten, but it is older than the checkpoint.
        assert_eq!(std::fs::read(redo_path(&path)).unwrap()[..logged.len()], logged[..]);
        let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
        let read = reopened.read().unwrap();
        let status = read.booking("BK-7Q4M2X").unwrap().map(|b| b.status);
        assert_eq!(
            status,
            Some(crate::booking::Status::Cancelled),
            "the old record, a pending booking, is not replayed"
        );
        assert!(read.pending_codes().unwrap().is_empty());
    }

    /// The refusal a failed open or commit carries.
    fn refusal(result: StoreResult<impl std::fmt::Debug>) -> RedoError {
        let err = result.expect_err("refused");
        RedoError::of(&err).cloned().unwrap_or_else(|| panic!("not the log's refusal: {err}"))
    }

    /// A log whose failed commit could not be taken back takes no commit,
    /// not even one due to be a checkpoint, until the store is reopened.
    #[test]
    fn a_broken_log_refuses_commits_and_checkpoints_until_the_store_is_reopened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let store = RedbStore::open(&path).unwrap();
        store.log().break_it();
        let booking = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
        for every in [std::time::Duration::ZERO, std::time::Duration::MAX] {
            store.log().checkpoint_every(every);
            let mut tx = store.write().unwrap();
            tx.put_booking(&booking).unwrap();
            assert_eq!(refusal(tx.commit()), RedoError::Broken, "checkpoint due: {}", every.is_zero());
        }
        drop(store);
        let store = RedbStore::open(&path).unwrap();
        assert_eq!(store.read().unwrap().booking("BK-7Q4M2X").unwrap(), None);
        let mut tx = store.write().unwrap();
        tx.put_booking(&booking).unwrap();
        tx.commit().unwrap();
    }

    /// Writes a booking per code in `codes`, each its own commit, with a
    /// checkpoint before the first when `checkpoint_first`.
    fn commit_bookings(store: &RedbStore, codes: &[&str], checkpoint_first: bool) {
        for (i, code) in codes.iter().enumerate() {
            let due = checkpoint_first && i == 0;
            store.log().checkpoint_every(if due { std::time::Duration::ZERO } else { std::time::Duration::MAX });
            let mut tx = store.write().unwrap();
            tx.put_booking(&demo::booking(code, "2026-12-20", "2026-12-21")).unwrap();
            tx.commit().unwrap();
        }
    }

    /// A `rental.redb` restored from before the last checkpoint, beside the
    /// current log: the records it needs were overwritten, so it does not open.
    #[test]
    fn an_older_file_beside_a_newer_log_is_refused_for_the_gap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let store = RedbStore::open(&path).unwrap();
        commit_bookings(&store, &["BK-AAAAA1"], true);
        commit_bookings(&store, &["BK-AAAAA2", "BK-AAAAA3"], true);
        let older = dir.path().join("older.redb");
        std::fs::copy(&path, &older).unwrap();
        commit_bookings(&store, &["BK-AAAAA4", "BK-AAAAA5"], true);
        std::fs::copy(redo_path(&path), redo_path(&older)).unwrap();
        drop(store);
        assert_eq!(refusal(RedbStore::open(&older)), RedoError::Gap { redo_from: 0, first: 1 });
    }

    /// Another store's log, or a log beside a file that lost everything
    /// (redb 4.5 could open a damaged file as empty), is not replayed.
    #[test]
    fn a_log_is_replayed_only_onto_its_own_store() {
        let dir = tempfile::tempdir().unwrap();
        let (mine, theirs) = (dir.path().join("mine.redb"), dir.path().join("theirs.redb"));
        for path in [&mine, &theirs] {
            let store = RedbStore::open(path).unwrap();
            store.log().checkpoint_every(std::time::Duration::MAX);
            commit_bookings(&store, &["BK-AAAAA1"], false);
        }
        let theirs_log = std::fs::read(redo_path(&theirs)).unwrap();
        std::fs::write(redo_path(&mine), &theirs_log).unwrap();
        assert!(matches!(refusal(RedbStore::open(&mine)), RedoError::ForeignLog { .. }));
        std::fs::remove_file(&theirs).unwrap();
        let emptied = refusal(RedbStore::open(&theirs));
        assert!(matches!(&emptied, RedoError::ForeignLog { file, .. } if file.starts_with("none")), "{emptied}");
    }

    /// A log written before headers opens when its records past the
    /// checkpoint start at `redo_from`, is replayed, and gets a header.
    #[test]
    fn a_log_without_a_header_is_replayed_and_given_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let store = RedbStore::open(&path).unwrap();
        commit_bookings(&store, &["BK-AAAAA1", "BK-AAAAA2"], false);
        let copy = dir.path().join("copy.redb");
        std::fs::copy(&path, &copy).unwrap();
        let log = std::fs::read(redo_path(&path)).unwrap();
        drop(store);
        std::fs::write(redo_path(&copy), &log[usize::try_from(redo::HEADER_BYTES).unwrap()..]).unwrap();
        let db = Database::create(&copy).unwrap();
        let tx = db.begin_write().unwrap();
        let mut meta = tx.open_table(META).unwrap();
        assert!(meta.remove(STORE_ID).unwrap().is_some() && meta.remove(REDO_EPOCH).unwrap().is_some());
        drop(meta);
        tx.commit().unwrap();
        drop(db);

        let store = RedbStore::open(&copy).unwrap();
        assert!(store.read().unwrap().booking("BK-AAAAA2").unwrap().is_some());
        assert_eq!(std::fs::read(redo_path(&copy)).unwrap()[..8], *b"rentredo");
    }

    /// Every table a store has can be replayed from the log: a table added
    /// without its line in `redo::replayer` fails here, not after a crash.
    #[test]
    fn every_table_a_store_has_is_replayed_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
        let read = store.db.begin_read().unwrap();
        let names: Vec<String> = read.list_tables().unwrap().map(|t| t.name().to_owned()).collect();
        assert!(names.len() >= 20, "{names:?}");
        let missing: Vec<&String> = names.iter().filter(|name| redo::replayer(name).is_none()).collect();
        assert!(missing.is_empty(), "tables the log cannot replay: {missing:?}");
    }
}
