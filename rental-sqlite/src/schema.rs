//! The `SQLite` store's tables and indexes, and how a value becomes a column:
//! documents as JSON, dates and instants as numbers that order as they do.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use rental_core::delivery::{Delivery, DeliveryStatus};
use rental_core::store::{StoreError, StoreResult};

/// The tables and indexes; created when missing.
pub(crate) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS bookings (
    code TEXT PRIMARY KEY, property TEXT NOT NULL, check_in INTEGER NOT NULL,
    pending INTEGER NOT NULL, lapse_at INTEGER, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS bookings_order ON bookings (check_in, code);
CREATE INDEX IF NOT EXISTS bookings_pending ON bookings (property, code) WHERE pending;
CREATE INDEX IF NOT EXISTS bookings_lapsing ON bookings (lapse_at, code) WHERE lapse_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS blocks (
    id TEXT PRIMARY KEY, property TEXT NOT NULL, check_in INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calendar (
    property TEXT NOT NULL, check_in INTEGER NOT NULL, holder TEXT NOT NULL, is_block INTEGER NOT NULL,
    PRIMARY KEY (property, check_in, holder));
CREATE INDEX IF NOT EXISTS calendar_holder ON calendar (holder);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, unfanned INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_unfanned ON outbox (seq) WHERE unfanned;
CREATE TABLE IF NOT EXISTS deliveries (
    id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL, event_seq INTEGER NOT NULL,
    due_at INTEGER, finished_at INTEGER, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (due_at, event_seq, id) WHERE due_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_finished ON deliveries (finished_at, id) WHERE finished_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries (event_seq);
CREATE INDEX IF NOT EXISTS deliveries_webhook ON deliveries (webhook_id, event_seq);
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL, key TEXT NOT NULL, at INTEGER, doc BLOB NOT NULL, PRIMARY KEY (kind, key));
CREATE INDEX IF NOT EXISTS records_due ON records (kind, at, key) WHERE at IS NOT NULL;
";

pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> StoreResult<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Backend(Box::new(e)))
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(doc: &str) -> StoreResult<T> {
    serde_json::from_str(doc).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A date as a number that orders as dates do (text would not, past year 9999).
pub(crate) fn day(date: NaiveDate) -> i64 {
    i64::from(date.num_days_from_ce())
}

/// An instant in nanoseconds, clamped to what fits.
pub(crate) fn nanos(at: DateTime<Utc>) -> i64 {
    at.timestamp_nanos_opt().unwrap_or(if at.timestamp() < 0 { i64::MIN } else { i64::MAX })
}

/// A row limit for SQL: `usize::MAX` means all.
pub(crate) fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Milliseconds since 1970, as the core's due and finished indexes count them.
pub(crate) fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis().max(0)
}

pub(crate) fn due_at(d: &Delivery) -> Option<i64> {
    match (d.status, d.next_attempt_at) {
        (DeliveryStatus::Pending, Some(at)) => Some(millis(at)),
        _ => None,
    }
}

pub(crate) fn finished_at(d: &Delivery) -> Option<i64> {
    (d.status != DeliveryStatus::Pending).then(|| millis(d.attempts.last().map_or(d.created_at, |a| a.at)))
}

pub(crate) fn u64_of(seq: i64) -> u64 {
    u64::try_from(seq).unwrap_or(0)
}

pub(crate) fn i64_of(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}
