//! Sending a write transaction's waiting writes: one statement of multi-row
//! inserts, so a group of bookings costs one round trip, and its commit one more.

use chrono::{DateTime, NaiveDate, Utc};
use tokio_postgres::types::{Json, ToSql};

use super::PgTx;
use super::local::Pending;
use super::read::kind_code;
use crate::bookings::booking::Booking;
use crate::bookings::event::Event;
use crate::bookings::lifecycle;
use crate::store::StoreResult;

/// Every waiting write in one statement, each an `unnest` of arrays (empty
/// when nothing of its kind waits): new bookings ($1–$10), bookings written
/// again ($11–$20), calendar rows ($21–$28), outbox events ($29), idempotency
/// records ($30–$32). At commit, the change topics ($33) are bumped too, and
/// their new versions come back as `topic=version` lines to announce.
///
/// Calendar rows go in as written (`ORDER BY n`): an exclusion constraint
/// checks each against those before it. Events take their numbers from the
/// sequence in the order they were appended.
const WRITE_PENDING: &str = "
WITH new_bookings AS (
    INSERT INTO bookings (code, property, check_in, check_out, status, source, updated_at, created_at, may_lapse, doc)
    SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::date[], $5::text[], $6::text[],
                         $7::timestamptz[], $8::timestamptz[], $9::boolean[], $10::json[])
), old_bookings AS (
    INSERT INTO bookings (code, property, check_in, check_out, status, source, updated_at, created_at, may_lapse, doc)
    SELECT * FROM unnest($11::text[], $12::text[], $13::date[], $14::date[], $15::text[], $16::text[],
                         $17::timestamptz[], $18::timestamptz[], $19::boolean[], $20::json[])
    ON CONFLICT (code) DO UPDATE SET property = EXCLUDED.property, check_in = EXCLUDED.check_in,
        check_out = EXCLUDED.check_out, status = EXCLUDED.status, source = EXCLUDED.source,
        updated_at = EXCLUDED.updated_at, created_at = EXCLUDED.created_at,
        may_lapse = EXCLUDED.may_lapse, doc = EXCLUDED.doc
), entries AS (
    INSERT INTO calendar (holder, property, property_id, check_in, check_out, kind, guests, guest_name, guarded)
    SELECT holder, property, (SELECT id FROM properties p WHERE p.slug = w.property),
           check_in, check_out, kind, guests, guest_name, guarded
    FROM unnest($21::text[], $22::text[], $23::date[], $24::date[], $25::smallint[], $26::integer[], $27::text[], $28::text[])
         WITH ORDINALITY AS w(holder, property, check_in, check_out, kind, guests, guest_name, guarded, n)
    ORDER BY n
    ON CONFLICT (holder) DO UPDATE SET property = EXCLUDED.property, property_id = EXCLUDED.property_id,
        check_in = EXCLUDED.check_in, check_out = EXCLUDED.check_out, kind = EXCLUDED.kind, guests = EXCLUDED.guests,
        guest_name = EXCLUDED.guest_name, guarded = EXCLUDED.guarded
), events AS (
    INSERT INTO outbox (doc) SELECT doc FROM unnest($29::json[]) WITH ORDINALITY AS e(doc, n) ORDER BY n
), idempotency_keys AS (
    INSERT INTO idempotency (key, created_at, doc) SELECT * FROM unnest($30::text[], $31::timestamptz[], $32::json[])
), bumped AS (
    INSERT INTO changes (topic, version) SELECT t, 1 FROM unnest($33::text[]) AS t
    ON CONFLICT (topic) DO UPDATE SET version = changes.version + 1
    RETURNING topic || '=' || version AS line
), payload AS (SELECT string_agg(line, E'\\n') AS lines FROM bumped)
SELECT lines FROM payload WHERE lines IS NOT NULL";

/// One kind of booking write as the statement's ten arrays.
struct BookingColumns<'a> {
    codes: Vec<&'a str>,
    properties: Vec<&'a str>,
    check_ins: Vec<NaiveDate>,
    check_outs: Vec<NaiveDate>,
    statuses: Vec<String>,
    sources: Vec<&'a str>,
    updated: Vec<DateTime<Utc>>,
    created: Vec<DateTime<Utc>>,
    lapsing: Vec<bool>,
    docs: Vec<Json<&'a Booking>>,
}

impl<'a> BookingColumns<'a> {
    fn of(bookings: &[&'a Booking]) -> Self {
        BookingColumns {
            codes: bookings.iter().map(|b| b.code.as_str()).collect(),
            properties: bookings.iter().map(|b| b.property.as_str()).collect(),
            check_ins: bookings.iter().map(|b| b.check_in()).collect(),
            check_outs: bookings.iter().map(|b| b.check_out()).collect(),
            statuses: bookings.iter().map(|b| b.status.to_string()).collect(),
            sources: bookings.iter().map(|b| b.source.as_str()).collect(),
            updated: bookings.iter().map(|b| b.updated_at).collect(),
            created: bookings.iter().map(|b| b.created_at).collect(),
            lapsing: bookings.iter().map(|b| lifecycle::may_lapse(b)).collect(),
            docs: bookings.iter().map(|b| Json(*b)).collect(),
        }
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 10] {
        [
            &self.codes,
            &self.properties,
            &self.check_ins,
            &self.check_outs,
            &self.statuses,
            &self.sources,
            &self.updated,
            &self.created,
            &self.lapsing,
            &self.docs,
        ]
    }
}

impl PgTx<'_> {
    /// Sends every waiting write (see [`WRITE_PENDING`]), removals first in
    /// a statement of their own (they can only make room). With `commit`,
    /// it also bumps the change topics `topics` in that statement and
    /// commits in the same round trip; it returns their new versions as
    /// `topic=version` lines, to announce after the commit.
    fn send_pending(&self, topics: &[&str], commit: bool) -> StoreResult<Option<String>> {
        let pending = std::mem::take(&mut self.local.borrow_mut().pending);
        if pending.is_empty() && topics.is_empty() {
            return if commit { self.end("COMMIT").map(|()| None) } else { Ok(None) };
        }
        let Pending { bookings, entries, removed, events, idempotency } = pending;
        if !removed.is_empty() {
            self.send("DELETE FROM calendar WHERE holder = ANY($1)", &[&removed])?;
        }
        let (new, old): (Vec<_>, Vec<_>) = bookings.iter().partition(|(_, new)| *new);
        let new = BookingColumns::of(&new.iter().map(|(b, _)| b).collect::<Vec<_>>());
        let old = BookingColumns::of(&old.iter().map(|(b, _)| b).collect::<Vec<_>>());
        let holders: Vec<&str> = entries.iter().map(|e| e.entry.holder.as_str()).collect();
        let properties: Vec<&str> = entries.iter().map(|e| e.property.as_str()).collect();
        let check_ins: Vec<NaiveDate> = entries.iter().map(|e| e.entry.stay.check_in()).collect();
        let check_outs: Vec<NaiveDate> = entries.iter().map(|e| e.entry.stay.check_out()).collect();
        let kinds: Vec<i16> = entries.iter().map(|e| kind_code(e.entry.kind)).collect();
        let guests: Vec<i32> = entries.iter().map(|e| i32::try_from(e.entry.guests).unwrap_or(i32::MAX)).collect();
        let names: Vec<&str> = entries.iter().map(|e| e.entry.guest_name.as_str()).collect();
        let guarded: Vec<Option<&str>> = entries.iter().map(|e| e.guarded).collect();
        let event_docs: Vec<Json<&Event>> = events.iter().map(Json).collect();
        let keys: Vec<&str> = idempotency.iter().map(|r| r.key.as_str()).collect();
        let keys_created: Vec<DateTime<Utc>> = idempotency.iter().map(|r| r.created_at).collect();
        let key_docs: Vec<_> = idempotency.iter().map(Json).collect();
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(33);
        params.extend(new.params());
        params.extend(old.params());
        params.extend([
            &holders as &(dyn ToSql + Sync),
            &properties,
            &check_ins,
            &check_outs,
            &kinds,
            &guests,
            &names,
            &guarded,
            &event_docs,
            &keys,
            &keys_created,
            &key_docs,
            &topics,
        ]);
        let rows = if commit {
            self.send_query_and_commit(WRITE_PENDING, &params)?
        } else {
            self.send_query(WRITE_PENDING, &params)?
        };
        Ok(rows.first().map(|row| row.get(0)))
    }

    /// Sends every waiting write (see [`PgTx::send_pending`]).
    pub(super) fn flush(&self) -> StoreResult<()> {
        self.send_pending(&[], false).map(drop)
    }

    /// Sends every waiting write, bumps `topics` and commits, in one round
    /// trip (see [`PgTx::send_pending`]); returns the bumped versions.
    pub(super) fn flush_and_commit(&self, topics: &[&str]) -> StoreResult<Option<String>> {
        self.send_pending(topics, true)
    }
}
