//! `rental db copy`: everything a store holds, read from one snapshot, written
//! into an empty PostgreSQL database in one transaction, outbox numbers kept.

use chrono::NaiveDate;
use tokio_postgres::types::Json;

use super::read::seq_value;
use super::{PgStore, PgTx};
use crate::bookings::booking::BookingQuery;
use crate::bookings::calendar::EntryKind;
use crate::store::{ReadTx, Store, StoreError, StoreResult, WriteTx};

/// How many records of each kind a copy moved, in the order of [`super::TABLES`].
pub type Counts = Vec<(&'static str, i64)>;

impl PgStore {
    /// Copies every record of `source` into this database, which must hold
    /// none yet, in one transaction; returns how many of each it read.
    /// Outbox events keep their numbers (deliveries refer to them) and their
    /// fan-out marks; the next event is numbered after the last one copied.
    pub fn copy_from(&self, source: &impl ReadTx) -> StoreResult<Counts> {
        if let Some((table, n)) = self.counts()?.into_iter().find(|(_, n)| *n > 0) {
            return Err(StoreError::Backend(format!("the database is not empty: {table} holds {n} rows").into()));
        }
        let mut tx = self.write()?;
        let mut counts = Vec::new();
        let properties = source.properties()?;
        for p in &properties {
            tx.put_property(p)?;
        }
        counts.push(("properties", properties.len()));

        let mut bookings = 0;
        let mut query = BookingQuery { limit: 1_000, ..BookingQuery::default() };
        loop {
            let page = source.bookings(&query)?;
            for b in &page {
                tx.put_booking(b)?;
            }
            bookings += page.len();
            match page.last() {
                Some(last) if page.len() >= query.limit => {
                    query.after = Some(crate::bookings::booking::Cursor::after(last));
                }
                _ => break,
            }
        }
        counts.push(("bookings", bookings));

        let mut blocks = 0;
        for p in &properties {
            let entries = source.calendar(p.slug.as_str(), crate::store::first_day(), NaiveDate::MAX)?;
            for e in entries.iter().filter(|e| e.kind == EntryKind::Blocked) {
                if let Some(block) = source.block(&e.holder)? {
                    tx.put_block(&block)?;
                    blocks += 1;
                }
            }
        }
        counts.push(("blocks", blocks));

        counts.push(("outbox", copy_outbox(source, &tx)?));

        let mut ids: Vec<String> = source.pending_deliveries()?.into_iter().map(|d| d.id).collect();
        ids.extend(source.finished_deliveries(crate::store::end_of_time(), usize::MAX)?);
        for id in &ids {
            if let Some(d) = source.delivery(id)? {
                tx.put_delivery(&d)?;
            }
        }
        for lease in source.delivery_leases()? {
            tx.put_lease(&lease)?;
        }
        counts.push(("deliveries", ids.len()));

        let keys = source.idempotency_before(crate::store::end_of_time(), usize::MAX)?;
        for key in &keys {
            if let Some(record) = source.idempotency(key)? {
                tx.insert_idempotency(&record)?;
            }
        }
        counts.push(("idempotency", keys.len()));

        let mut records = 0;
        for kind in super::super::KINDS {
            for row in source.records(kind, "", "", usize::MAX)? {
                tx.put_record(kind, &row)?;
                records += 1;
            }
        }
        counts.push(("records", records));
        tx.commit()?;
        Ok(counts.into_iter().map(|(t, n)| (t, i64::try_from(n).unwrap_or(i64::MAX))).collect())
    }
}

/// Copies the outbox with its numbers and marks; returns how many events.
fn copy_outbox(source: &impl ReadTx, tx: &PgTx<'_>) -> StoreResult<usize> {
    let unfanned: Vec<u64> = source.unfanned_events(usize::MAX)?.iter().map(|e| e.seq).collect();
    let (mut after, mut copied) = (0, 0);
    loop {
        let page = source.events_after(after, 1_000)?;
        let Some(last) = page.last().map(|e| e.seq) else { break };
        for e in &page {
            let fanned_out = !unfanned.contains(&e.seq);
            tx.execute(
                "INSERT INTO outbox (seq, fanned_out, doc) VALUES ($1, $2, $3)",
                &[&seq_value(e.seq), &fanned_out, &Json(&e.event)],
            )?;
        }
        copied += page.len();
        after = last;
    }
    if after > 0 {
        tx.query("SELECT setval(pg_get_serial_sequence('outbox', 'seq'), $1)", &[&seq_value(after)])?;
    }
    Ok(copied)
}
