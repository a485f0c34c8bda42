//! The one write path: every use case that writes runs its domain logic
//! through [`Rental::write`], which owns the lock, the commit and the read cache.
//!
//! A use case gets a [`UseCaseTx`]: the store's reads, and writes that work
//! out what they cause as values ([`effects`]). The write path
//! applies what waits for the commit: the `access.updated` events after the use
//! case's own, and the read cache's changes, so it never reads a calendar again.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

mod effects;
pub(super) mod message_records;
mod use_case_tx;

pub(super) use self::effects::CacheChanges;
use self::effects::Engine;
pub(super) use self::use_case_tx::{Tx, UseCaseTx};
use super::Rental;
use crate::error::{Error, Result};
use crate::store::{Store, WriteTx};

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
        let engine = Engine {
            entropy: Arc::clone(&self.entropy),
            now: self.now(),
            host_email: Arc::from(self.settings.host_email.as_str()),
            mail_server: self.settings.mail_server,
            request_ttl: self.settings.checkout_ttl,
        };
        let mut tx = UseCaseTx::new(tx, engine, self.settings.payment_provider);
        let out = work(&mut tx)?;
        let (mut tx, at_commit) = tx.into_parts();
        if !at_commit.events.is_empty() {
            tx.append_events(&at_commit.events)?;
        }
        // Committed whether or not it wrote: a store makes a commit of nothing cheap.
        let started = std::time::Instant::now();
        tx.commit()?;
        let took = started.elapsed();
        crate::metrics::commit(took);
        // A creation leader waits for more no longer than a commit of their own would cost.
        self.creations.sync_took(self.store.sync_latency().unwrap_or(took));
        if at_commit.cache.any
            && let Some(cache) = &self.cache
        {
            cache.apply(&at_commit.cache, self.now());
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
