//! How a booking's messages are kept: one that may still be sent is a `message`
//! record (with its finished index once it ends); one recorded already skipped is one record.
//!
//! Most bookings are made before their host sets up a mail server, and their
//! first messages are recorded `skipped` in the booking's own write. Such a
//! message never changes again: it needs neither a place among the senders'
//! `message` records nor a separate index of when it finished, so it is a
//! single [`SkippedMessage`], found by when it was recorded for retention.
//! The service layer reads both kinds as one list and writes them (`service/write/message_records.rs`).

use serde::{Deserialize, Serialize};

use super::Message;

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
