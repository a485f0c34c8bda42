//! Backups (docs/API.md section 22): the whole store, read from one snapshot,
//! as one versioned, checksummed file that restores into any store, redb or PostgreSQL.
//!
//! The file is JSON lines: a header (`{"format": "rental-backup", "version": 1,
//! ...}`), one record a line (`{"kind": "booking", "doc": {...}}`), and a
//! trailer with the number of records, the counts of each kind and the
//! SHA-256 of every byte before it. A file that is cut short has no trailer;
//! one changed anywhere fails its checksum; either is refused before anything
//! is written. Every read and write of the store is in this module, through
//! [`ReadTx`] and [`WriteTx`] alone.
//!
//! The typed families (properties, bookings, blocks, the outbox, deliveries,
//! idempotency records) go one line a record; every kind of [`store::KINDS`]
//! goes as its stored rows, so a kind added later is backed up without a
//! change here.
//!
//! What a backup leaves out: delivery and feed pull leases (whoever held them
//! is not the restored store's), admin sessions and failed-login counts
//! (people log in again).

use std::collections::BTreeMap;
use std::io::Write;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bookings::booking::{Booking, BookingQuery, Cursor};
use crate::bookings::calendar::{Block, EntryKind};
use crate::bookings::event::Event;
use crate::channels::pull::FeedState;
use crate::outbox::delivery::Delivery;
use crate::properties::property::Property;
use crate::store::{self, IdempotencyRecord, ReadTx, Record as _, RecordKind, RecordRow, Store, StoreError, WriteTx};

mod stream;
pub use stream::{Checked, RESTORE_BATCH, check, restore_from};

/// The `format` of the header: what a backup file says it is.
pub const FORMAT: &str = "rental-backup";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;

/// How many records of each kind, by kind.
pub type Counts = BTreeMap<String, u64>;

/// Why a backup could not be made or restored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackupError {
    /// The file is not a rental backup, is cut short or was changed: nothing was written.
    #[error("the backup file is unusable: {0}; nothing was restored")]
    Corrupt(String),
    /// The file was written by a newer rental.
    #[error("the backup is version {0}, which this rental cannot read (it reads version {VERSION}): upgrade rental")]
    Version(u32),
    /// The target store already holds records.
    #[error("the target is not empty: it holds {0}; restore into an empty data directory or database")]
    NotEmpty(String),
    /// After the restore, the store does not hold what the file does.
    #[error("the restored store does not match the backup: {0}")]
    Mismatch(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing the file failed.
    #[error("cannot write the backup: {0}")]
    Io(#[from] std::io::Error),
}

/// The first line of a backup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The version of the format ([`VERSION`]).
    pub version: u32,
    /// When the snapshot was read.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
    /// The rental that wrote it.
    pub rental: String,
}

/// The last line of a backup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Trailer {
    end: bool,
    records: u64,
    counts: Counts,
    /// Hex SHA-256 of every byte before this line.
    sha256: String,
}

/// One record of the store.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", content = "doc", rename_all = "snake_case")]
enum Record {
    Property(Box<Property>),
    Booking(Box<Booking>),
    Block(Block),
    Event {
        seq: u64,
        fanned_out: bool,
        event: Box<Event>,
    },
    Delivery(Box<Delivery>),
    Idempotency(Box<IdempotencyRecord>),
    /// A row of one of the store's record kinds ([`store::KINDS`]), by its kind's name.
    Row {
        record: String,
        key: String,
        at: Option<i64>,
        doc: serde_json::Value,
    },
}

/// The record kinds a backup leaves out, by name: admin sessions and failed
/// logins belong to people's visits, not to the data (they log in again).
const LEFT_OUT: [&str; 2] = ["admin_session", "login_failures"];

impl Record {
    fn kind(&self) -> &str {
        match self {
            Record::Property(_) => "properties",
            Record::Booking(_) => "bookings",
            Record::Block(_) => "blocks",
            Record::Event { .. } => "outbox",
            Record::Delivery(_) => "deliveries",
            Record::Idempotency(_) => "idempotency",
            Record::Row { record, .. } => record,
        }
    }
}

/// A backup read back and checked: ready to restore.
#[derive(Debug)]
pub struct Backup {
    /// Its header.
    pub header: Header,
    /// How many records of each kind it holds.
    pub counts: Counts,
    records: Vec<Record>,
}

/// Writes a backup of everything `tx` sees (one snapshot) to `out`; returns the counts.
pub fn write(tx: &impl ReadTx, now: DateTime<Utc>, out: &mut impl Write) -> Result<Counts, BackupError> {
    let mut writer = Checksummed { out, hash: Sha256::new() };
    let header = Header {
        format: FORMAT.to_owned(),
        version: VERSION,
        created_at: now,
        rental: env!("CARGO_PKG_VERSION").to_owned(),
    };
    writer.line(&header)?;
    let mut counts = Counts::new();
    let mut records = 0;
    each_record(tx, &mut |record| {
        *counts.entry(record.kind().to_owned()).or_default() += 1;
        records += 1;
        writer.line(&record)
    })?;
    let sha256 = hex::encode(writer.hash.finalize_reset());
    let trailer = Trailer { end: true, records, counts: counts.clone(), sha256 };
    writer.out.write_all(&line_of(&trailer)?)?;
    writer.out.flush()?;
    Ok(counts)
}

/// Reads a backup file whole and checks it: header, version, every record,
/// the trailer's count and checksum. Nothing is written anywhere.
pub fn read(bytes: &[u8]) -> Result<Backup, BackupError> {
    let corrupt = |what: String| BackupError::Corrupt(what);
    let body_end = match bytes.strip_suffix(b"\n") {
        Some(rest) => rest.iter().rposition(|b| *b == b'\n').map_or(0, |at| at + 1),
        None => return Err(corrupt("it does not end with its trailer (cut short?)".into())),
    };
    let (body, last) = bytes.split_at(body_end);
    let trailer: Trailer = serde_json::from_slice(last)
        .ok()
        .filter(|t: &Trailer| t.end)
        .ok_or_else(|| corrupt("its last line is not the trailer (cut short?)".into()))?;
    if hex::encode(Sha256::digest(body)) != trailer.sha256 {
        return Err(corrupt("its checksum does not match (changed or damaged)".into()));
    }
    let mut lines = body.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    let header: Header = lines
        .next()
        .and_then(|l| serde_json::from_slice(l).ok())
        .filter(|h: &Header| h.format == FORMAT)
        .ok_or_else(|| corrupt("it is not a rental backup (no header)".into()))?;
    if header.version != VERSION {
        return Err(BackupError::Version(header.version));
    }
    let mut records = Vec::new();
    let mut counts = Counts::new();
    let mut last_event = 0;
    for (n, line) in lines.enumerate() {
        let record: Record =
            serde_json::from_slice(line).map_err(|e| corrupt(format!("record {} cannot be read: {e}", n + 1)))?;
        if let Record::Event { seq, .. } = record {
            if seq <= last_event {
                return Err(corrupt(format!("record {}: event {seq} is out of order", n + 1)));
            }
            last_event = seq;
        }
        *counts.entry(record.kind().to_owned()).or_default() += 1;
        records.push(record);
    }
    if records.len() as u64 != trailer.records || counts != trailer.counts {
        return Err(corrupt(format!("it holds {} records, its trailer says {}", records.len(), trailer.records)));
    }
    Ok(Backup { header, counts, records })
}

/// Restores `backup` into `store`, which must hold nothing yet, in one write
/// transaction; then reads the store back and checks that it holds what the
/// backup does. Outbox events keep their numbers, which deliveries name.
pub fn restore<S: Store>(store: &S, backup: &Backup) -> Result<Counts, BackupError> {
    if let Some(held) = first_held(&store.read()?)? {
        return Err(BackupError::NotEmpty(held));
    }
    let mut tx = store.write()?;
    let mut fanned_out = Vec::new();
    for record in &backup.records {
        stream::put(&mut tx, record.clone(), &mut fanned_out)?;
    }
    tx.mark_fanned_out(&fanned_out)?;
    tx.commit()?;
    let stored = counts(&store.read()?)?;
    if stored != backup.counts {
        return Err(BackupError::Mismatch(format!("the backup holds {:?}, the store {stored:?}", backup.counts)));
    }
    Ok(stored)
}

/// How many records of each kind `tx` holds, as a backup of it would count them.
pub fn counts(tx: &impl ReadTx) -> Result<Counts, BackupError> {
    let mut counts = Counts::new();
    each_record(tx, &mut |record| {
        *counts.entry(record.kind().to_owned()).or_default() += 1;
        Ok(())
    })?;
    Ok(counts)
}

/// What a store holds that a restore must not overwrite, if anything.
fn first_held(tx: &impl ReadTx) -> Result<Option<String>, StoreError> {
    let held = [
        ("properties", !tx.properties()?.is_empty()),
        ("bookings", !tx.bookings(&BookingQuery { limit: 1, ..BookingQuery::default() })?.is_empty()),
        ("outbox events", !tx.events_after(0, 1)?.is_empty()),
    ];
    if let Some((what, _)) = held.into_iter().find(|(_, held)| *held) {
        return Ok(Some(what.to_owned()));
    }
    for kind in backed_up_kinds() {
        if !tx.records(kind, "", "", 1)?.is_empty() {
            return Ok(Some(format!("records of the kind {}", kind.name)));
        }
    }
    Ok(None)
}

/// Calls `each` with every record `tx` sees, kind after kind.
fn each_record(tx: &impl ReadTx, each: &mut dyn FnMut(Record) -> Result<(), BackupError>) -> Result<(), BackupError> {
    let properties = tx.properties()?;
    for p in &properties {
        each(Record::Property(Box::new(p.clone())))?;
    }
    let mut query = BookingQuery { limit: 1_000, ..BookingQuery::default() };
    loop {
        let page = tx.bookings(&query)?;
        let full = page.len() > query.limit;
        for b in page.iter().take(query.limit) {
            each(Record::Booking(Box::new(b.clone())))?;
        }
        match page.get(query.limit.saturating_sub(1)) {
            Some(last) if full => query.after = Some(Cursor::after(last)),
            _ => break,
        }
    }
    let mut blocks = std::collections::BTreeSet::new();
    for p in &properties {
        for entry in tx.calendar(p.slug.as_str(), crate::store::first_day(), NaiveDate::MAX)? {
            if entry.kind == EntryKind::Blocked
                && blocks.insert(entry.holder.clone())
                && let Some(block) = tx.block(&entry.holder)?
            {
                each(Record::Block(block))?;
            }
        }
    }
    let unfanned: std::collections::BTreeSet<u64> = tx.unfanned_events(usize::MAX)?.iter().map(|e| e.seq).collect();
    let mut after = 0;
    loop {
        let page = tx.events_after(after, 1_000)?;
        let Some(last) = page.last().map(|e| e.seq) else { break };
        for e in page {
            let fanned_out = !unfanned.contains(&e.seq);
            each(Record::Event { seq: e.seq, fanned_out, event: Box::new(e.event) })?;
        }
        after = last;
    }
    let mut ids: Vec<String> = tx.pending_deliveries()?.into_iter().map(|d| d.id).collect();
    ids.extend(tx.finished_deliveries(crate::store::end_of_time(), usize::MAX)?);
    for id in &ids {
        if let Some(d) = tx.delivery(id)? {
            each(Record::Delivery(Box::new(d)))?;
        }
    }
    for key in tx.idempotency_before(crate::store::end_of_time(), usize::MAX)? {
        if let Some(record) = tx.idempotency(&key)? {
            each(Record::Idempotency(Box::new(record)))?;
        }
    }
    for kind in backed_up_kinds() {
        let mut after = String::new();
        loop {
            let page = tx.records(kind, "", &after, 1_000)?;
            let Some(last) = page.last().map(|row| row.key.clone()) else { break };
            for row in page {
                each(row_record(kind, row)?)?;
            }
            after = last;
        }
    }
    Ok(())
}

/// The record kinds a backup holds: every kind the store keeps but [`LEFT_OUT`].
fn backed_up_kinds() -> impl Iterator<Item = &'static RecordKind> {
    store::KINDS.iter().filter(|k| !LEFT_OUT.contains(&k.name))
}

/// The kind named `name`, for a row read back from a backup.
fn kind_named(name: &str) -> Result<&'static RecordKind, BackupError> {
    backed_up_kinds()
        .find(|k| k.name == name)
        .ok_or_else(|| BackupError::Corrupt(format!("it holds records of a kind this rental does not know ({name})")))
}

/// One stored row as a line of the backup. A feed's pull lease belongs to a
/// process of the store backed up, not of the one restored: it is dropped.
fn row_record(kind: &RecordKind, row: RecordRow) -> Result<Record, BackupError> {
    let corrupt = |e: serde_json::Error| StoreError::Corrupt(format!("a {} record: {e}", kind.name));
    let doc = if kind.name == FeedState::KIND.name {
        let mut feed: FeedState = serde_json::from_slice(&row.doc).map_err(corrupt)?;
        feed.lease = None;
        serde_json::to_value(feed).map_err(corrupt)?
    } else {
        serde_json::from_slice(&row.doc).map_err(corrupt)?
    };
    Ok(Record::Row { record: kind.name.to_owned(), key: row.key, at: row.at, doc })
}

/// Writes lines to `out` and hashes them.
struct Checksummed<'a, W: Write> {
    out: &'a mut W,
    hash: Sha256,
}

impl<W: Write> Checksummed<'_, W> {
    fn line(&mut self, value: &impl Serialize) -> Result<(), BackupError> {
        let line = line_of(value)?;
        self.hash.update(&line);
        self.out.write_all(&line)?;
        Ok(())
    }
}

fn line_of(value: &impl Serialize) -> Result<Vec<u8>, BackupError> {
    let mut line = serde_json::to_vec(value).map_err(|e| BackupError::Io(std::io::Error::other(e)))?;
    line.push(b'\n');
    Ok(line)
}
