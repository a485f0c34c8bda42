//! The durable store on redb: one file, one writer at a time, every commit
//! persisted (in its redo log) before it returns. Table layout: docs/DESIGN.md, "Storage".

mod booking_records;
mod changes;
mod disk;
mod errors;
mod flusher;
mod kept;
mod memo;
mod migrate;
mod peek;
#[cfg(test)]
mod power_loss;
mod read;
mod redo;
#[cfg(test)]
mod sim;
mod tables;
#[cfg(test)]
mod tests;
mod view;
mod write;

pub use errors::RedoError;

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Store, StoreError, StoreResult};
use changes::Changes;
use disk::{Disk, OsDisk};
use flusher::Flusher;
#[cfg(test)]
use redo::redo_path;
use redo::{Header, RedoLog, checkpoint};
use tables::{META, REDO_EPOCH, REDO_FROM, STORE_ID};

/// The most booking creations one durable commit takes (see [`Store::group_commit`]).
const GROUP_COMMIT: usize = 64;

/// The file name inside a data directory.
pub const FILE_NAME: &str = "rental.redb";

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
    /// Properties as last decoded by a write transaction.
    properties: memo::PropertyMemo,
    /// `records` may hold rows of the kinds kept by booking (written before
    /// schema 10, or for a booking not held): a put of such a kind looks there first.
    booking_kinds_in_records: std::sync::atomic::AtomicBool,
    /// How long the redo log's last sync took, in nanoseconds ([`Store::sync_latency`]).
    sync_latency: std::sync::Arc<std::sync::atomic::AtomicU64>,
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
    /// the last checkpoint, such as the commits before a crash. It refuses,
    /// with a [`RedoError`] (see [`RedoError::of`]), a log that is another
    /// store's or whose records do not start where the file's last checkpoint ended.
    pub fn open(path: impl AsRef<Path>) -> StoreResult<Self> {
        Self::open_on(&OsDisk::new(path.as_ref()))
    }

    /// Opens (or creates) the store in the data directory `dir`, creating the
    /// directory (and syncing its parent, so that a new directory survives a power loss).
    ///
    /// A new directory is its owner's alone (0700 on Unix) and so are the
    /// store's new files (0600): they hold guests' details and door codes,
    /// and a directory made outside the systemd unit would otherwise be world-readable.
    pub fn open_dir(dir: impl AsRef<Path>) -> StoreResult<Self> {
        let dir = dir.as_ref();
        let existed = dir.is_dir();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(backend)?;
        if !existed {
            disk::sync_dir_of(dir).map_err(backend)?;
        }
        let path = dir.join(FILE_NAME);
        let new_file = !path.exists();
        let store = Self::open(&path)?;
        #[cfg(unix)]
        if new_file {
            use std::os::unix::fs::PermissionsExt;
            for file in [path.clone(), path.with_extension("redb.redo")] {
                if file.exists() {
                    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).map_err(backend)?;
                }
            }
        }
        Ok(store)
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
        let sync_latency = log.sync_latency();
        let store = RedbStore {
            db,
            log: Mutex::new(log),
            flusher,
            properties: memo::PropertyMemo::default(),
            booking_kinds_in_records: true.into(),
            sync_latency,
        };
        store.replay(&records)?;
        store.create_tables()?;
        let in_records = RedbTx(store.db.begin_read().map_err(backend)?).any_booking_kind_in_records()?;
        store.booking_kinds_in_records.store(in_records, std::sync::atomic::Ordering::SeqCst);
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
            for change in changes::changes(&record.changes) {
                changes::apply(&tx, &change?)?;
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
    tx: kept::KeptTx,
    changes: Changes,
    store: &'a RedbStore,
    /// The code and sequence number of the booking this transaction inserted
    /// last: the records a creation writes next go under it without a look.
    inserted: std::cell::RefCell<Option<(String, u64)>>,
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
        Ok(RedbTx(RedbWrite {
            tx: kept::KeptTx::begin(tx),
            changes: Changes::default(),
            store: self,
            inserted: std::cell::RefCell::default(),
        }))
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

    /// The redo log's last `fdatasync` (zero before the first).
    fn sync_latency(&self) -> Option<std::time::Duration> {
        let nanos = self.sync_latency.load(std::sync::atomic::Ordering::Relaxed);
        Some(std::time::Duration::from_nanos(nanos))
    }

    /// None: the file lock makes this process its only writer.
    fn change_marks(&self) -> Option<std::sync::Arc<super::ChangeMarks>> {
        None
    }
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
