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
//! commits once; dropped without
//! [`WriteTx::commit`](rental_core::store::WriteTx::commit), it rolls back. Reads
//! take pooled connections of their own, so they nest and run beside the
//! writer. Files use WAL with `synchronous = FULL`, so a committed write
//! survives a crash. Documents are JSON; the columns beside them are the
//! indexes the trait's ordered reads need, as in `rental-core`'s memory store.
//!
//! The files: this one holds the store, its connections and its transaction;
//! `schema.rs` the tables and column encodings; `read.rs` and `write.rs` the
//! two halves of the store trait.

mod read;
mod schema;
mod write;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rental_core::property::Property;
use rental_core::store::{ChangeMarks, Record, Store, StoreError, StoreResult};
use rusqlite::{Connection, OpenFlags};

use crate::schema::SCHEMA;

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
