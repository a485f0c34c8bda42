//! A booking's records in booking order: the kinds kept per booking live in
//! `booking_records` under the booking's number, so a group's creations append.
//!
//! Each record in `records`, keyed by kind and key, dirtied a page at a random
//! place (docs/PERFORMANCE.md, "The records are the regression").
//!
//! Rows written before schema 10, or for a booking the store does not hold,
//! stay in `records`; every read looks in both. Across bookings such a kind
//! lists its rows in `records` first, in key order, then the others in booking
//! order (see [`ReadTx::records`](crate::store::ReadTx::records)).

use redb::ReadableTable;

use super::read::Tables;
use super::tables::{BOOKING_RECORDS, BOOKING_SEQS, RECORDS};
use super::{RedbTx, backend};
use crate::outbox::message::Message;
use crate::outbox::message::stored::SkippedMessage;
use crate::payments::{PaymentPlan, PaymentRecord};
use crate::stays::check_in::CheckIn;
use crate::store::{Record, RecordKind, RecordRow, StoreResult};

/// The kinds kept under their booking, keyed `{slug}/{code}` or `{slug}/{code}/...`.
const KINDS: [&str; 5] = [
    PaymentRecord::KIND.name,
    PaymentPlan::KIND.name,
    Message::KIND.name,
    SkippedMessage::KIND.name,
    CheckIn::KIND.name,
];

/// True for a kind kept under its booking.
pub(super) fn by_booking(kind: &RecordKind) -> bool {
    KINDS.contains(&kind.name)
}

/// The booking code a key of such a kind names.
pub(super) fn code_of(key: &str) -> Option<&str> {
    let mut parts = key.splitn(3, '/');
    let (_slug, code) = (parts.next()?, parts.next()?);
    (!code.is_empty()).then_some(code)
}

/// True when every key starting with `prefix` names one booking: the prefix
/// holds the whole code (`{slug}/{code}/...`).
fn names_one_booking(prefix: &str) -> bool {
    prefix.matches('/').count() >= 2
}

impl<T: Tables> RedbTx<T> {
    /// The sequence number of the booking `key` names, for a kind kept under its booking.
    pub(super) fn booking_seq(&self, kind: &RecordKind, key: &str) -> StoreResult<Option<u64>> {
        let Some(code) = code_of(key).filter(|_| by_booking(kind)) else { return Ok(None) };
        Ok(self.0.open(BOOKING_SEQS)?.get(code).map_err(backend)?.map(|v| v.value()))
    }

    /// The record of `kind` under `key` kept under booking `seq`.
    pub(super) fn booking_record(&self, seq: u64, kind: &RecordKind, key: &str) -> StoreResult<Option<RecordRow>> {
        let table = self.0.open(BOOKING_RECORDS)?;
        let row = table.get((seq, kind.name, key)).map_err(backend)?;
        Ok(row.map(|v| {
            let (at, doc) = v.value();
            RecordRow { key: key.to_owned(), at, doc: doc.to_vec() }
        }))
    }

    /// True when `records` holds `key` of `kind` (a row from before schema 10, or of no booking held).
    pub(super) fn in_records(&self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        Ok(self.0.open(RECORDS)?.get((kind.name, key)).map_err(backend)?.is_some())
    }

    /// True when `records` holds a row of any kind kept by booking.
    pub(super) fn any_booking_kind_in_records(&self) -> StoreResult<bool> {
        let table = self.0.open(RECORDS)?;
        for kind in KINDS {
            if let Some(row) = table.range((kind, "")..).map_err(backend)?.next()
                && row.map_err(backend)?.0.value().0 == kind
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Rows of a kind kept under its booking: those of one booking in key
    /// order, when `prefix` names one; otherwise those in `records` in key
    /// order, then the others in booking order, `after` being the last key
    /// of the page before.
    pub(super) fn by_booking_records(
        &self,
        kind: &RecordKind,
        prefix: &str,
        after: &str,
        limit: usize,
    ) -> StoreResult<Vec<RecordRow>> {
        if names_one_booking(prefix) {
            let mut rows = self.keyed_records(kind, prefix, after, limit)?;
            if let Some(seq) = self.booking_seq(kind, prefix)? {
                rows.extend(self.booking_rows(seq, kind, prefix, after, limit)?);
                rows.sort_by(|a, b| a.key.cmp(&b.key));
                rows.truncate(limit);
            }
            return Ok(rows);
        }
        let from = match self.booking_seq(kind, after)? {
            Some(seq) if self.booking_record(seq, kind, after)?.is_some() => Some((seq, after)),
            _ => None,
        };
        let mut rows = Vec::new();
        if from.is_none() {
            rows = self.keyed_records(kind, prefix, after, limit)?;
        }
        let (start, after) = from.map_or(((0, "", ""), ""), |(seq, after)| ((seq, kind.name, after), after));
        let table = self.0.open(BOOKING_RECORDS)?;
        for row in table.range(start..).map_err(backend)? {
            if rows.len() == limit {
                break;
            }
            let (k, v) = row.map_err(backend)?;
            let ((_, of, key), (at, doc)) = (k.value(), v.value());
            if of == kind.name && key.starts_with(prefix) && key != after {
                rows.push(RecordRow { key: key.to_owned(), at, doc: doc.to_vec() });
            }
        }
        Ok(rows)
    }

    /// Rows of `kind` in `records` whose keys start with `prefix` and follow `after`, in key order.
    pub(super) fn keyed_records(
        &self,
        kind: &RecordKind,
        prefix: &str,
        after: &str,
        limit: usize,
    ) -> StoreResult<Vec<RecordRow>> {
        let table = self.0.open(RECORDS)?;
        let mut out = Vec::new();
        for row in table.range((kind.name, std::cmp::max(prefix, after))..).map_err(backend)? {
            let (k, v) = row.map_err(backend)?;
            let ((of, key), (at, doc)) = (k.value(), v.value());
            if of != kind.name || !gather(&mut out, limit, prefix, after, (key, at, doc)) {
                break;
            }
        }
        Ok(out)
    }

    /// Rows of `kind` kept under booking `seq` whose keys start with `prefix` and follow `after`.
    fn booking_rows(
        &self,
        seq: u64,
        kind: &RecordKind,
        prefix: &str,
        after: &str,
        limit: usize,
    ) -> StoreResult<Vec<RecordRow>> {
        let table = self.0.open(BOOKING_RECORDS)?;
        let mut out = Vec::new();
        for row in table.range((seq, kind.name, std::cmp::max(prefix, after))..).map_err(backend)? {
            let (k, v) = row.map_err(backend)?;
            let ((at_seq, of, key), (at, doc)) = (k.value(), v.value());
            if at_seq != seq || of != kind.name || !gather(&mut out, limit, prefix, after, (key, at, doc)) {
                break;
            }
        }
        Ok(out)
    }
}

/// Takes one row of a range read in key order into `out` if its key follows
/// `after`; false once `out` is full or the keys have left `prefix`.
fn gather(out: &mut Vec<RecordRow>, limit: usize, prefix: &str, after: &str, row: (&str, Option<i64>, &[u8])) -> bool {
    let (key, at, doc) = row;
    if out.len() == limit || !key.starts_with(prefix) {
        return false;
    }
    if key > after {
        out.push(RecordRow { key: key.to_owned(), at, doc: doc.to_vec() });
    }
    true
}
