//! The rows a write transaction changed, noted as it changes them and encoded
//! for the redo log as one record's body; read back and done again on replay.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::ops::Deref;

use redb::{Key, TableDefinition, TableHandle, Value, WriteTransaction};

use super::backend;
use super::kept::Open;
use crate::store::{StoreError, StoreResult};

const INSERT: u8 = 1;
const REMOVE: u8 = 2;

/// The rows one write transaction changed, in order, encoded for the log.
#[derive(Debug, Default)]
pub(super) struct Changes(RefCell<Vec<u8>>);

impl Changes {
    fn push(&self, kind: u8, table: &str, key: &[u8], value: Option<&[u8]>) {
        let mut out = self.0.borrow_mut();
        out.push(kind);
        out.push(u8::try_from(table.len()).expect("table names are short"));
        out.extend_from_slice(table.as_bytes());
        for bytes in std::iter::once(key).chain(value) {
            out.extend_from_slice(&u32::try_from(bytes.len()).expect("rows under 4 GiB").to_le_bytes());
            out.extend_from_slice(bytes);
        }
    }

    /// Whether the transaction changed nothing.
    pub(super) fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }

    /// The encoded changes.
    pub(super) fn into_bytes(self) -> Vec<u8> {
        self.0.into_inner()
    }
}

/// A table of a write transaction whose changes are noted for the log. It
/// reads as the table it wraps.
pub(super) struct Logged<'s, 'q, K: Key + 'static, V: Value + 'static> {
    table: Open<'s, 'q, K, V>,
    changes: &'s Changes,
}

impl<'s, 'q, K: Key + 'static, V: Value + 'static> Logged<'s, 'q, K, V> {
    /// `table`, its changes noted in `changes`.
    pub(super) fn new(table: Open<'s, 'q, K, V>, changes: &'s Changes) -> Self {
        Logged { table, changes }
    }

    /// Inserts or replaces a row.
    pub(super) fn insert<'k, 'v>(
        &mut self,
        key: impl Borrow<K::SelfType<'k>>,
        value: impl Borrow<V::SelfType<'v>>,
    ) -> StoreResult<()> {
        let (key, value) = (key.borrow(), value.borrow());
        self.table.insert(key, value).map_err(backend)?;
        self.changes.push(INSERT, self.table.name(), K::as_bytes(key).as_ref(), Some(V::as_bytes(value).as_ref()));
        Ok(())
    }

    /// Inserts or replaces a row, and returns what `old` makes of the row it
    /// replaced (`None`: there was none): one descent of the tree where a
    /// read before the insert would take two.
    pub(super) fn replace<'k, 'v, R>(
        &mut self,
        key: impl Borrow<K::SelfType<'k>>,
        value: impl Borrow<V::SelfType<'v>>,
        old: impl FnOnce(V::SelfType<'_>) -> R,
    ) -> StoreResult<Option<R>> {
        let (key, value) = (key.borrow(), value.borrow());
        let replaced = self.table.insert(key, value).map_err(backend)?.map(|guard| old(guard.value()));
        self.changes.push(INSERT, self.table.name(), K::as_bytes(key).as_ref(), Some(V::as_bytes(value).as_ref()));
        Ok(replaced)
    }

    /// Removes a row; returns whether there was one.
    pub(super) fn remove<'k>(&mut self, key: impl Borrow<K::SelfType<'k>>) -> StoreResult<bool> {
        let key = key.borrow();
        let removed = self.table.remove(key).map_err(backend)?.is_some();
        if removed {
            self.changes.push(REMOVE, self.table.name(), K::as_bytes(key).as_ref(), None);
        }
        Ok(removed)
    }
}

impl<'q, K: Key + 'static, V: Value + 'static> Deref for Logged<'_, 'q, K, V> {
    type Target = redb::Table<'q, K, V>;
    fn deref(&self) -> &Self::Target {
        &self.table
    }
}

/// One changed row read back from the log.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Change<'a> {
    /// The table's name.
    pub table: &'a str,
    key: &'a [u8],
    /// The row's new value; `None` when it was removed.
    value: Option<&'a [u8]>,
}

impl Change<'_> {
    /// Does the change again in `tx`, whose table `def` is the one it names.
    pub(super) fn apply<K: Key + 'static, V: Value + 'static>(
        &self,
        tx: &WriteTransaction,
        def: TableDefinition<K, V>,
    ) -> StoreResult<()> {
        let mut table = tx.open_table(def).map_err(backend)?;
        let key = K::from_bytes(self.key);
        match self.value {
            Some(value) => drop(table.insert(key, V::from_bytes(value)).map_err(backend)?),
            None => drop(table.remove(key).map_err(backend)?),
        }
        Ok(())
    }
}

/// Does one logged change again. A name the log holds but [`super::tables::replayer`]
/// does not know is corruption.
pub(super) fn apply(tx: &WriteTransaction, change: &Change<'_>) -> StoreResult<()> {
    let replay = super::tables::replayer(change.table)
        .ok_or_else(|| StoreError::Corrupt(format!("the redo log changes an unknown table {}", change.table)))?;
    replay(tx, change)
}

/// The changes of one record, in the order they were made.
pub(super) fn changes(mut bytes: &[u8]) -> impl Iterator<Item = StoreResult<Change<'_>>> {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            return None;
        }
        let change = next_change(&mut bytes);
        if change.is_err() {
            bytes = &[];
        }
        Some(change)
    })
}

fn next_change<'a>(bytes: &mut &'a [u8]) -> StoreResult<Change<'a>> {
    let kind = take(bytes, 1)?[0];
    let name_len = usize::from(take(bytes, 1)?[0]);
    let table = std::str::from_utf8(take(bytes, name_len)?).map_err(|_| corrupt("a table name"))?;
    let key = take_sized(bytes)?;
    let value = match kind {
        INSERT => Some(take_sized(bytes)?),
        REMOVE => None,
        _ => return Err(corrupt("a change's kind")),
    };
    Ok(Change { table, key, value })
}

fn take_sized<'a>(bytes: &mut &'a [u8]) -> StoreResult<&'a [u8]> {
    let len = u32::from_le_bytes(take(bytes, 4)?.try_into().expect("4 bytes"));
    take(bytes, usize::try_from(len).map_err(|_| corrupt("a length"))?)
}

fn take<'a>(bytes: &mut &'a [u8], n: usize) -> StoreResult<&'a [u8]> {
    if bytes.len() < n {
        return Err(corrupt("a change cut short"));
    }
    let (head, rest) = bytes.split_at(n);
    *bytes = rest;
    Ok(head)
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("the redo log has a bad record: {what}"))
}

/// A row changed: its table, key and new value (`None`: removed).
#[cfg(test)]
pub(super) type Row<'a> = (&'a str, &'a [u8], Option<&'a [u8]>);

/// The encoding of `rows`, as a transaction that changed them notes it.
#[cfg(test)]
pub(super) fn encoded(rows: &[Row]) -> Vec<u8> {
    let changes = Changes::default();
    for (table, key, value) in rows {
        changes.push(if value.is_some() { INSERT } else { REMOVE }, table, key, *value);
    }
    changes.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_read_back_as_they_were_noted() {
        let bytes = encoded(&[("bookings", b"BK1", Some(b"{}")), ("calendar", b"k", None)]);
        let read: Vec<Change> = changes(&bytes).collect::<StoreResult<_>>().unwrap();
        assert_eq!(
            read,
            vec![
                Change { table: "bookings", key: b"BK1", value: Some(b"{}") },
                Change { table: "calendar", key: b"k", value: None },
            ]
        );
        assert!(changes(&bytes[..bytes.len() - 1]).any(|c| c.is_err()), "a change cut short is an error");
    }
}
