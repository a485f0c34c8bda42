//! Backups read as a stream: a file checked line by line (checksum, header,
//! records, trailer) and restored in bounded transactions, in constant memory.
//!
//! [`check`] reads the file once and writes nothing; [`restore_from`] reads it
//! again, writing [`RESTORE_BATCH`] records a transaction, and checks the
//! checksum once more on the way (a file changed between the two reads is
//! reported). Memory holds one line and one batch, whatever the store's size.

use std::io::BufRead;

use sha2::{Digest, Sha256};

use super::{BackupError, Counts, FORMAT, Header, Record, Trailer, VERSION, counts, first_held, kind_named};
use crate::store::{RecordRow, Store, WriteTx};

/// How many records a restore writes in one transaction: a transaction's
/// pending rows (and redb's redo record) stay small whatever the file's size.
pub const RESTORE_BATCH: usize = 2_000;

/// A backup checked by [`check`]: what it says it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Checked {
    /// Its header.
    pub header: Header,
    /// How many records of each kind it holds (its trailer's counts, found true).
    pub counts: Counts,
}

/// Reads a backup line by line and checks it as [`super::read`] does (header,
/// version, every record, events in order, the trailer's counts and
/// checksum), holding one line at a time. Nothing is written anywhere.
pub fn check(input: impl BufRead) -> Result<Checked, BackupError> {
    let mut checked = None;
    each_line(input, &mut |header, _record| {
        checked.get_or_insert_with(|| header.clone());
        Ok(())
    })
    .map(|(header, counts)| Checked { header: checked.unwrap_or(header), counts })
}

/// Restores the backup `input` into `store`, which must hold nothing yet:
/// [`RESTORE_BATCH`] records a transaction, in the file's order, then the
/// store's counts against the file's. Check the file with [`check`] first: a
/// fault found here (the file changed since, a store failure) leaves the
/// batches before it written, and the store is then to be emptied and the
/// restore run again. Outbox events keep their numbers.
pub fn restore_from<S: Store>(store: &S, input: impl BufRead) -> Result<Counts, BackupError> {
    if let Some(held) = first_held(&store.read()?)? {
        return Err(BackupError::NotEmpty(held));
    }
    let mut batch: Vec<Record> = Vec::with_capacity(RESTORE_BATCH);
    let (_, expected) = each_line(input, &mut |_, record| {
        batch.push(record);
        if batch.len() == RESTORE_BATCH {
            write_batch(store, &mut batch)?;
        }
        Ok(())
    })?;
    write_batch(store, &mut batch)?;
    let stored = counts(&store.read()?)?;
    if stored != expected {
        return Err(BackupError::Mismatch(format!("the backup holds {expected:?}, the store {stored:?}")));
    }
    Ok(stored)
}

/// Writes `batch` in one transaction and empties it.
fn write_batch<S: Store>(store: &S, batch: &mut Vec<Record>) -> Result<(), BackupError> {
    if batch.is_empty() {
        return Ok(());
    }
    let mut tx = store.write()?;
    let mut fanned_out = Vec::new();
    for record in batch.drain(..) {
        put(&mut tx, record, &mut fanned_out)?;
    }
    tx.mark_fanned_out(&fanned_out)?;
    tx.commit()?;
    Ok(())
}

/// Writes one record of a backup; an event already handed to its webhooks is noted in `fanned_out`.
pub(super) fn put(tx: &mut impl WriteTx, record: Record, fanned_out: &mut Vec<u64>) -> Result<(), BackupError> {
    match record {
        Record::Property(p) => tx.put_property(&p)?,
        Record::Booking(b) => tx.put_booking(&b)?,
        Record::Block(b) => tx.put_block(&b)?,
        Record::Event { seq, fanned_out: done, event } => {
            // Under its own number, in one step whatever the gap before it
            // (events removed by retention): work follows the file, not its numbers.
            tx.append_event_at(seq, &event)?;
            if done {
                fanned_out.push(seq);
            }
        }
        Record::Delivery(d) => tx.put_delivery(&d)?,
        Record::Idempotency(r) => tx.insert_idempotency(&r)?,
        Record::Row { record, key, at, doc } => {
            let kind = kind_named(&record)?;
            let doc = serde_json::to_vec(&doc).map_err(|e| BackupError::Corrupt(e.to_string()))?;
            tx.put_record(kind, &RecordRow { key, at, doc })?;
        }
    }
    Ok(())
}

/// Reads `input` line by line: the header, then each record to `each` (with
/// the header), then the trailer, whose counts and checksum must match what
/// came before it. A line is known to be a record only once the next one is
/// read (the last line is the trailer), so one line waits at a time.
fn each_line(
    mut input: impl BufRead,
    each: &mut dyn FnMut(&Header, Record) -> Result<(), BackupError>,
) -> Result<(Header, Counts), BackupError> {
    let corrupt = |what: String| BackupError::Corrupt(what);
    let mut hash = Sha256::new();
    let (mut waiting, mut next) = (Vec::new(), Vec::new());
    let mut header: Option<Header> = None;
    let (mut counts, mut records, mut last_event) = (Counts::new(), 0u64, 0u64);
    // A bad line is told once the whole file is read: a file cut short or
    // changed is reported as such, as when it is read whole.
    let mut fault: Option<BackupError> = None;
    if input.read_until(b'\n', &mut waiting)? == 0 {
        return Err(corrupt("it does not end with its trailer (cut short?)".into()));
    }
    loop {
        next.clear();
        if input.read_until(b'\n', &mut next)? == 0 {
            break;
        }
        // `waiting` is not the last line: part of the checksummed body.
        hash.update(&waiting);
        let line = waiting.strip_suffix(b"\n").unwrap_or(&waiting);
        if !line.is_empty() && fault.is_none() {
            match read_line(line, &mut header, &mut records, &mut last_event) {
                Ok(None) => {}
                Ok(Some((header, record))) => {
                    *counts.entry(record.kind().to_owned()).or_default() += 1;
                    each(header, record)?;
                }
                Err(e) => fault = Some(e),
            }
        }
        std::mem::swap(&mut waiting, &mut next);
    }
    let last =
        waiting.strip_suffix(b"\n").ok_or_else(|| corrupt("it does not end with its trailer (cut short?)".into()))?;
    let trailer: Trailer = serde_json::from_slice(last)
        .ok()
        .filter(|t: &Trailer| t.end)
        .ok_or_else(|| corrupt("its last line is not the trailer (cut short?)".into()))?;
    if hex::encode(hash.finalize()) != trailer.sha256 {
        return Err(corrupt("its checksum does not match (changed or damaged)".into()));
    }
    if let Some(fault) = fault {
        return Err(fault);
    }
    let header = header.ok_or_else(|| corrupt("it is not a rental backup (no header)".into()))?;
    if records != trailer.records || counts != trailer.counts {
        return Err(corrupt(format!("it holds {records} records, its trailer says {}", trailer.records)));
    }
    Ok((header, counts))
}

/// One line of the body: the header (`None` back), or a record with the header.
fn read_line<'h>(
    line: &[u8],
    header: &'h mut Option<Header>,
    records: &mut u64,
    last_event: &mut u64,
) -> Result<Option<(&'h Header, Record)>, BackupError> {
    let corrupt = |what: String| BackupError::Corrupt(what);
    let Some(header) = header else {
        let first: Header = serde_json::from_slice(line)
            .ok()
            .filter(|h: &Header| h.format == FORMAT)
            .ok_or_else(|| corrupt("it is not a rental backup (no header)".into()))?;
        if first.version != VERSION {
            return Err(BackupError::Version(first.version));
        }
        *header = Some(first);
        return Ok(None);
    };
    *records += 1;
    let record: Record =
        serde_json::from_slice(line).map_err(|e| corrupt(format!("record {records} cannot be read: {e}")))?;
    if let Record::Event { seq, .. } = record {
        if seq <= *last_event {
            return Err(corrupt(format!("record {records}: event {seq} is out of order")));
        }
        *last_event = seq;
    }
    Ok(Some((header, record)))
}
