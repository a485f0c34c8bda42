//! Channel feed freshness (docs/API.md section 15): how each configured feed's
//! last pulls went, and whether it has gone stale.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::basics::ids::{Slug, Source};
use crate::channels::pull::FeedState;

/// A feed is stale with no successful pull in this many sync intervals.
pub const STALE_INTERVALS: i32 = 3;

/// One configured feed's freshness, as `GET /api/v1/sync/status` shows it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedStatus {
    /// The property's slug.
    pub property: Slug,
    /// The feed's name.
    pub name: Source,
    /// The last pull succeeded (false before the first pull).
    pub ok: bool,
    /// When it was last pulled, whatever came of it.
    #[serde(with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// When a pull last succeeded.
    #[serde(with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub last_success_at: Option<DateTime<Utc>>,
    /// No successful pull in the last 3 × `syncInterval`, or never.
    pub stale: bool,
    /// Why the last pull failed.
    pub error: Option<String>,
    /// Events the last successful pull read.
    pub events: usize,
}

/// The body of `GET /api/v1/sync/status`.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncStatus {
    /// Every configured feed of every active property, by property then feed.
    pub feeds: Vec<FeedStatus>,
}

/// A feed's freshness as the occupancy summary shows it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedFreshness {
    /// The feed's name.
    pub name: Source,
    /// The last pull succeeded (false before the first pull).
    pub ok: bool,
    /// When it was last pulled, whatever came of it.
    #[serde(with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// When a pull last succeeded.
    #[serde(with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub last_success_at: Option<DateTime<Utc>>,
    /// No successful pull in the last 3 × `syncInterval`, or never.
    pub stale: bool,
}

impl From<&FeedStatus> for FeedFreshness {
    fn from(s: &FeedStatus) -> Self {
        FeedFreshness {
            name: s.name.clone(),
            ok: s.ok,
            last_attempt_at: s.last_attempt_at,
            last_success_at: s.last_success_at,
            stale: s.stale,
        }
    }
}

/// True when `last_success` is absent or older than 3 × `interval` at `now`.
pub fn is_stale(last_success: Option<DateTime<Utc>>, now: DateTime<Utc>, interval: TimeDelta) -> bool {
    last_success.is_none_or(|t| t < now - interval * STALE_INTERVALS)
}

/// The status of feed `name` of `property` from its stored state (`None`: never pulled).
pub fn status(
    property: &Slug,
    name: &Source,
    state: Option<&FeedState>,
    now: DateTime<Utc>,
    interval: TimeDelta,
) -> FeedStatus {
    let result = state.and_then(|s| s.last_result.as_ref());
    let last_success_at = state.and_then(FeedState::last_success);
    FeedStatus {
        property: property.clone(),
        name: name.clone(),
        ok: result.is_some_and(|r| r.ok),
        last_attempt_at: state.and_then(|s| s.last_pull_at),
        last_success_at,
        stale: is_stale(last_success_at, now, interval),
        error: result.and_then(|r| r.error.clone()),
        events: result.map_or(0, |r| r.events),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_feed_is_stale_after_three_intervals_without_success_or_when_never_pulled() {
        let now = at("2026-12-20T12:00:00Z");
        let half_hour = TimeDelta::minutes(30);
        assert!(is_stale(None, now, half_hour));
        assert!(!is_stale(Some(at("2026-12-20T10:30:00Z")), now, half_hour), "exactly 3 intervals ago");
        assert!(is_stale(Some(at("2026-12-20T10:29:59Z")), now, half_hour));
        assert!(!is_stale(Some(at("2026-12-20T11:59:00Z")), now, half_hour));
    }
}
