//! What the store remembers of each channel feed between pulls, and the
//! result of a pull as `POST /api/v1/sync/ical` and `calendar.synced` show it.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::ids::{Slug, Source};
use crate::basics::lease::Lease;

/// One feed of one property, between pulls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedState {
    /// The property's slug.
    pub property: Slug,
    /// The feed's name (also the source of its bookings).
    pub feed: Source,
    /// When it was last pulled, whatever came of it.
    #[serde(default, with = "crate::basics::timestamp::option")]
    pub last_pull_at: Option<DateTime<Utc>>,
    /// The last pull's result.
    #[serde(default)]
    pub last_result: Option<PullResult>,
    /// When a pull last succeeded (absent in states stored before it was kept: see [`FeedState::last_success`]).
    #[serde(default, with = "crate::basics::timestamp::option")]
    pub last_success_at: Option<DateTime<Utc>>,
    /// The `ETag` of the last body applied, sent back as `If-None-Match`.
    #[serde(default)]
    pub etag: Option<String>,
    /// The `Last-Modified` of the last body applied, sent back as `If-Modified-Since`.
    #[serde(default)]
    pub last_modified: Option<String>,
    /// True after a pull found the calendar empty while it still owned stays; the next
    /// empty pull is believed.
    #[serde(default)]
    pub empty_once: bool,
    /// With `empty_once`: how many pulls were applied once the empty one was. Only a
    /// pull asked for from then on confirms it (one asked for while it ran does not).
    #[serde(default)]
    pub empty_at: u64,
    /// What the feed owns, by event key (`FeedEvent::uid`).
    #[serde(default)]
    pub items: BTreeMap<String, Owned>,
    /// How many pulls were applied: a pull planned at another count is stale (another
    /// server's pull of the feed was applied meanwhile) and is dropped.
    #[serde(default)]
    pub pulls: u64,
    /// The process pulling the feed now, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
}

impl FeedState {
    /// The state of a feed never pulled.
    pub fn new(property: Slug, feed: Source) -> Self {
        FeedState {
            property,
            feed,
            last_pull_at: None,
            last_result: None,
            last_success_at: None,
            etag: None,
            last_modified: None,
            empty_once: false,
            empty_at: 0,
            items: BTreeMap::new(),
            pulls: 0,
            lease: None,
        }
    }

    /// When a pull last succeeded; for a state stored before that was kept,
    /// the last pull when it succeeded.
    pub fn last_success(&self) -> Option<DateTime<Utc>> {
        self.last_success_at.or_else(|| self.last_result.as_ref().filter(|r| r.ok).and(self.last_pull_at))
    }

    /// True when an empty calendar is believed from a pull asked for when `requested`
    /// pulls were applied: an earlier pull found it empty, and was applied before this
    /// one was asked for (docs/API.md section 8).
    pub fn empty_confirmed_by(&self, requested: u64) -> bool {
        self.empty_once && requested >= self.empty_at
    }

    /// Every booking code and block id the feed owns.
    pub fn holders(&self) -> impl Iterator<Item = &str> {
        self.items.values().flat_map(|owned| owned.holders.iter().map(String::as_str))
    }
}

/// What one feed event became here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Owned {
    /// A booking or blocks.
    pub kind: OwnedKind,
    /// The booking's code, or the ids of the blocks (a block holds at most 366 nights, so a
    /// longer closure is several).
    pub holders: Vec<String>,
    /// The event's first night.
    pub start: NaiveDate,
    /// The event's checkout day.
    pub end: NaiveDate,
    /// The event's summary, as last read.
    pub summary: String,
}

/// What an [`Owned`] event became.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OwnedKind {
    /// A booking (a reservation on the channel).
    Booking,
    /// One or more blocks.
    Block,
}

/// The result of one pull (docs/API.md section 8); the OpenAPI document
/// keeps its first name, `FeedResult`.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "FeedResult"))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullResult {
    /// The property's slug.
    pub property: Slug,
    /// The feed's name.
    pub feed: Source,
    /// True when the feed was read and applied (a 304 is a success with no change).
    pub ok: bool,
    /// Events the feed holds (0 when it failed or had not changed).
    pub events: usize,
    /// Bookings created.
    pub created: usize,
    /// Bookings whose dates or guest name changed.
    pub updated: usize,
    /// Bookings cancelled because the channel dropped them.
    pub cancelled: usize,
    /// Imported stays and blocks that overlap a direct booking.
    pub conflicts: usize,
    /// Why it failed.
    pub error: Option<String>,
}

impl PullResult {
    /// A pull that changed nothing, for the reason given.
    pub fn failed(property: Slug, feed: Source, error: impl Into<String>) -> Self {
        PullResult { ok: false, error: Some(error.into()), ..PullResult::succeeded(property, feed, 0) }
    }

    /// A successful pull of `events` events, with no changes counted yet.
    pub fn succeeded(property: Slug, feed: Source, events: usize) -> Self {
        PullResult { property, feed, ok: true, events, created: 0, updated: 0, cancelled: 0, conflicts: 0, error: None }
    }
}

/// The result of a sync, a round of pulls (`SyncResult` in the OpenAPI document).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "SyncResult"))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    /// When the pulls started.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub started_at: DateTime<Utc>,
    /// When the last one ended.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub finished_at: DateTime<Utc>,
    /// Feeds pulled.
    pub feeds: usize,
    /// Of which succeeded.
    pub succeeded: usize,
    /// Of which failed.
    pub failed: usize,
    /// Bookings created, over all feeds.
    pub created: usize,
    /// Bookings updated, over all feeds.
    pub updated: usize,
    /// Bookings cancelled, over all feeds.
    pub cancelled: usize,
    /// Conflicts, over all feeds.
    pub conflicts: usize,
    /// One result per feed.
    pub results: Vec<PullResult>,
}

impl SyncReport {
    /// The totals of `results`.
    pub fn new(started_at: DateTime<Utc>, finished_at: DateTime<Utc>, results: Vec<PullResult>) -> Self {
        let sum = |f: fn(&PullResult) -> usize| results.iter().map(f).sum();
        SyncReport {
            started_at,
            finished_at,
            feeds: results.len(),
            succeeded: results.iter().filter(|r| r.ok).count(),
            failed: results.iter().filter(|r| !r.ok).count(),
            created: sum(|r| r.created),
            updated: sum(|r| r.updated),
            cancelled: sum(|r| r.cancelled),
            conflicts: sum(|r| r.conflicts),
            results,
        }
    }
}
