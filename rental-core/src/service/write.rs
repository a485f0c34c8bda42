//! The one write path: every use case that writes runs its domain logic
//! through [`Rental::write`], which owns the lock, the commit and the read cache.
//!
//! A use case gets a [`Recorder`]: the store's write transaction, which also
//! notes what the write changed, so the read cache is updated from those
//! changes alone and never reads a calendar again.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{Rental, access_sync};
use crate::basics::clock::Entropy;
use crate::bookings::booking::Booking;
use crate::bookings::calendar::Block;
use crate::bookings::event::Event;
use crate::error::{Error, Result};
use crate::outbox::message::plan::{PlanInput, fresh, plan as message_plan};
use crate::outbox::message::{Message, MessageKind, MessageStatus, booking_prefix, reasons, skip};
use crate::properties::property::Property;
use crate::store::{KEYS_TOPIC, ReadRecords, Store, StoreResult, WriteRecords, WriteTx};

/// What a committed write changed that the read cache holds.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// Properties written, in order.
    pub properties: Vec<Property>,
    /// Bookings written, in order.
    pub bookings: Vec<Booking>,
    /// Blocks written, in order.
    pub blocks: Vec<Block>,
    /// Blocks removed, as they were.
    pub removed_blocks: Vec<Block>,
    /// A key was revoked.
    pub keys_revoked: bool,
    /// Anything at all was written.
    pub any: bool,
}

/// A write transaction that records what it changes. It also keeps every
/// booking's door code in step with it (see `access_sync`): the randomness
/// and instant for that are the engine's.
pub(super) struct Recorder<T> {
    tx: T,
    changes: Changes,
    entropy: Arc<dyn Entropy>,
    now: DateTime<Utc>,
    /// `access.updated` events, appended after the use case's own events.
    access_events: Vec<Event>,
    /// Where `host_request` messages go (`hostEmail`); empty: nowhere.
    host_email: Arc<str>,
    /// [`Settings::mail_server`](super::Settings::mail_server).
    mail_server: bool,
    /// [`Settings::checkout_ttl`](super::Settings::checkout_ttl): when requests lapse.
    request_ttl: Option<chrono::TimeDelta>,
    /// [`Settings::payment_provider`](super::Settings::payment_provider): the access gate's default.
    pub(super) payment_provider: bool,
}

/// The transaction a use case writes through.
pub(super) type Tx<'a, S> = Recorder<<S as Store>::Write<'a>>;

impl<S: Store> Rental<S> {
    /// Runs `work` in one write transaction and commits what it wrote. An
    /// error from `work` writes nothing. Writes take turns, and the read
    /// cache takes each one's changes in commit order before the next starts.
    ///
    /// A transient store failure ([`StoreError::is_transient`]: a conflict
    /// with another writer, a lost connection) runs `work` again from the
    /// start in a new transaction, up to [`WRITE_ATTEMPTS`] times in all with
    /// a growing pause; the last failure is returned if none succeeds.
    pub(super) fn write<R>(&self, work: impl FnMut(&mut Tx<'_, S>) -> Result<R>) -> Result<R> {
        self.write_in(None, work)
    }

    /// [`Rental::write`] for work on these properties alone ([`Store::write_for`]):
    /// a store shared by several processes may run it beside their writes for others.
    pub(super) fn write_for<R>(&self, properties: &[&str], work: impl FnMut(&mut Tx<'_, S>) -> Result<R>) -> Result<R> {
        self.write_in(Some(properties), work)
    }

    fn write_in<R>(&self, properties: Option<&[&str]>, mut work: impl FnMut(&mut Tx<'_, S>) -> Result<R>) -> Result<R> {
        let _turn = self.writes.lock().unwrap_or_else(PoisonError::into_inner);
        let mut attempt = 1;
        loop {
            match self.write_once(properties, &mut work) {
                Err(Error::Store(e)) if e.is_transient() && attempt < WRITE_ATTEMPTS => {
                    std::thread::sleep(self.retry_pause(attempt));
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    /// One try of [`Rental::write`], with the turn held.
    fn write_once<R>(
        &self,
        properties: Option<&[&str]>,
        work: &mut impl FnMut(&mut Tx<'_, S>) -> Result<R>,
    ) -> Result<R> {
        let tx = match properties {
            Some(properties) => self.store.write_for(properties)?,
            None => self.store.write()?,
        };
        let mut tx = Recorder {
            tx,
            changes: Changes::default(),
            entropy: Arc::clone(&self.entropy),
            now: self.now(),
            access_events: Vec::new(),
            host_email: Arc::from(self.settings.host_email.as_str()),
            mail_server: self.settings.mail_server,
            request_ttl: self.settings.checkout_ttl,
            payment_provider: self.settings.payment_provider,
        };
        let out = work(&mut tx)?;
        let access_events = std::mem::take(&mut tx.access_events);
        if !access_events.is_empty() {
            tx.append_events(&access_events)?;
        }
        let Recorder { tx, changes, .. } = tx;
        // Committed whether or not it wrote: a store makes a commit of nothing cheap.
        let started = std::time::Instant::now();
        tx.commit()?;
        crate::metrics::commit(started.elapsed());
        if changes.any
            && let Some(cache) = &self.cache
        {
            cache.apply(&changes, self.now());
        }
        Ok(out)
    }

    /// The pause before try `attempt + 1`: [`retry_pause`] with a random jitter.
    fn retry_pause(&self, attempt: u32) -> Duration {
        let mut byte = [0u8; 1];
        self.entropy.fill(&mut byte);
        retry_pause(attempt, byte[0])
    }
}

/// How many times `Rental::write` tries a write that fails transiently.
pub const WRITE_ATTEMPTS: u32 = 6;

/// The pause after failed try `attempt` (1-based): 5 ms doubling each time,
/// at most 160 ms, plus up to half again by `jitter` (0 to 255), so writers
/// that collided do not collide again in step.
///
/// ```
/// use std::time::Duration;
/// use rental_core::retry_pause;
///
/// assert_eq!(retry_pause(1, 0), Duration::from_millis(5));
/// assert_eq!(retry_pause(3, 0), Duration::from_millis(20));
/// assert!(retry_pause(3, 255) < Duration::from_millis(30));
/// assert_eq!(retry_pause(40, 0), Duration::from_millis(160));
/// ```
pub fn retry_pause(attempt: u32, jitter: u8) -> Duration {
    let base = 5u64 << attempt.saturating_sub(1).min(5);
    Duration::from_millis(base + base * u64::from(jitter) / 512)
}

/// Everything a store's write transaction does, a use case does through
/// the recorder; the few writes the read cache cares about are its own methods below.
impl<T> Deref for Recorder<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.tx
    }
}

impl<T> DerefMut for Recorder<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.tx
    }
}

/// The writes the read cache learns of. A use case calls these on the
/// recorder (they come before the store's own methods of the same names);
/// a helper that writes takes a `&mut Recorder<_>`, never the bare transaction.
impl<T: WriteTx> Recorder<T> {
    /// Records the guest messages of `after` replacing `before` (`None`: new),
    /// in this transaction (docs/API.md section 21).
    /// `known` is the booking's property when the caller has it already (a
    /// creation read it to price): it is then not decoded from the store again.
    fn record_messages(
        &mut self,
        before: Option<&Booking>,
        after: &Booking,
        known: Option<&Property>,
    ) -> StoreResult<()> {
        self.plan_and_write(before, before.is_some(), after, known, None)
    }

    /// Records one guest message of `kind` for `booking`, due now, in this transaction: what
    /// a change that is not the booking's own tells the guest (a refused payment).
    pub(super) fn record_message(&mut self, kind: MessageKind, booking: &Booking) -> StoreResult<()> {
        self.plan_and_write(None, true, booking, None, Some(kind))
    }

    /// Plans `after`'s messages replacing `before` (or, with `one`, that one message due
    /// now) with the property and, for a booking stored before (`existed`), its messages so
    /// far, and writes them.
    fn plan_and_write(
        &mut self,
        before: Option<&Booking>,
        existed: bool,
        after: &Booking,
        known: Option<&Property>,
        one: Option<MessageKind>,
    ) -> StoreResult<()> {
        if after.guest_email.is_empty() {
            return Ok(());
        }
        let read;
        let property = match known.filter(|p| p.slug == after.property) {
            Some(property) => property,
            None => match self.tx.property(after.property.as_str())? {
                Some(property) => {
                    read = property;
                    &read
                }
                None => return Ok(()),
            },
        };
        let existing = if existed {
            let prefix = booking_prefix(after.property.as_str(), after.code.as_str());
            self.tx.list::<Message>(&prefix, "", 1_000)?
        } else {
            Vec::new()
        };
        let input = PlanInput {
            property,
            existing: &existing,
            host_email: &self.host_email,
            request_ttl: self.request_ttl,
            now: self.now,
        };
        let entropy = Arc::clone(&self.entropy);
        let mut new_id = || crate::admin::keys::new_id("msg_", entropy.as_ref());
        let planned = match one {
            Some(kind) => vec![fresh(kind, after, input, self.now, new_id())],
            None => message_plan(before, after, input, &mut new_id),
        };
        for message in planned {
            let due_now = message.status == MessageStatus::Scheduled && message.due_at <= self.now;
            let message = if due_now && !self.mail_server { skip(&message, reasons::NO_MAIL_SERVER) } else { message };
            self.tx.put(&message)?;
            if let Some(done) = crate::outbox::message::finished::of(&message, self.now) {
                self.tx.put(&done)?;
            }
        }
        Ok(())
    }

    /// Marks the cache's copy stale and returns the change list.
    fn changed(&mut self) -> &mut Changes {
        self.changes.any = true;
        &mut self.changes
    }

    /// [`WriteTx::put_property`], noted.
    pub(super) fn put_property(&mut self, property: &Property) -> StoreResult<()> {
        self.tx.put_property(property)?;
        self.changed().properties.push(property.clone());
        Ok(())
    }

    /// Writes `booking` with its door code settled (`access_sync::settle`):
    /// what is stored, and read back, may differ from `booking` in `access`.
    /// The guest messages the change causes are recorded with it (`message::plan`).
    pub(super) fn put_booking(&mut self, booking: &Booking) -> StoreResult<()> {
        // A channel's booking (no e-mail, no promo code) has no messages or uses to move: no read.
        let read_before = !booking.guest_email.is_empty() || booking.external.is_none();
        let before = if read_before { self.tx.booking(booking.code.as_str())? } else { None };
        let booking = self.settled(booking)?;
        self.tx.put_booking(&booking)?;
        super::promo_uses::track(&mut self.tx, before.as_ref(), &booking)?;
        self.record_messages(before.as_ref(), &booking, None)?;
        self.changed().bookings.push(booking);
        Ok(())
    }

    /// Inserts `booking` of `property` with its door code settled, as [`Recorder::put_booking`] writes.
    pub(super) fn insert_booking(&mut self, booking: &Booking, property: &Property) -> StoreResult<()> {
        let booking = self.settled(booking)?;
        self.tx.insert_booking(&booking)?;
        super::promo_uses::track(&mut self.tx, None, &booking)?;
        self.record_messages(None, &booking, Some(property))?;
        self.changed().bookings.push(booking);
        Ok(())
    }

    fn settled(&mut self, booking: &Booking) -> StoreResult<Booking> {
        let mut booking = booking.clone();
        if let Some(event) = access_sync::settle(&self.tx, &mut booking, self.entropy.as_ref(), self.now)? {
            self.access_events.push(event);
        }
        Ok(booking)
    }

    /// [`WriteTx::put_block`], noted.
    pub(super) fn put_block(&mut self, block: &Block) -> StoreResult<()> {
        self.tx.put_block(block)?;
        self.changed().blocks.push(block.clone());
        Ok(())
    }

    /// [`WriteTx::remove_block`], noted with the block as it was.
    pub(super) fn remove_block(&mut self, id: &str) -> StoreResult<bool> {
        let Some(block) = self.tx.block(id)? else { return Ok(false) };
        self.tx.remove_block(id)?;
        self.changed().removed_blocks.push(block);
        Ok(true)
    }

    /// [`WriteTx::touch`], noting a key revocation for this process's cache too.
    pub(super) fn touch(&mut self, topic: &str) -> StoreResult<()> {
        self.changed().keys_revoked |= topic == KEYS_TOPIC;
        self.tx.touch(topic)
    }
}
