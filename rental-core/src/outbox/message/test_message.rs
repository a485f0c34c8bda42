//! The admin's test messages (issue 46, 10): each one sent is a record, so
//! the dashboard lists them and a property sends at most a few an hour.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::MessageKind;
use crate::basics::ids::Slug;
use crate::store::{Record, RecordKind};

/// How many test messages a property may send in an hour ([`WINDOW`]).
pub const PER_HOUR: usize = 10;
/// The window [`PER_HOUR`] counts in.
pub const WINDOW: TimeDelta = TimeDelta::hours(1);

/// Where a test message got to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// Counted and handed to the mail server; no answer yet (or the server stopped).
    Sending,
    /// The mail server took it.
    Sent,
    /// The mail server refused it (`error` says why).
    Failed,
}

/// One test message a host sent from the dashboard, kept until `retention`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestMessage {
    /// The property whose wording it used.
    pub property: Slug,
    /// Unique within the property: the send's instant in milliseconds, and a
    /// number for sends in the same millisecond; ids order by time.
    pub id: String,
    /// The kind of message.
    pub kind: MessageKind,
    /// The address it went to.
    pub to: String,
    /// When it was asked for.
    #[serde(with = "crate::basics::timestamp")]
    pub at: DateTime<Utc>,
    /// Where it got to.
    pub status: TestStatus,
    /// The mail server's refusal, when `status` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Test messages under `{slug}/{id}`, in the time index by when they were
/// sent: retention reads it, the limit counts the keys of the last hour.
impl Record for TestMessage {
    const KIND: RecordKind = RecordKind { name: "test_message", per_property: true };
    fn key(&self) -> String {
        format!("{}/{}", self.property, self.id)
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.at)
    }
}

/// A test message refused: the property sent its [`PER_HOUR`] in the last hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverLimit {
    /// When the oldest of them leaves the window, and another may go.
    pub next_at: DateTime<Utc>,
}

/// The id of a test message sent at `at` (the `n`th in that millisecond):
/// fixed-width, so that ids sort as their instants do.
pub fn id_at(at: DateTime<Utc>, n: u32) -> String {
    format!("{:015}-{n:03}", at.timestamp_millis().max(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_as_their_instants() {
        let a: DateTime<Utc> = "2026-11-22T07:39:21.123Z".parse().unwrap();
        let ids = [id_at(a, 0), id_at(a, 1), id_at(a + TimeDelta::milliseconds(1), 0), id_at(a + WINDOW, 0)];
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, ids);
        assert_eq!(ids[0], format!("{:015}-000", a.timestamp_millis()));
    }
}
