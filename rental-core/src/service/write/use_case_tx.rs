//! The transaction a use case writes through: the store's reads, the writes
//! that cause nothing else, and the writes of bookings, properties and blocks with their effects.
//!
//! It derefs to the store's transaction for reading only: `Deref` gives `&T`,
//! and every write of [`WriteTx`] takes `&mut self`, so a use case cannot
//! reach a store write this type does not offer. A booking, property or block
//! is written by the methods here alone, which work out what the write causes
//! ([`effects`](super::effects)) and apply it, so no call can skip an effect.

use std::ops::Deref;

use chrono::{DateTime, Utc};

use super::effects::{self, AtCommit, BookingEffects, Engine};
use super::message_records;
use crate::bookings::booking::Booking;
use crate::bookings::calendar::Block;
use crate::bookings::event::Event;
use crate::outbox::delivery::{ClaimLimits, Delivery, DeliveryClaim};
use crate::outbox::message::MessageKind;
use crate::outbox::message::stored::Recorded;
use crate::properties::property::Property;
use crate::service::promo_uses;
use crate::store::{IdempotencyRecord, KEYS_TOPIC, Record, Store, StoreResult, WriteRecords, WriteTx};

/// A use case's write transaction (see the module doc).
pub(in crate::service) struct UseCaseTx<T> {
    tx: T,
    engine: Engine,
    at_commit: AtCommit,
    /// [`Settings::payment_provider`](crate::service::Settings::payment_provider): the access gate's default.
    pub(in crate::service) payment_provider: bool,
}

/// The transaction a use case of `Rental<S>` writes through.
pub(in crate::service) type Tx<'a, S> = UseCaseTx<<S as Store>::Write<'a>>;

impl<T> Deref for UseCaseTx<T> {
    type Target = T;
    /// The store's transaction, to read: no write of it is callable through `&T`.
    fn deref(&self) -> &T {
        &self.tx
    }
}

impl<T: WriteTx> UseCaseTx<T> {
    pub(in crate::service) fn new(tx: T, engine: Engine, payment_provider: bool) -> Self {
        Self { tx, engine, at_commit: AtCommit::default(), payment_provider }
    }

    /// The store's transaction and what is left for its commit to apply.
    pub(in crate::service) fn into_parts(self) -> (T, AtCommit) {
        (self.tx, self.at_commit)
    }

    /// The instant this write runs at.
    fn now(&self) -> DateTime<Utc> {
        self.engine.now
    }

    /// Writes `booking` with what it causes ([`effects::of_booking`]): its door
    /// code settled (what is read back may differ from `booking` in `access`),
    /// its guest messages and promo-code uses moved, `access.updated` at the commit.
    pub(in crate::service) fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        // A channel's booking (no e-mail, no promo code) has no messages or uses to move: no read.
        let read_before = !booking.guest_email.is_empty() || booking.external.is_none();
        let before = if read_before { self.tx.booking(booking.code.as_str())? } else { None };
        let effects = effects::of_booking(&self.tx, before.as_ref(), before.is_some(), booking, None, &self.engine)?;
        self.tx.put_booking(&effects.stored)?;
        self.apply(effects)
    }

    /// Inserts the new `booking` of `property` with what it causes, as
    /// [`UseCaseTx::put_booking`] writes; a code taken meanwhile is a conflict.
    pub(in crate::service) fn insert_booking(&mut self, booking: &Booking, property: &Property) -> StoreResult<()> {
        let effects = effects::of_booking(&self.tx, None, false, booking, Some(property), &self.engine)?;
        self.tx.insert_booking(&effects.stored)?;
        self.apply(effects)
    }

    /// Applies what writing `effects.stored` causes, once it is written.
    fn apply(&mut self, effects: BookingEffects) -> StoreResult<()> {
        let BookingEffects { stored, access_event, promo_moves, messages } = effects;
        promo_uses::apply(&mut self.tx, &stored.property, &promo_moves)?;
        self.record(messages)?;
        self.at_commit.events.extend(access_event);
        self.cache().bookings.push(stored);
        Ok(())
    }

    /// Records one guest message of `kind` for `booking`, due now: what a
    /// change that is not the booking's own tells the guest (a refused payment).
    pub(in crate::service) fn record_message(&mut self, kind: MessageKind, booking: &Booking) -> StoreResult<()> {
        let messages = effects::messages(&self.tx, None, true, booking, None, Some(kind), &self.engine)?;
        self.record(messages)
    }

    /// Writes planned guest messages (`message::stored`: a new one skipped as it is planned is one record).
    fn record(&mut self, messages: Vec<Recorded>) -> StoreResult<()> {
        let now = self.now();
        for recorded in messages {
            message_records::put(&mut self.tx, recorded, now)?;
        }
        Ok(())
    }

    /// Writes `property`; the read cache learns it at the commit.
    pub(in crate::service) fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        self.tx.put_property(property)?;
        self.cache().properties.push(property.clone());
        Ok(())
    }

    /// Writes `block`; the read cache learns it at the commit.
    pub(in crate::service) fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.tx.put_block(block)?;
        self.cache().blocks.push(block.clone());
        Ok(())
    }

    /// Removes the block `id`, false when there was none; the read cache
    /// learns the block as it was at the commit.
    pub(in crate::service) fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        let Some(block) = self.tx.block(id)? else { return Ok(false) };
        self.tx.remove_block(id)?;
        self.cache().removed_blocks.push(block);
        Ok(true)
    }

    /// [`WriteTx::touch`]; a key revocation reaches this process's read cache at the commit.
    pub(in crate::service) fn touch(&mut self, topic: &str) -> StoreResult<()> {
        self.cache().keys_revoked |= topic == KEYS_TOPIC;
        self.tx.touch(topic)
    }

    /// The read cache's changes, marked as some.
    fn cache(&mut self) -> &mut effects::CacheChanges {
        self.at_commit.cache.any = true;
        &mut self.at_commit.cache
    }
}

/// The writes that cause nothing beyond themselves, as the store's
/// transaction does them: records, events, deliveries, leases, idempotency.
impl<T: WriteTx> UseCaseTx<T> {
    /// [`WriteRecords::put`], for any record but a property (written by
    /// [`UseCaseTx::put_property`], which the read cache learns of): a
    /// property here fails the build.
    pub(in crate::service) fn put<R: Record>(&mut self, record: &R) -> StoreResult<()> {
        const { assert!(!is_property::<R>(), "a property is written by UseCaseTx::put_property") };
        self.tx.put(record)
    }

    /// [`WriteRecords::remove`].
    pub(in crate::service) fn remove<R: Record>(&mut self, key: &str) -> StoreResult<bool> {
        const { assert!(!is_property::<R>(), "a property is never removed") };
        self.tx.remove::<R>(key)
    }

    /// [`WriteTx::append_events`].
    pub(in crate::service) fn append_events(&mut self, events: &[Event]) -> StoreResult<()> {
        self.tx.append_events(events)
    }

    /// [`WriteTx::append_event`].
    pub(in crate::service) fn append_event(&mut self, event: &Event) -> StoreResult<u64> {
        self.tx.append_event(event)
    }

    /// [`WriteTx::mark_fanned_out`].
    pub(in crate::service) fn mark_fanned_out(&mut self, seqs: &[u64]) -> StoreResult<()> {
        self.tx.mark_fanned_out(seqs)
    }

    /// [`WriteTx::remove_event`].
    pub(in crate::service) fn remove_event(&mut self, seq: u64) -> StoreResult<()> {
        self.tx.remove_event(seq)
    }

    /// [`WriteTx::put_delivery`].
    pub(in crate::service) fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.tx.put_delivery(delivery)
    }

    /// [`WriteTx::remove_delivery`].
    pub(in crate::service) fn remove_delivery(&mut self, id: &str) -> StoreResult<()> {
        self.tx.remove_delivery(id)
    }

    /// [`WriteTx::claim_deliveries`].
    pub(in crate::service) fn claim_deliveries(
        &mut self,
        now: DateTime<Utc>,
        owner: &str,
        until: DateTime<Utc>,
        limits: ClaimLimits,
    ) -> StoreResult<Vec<Delivery>> {
        self.tx.claim_deliveries(now, owner, until, limits)
    }

    /// [`WriteTx::put_lease`].
    pub(in crate::service) fn put_lease(&mut self, lease: &DeliveryClaim) -> StoreResult<()> {
        self.tx.put_lease(lease)
    }

    /// [`WriteTx::remove_lease`].
    pub(in crate::service) fn remove_lease(&mut self, delivery_id: &str) -> StoreResult<()> {
        self.tx.remove_lease(delivery_id)
    }

    /// [`WriteTx::insert_idempotency`].
    pub(in crate::service) fn insert_idempotency(&mut self, record: &IdempotencyRecord) -> StoreResult<()> {
        self.tx.insert_idempotency(record)
    }

    /// [`WriteTx::remove_idempotency`].
    pub(in crate::service) fn remove_idempotency(&mut self, key: &str) -> StoreResult<()> {
        self.tx.remove_idempotency(key)
    }
}

/// Whether `R` is the property record, which only [`UseCaseTx::put_property`] writes.
const fn is_property<R: Record>() -> bool {
    let (a, b) = (R::KIND.name.as_bytes(), <Property as Record>::KIND.name.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
