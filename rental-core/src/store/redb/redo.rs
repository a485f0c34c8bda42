//! The redb store's redo log: the rows each commit changed (`changes.rs`), appended
//! and synced before the commit returns, so that redb itself syncs once a second.
//!
//! A durable redb commit writes every page the transaction copied, at random
//! places in the file, and syncs them: about 30 KiB a booking once the store
//! holds a few hundred thousand. Here a commit appends its changed rows to the
//! log (one sequential write and one `fdatasync`) and commits redb without
//! durability. About once a second a commit is a redb durable one instead (a
//! checkpoint): it writes each page once for all the commits since, and the
//! log starts again from the front. Opening the store replays what the log
//! holds past the last checkpoint (see [`RedoLog::open`]).
//!
//! A record is `length: u32 | digest: 8 bytes | seq: u64 | changes`, little
//! endian, the digest being the start of the SHA-256 of `seq | changes`.
//! Records are numbered one after another; a record that is cut short, fails
//! its digest or breaks the numbering ends the log (a commit that crashed
//! while it was appended never returned).

#[cfg(test)]
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use redb::WriteTransaction;
use sha2::{Digest, Sha256};

use super::backend;
use super::disk::{LogFile, SyncPoint};
use super::errors::RedoError;
use super::tables::{META, REDO_FROM};
use crate::store::{StoreError, StoreResult};

/// How often a commit is a durable redb commit that starts the log again.
pub(super) const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

const HEADER: usize = 4 + 8;

/// A record read back from the log.
#[derive(Debug)]
pub(super) struct Record {
    /// Its number.
    pub seq: u64,
    /// Its encoded changes (see [`changes`]).
    pub changes: Vec<u8>,
}

/// How much the log file grows by when a record does not fit: zeros,
/// written once, so that a record overwrites blocks the file already has and
/// its `fdatasync` writes no file-system metadata.
const GROW_BY: u64 = 1 << 20;

/// The start of the log file, which the records follow: whose store and
/// epoch the log is, and how its records are written (see [`Header`]).
pub(super) const HEADER_BYTES: u64 = 512;
const MAGIC: &[u8; 8] = b"rentredo";
/// The record format this version writes and reads.
const FORMAT: u32 = 1;

/// What the log's header says: `magic | format: u32 | store: u64 | epoch: u64 | digest: 8 bytes`,
/// little endian, zeros to [`HEADER_BYTES`] (one sector, so it is written whole or not at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    /// The store's id, also in its file's `meta`.
    pub store: u64,
    /// Which log of the store this is, also in its file's `meta`: a new
    /// log (created, or one without a header rewritten) is the next epoch.
    pub epoch: u64,
}

impl Header {
    fn encode(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(usize::try_from(HEADER_BYTES).expect("512"));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        out.extend_from_slice(&self.store.to_le_bytes());
        out.extend_from_slice(&self.epoch.to_le_bytes());
        let sum = digest(&out);
        out.extend_from_slice(&sum);
        out.resize(out.capacity(), 0);
        out
    }

    /// The header at the start of `bytes`; `None` when the log has none
    /// (written before headers, or new and empty).
    fn decode(bytes: &[u8]) -> Result<Option<Header>, RedoError> {
        if bytes.get(..8) != Some(MAGIC.as_slice()) {
            return Ok(None);
        }
        let field = |at: usize, n: usize| bytes.get(at..at + n).ok_or(RedoError::BadHeader);
        let (body, sum) = (field(0, 28)?, field(28, 8)?);
        if digest(body) != sum {
            return Err(RedoError::BadHeader);
        }
        let format = u32::from_le_bytes(body[8..12].try_into().expect("4 bytes"));
        if format != FORMAT {
            return Err(RedoError::UnknownFormat(format));
        }
        let store = u64::from_le_bytes(body[12..20].try_into().expect("8 bytes"));
        let epoch = u64::from_le_bytes(body[20..28].try_into().expect("8 bytes"));
        Ok(Some(Header { store, epoch }))
    }
}

/// The log file, beside the redb file. It is written from the start again
/// after each checkpoint and never shrinks: the records past the current
/// run are older than the checkpoint, and the run ends before them.
#[derive(Debug)]
pub(super) struct RedoLog {
    file: Box<dyn LogFile>,
    /// The header the file has; `None` until one is written.
    header: Option<Header>,
    /// Where the records start: after the header, or at 0 in a log written
    /// before headers (until a header is written).
    start: u64,
    /// The file's length: zeros or old records past `end`.
    size: u64,
    /// Where the next record goes.
    end: u64,
    /// Where the last appended record starts.
    last_start: u64,
    next_seq: u64,
    /// Set when a failed commit's record could not be taken back: the log
    /// takes no more records, so none follows it. (Reopened, the store
    /// replays that record: the disk refused both the commit and the undo.)
    broken: bool,
    /// Set by the flusher when a sync of redb's file failed: the pages it
    /// wrote may be lost, and only the log still holds those commits, so no
    /// checkpoint may start the log again (see [`RedoLog::refuse`]).
    sync_failed: Arc<AtomicBool>,
    /// How long the last record's sync took, in nanoseconds ([`RedoLog::sync_latency`]).
    synced_in: Arc<AtomicU64>,
    last_checkpoint: Instant,
    every: Duration,
}

impl RedoLog {
    /// Opens the log in `file`, returning it with its header and the records
    /// it holds: every whole record in an unbroken run from the start. Until
    /// a checkpoint, new records go after the run.
    pub(super) fn open(mut file: Box<dyn LogFile>) -> StoreResult<(Self, Vec<Record>)> {
        let bytes = file.read_all().map_err(backend)?;
        let header = Header::decode(&bytes)?;
        let start = if header.is_some() { HEADER_BYTES } else { 0 };
        let (records, end) = records(&bytes, start);
        let log = RedoLog {
            file,
            header,
            start,
            size: bytes.len() as u64,
            end,
            last_start: end,
            next_seq: records.last().map_or(0, |r| r.seq + 1),
            broken: false,
            sync_failed: Arc::new(AtomicBool::new(false)),
            synced_in: Arc::new(AtomicU64::new(0)),
            last_checkpoint: Instant::now(),
            every: CHECKPOINT_EVERY,
        };
        Ok((log, records))
    }

    /// The header the file has, if any.
    pub(super) fn header(&self) -> Option<Header> {
        self.header
    }

    /// The latch the flusher sets when a sync of redb's file fails.
    pub(super) fn sync_failed(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.sync_failed)
    }

    /// How long the last record's sync took, in nanoseconds: kept up to date
    /// for the store to read without the log's lock.
    pub(super) fn sync_latency(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.synced_in)
    }

    /// Fails once the log is broken or a sync of redb's file failed: no
    /// commit and no checkpoint until the store is reopened.
    pub(super) fn refuse(&self) -> Result<(), RedoError> {
        if self.broken || self.sync_failed.load(Ordering::Acquire) {
            return Err(RedoError::Broken);
        }
        Ok(())
    }

    /// The number the next record gets.
    pub(super) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Numbers records from `seq` on, if that is past the next number.
    pub(super) fn number_from(&mut self, seq: u64) {
        self.next_seq = self.next_seq.max(seq);
    }

    /// Whether records were appended since the last checkpoint.
    pub(super) fn holds_records(&self) -> bool {
        self.end > self.start
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

    /// Writes `header` at the front, right after a checkpoint: the records
    /// then start after it, and whatever the file held there is older than
    /// the checkpoint.
    pub(super) fn stamp(&mut self, header: Header) -> StoreResult<()> {
        debug_assert!(!self.holds_records(), "stamped right after a checkpoint");
        self.file.write_at(0, &header.encode()).and_then(|()| self.file.sync_data()).map_err(backend)?;
        self.header = Some(header);
        self.size = self.size.max(HEADER_BYTES);
        self.start = HEADER_BYTES;
        self.end = HEADER_BYTES;
        self.last_start = HEADER_BYTES;
        Ok(())
    }

    /// Appends one commit's changes and syncs them. When that fails, the log
    /// is left ending before the record.
    pub(super) fn append(&mut self, changes: &[u8]) -> StoreResult<()> {
        self.refuse()?;
        let mut body = Vec::with_capacity(8 + changes.len());
        body.extend_from_slice(&self.next_seq.to_le_bytes());
        body.extend_from_slice(changes);
        let mut record = Vec::with_capacity(HEADER + body.len());
        let len = u32::try_from(body.len()).map_err(|_| StoreError::Backend("a commit of over 4 GiB".into()))?;
        record.extend_from_slice(&len.to_le_bytes());
        record.extend_from_slice(&digest(&body));
        record.extend_from_slice(&body);
        let start = self.end;
        let written = self.grow_for(record.len() as u64).and_then(|()| self.file.write_at(start, &record));
        let syncing = Instant::now();
        if let Err(e) = written.and_then(|()| self.sync(SyncPoint::Record)) {
            self.end_at(start);
            return Err(backend(e));
        }
        let synced_in = u64::try_from(syncing.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.synced_in.store(synced_in, Ordering::Relaxed);
        self.last_start = start;
        self.end = start + record.len() as u64;
        self.next_seq += 1;
        Ok(())
    }

    /// Takes back the last appended record, whose redb commit failed.
    pub(super) fn take_back_last(&mut self) {
        self.end_at(self.last_start);
        if !self.broken {
            self.next_seq -= 1;
        }
    }

    /// Makes the log end at `at`: zeros over the length of what starts
    /// there, so no record is read from it. If even that fails, the log is
    /// broken (see [`RedoLog::broken`]).
    fn end_at(&mut self, at: u64) {
        if at + 4 > self.size || self.file.write_at(at, &[0; 4]).and_then(|()| self.sync(SyncPoint::TakeBack)).is_ok() {
            self.end = at;
        } else {
            self.broken = true;
        }
    }

    /// `fdatasync`s the file, unless a test removed this sync.
    fn sync(&mut self, point: SyncPoint) -> std::io::Result<()> {
        #[cfg(test)]
        if self.file.removed(point) {
            return Ok(());
        }
        let _ = point;
        self.file.sync_data()
    }

    /// Makes room for `len` more bytes after the end: zeros, synced with the
    /// file's new length (so that a record's `fdatasync` writes no metadata:
    /// for speed, not durability, as that `fdatasync` would write the length).
    fn grow_for(&mut self, len: u64) -> std::io::Result<()> {
        let needed = self.end + len;
        if needed <= self.size {
            return Ok(());
        }
        let size = needed.div_ceil(GROW_BY) * GROW_BY;
        let zeros = vec![0; usize::try_from(size - self.size).map_err(std::io::Error::other)?];
        self.file.write_at(self.size, &zeros)?;
        self.file.sync_all()?;
        self.size = size;
        Ok(())
    }

    /// Starts the log again after a checkpoint made everything in it durable.
    /// The records it held stay in the file until overwritten, and a replay
    /// skips them: they are numbered before the checkpoint's `redo_from`.
    pub(super) fn checkpointed(&mut self) {
        self.last_checkpoint = Instant::now();
        self.end = self.start;
        self.last_start = self.start;
    }

    /// Breaks the log, as a take-back that failed does.
    #[cfg(test)]
    pub(super) fn break_it(&mut self) {
        self.broken = true;
    }

    /// Whether a test removed this sync from the code.
    #[cfg(test)]
    pub(super) fn removed(&self, point: SyncPoint) -> bool {
        self.file.removed(point)
    }
}

/// Commits `tx` durably, noting in `meta` that the log's records so far are
/// in the file, then starts the log again (a checkpoint). Refused once the
/// log is broken or a sync of redb's file failed.
pub(super) fn checkpoint(tx: WriteTransaction, log: &mut RedoLog) -> StoreResult<()> {
    log.refuse()?;
    let from = log.next_seq().to_string();
    tx.open_table(META).map_err(backend)?.insert(REDO_FROM, from.as_str()).map_err(backend)?;
    #[cfg(test)]
    let tx = without_durability_if_removed(tx, log)?;
    tx.commit().map_err(backend)?;
    log.checkpointed();
    Ok(())
}

/// The checkpoint's commit without durability, when a test removed that sync.
#[cfg(test)]
fn without_durability_if_removed(mut tx: WriteTransaction, log: &RedoLog) -> StoreResult<WriteTransaction> {
    if log.removed(SyncPoint::Checkpoint) {
        tx.set_durability(redb::Durability::None).map_err(backend)?;
    }
    Ok(tx)
}

/// The log's path: the redb file's with `.redo` added.
#[cfg(test)]
pub(super) fn redo_path(path: &Path) -> PathBuf {
    super::disk::with_suffix(path, ".redo")
}

fn digest(body: &[u8]) -> [u8; 8] {
    let full = Sha256::digest(body);
    full[..8].try_into().expect("SHA-256 has 32 bytes")
}

/// The whole records from `start` in `bytes`, numbered one after another,
/// and where the run ends.
fn records(bytes: &[u8], start: u64) -> (Vec<Record>, u64) {
    let mut out: Vec<Record> = Vec::new();
    let mut at = usize::try_from(start).expect("the header fits");
    while let Some(header) = bytes.get(at..at + HEADER) {
        let len = u32::from_le_bytes(header[..4].try_into().expect("4 bytes"));
        let Ok(len) = usize::try_from(len) else { break };
        let Some(body) = bytes.get(at + HEADER..at + HEADER + len) else { break };
        if len < 8 || digest(body) != header[4..] {
            break;
        }
        let seq = u64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
        if out.last().is_some_and(|last| last.seq + 1 != seq) {
            break;
        }
        out.push(Record { seq, changes: body[8..].to_vec() });
        at += HEADER + len;
    }
    (out, at as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::redb::changes::encoded;

    fn open_log(path: &Path) -> StoreResult<(RedoLog, Vec<Record>)> {
        let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path);
        RedoLog::open(Box::new(file.unwrap()))
    }

    #[test]
    fn a_log_ends_at_a_torn_record_or_a_break_in_the_numbering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let seqs = |path: &Path| open_log(path).unwrap().1.iter().map(|r| r.seq).collect::<Vec<_>>();
        let (mut log, none) = open_log(&path).unwrap();
        assert!(none.is_empty());
        for n in 0..3u8 {
            log.append(&encoded(&[("meta", &[n], Some(b"v"))])).unwrap();
        }
        let run = usize::try_from(log.end).unwrap();
        drop(log);
        let whole = std::fs::read(&path).unwrap();
        assert_eq!(seqs(&path), [0, 1, 2]);
        assert_eq!(open_log(&path).unwrap().0.next_seq(), 3);

        // The last record cut short: a commit that crashed while it was appended.
        std::fs::write(&path, &whole[..run - 3]).unwrap();
        assert_eq!(seqs(&path), [0, 1]);

        // A flipped bit in the second record ends the log before it.
        let mut flipped = whole.clone();
        flipped[run / 3 + HEADER + 9] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(seqs(&path), [0]);

        // After a checkpoint the log starts again over the older records,
        // which follow the new run and are not read.
        std::fs::write(&path, &whole).unwrap();
        let (mut log, _) = open_log(&path).unwrap();
        log.checkpointed();
        log.number_from(10);
        log.append(&encoded(&[("meta", &[9], Some(b"v"))])).unwrap();
        drop(log);
        assert_eq!(std::fs::read(&path).unwrap()[run / 3..], whole[run / 3..], "the older records follow");
        assert_eq!(seqs(&path), [10]);

        // A record taken back (its redb commit failed) is not read either.
        let (mut log, _) = open_log(&path).unwrap();
        log.append(&encoded(&[("meta", &[11], Some(b"v"))])).unwrap();
        log.take_back_last();
        assert_eq!(log.next_seq(), 11);
        drop(log);
        assert_eq!(seqs(&path), [10]);
    }

    #[test]
    fn a_header_of_another_format_or_damaged_is_refused() {
        let header = Header { store: 0xABCD, epoch: 3 };
        assert_eq!(Header::decode(&header.encode()), Ok(Some(header)));
        assert_eq!(Header::decode(&[0; 512]), Ok(None), "no header: a new log, or one written before headers");
        let mut damaged = header.encode();
        damaged[13] ^= 1;
        assert_eq!(Header::decode(&damaged), Err(RedoError::BadHeader));
        let mut newer = header.encode();
        newer[8..12].copy_from_slice(&2u32.to_le_bytes());
        let sum = digest(&newer[..28]);
        newer[28..36].copy_from_slice(&sum);
        assert_eq!(Header::decode(&newer), Err(RedoError::UnknownFormat(2)));
    }
}
