//! The redb store's redo log: the rows each commit changed, appended and
//! synced before the commit returns, so that redb itself syncs once a second.
//!
//! A durable redb commit writes every page the transaction copied, at random
//! places in the file, and syncs them: about 30 KiB a booking once the store
//! holds a few hundred thousand. Here a commit appends its changed rows to the
//! log (one sequential write and one `fdatasync`) and commits redb without
//! durability. About once a second a commit is a redb durable one instead (a
//! checkpoint): it writes each page once for all the commits since, and
//! empties the log. Opening the store replays what the log holds past the
//! last checkpoint (see [`RedoLog::open`]).
//!
//! A record is `length: u32 | digest: 8 bytes | seq: u64 | changes`, little
//! endian, the digest being the start of the SHA-256 of `seq | changes`.
//! Records are numbered one after another; a record that is cut short, fails
//! its digest or breaks the numbering ends the log (a commit that crashed
//! while it was appended never returned).

use std::borrow::Borrow;
use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::ops::Deref;
use std::path::Path;
use std::time::{Duration, Instant};

use redb::{Key, TableDefinition, TableHandle, Value, WriteTransaction};
use sha2::{Digest, Sha256};

use super::backend;
use crate::store::{StoreError, StoreResult};

/// How often a commit is a durable redb commit that empties the log.
pub(super) const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

const INSERT: u8 = 1;
const REMOVE: u8 = 2;
const HEADER: usize = 4 + 8;

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
pub(super) struct Logged<'t, K: Key + 'static, V: Value + 'static> {
    table: redb::Table<'t, K, V>,
    changes: &'t Changes,
}

impl<'t, K: Key + 'static, V: Value + 'static> Logged<'t, K, V> {
    /// Opens `def` in `tx`, noting its changes in `changes`.
    pub(super) fn open(
        tx: &'t WriteTransaction,
        def: TableDefinition<K, V>,
        changes: &'t Changes,
    ) -> StoreResult<Self> {
        Ok(Logged { table: tx.open_table(def).map_err(backend)?, changes })
    }

    /// Inserts or replaces a row.
    pub(super) fn insert<'k, 'v>(
        &mut self,
        key: impl Borrow<K::SelfType<'k>>,
        value: impl Borrow<V::SelfType<'v>>,
    ) -> StoreResult<()> {
        let (key, value) = (key.borrow(), value.borrow());
        let name = self.table.name();
        self.changes.push(INSERT, name, K::as_bytes(key).as_ref(), Some(V::as_bytes(value).as_ref()));
        self.table.insert(key, value).map_err(backend)?;
        Ok(())
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

impl<'t, K: Key + 'static, V: Value + 'static> Deref for Logged<'t, K, V> {
    type Target = redb::Table<'t, K, V>;
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

/// A record read back from the log.
#[derive(Debug)]
pub(super) struct Record {
    /// Its number.
    pub seq: u64,
    /// Its encoded changes (see [`changes`]).
    pub changes: Vec<u8>,
}

/// The log file, beside the redb file.
#[derive(Debug)]
pub(super) struct RedoLog {
    file: File,
    len: u64,
    /// Where the last appended record starts.
    last_start: u64,
    next_seq: u64,
    /// Set when a failed commit's record could not be taken back: the log
    /// takes no more records, so none follows it. (Reopened, the store
    /// replays that record: the disk refused both the commit and the cut.)
    broken: bool,
    last_checkpoint: Instant,
    every: Duration,
}

impl RedoLog {
    /// Opens (or creates) the log at `path`, returning it with the records it
    /// holds: every whole record in an unbroken run from the first. What
    /// follows the run is left for [`RedoLog::checkpointed`] to clear.
    pub(super) fn open(path: &Path) -> StoreResult<(Self, Vec<Record>)> {
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path).map_err(backend)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(backend)?;
        let records = records(&bytes);
        let next_seq = records.last().map_or(0, |r| r.seq + 1);
        let log = RedoLog {
            file,
            len: bytes.len() as u64,
            last_start: 0,
            broken: false,
            next_seq,
            last_checkpoint: Instant::now(),
            every: CHECKPOINT_EVERY,
        };
        Ok((log, records))
    }

    /// The number the next record gets.
    pub(super) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Numbers records from `seq` on, if that is past the next number.
    pub(super) fn number_from(&mut self, seq: u64) {
        self.next_seq = self.next_seq.max(seq);
    }

    /// Whether the file holds anything a checkpoint would clear.
    pub(super) fn holds_records(&self) -> bool {
        self.len > 0
    }

    /// Whether the next commit should be a checkpoint.
    pub(super) fn checkpoint_due(&self) -> bool {
        self.last_checkpoint.elapsed() >= self.every
    }

    /// Checkpoints every `every` instead of every [`CHECKPOINT_EVERY`].
    #[cfg(test)]
    pub(super) fn checkpoint_every(&mut self, every: Duration) {
        self.every = every;
    }

    /// Appends one commit's changes and syncs them. When it fails the file
    /// is cut back to where it was, so the log holds nothing of the commit.
    pub(super) fn append(&mut self, changes: &[u8]) -> StoreResult<()> {
        if self.broken {
            return Err(StoreError::Backend(
                "the redo log could not take back a failed commit; reopen the store".into(),
            ));
        }
        let mut body = Vec::with_capacity(8 + changes.len());
        body.extend_from_slice(&self.next_seq.to_le_bytes());
        body.extend_from_slice(changes);
        let mut record = Vec::with_capacity(HEADER + body.len());
        let len = u32::try_from(body.len()).map_err(|_| StoreError::Backend("a commit of over 4 GiB".into()))?;
        record.extend_from_slice(&len.to_le_bytes());
        record.extend_from_slice(&digest(&body));
        record.extend_from_slice(&body);
        let written = self.file.write_all(&record).and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            self.cut_to(self.len);
            return Err(backend(e));
        }
        self.last_start = self.len;
        self.len += record.len() as u64;
        self.next_seq += 1;
        Ok(())
    }

    /// Takes back the last appended record, whose redb commit failed.
    pub(super) fn take_back_last(&mut self) {
        if self.cut_to(self.last_start) {
            self.next_seq -= 1;
        } else {
            self.broken = true;
        }
    }

    /// Cuts the file to `len` bytes; returns whether it could.
    fn cut_to(&mut self, len: u64) -> bool {
        let cut = self.file.set_len(len).and_then(|()| self.file.sync_all()).is_ok();
        if cut {
            self.len = len;
        }
        cut
    }

    /// Empties the log after a checkpoint made everything in it durable. If
    /// that fails the records stay, and a replay skips them: they are
    /// numbered before the checkpoint's `redo_from`.
    pub(super) fn checkpointed(&mut self) {
        self.last_checkpoint = Instant::now();
        let _ = self.cut_to(0);
    }
}

fn digest(body: &[u8]) -> [u8; 8] {
    let full = Sha256::digest(body);
    full[..8].try_into().expect("SHA-256 has 32 bytes")
}

/// The whole records at the start of `bytes`, numbered one after another.
fn records(mut bytes: &[u8]) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    while bytes.len() >= HEADER {
        let len = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
        let Ok(len) = usize::try_from(len) else { break };
        let Some(body) = bytes.get(HEADER..HEADER + len) else { break };
        if len < 8 || digest(body) != bytes[4..HEADER] {
            break;
        }
        let seq = u64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
        if out.last().is_some_and(|last| last.seq + 1 != seq) {
            break;
        }
        out.push(Record { seq, changes: body[8..].to_vec() });
        bytes = &bytes[HEADER + len..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row changed: its table, key and new value (`None`: removed).
    type Row<'a> = (&'a str, &'a [u8], Option<&'a [u8]>);

    fn encoded(rows: &[Row]) -> Vec<u8> {
        let changes = Changes::default();
        for (table, key, value) in rows {
            changes.push(if value.is_some() { INSERT } else { REMOVE }, table, key, *value);
        }
        changes.into_bytes()
    }

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

    #[test]
    fn a_log_ends_at_a_torn_record_or_a_break_in_the_numbering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let (mut log, none) = RedoLog::open(&path).unwrap();
        assert!(none.is_empty());
        for n in 0..3u8 {
            log.append(&encoded(&[("meta", &[n], Some(b"v"))])).unwrap();
        }
        drop(log);
        let whole = std::fs::read(&path).unwrap();

        let (log, read) = RedoLog::open(&path).unwrap();
        assert_eq!(read.iter().map(|r| r.seq).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(log.next_seq(), 3);
        drop(log);

        // The last record cut short: a commit that crashed while it was appended.
        std::fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        assert_eq!(RedoLog::open(&path).unwrap().1.len(), 2);

        // A flipped bit in the second record ends the log before it.
        let mut flipped = whole.clone();
        let second = whole.len() / 3 + HEADER + 9;
        flipped[second] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(RedoLog::open(&path).unwrap().1.len(), 1);

        // Records of an older run after the newer ones are not read.
        let (mut log, _) = RedoLog::open(&path).unwrap();
        log.checkpointed();
        log.number_from(10);
        log.append(&encoded(&[("meta", b"new", Some(b"v"))])).unwrap();
        drop(log);
        let mut mixed = std::fs::read(&path).unwrap();
        mixed.extend_from_slice(&whole);
        std::fs::write(&path, &mixed).unwrap();
        let read = RedoLog::open(&path).unwrap().1;
        assert_eq!(read.iter().map(|r| r.seq).collect::<Vec<_>>(), [10]);
    }
}
