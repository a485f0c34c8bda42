//! One store chosen at run time: the redb file of a data directory, or a
//! PostgreSQL database named by URL (docs/API.md section 17).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use super::{
    ChangeMarks, IdempotencyRecord, PgStore, PgTx, Prefetch, ReadTx, RedbStore, RedbTx, RedbWrite, Store, StoreResult,
    WriteTx,
};
use crate::admin_session::{AdminSession, LoginFailures};
use crate::booking::{Booking, BookingQuery};
use crate::calendar::{Block, CalendarEntry};
use crate::channel::FeedState;
use crate::delivery::{ClaimLimits, Delivery, Lease};
use crate::event::{Event, OutboxEvent};
use crate::ids::BookingCode;
use crate::keys::ApiKey;
use crate::property::Property;
use crate::webhook::Webhook;

/// The redb store or the PostgreSQL store, whichever the configuration names.
#[derive(Debug)]
pub enum AnyStore {
    /// The embedded store in a data directory: one process.
    Redb(Box<RedbStore>),
    /// The shared store: any number of processes on one database. (Both are
    /// boxed: the handles are a few hundred bytes, and differ in size.)
    Postgres(Box<PgStore>),
}

/// A transaction of an [`AnyStore`].
#[derive(Debug)]
pub enum AnyTx<R, P> {
    /// On redb.
    Redb(R),
    /// On PostgreSQL.
    Postgres(P),
}

macro_rules! each {
    ($self:ident, $tx:ident => $call:expr) => {
        match $self {
            AnyTx::Redb($tx) => $call,
            AnyTx::Postgres($tx) => $call,
        }
    };
}

impl Store for AnyStore {
    type Read<'a> = AnyTx<RedbTx<redb::ReadTransaction>, PgTx<'a>>;
    type Write<'a> = AnyTx<RedbTx<RedbWrite<'a>>, PgTx<'a>>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        Ok(match self {
            AnyStore::Redb(s) => AnyTx::Redb(s.read()?),
            AnyStore::Postgres(s) => AnyTx::Postgres(s.read()?),
        })
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        Ok(match self {
            AnyStore::Redb(s) => AnyTx::Redb(s.write()?),
            AnyStore::Postgres(s) => AnyTx::Postgres(s.write()?),
        })
    }

    fn write_for(&self, properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        Ok(match self {
            AnyStore::Redb(s) => AnyTx::Redb(s.write_for(properties)?),
            AnyStore::Postgres(s) => AnyTx::Postgres(s.write_for(properties)?),
        })
    }

    fn group_commit(&self) -> usize {
        match self {
            AnyStore::Redb(s) => s.group_commit(),
            AnyStore::Postgres(s) => s.group_commit(),
        }
    }

    fn change_marks(&self) -> Option<Arc<ChangeMarks>> {
        match self {
            AnyStore::Redb(s) => s.change_marks(),
            AnyStore::Postgres(s) => s.change_marks(),
        }
    }

    fn schema_current(&self) -> StoreResult<bool> {
        match self {
            AnyStore::Redb(s) => s.schema_current(),
            AnyStore::Postgres(s) => s.schema_current(),
        }
    }
}

impl<R: ReadTx, P: ReadTx> ReadTx for AnyTx<R, P> {
    fn property(&self, slug: &str) -> StoreResult<Option<Property>> {
        each!(self, tx => tx.property(slug))
    }
    fn properties(&self) -> StoreResult<Vec<Property>> {
        each!(self, tx => tx.properties())
    }
    fn booking(&self, code: &str) -> StoreResult<Option<Booking>> {
        each!(self, tx => tx.booking(code))
    }
    fn bookings(&self, query: &BookingQuery) -> StoreResult<Vec<Booking>> {
        each!(self, tx => tx.bookings(query))
    }
    fn pending_codes(&self) -> StoreResult<Vec<BookingCode>> {
        each!(self, tx => tx.pending_codes())
    }
    fn pending_count(&self, slug: &str) -> StoreResult<usize> {
        each!(self, tx => tx.pending_count(slug))
    }
    fn pending_codes_of(&self, slug: &str) -> StoreResult<Vec<BookingCode>> {
        each!(self, tx => tx.pending_codes_of(slug))
    }
    fn change_versions(&self) -> StoreResult<HashMap<String, i64>> {
        each!(self, tx => tx.change_versions())
    }
    fn lapsing_holds(&self, created_until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<BookingCode>> {
        each!(self, tx => tx.lapsing_holds(created_until, limit))
    }
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> StoreResult<Vec<CalendarEntry>> {
        each!(self, tx => tx.calendar(slug, from, to))
    }
    fn prefetch(&self, wanted: &Prefetch<'_>) -> StoreResult<()> {
        each!(self, tx => tx.prefetch(wanted))
    }
    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> StoreResult<Vec<Vec<CalendarEntry>>> {
        each!(self, tx => tx.calendars_from(starts))
    }
    fn pending_counts(&self, slugs: &[&str]) -> StoreResult<Vec<usize>> {
        each!(self, tx => tx.pending_counts(slugs))
    }
    fn block(&self, id: &str) -> StoreResult<Option<Block>> {
        each!(self, tx => tx.block(id))
    }
    fn key(&self, id: &str) -> StoreResult<Option<ApiKey>> {
        each!(self, tx => tx.key(id))
    }
    fn key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        each!(self, tx => tx.key_by_hash(hash))
    }
    fn key_hashes(&self) -> StoreResult<Vec<(String, String)>> {
        each!(self, tx => tx.key_hashes())
    }
    fn keys(&self) -> StoreResult<Vec<ApiKey>> {
        each!(self, tx => tx.keys())
    }
    fn webhooks(&self) -> StoreResult<Vec<Webhook>> {
        each!(self, tx => tx.webhooks())
    }
    fn events_after(&self, seq: u64, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        each!(self, tx => tx.events_after(seq, limit))
    }
    fn event(&self, seq: u64) -> StoreResult<Option<Event>> {
        each!(self, tx => tx.event(seq))
    }
    fn delivery(&self, id: &str) -> StoreResult<Option<Delivery>> {
        each!(self, tx => tx.delivery(id))
    }
    fn due_deliveries(&self, now: DateTime<Utc>, limit: usize) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.due_deliveries(now, limit))
    }
    fn pending_deliveries(&self) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.pending_deliveries())
    }
    fn delivery_leases(&self) -> StoreResult<Vec<Lease>> {
        each!(self, tx => tx.delivery_leases())
    }
    fn unfanned_events(&self, limit: usize) -> StoreResult<Vec<OutboxEvent>> {
        each!(self, tx => tx.unfanned_events(limit))
    }
    fn idempotency(&self, key: &str) -> StoreResult<Option<IdempotencyRecord>> {
        each!(self, tx => tx.idempotency(key))
    }
    fn feed_state(&self, slug: &str, feed: &str) -> StoreResult<Option<FeedState>> {
        each!(self, tx => tx.feed_state(slug, feed))
    }
    fn feed_states(&self) -> StoreResult<Vec<FeedState>> {
        each!(self, tx => tx.feed_states())
    }
    fn feed_states_of(&self, slug: &str) -> StoreResult<Vec<FeedState>> {
        each!(self, tx => tx.feed_states_of(slug))
    }
    fn deliveries_of(&self, webhook_id: &str, limit: usize) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.deliveries_of(webhook_id, limit))
    }
    fn admin_password(&self) -> StoreResult<Option<String>> {
        each!(self, tx => tx.admin_password())
    }

    fn admin_session(&self, key_hash: &str) -> StoreResult<Option<AdminSession>> {
        each!(self, tx => tx.admin_session(key_hash))
    }

    fn login_failures(&self, client: &str) -> StoreResult<Option<LoginFailures>> {
        each!(self, tx => tx.login_failures(client))
    }

    fn login_failure_clients(&self) -> StoreResult<usize> {
        each!(self, tx => tx.login_failure_clients())
    }
    fn finished_deliveries(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        each!(self, tx => tx.finished_deliveries(before, limit))
    }
    fn first_delivered_event(&self) -> StoreResult<Option<u64>> {
        each!(self, tx => tx.first_delivered_event())
    }
    fn idempotency_before(&self, before: DateTime<Utc>, limit: usize) -> StoreResult<Vec<String>> {
        each!(self, tx => tx.idempotency_before(before, limit))
    }
}

impl<R: WriteTx, P: WriteTx> WriteTx for AnyTx<R, P> {
    fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        each!(self, tx => tx.put_property(property))
    }
    fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        each!(self, tx => tx.put_booking(booking))
    }
    fn insert_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        each!(self, tx => tx.insert_booking(booking))
    }
    fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        each!(self, tx => tx.put_block(block))
    }
    fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        each!(self, tx => tx.remove_block(id))
    }
    fn insert_key(&mut self, key: &ApiKey, hash: &str) -> StoreResult<()> {
        each!(self, tx => tx.insert_key(key, hash))
    }
    fn update_key(&mut self, key: &ApiKey) -> StoreResult<()> {
        each!(self, tx => tx.update_key(key))
    }
    fn put_webhook(&mut self, webhook: &Webhook) -> StoreResult<()> {
        each!(self, tx => tx.put_webhook(webhook))
    }
    fn remove_webhook(&mut self, id: &str) -> StoreResult<bool> {
        each!(self, tx => tx.remove_webhook(id))
    }
    fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        each!(self, tx => tx.append_events(events))
    }
    fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        each!(self, tx => tx.append_event(event))
    }
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        each!(self, tx => tx.put_delivery(delivery))
    }
    fn put_lease(&mut self, lease: &Lease) -> StoreResult<()> {
        each!(self, tx => tx.put_lease(lease))
    }
    fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_lease(delivery_id))
    }
    fn claim_deliveries(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        until: DateTime<Utc>,
        limits: ClaimLimits,
    ) -> StoreResult<Vec<Delivery>> {
        each!(self, tx => tx.claim_deliveries(now, owner, until, limits))
    }
    fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        each!(self, tx => tx.mark_fanned_out(seqs))
    }
    fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        each!(self, tx => tx.insert_idempotency(record))
    }
    fn put_feed_state(&mut self, state: &FeedState) -> StoreResult<()> {
        each!(self, tx => tx.put_feed_state(state))
    }
    fn set_admin_password(&mut self, phc: &str) -> StoreResult<()> {
        each!(self, tx => tx.set_admin_password(phc))
    }

    fn put_admin_session(&mut self, key_hash: &str, session: &AdminSession) -> StoreResult<()> {
        each!(self, tx => tx.put_admin_session(key_hash, session))
    }

    fn remove_admin_session(&mut self, key_hash: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_admin_session(key_hash))
    }

    fn remove_idle_admin_sessions(&mut self, seen_before: DateTime<Utc>) -> StoreResult<usize> {
        each!(self, tx => tx.remove_idle_admin_sessions(seen_before))
    }

    fn put_login_failures(&mut self, client: &str, failures: &LoginFailures) -> StoreResult<()> {
        each!(self, tx => tx.put_login_failures(client, failures))
    }

    fn remove_login_failures(&mut self, client: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_login_failures(client))
    }

    fn remove_quiet_login_failures(&mut self, last_before: DateTime<Utc>) -> StoreResult<usize> {
        each!(self, tx => tx.remove_quiet_login_failures(last_before))
    }
    fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_delivery(id))
    }
    fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        each!(self, tx => tx.remove_event(seq))
    }
    fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        each!(self, tx => tx.remove_idempotency(key))
    }
    fn commit(self) -> StoreResult<()> {
        each!(self, tx => tx.commit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_store_keeps_its_group_commit_and_has_no_other_writers() {
        let dir = tempfile::tempdir().unwrap();
        let store = AnyStore::Redb(Box::new(RedbStore::open_dir(dir.path()).unwrap()));
        assert_eq!(store.group_commit(), 64, "rental serve on redb shares each sync among creations");
        assert!(store.change_marks().is_none());
    }
}
