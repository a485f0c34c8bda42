//! Writing the `SQLite` store: [`WriteTx`] on the write transaction, each
//! document stored beside the index columns its reads need, and the commit.

use rental_core::booking::{Booking, Status};
use rental_core::calendar::Block;
use rental_core::delivery::Delivery;
use rental_core::event::Event;
use rental_core::lifecycle;
use rental_core::store::{RecordKind, RecordRow, StoreResult, WriteTx};
use rusqlite::{Params, params};

use crate::schema::{day, due_at, finished_at, i64_of, nanos, to_json, u64_of};
use crate::{SqliteTx, backend};

impl<const WRITE: bool> SqliteTx<'_, WRITE> {
    fn execute<P: Params>(&self, sql: &str, params: P) -> StoreResult<usize> {
        self.conn().prepare_cached(sql).and_then(|mut s| s.execute(params)).map_err(backend)
    }
}

impl WriteTx for SqliteTx<'_, true> {
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        let code = booking.code.as_str();
        self.execute("DELETE FROM calendar WHERE holder = ?1 AND NOT is_block", [code])?;
        let lapse_at = lifecycle::may_lapse(booking).then(|| nanos(booking.created_at));
        self.execute(
            "INSERT OR REPLACE INTO bookings (code, property, check_in, pending, lapse_at, doc)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                code,
                booking.property.as_str(),
                day(booking.check_in()),
                booking.status == Status::Pending,
                lapse_at,
                to_json(booking)?
            ],
        )?;
        if booking.status != Status::Cancelled {
            self.execute(
                "INSERT OR REPLACE INTO calendar (property, check_in, holder, is_block) VALUES (?1, ?2, ?3, 0)",
                params![booking.property.as_str(), day(booking.check_in()), code],
            )?;
        }
        Ok(())
    }

    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.remove_block(&block.id)?;
        let (property, check_in) = (block.property.as_str(), day(block.stay.check_in()));
        self.execute(
            "INSERT INTO blocks (id, property, check_in, doc) VALUES (?1, ?2, ?3, ?4)",
            params![block.id, property, check_in, to_json(block)?],
        )?;
        self.execute(
            "INSERT OR REPLACE INTO calendar (property, check_in, holder, is_block) VALUES (?1, ?2, ?3, 1)",
            params![property, check_in, block.id],
        )
        .map(drop)
    }

    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        self.execute("DELETE FROM calendar WHERE holder = ?1 AND is_block", [id])?;
        Ok(self.execute("DELETE FROM blocks WHERE id = ?1", [id])? > 0)
    }

    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        for event in events {
            self.execute(
                "INSERT INTO outbox (seq, unfanned, doc) SELECT coalesce(max(seq), 0) + 1, 1, ?1 FROM outbox",
                [to_json(event)?],
            )?;
        }
        Ok(())
    }

    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.append_events(std::slice::from_ref(event))?;
        let last: i64 = self
            .conn()
            .prepare_cached("SELECT max(seq) FROM outbox")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(backend)?;
        Ok(u64_of(last))
    }

    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        let due = due_at(delivery);
        if due.is_none() {
            self.remove_lease(&delivery.id)?;
        }
        self.execute(
            "INSERT OR REPLACE INTO deliveries (id, webhook_id, event_seq, due_at, finished_at, doc)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                delivery.id,
                delivery.webhook_id,
                i64_of(delivery.event_seq),
                due,
                finished_at(delivery),
                to_json(delivery)?
            ],
        )
        .map(drop)
    }

    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        for &seq in seqs {
            self.execute("UPDATE outbox SET unfanned = 0 WHERE seq = ?1", [i64_of(seq)])?;
        }
        Ok(())
    }

    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        self.execute("DELETE FROM deliveries WHERE id = ?1", [id]).map(drop)
    }

    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.execute("DELETE FROM outbox WHERE seq = ?1", [i64_of(seq)]).map(drop)
    }

    fn put_record(&mut self, kind: &RecordKind, row: &RecordRow) -> StoreResult<()> {
        self.execute(
            "INSERT OR REPLACE INTO records (kind, key, at, doc) VALUES (?1, ?2, ?3, ?4)",
            params![kind.name, row.key, row.at, row.doc],
        )
        .map(drop)
    }

    fn remove_record(&mut self, kind: &RecordKind, key: &str) -> StoreResult<bool> {
        Ok(self.execute("DELETE FROM records WHERE kind = ?1 AND key = ?2", [kind.name, key])? > 0)
    }

    /// Nothing to tell: this process is the database's only writer.
    fn touch(&mut self, _topic: &str) -> StoreResult<()> {
        Ok(())
    }

    fn commit(mut self) -> StoreResult<()> {
        self.open = false;
        if let Err(e) = self.conn().execute_batch("COMMIT") {
            let _ = self.conn().execute_batch("ROLLBACK");
            return Err(backend(e));
        }
        Ok(())
    }
}
