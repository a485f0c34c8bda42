//! When each finished message finished: the index retention reads to remove
//! a message `retention` after it was sent, failed, skipped or cancelled.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Message, MessageStatus};
use crate::store::{Record, RecordKind};

/// A finished message's key and when it finished, under the message's own
/// key: a time index apart from the senders' (which holds only scheduled
/// messages), so that finished messages never crowd a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedMessage {
    /// The message's key ([`Message::key_of`]).
    pub key: String,
    /// When it was sent, or else when it was failed, skipped or cancelled.
    #[serde(with = "crate::basics::timestamp")]
    pub at: DateTime<Utc>,
}

impl Record for FinishedMessage {
    const KIND: RecordKind = RecordKind { name: "message_finished", per_property: true };
    fn key(&self) -> String {
        self.key.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.at)
    }
}

/// The index entry of `message` written at `now`; `None` while it is scheduled.
pub fn of(message: &Message, now: DateTime<Utc>) -> Option<FinishedMessage> {
    (message.status != MessageStatus::Scheduled)
        .then(|| FinishedMessage { key: message.key_of(), at: message.sent_at.unwrap_or(now) })
}
