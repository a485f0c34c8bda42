//! A booking's messages in the store: its `message` records and its skipped
//! ones read as one list, and a recorded message written as the kind it is (`message::stored`).

use chrono::{DateTime, Utc};

use crate::outbox::message::stored::{Recorded, SkippedMessage};
use crate::outbox::message::{Message, MessageStatus, booking_prefix, finished};
use crate::store::{ReadRecords, StoreResult, WriteRecords};

/// Up to `limit` messages of booking `code` at `slug`, in key order: its
/// `message` records and its skipped ones together.
pub(in crate::service) fn of_booking<T: ReadRecords + ?Sized>(
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
pub(in crate::service) fn put<T: WriteRecords + ?Sized>(
    tx: &mut T,
    recorded: Recorded,
    now: DateTime<Utc>,
) -> StoreResult<()> {
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
