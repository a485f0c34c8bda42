//! What a redb store holds, read without changing a byte of its files: the
//! check that lets `rental restore` refuse a store that is not empty without opening it for writing.

use std::path::Path;

use redb::{ReadOnlyDatabase, ReadTransaction, ReadableDatabase, ReadableTableMetadata, TableDefinition};

use super::tables::{BOOKINGS, CODE_KEYED_BOOKINGS, OUTBOX, PROPERTIES, RECORDS};
use super::{FILE_NAME, RedbStore, backend};
use crate::store::{StoreError, StoreResult};

impl RedbStore {
    /// The first of "properties", "bookings", "outbox events" and "records" that
    /// the store in the data directory `dir` holds, read from redb's file alone
    /// (opened read-only, never repaired). `None` when there is no store file, when
    /// its tables are empty, or when it cannot be read without replaying its redo
    /// log or a repair: then only opening the store (which does both) can tell.
    ///
    /// Fails with [`StoreError::Locked`] while a server holds the store.
    pub fn held_in_dir(dir: impl AsRef<Path>) -> StoreResult<Option<&'static str>> {
        let path = dir.as_ref().join(FILE_NAME);
        // No file, or a link that opening the store refuses: nothing to read here.
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let db = match ReadOnlyDatabase::open(&path) {
            Ok(db) => db,
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => return Err(StoreError::Locked),
            Err(_) => return Ok(None),
        };
        let tx = db.begin_read().map_err(backend)?;
        let tables = [
            ("properties", holds(&tx, PROPERTIES)?),
            ("bookings", holds(&tx, BOOKINGS)? || holds(&tx, CODE_KEYED_BOOKINGS)?),
            ("outbox events", holds(&tx, OUTBOX)?),
            ("records", holds(&tx, RECORDS)?),
        ];
        Ok(tables.into_iter().find(|(_, held)| *held).map(|(what, _)| what))
    }
}

/// Whether `table` exists in the file and has a row.
fn holds<K: redb::Key + 'static, V: redb::Value + 'static>(
    tx: &ReadTransaction,
    table: TableDefinition<K, V>,
) -> StoreResult<bool> {
    match tx.open_table(table) {
        Ok(table) => Ok(table.len().map_err(backend)? > 0),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(false),
        Err(e) => Err(backend(e)),
    }
}
