//! Pull leases: which process is pulling a feed and until when, kept in the
//! feed's stored state so that one process at a time pulls it.
//!
//! A claim takes a feed that has no lease or an expired one (its owner
//! crashed or hung); applying the pull, or giving it up, clears the lease.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One process's claim on pulling one feed, until `until`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullLease {
    /// Who holds it: one feed puller, unique per process and start.
    pub owner: String,
    /// When it lapses: the longest a pull may take, and a margin to apply it.
    #[serde(with = "crate::basics::timestamp")]
    pub until: DateTime<Utc>,
}

impl PullLease {
    /// True while the lease holds at `now`.
    pub fn is_live(&self, now: DateTime<Utc>) -> bool {
        now < self.until
    }
}

/// When the live lease among `lease` ends, if one holds the feed at `now`: a claim
/// at `now` must then wait (or skip the feed); `None` lets it take the feed.
pub fn held_until(lease: Option<&PullLease>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    lease.filter(|l| l.is_live(now)).map(|l| l.until)
}

/// True when `lease` is `owner`'s, so that `owner` may clear it.
pub fn is_owned_by(lease: Option<&PullLease>, owner: Option<&str>) -> bool {
    lease.is_some_and(|l| Some(l.owner.as_str()) == owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn lease(owner: &str, until: &str) -> PullLease {
        PullLease { owner: owner.into(), until: at(until) }
    }

    #[test]
    fn a_lease_holds_a_feed_until_it_ends_and_only_its_owner_clears_it() {
        let now = at("2026-11-24T10:00:30Z");
        let cases: [(Option<PullLease>, Option<&str>); 4] = [
            (None, None),
            (Some(lease("a", "2026-11-24T10:01:00Z")), Some("2026-11-24T10:01:00Z")),
            (Some(lease("a", "2026-11-24T10:00:30Z")), None),
            (Some(lease("a", "2026-11-24T09:00:00Z")), None),
        ];
        for (held, want) in cases {
            assert_eq!(held_until(held.as_ref(), now), want.map(at), "{held:?}");
        }
        let mine = lease("a", "2026-11-24T10:01:00Z");
        assert!(is_owned_by(Some(&mine), Some("a")));
        assert!(!is_owned_by(Some(&mine), Some("b")));
        assert!(!is_owned_by(Some(&mine), None));
        assert!(!is_owned_by(None, Some("a")));
    }
}
