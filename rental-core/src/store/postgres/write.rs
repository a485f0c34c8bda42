//! What a PostgreSQL write transaction changes: upserts of JSON documents
//! with their index columns, inserts that conflict on a taken key, and the
//! change topics it touched, bumped at commit (`flush.rs`) and announced after it.

use chrono::{DateTime, Utc};
use tokio_postgres::types::Json;

use super::PgTx;
use super::local::PendingEntry;
use super::read::{kind_code, limit, millis, seq_of, seq_value};
use crate::bookings::booking::Booking;
use crate::bookings::calendar::{Block, CalendarEntry};
use crate::bookings::event::Event;
use crate::outbox::delivery::{ClaimLimits, Delivery, DeliveryClaim, lease};
use crate::outbox::webhook::Webhook;
use crate::properties::property::Property;
use crate::store::{
    IdempotencyRecord, ReadTx, Record, RecordKind, RecordRow, StoreError, StoreResult, WriteTx, due_key, finished_key,
    property_topic,
};

impl PgTx<'_> {
    fn touch(&mut self, topic: String) {
        self.touched.insert(topic);
    }

    /// Writes (or, with `None`, removes) the calendar row of `holder` now.
    fn put_entry(
        &self,
        slug: &str,
        entry: Option<&CalendarEntry>,
        holder: &str,
        guarded: Option<&str>,
    ) -> StoreResult<()> {
        self.local.borrow_mut().write_entry(slug, holder, entry);
        let Some(e) = entry else {
            self.execute("DELETE FROM calendar WHERE holder = $1", &[&holder])?;
            return Ok(());
        };
        let guests = i32::try_from(e.guests).unwrap_or(i32::MAX);
        self.execute(
            "INSERT INTO calendar (holder, property, property_id, check_in, check_out, kind, guests, guest_name, guarded)
             VALUES ($1, $2, (SELECT id FROM properties WHERE slug = $2), $3, $4, $5, $6, $7, $8)
             ON CONFLICT (holder) DO UPDATE SET property = EXCLUDED.property, property_id = EXCLUDED.property_id,
                 check_in = $3, check_out = $4, kind = $5, guests = $6, guest_name = $7, guarded = $8",
            &[
                &holder,
                &slug,
                &e.stay.check_in(),
                &e.stay.check_out(),
                &kind_code(e.kind),
                &guests,
                &e.guest_name.as_str(),
                &guarded,
            ],
        )?;
        Ok(())
    }
}

impl WriteTx for PgTx<'_> {
    fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        let slug = property.slug.as_str();
        self.hold_property(slug)?;
        self.execute(
            "INSERT INTO properties (slug, doc) VALUES ($1, $2) ON CONFLICT (slug) DO UPDATE SET doc = $2",
            &[&slug, &Json(property)],
        )?;
        self.local.get_mut().properties.insert(slug.to_owned(), Some(property.clone()));
        self.touch(property_topic(slug));
        Ok(())
    }

    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        self.hold_property(booking.property.as_str())?;
        self.write_booking(booking, false)
    }

    /// A taken code conflicts here, not at the flush: the code is looked up
    /// unless this transaction already knows it.
    fn insert_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        self.hold_property(booking.property.as_str())?;
        if self.booking(booking.code.as_str())?.is_some() {
            return Err(StoreError::Conflict(format!("booking code {} is taken", booking.code)));
        }
        self.write_booking(booking, true)
    }

    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.hold_all()?;
        let (id, slug) = (block.id.as_str(), block.property.as_str());
        self.execute(
            "INSERT INTO blocks (id, property, doc) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET property = $2, doc = $3",
            &[&id, &slug, &Json(block)],
        )?;
        let guarded = block.feed.is_none().then_some("block");
        self.put_entry(slug, Some(&CalendarEntry::of_block(block)), id, guarded)?;
        self.touch(property_topic(slug));
        Ok(())
    }

    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        self.hold_all()?;
        let Some(old) = self.block(id)? else { return Ok(false) };
        self.execute("DELETE FROM blocks WHERE id = $1", &[&id])?;
        self.put_entry(old.property.as_str(), None, id, None)?;
        self.touch(property_topic(old.property.as_str()));
        Ok(true)
    }

    /// Sent with the next flush, numbered from the sequence then, in order.
    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        self.local.get_mut().pending.events.extend(events.iter().cloned());
        Ok(())
    }

    /// Sent now, after what waits, to learn its number.
    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.hold_all()?;
        let rows = self.query("INSERT INTO outbox (doc) VALUES ($1) RETURNING seq", &[&Json(event)])?;
        rows.first()
            .map(|r| seq_of(r.get(0)))
            .ok_or_else(|| StoreError::Corrupt("an outbox insert returned no number".into()))
    }

    /// Sent now, after what waits; the outbox's sequence moves on to `seq`.
    fn append_event_at(&mut self, seq: u64, event: &Event) -> StoreResult<()> {
        self.hold_all()?;
        let past = self.query("SELECT 1 FROM outbox WHERE seq >= $1 LIMIT 1", &[&seq_value(seq)])?;
        if !past.is_empty() {
            return Err(StoreError::Conflict(format!("the outbox is already numbered past {seq}")));
        }
        self.execute("INSERT INTO outbox (seq, doc) VALUES ($1, $2)", &[&seq_value(seq), &Json(event)])?;
        self.query(
            "SELECT setval(pg_get_serial_sequence('outbox', 'seq'), GREATEST($1, nextval(pg_get_serial_sequence('outbox', 'seq'))))",
            &[&seq_value(seq)],
        )?;
        Ok(())
    }

    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.hold_all()?;
        let due = due_key(delivery).map(|(at, _)| i64::try_from(at).unwrap_or(i64::MAX));
        let finished = finished_key(delivery).map(|at| i64::try_from(at).unwrap_or(i64::MAX));
        self.execute(
            "INSERT INTO deliveries (id, webhook_id, event_seq, due_at, finished_at, doc) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET webhook_id = $2, event_seq = $3, due_at = $4, finished_at = $5, doc = $6",
            &[&delivery.id, &delivery.webhook_id, &seq_value(delivery.event_seq), &due, &finished, &Json(delivery)],
        )?;
        if due.is_none() {
            self.remove_lease(&delivery.id)?;
        }
        Ok(())
    }

    fn put_lease(&mut self, claim: &DeliveryClaim) -> StoreResult<()> {
        self.hold_all()?;
        self.execute(
            "INSERT INTO delivery_leases (delivery_id, webhook_id, owner, until) VALUES ($1, $2, $3, $4)
             ON CONFLICT (delivery_id) DO UPDATE SET webhook_id = $2, owner = $3, until = $4",
            &[&claim.delivery_id, &claim.webhook_id, &claim.lease.owner, &claim.lease.until],
        )?;
        Ok(())
    }

    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        self.hold_all()?;
        self.execute("DELETE FROM delivery_leases WHERE delivery_id = $1", &[&delivery_id])?;
        Ok(())
    }

    /// Claims with row locks: the due deliveries of webhooks that another
    /// claim is not holding right now (`FOR UPDATE SKIP LOCKED` on the
    /// webhooks), then [`lease::claimable`] as in every store.
    fn claim_deliveries(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        until: DateTime<Utc>,
        limits: ClaimLimits,
    ) -> StoreResult<Vec<Delivery>> {
        self.hold_all()?;
        self.execute("DELETE FROM delivery_leases WHERE until <= $1", &[&now])?;
        let free = self.query(
            "SELECT key FROM records WHERE kind = $2
               AND key IN (SELECT DISTINCT webhook_id FROM deliveries WHERE due_at <= $1)
             ORDER BY key FOR UPDATE SKIP LOCKED",
            &[&millis(now), &Webhook::KIND.name],
        )?;
        let free: Vec<String> = free.iter().map(|r| r.get(0)).collect();
        if free.is_empty() {
            return Ok(Vec::new());
        }
        let leases = self.delivery_leases()?;
        let due = self.query(
            "SELECT doc FROM deliveries WHERE due_at <= $1 AND webhook_id = ANY($2)
             ORDER BY due_at, event_seq, id LIMIT $3",
            &[&millis(now), &free, &limit(limits.deliveries.saturating_add(leases.len()))],
        )?;
        let due = due.iter().map(|r| r.try_get::<_, Json<Delivery>>(0).map(|Json(d)| d)).collect::<Result<_, _>>();
        let due = due.map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let claimed = lease::claimable(due, &leases, now, limits);
        for d in &claimed {
            self.put_lease(&DeliveryClaim::new(d, owner, until))?;
        }
        Ok(claimed)
    }

    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        self.hold_all()?;
        let seqs: Vec<i64> = seqs.iter().map(|s| seq_value(*s)).collect();
        self.execute("UPDATE outbox SET fanned_out = true WHERE seq = ANY($1)", &[&seqs])?;
        Ok(())
    }

    /// Sent with the next flush; a key already recorded conflicts here.
    fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        if self.idempotency(&record.key)?.is_some() {
            return Err(StoreError::Conflict(format!("idempotency key {} is recorded", record.key)));
        }
        self.local.get_mut().pending.idempotency.push(record.clone());
        Ok(())
    }

    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        self.hold_all()?;
        self.execute("DELETE FROM delivery_leases WHERE delivery_id = $1", &[&id])?;
        self.execute("DELETE FROM deliveries WHERE id = $1", &[&id])?;
        Ok(())
    }

    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.hold_all()?;
        self.execute("DELETE FROM outbox WHERE seq = $1", &[&seq_value(seq)])?;
        Ok(())
    }

    fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        self.execute("DELETE FROM idempotency WHERE key = $1", &[&key])?;
        Ok(())
    }

    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        self.hold_record(kind, &row.key)?;
        let doc = std::str::from_utf8(&row.doc).map_err(|e| StoreError::Backend(Box::new(e)))?;
        self.execute(
            "INSERT INTO records (kind, key, at, doc) VALUES ($1, $2, $3, $4::text::json)
             ON CONFLICT (kind, key) DO UPDATE SET at = $3, doc = $4::text::json",
            &[&kind.name, &row.key, &row.at, &doc],
        )?;
        Ok(())
    }

    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        self.hold_record(kind, key)?;
        Ok(self.execute("DELETE FROM records WHERE kind = $1 AND key = $2", &[&kind.name, &key])? > 0)
    }

    fn touch(&mut self, topic: &str) -> StoreResult<()> {
        self.touched.insert(topic.to_owned());
        Ok(())
    }

    /// Sends what waits, bumps the touched change topics and commits, in
    /// one round trip; then has their new versions announced.
    fn commit(self) -> StoreResult<()> {
        let topics: Vec<&str> = self.touched.iter().map(String::as_str).collect();
        let bumped = self.flush_and_commit(&topics)?;
        if let Some(lines) = bumped {
            self.announcer.announce(lines);
        }
        Ok(())
    }
}

impl PgTx<'_> {
    /// Inserts (`new`: a taken code conflicts) or upserts a booking with its
    /// calendar row, sent with the next flush. A booking already waiting is sent first.
    fn write_booking(&mut self, booking: &Booking, new: bool) -> StoreResult<()> {
        let (code, slug) = (booking.code.as_str(), booking.property.as_str());
        if self.local.get_mut().pending.holds(code) {
            self.flush()?;
        }
        let entry = CalendarEntry::of_booking(booking);
        let local = self.local.get_mut();
        local.write_entry(slug, code, entry.as_ref());
        local.bookings.insert(code.to_owned(), Some(booking.clone()));
        local.pending.bookings.push((booking.clone(), new));
        match entry {
            Some(entry) => {
                let guarded = booking.external.is_none().then_some("booking");
                local.pending.entries.push(PendingEntry { property: slug.to_owned(), entry, guarded });
            }
            None => local.pending.removed.push(code.to_owned()),
        }
        self.touch(property_topic(slug));
        Ok(())
    }
}
