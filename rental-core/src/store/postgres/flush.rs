//! Sending a write transaction's waiting writes: one multi-row statement per
//! table, so a group of bookings costs a few round trips instead of a few each.

use chrono::{DateTime, NaiveDate, Utc};
use postgres::types::Json;

use super::PgTx;
use super::local::Pending;
use super::read::kind_code;
use crate::booking::Booking;
use crate::lifecycle;
use crate::store::StoreResult;

const INSERT_BOOKINGS: &str =
    "INSERT INTO bookings (code, property, check_in, check_out, status, source, updated_at, created_at, may_lapse, doc)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::text[], $6::text[],
                          $7::timestamptz[], $8::timestamptz[], $9::boolean[], $10::jsonb[])";

const UPSERT_BOOKINGS: &str =
    "INSERT INTO bookings (code, property, check_in, check_out, status, source, updated_at, created_at, may_lapse, doc)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::text[], $6::text[],
                          $7::timestamptz[], $8::timestamptz[], $9::boolean[], $10::jsonb[])
     ON CONFLICT (code) DO UPDATE SET property = EXCLUDED.property, check_in = EXCLUDED.check_in,
         check_out = EXCLUDED.check_out, status = EXCLUDED.status, source = EXCLUDED.source,
         updated_at = EXCLUDED.updated_at, created_at = EXCLUDED.created_at,
         may_lapse = EXCLUDED.may_lapse, doc = EXCLUDED.doc";

/// Rows go in as written (`ORDER BY n`): an exclusion constraint checks each against those before it.
const UPSERT_ENTRIES: &str =
    "INSERT INTO calendar (holder, property, check_in, check_out, kind, guests, guest_name, guarded)
     SELECT holder, property, check_in, check_out, kind, guests, guest_name, guarded
     FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::smallint[], $6::integer[], $7::text[], $8::text[])
          WITH ORDINALITY AS w(holder, property, check_in, check_out, kind, guests, guest_name, guarded, n)
     ORDER BY n
     ON CONFLICT (holder) DO UPDATE SET property = EXCLUDED.property, check_in = EXCLUDED.check_in,
         check_out = EXCLUDED.check_out, kind = EXCLUDED.kind, guests = EXCLUDED.guests,
         guest_name = EXCLUDED.guest_name, guarded = EXCLUDED.guarded";

impl PgTx<'_> {
    /// Sends every waiting write, removals first (they can only make room).
    pub(super) fn flush(&self) -> StoreResult<()> {
        let pending = {
            let mut local = self.local.borrow_mut();
            if local.pending.is_empty() {
                return Ok(());
            }
            std::mem::take(&mut local.pending)
        };
        let Pending { bookings, entries, removed, events, idempotency } = pending;
        if !removed.is_empty() {
            self.send("DELETE FROM calendar WHERE holder = ANY($1)", &[&removed])?;
        }
        let (new, old): (Vec<_>, Vec<_>) = bookings.into_iter().partition(|(_, new)| *new);
        self.send_bookings(INSERT_BOOKINGS, &new.iter().map(|(b, _)| b).collect::<Vec<_>>())?;
        self.send_bookings(UPSERT_BOOKINGS, &old.iter().map(|(b, _)| b).collect::<Vec<_>>())?;
        if !entries.is_empty() {
            let holders: Vec<&str> = entries.iter().map(|e| e.entry.holder.as_str()).collect();
            let properties: Vec<&str> = entries.iter().map(|e| e.property.as_str()).collect();
            let check_ins: Vec<NaiveDate> = entries.iter().map(|e| e.entry.stay.check_in()).collect();
            let check_outs: Vec<NaiveDate> = entries.iter().map(|e| e.entry.stay.check_out()).collect();
            let kinds: Vec<i16> = entries.iter().map(|e| kind_code(e.entry.kind)).collect();
            let guests: Vec<i32> = entries.iter().map(|e| i32::try_from(e.entry.guests).unwrap_or(i32::MAX)).collect();
            let names: Vec<&str> = entries.iter().map(|e| e.entry.guest_name.as_str()).collect();
            let guarded: Vec<Option<&str>> = entries.iter().map(|e| e.guarded).collect();
            self.send(
                UPSERT_ENTRIES,
                &[&holders, &properties, &check_ins, &check_outs, &kinds, &guests, &names, &guarded],
            )?;
        }
        if !events.is_empty() {
            let (seqs, docs): (Vec<i64>, Vec<_>) = events.iter().map(|(seq, e)| (*seq, Json(e))).unzip();
            self.send(
                "INSERT INTO outbox (seq, doc) SELECT * FROM unnest($1::bigint[], $2::jsonb[])",
                &[&seqs, &docs],
            )?;
        }
        if !idempotency.is_empty() {
            let keys: Vec<&str> = idempotency.iter().map(|r| r.key.as_str()).collect();
            let created: Vec<DateTime<Utc>> = idempotency.iter().map(|r| r.created_at).collect();
            let docs: Vec<_> = idempotency.iter().map(Json).collect();
            self.send(
                "INSERT INTO idempotency (key, created_at, doc)
                 SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::jsonb[])",
                &[&keys, &created, &docs],
            )?;
        }
        Ok(())
    }

    fn send_bookings(&self, sql: &'static str, bookings: &[&Booking]) -> StoreResult<()> {
        if bookings.is_empty() {
            return Ok(());
        }
        let codes: Vec<&str> = bookings.iter().map(|b| b.code.as_str()).collect();
        let properties: Vec<&str> = bookings.iter().map(|b| b.property.as_str()).collect();
        let check_ins: Vec<NaiveDate> = bookings.iter().map(|b| b.check_in()).collect();
        let check_outs: Vec<NaiveDate> = bookings.iter().map(|b| b.check_out()).collect();
        let statuses: Vec<String> = bookings.iter().map(|b| b.status.to_string()).collect();
        let sources: Vec<&str> = bookings.iter().map(|b| b.source.as_str()).collect();
        let updated: Vec<DateTime<Utc>> = bookings.iter().map(|b| b.updated_at).collect();
        let created: Vec<DateTime<Utc>> = bookings.iter().map(|b| b.created_at).collect();
        let lapsing: Vec<bool> = bookings.iter().map(|b| lifecycle::may_lapse(b)).collect();
        let docs: Vec<Json<&Booking>> = bookings.iter().map(|b| Json(*b)).collect();
        self.send(
            sql,
            &[&codes, &properties, &check_ins, &check_outs, &statuses, &sources, &updated, &created, &lapsing, &docs],
        )?;
        Ok(())
    }

    /// `n` unused outbox numbers, taken from the sequence as many at a time as
    /// the transaction said it would append ([`Local::events_expected`](super::local::Local)).
    pub(super) fn next_seqs(&self, n: usize) -> StoreResult<Vec<i64>> {
        let (held, expected) = {
            let local = self.local.borrow();
            (local.seqs.len(), local.events_expected)
        };
        if n > held {
            let take = i64::try_from((n - held).max(expected)).unwrap_or(i64::MAX);
            let rows = self.send_query(
                "SELECT nextval(pg_get_serial_sequence('outbox', 'seq')) FROM generate_series(1, $1::bigint)",
                &[&take],
            )?;
            let mut local = self.local.borrow_mut();
            local.seqs.extend(rows.iter().map(|r| r.get::<_, i64>(0)));
            local.events_expected = 0;
        }
        Ok(self.local.borrow_mut().seqs.drain(..n).collect())
    }
}
