//! How a booking's messages are kept: one that may still be sent is a `message`
//! record (with its finished index once it ends); one recorded already skipped is one record.
//!
//! Most bookings are made before their host sets up a mail server, and their
//! first messages are recorded `skipped` in the booking's own write. Such a
//! message never changes again: it needs neither a place among the senders'
//! `message` records nor a separate index of when it finished, so it is a
//! single [`SkippedMessage`], found by when it was recorded for retention.
//! Readers see both kinds as one list ([`of_booking`]), in key order.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Message, MessageStatus, booking_prefix, finished};
use crate::store::{ReadRecords, StoreResult, WriteRecords};

/// A message recorded already skipped (no mail server, or its kind turned
/// off), stored as the message itself under the message's key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SkippedMessage(pub Message);

/// A message a write records: a `new` one, or one of the booking's earlier ones changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// The message as it is to be stored.
    pub message: Message,
    /// True when the booking had no message under its key before this write.
    pub new: bool,
}

/// Up to `limit` messages of booking `code` at `slug`, in key order: its
/// `message` records and its skipped ones together.
pub(crate) fn of_booking<T: ReadRecords + ?Sized>(
    tx: &T,
    slug: &str,
    code: &str,
    limit: usize,
) -> StoreResult<Vec<Message>> {
    let prefix = booking_prefix(slug, code);
    let mut all = tx.list::<Message>(&prefix, "", limit)?;
    let skipped = tx.list::<SkippedMessage>(&prefix, "", limit)?;
    if !skipped.is_empty() {
        all.extend(skipped.into_iter().map(|s| s.0));
        all.sort_by_cached_key(Message::key_of);
        all.truncate(limit);
    }
    Ok(all)
}

/// Stores a message written at `now`: a new one recorded skipped as one
/// [`SkippedMessage`] (whose index time, when it was recorded, is when it
/// finished); any other as [`put_kept`] does.
pub(crate) fn put<T: WriteRecords + ?Sized>(tx: &mut T, recorded: Recorded, now: DateTime<Utc>) -> StoreResult<()> {
    let Recorded { message, new } = recorded;
    if new && message.status == MessageStatus::Skipped && message.created_at == now {
        return tx.put(&SkippedMessage(message));
    }
    put_kept(tx, &message, now)
}

/// Stores `message` as a `message` record written at `now`, with its
/// finished index once it is finished (sent, failed, skipped or cancelled):
/// retention removes it by that index (as the senders' writes do).
fn put_kept<T: WriteRecords + ?Sized>(tx: &mut T, message: &Message, now: DateTime<Utc>) -> StoreResult<()> {
    tx.put(message)?;
    if let Some(done) = finished::of(message, now) {
        tx.put(&done)?;
    }
    Ok(())
}
