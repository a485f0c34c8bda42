//! Retention (docs/API.md section 18): what the store may forget, removed a
//! small transaction at a time so the writer is never held long.

use chrono::{DateTime, TimeDelta, Utc};

use super::bookings::IDEMPOTENCY_WINDOW;
use crate::admin::allowance::UseWindow;
use crate::error::Result;
use crate::outbox::message::Message;
use crate::outbox::message::finished::FinishedMessage;
use crate::outbox::message::stored::SkippedMessage;
use crate::outbox::message::test_message::TestMessage;
use crate::store::{ReadRecords, ReadTx, Record, Store};

/// How many records of each kind one retention transaction removes at most.
pub const PRUNE_BATCH: usize = 200;

/// What one pass of retention removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Finished deliveries, with their attempts.
    pub deliveries: usize,
    /// Outbox events every delivery of which had been removed.
    pub events: usize,
    /// Idempotency records past their 24 hours.
    pub idempotency: usize,
    /// Check-in document numbers 30 days after their stay's check-out (the check-ins stay).
    pub documents: usize,
    /// Guest messages that finished (sent, failed, skipped, cancelled) more than `retention` ago.
    pub messages: usize,
    /// The admin's test messages, once older than `retention`.
    pub test_messages: usize,
    /// Allowances' windows with no use left in them.
    pub use_windows: usize,
}

impl Pruned {
    /// Nothing was removed.
    pub fn is_empty(&self) -> bool {
        *self == Pruned::default()
    }

    fn add(&mut self, other: Pruned) {
        self.deliveries += other.deliveries;
        self.events += other.events;
        self.idempotency += other.idempotency;
        self.documents += other.documents;
        self.messages += other.messages;
        self.test_messages += other.test_messages;
        self.use_windows += other.use_windows;
    }
}

impl<S: Store> super::Worker<'_, S> {
    /// Removes what retention lets go, in transactions of at most
    /// [`PRUNE_BATCH`] records of each kind, until nothing is left to remove:
    /// deliveries that finished more than `retention` ago; outbox events
    /// older than that which are fanned out and have no delivery left (never
    /// the newest event); idempotency records older than 24 hours; the
    /// document number of a check-in 30 days after its stay's check-out;
    /// guest messages that finished, and the admin's test messages sent,
    /// more than `retention` ago (a scheduled message stays however old);
    /// allowances' windows once their last use left them.
    /// Bookings, blocks, keys and webhooks are never removed.
    pub fn prune(&self) -> Result<Pruned> {
        let now = self.now();
        let mut total = Pruned::default();
        loop {
            let mut pruned = self.prune_batch(now)?;
            pruned.documents = self.check_ins().delete_documents(now, PRUNE_BATCH)?;
            if pruned.is_empty() {
                return Ok(total);
            }
            total.add(pruned);
        }
    }

    fn prune_batch(self, now: DateTime<Utc>) -> Result<Pruned> {
        let cutoff = now - self.settings.retention;
        self.write(|tx| {
            let mut pruned = Pruned::default();
            for id in tx.finished_deliveries(cutoff, PRUNE_BATCH)? {
                tx.remove_delivery(&id)?;
                pruned.deliveries += 1;
            }
            // Events below this number have no delivery left and were fanned
            // out; the newest event stays too: the next one's number follows it.
            let first_unfanned = tx.unfanned_events(1)?.first().map_or(u64::MAX, |e| e.seq);
            let kept_from = tx.first_delivered_event()?.unwrap_or(u64::MAX).min(first_unfanned);
            let mut events = tx.events_after(0, PRUNE_BATCH + 1)?;
            events.pop();
            for e in events {
                if e.seq >= kept_from || e.event.timestamp >= cutoff {
                    break;
                }
                tx.remove_event(e.seq)?;
                pruned.events += 1;
            }
            for key in tx.idempotency_before(now - IDEMPOTENCY_WINDOW, PRUNE_BATCH)? {
                tx.remove_idempotency(&key)?;
                pruned.idempotency += 1;
            }
            // Finished before the cutoff, as deliveries: their own index says when.
            for done in tx.due::<FinishedMessage>(cutoff - TimeDelta::milliseconds(1), PRUNE_BATCH)? {
                tx.remove::<Message>(&done.key)?;
                tx.remove::<FinishedMessage>(&done.key)?;
                pruned.messages += 1;
            }
            // Recorded skipped, one record each, found by when they were recorded.
            for skipped in tx.due::<SkippedMessage>(cutoff - TimeDelta::milliseconds(1), PRUNE_BATCH)? {
                tx.remove::<SkippedMessage>(&skipped.key())?;
                pruned.messages += 1;
            }
            // Their last use left the window: nothing in them counts any more.
            for window in tx.due::<UseWindow>(now, PRUNE_BATCH)? {
                tx.remove::<UseWindow>(&window.key)?;
                pruned.use_windows += 1;
            }
            // Sent before the cutoff: the index holds when each was sent.
            for test in tx.due::<TestMessage>(cutoff - TimeDelta::milliseconds(1), PRUNE_BATCH)? {
                tx.remove::<TestMessage>(&test.key())?;
                pruned.test_messages += 1;
            }
            Ok(pruned)
        })
    }
}
