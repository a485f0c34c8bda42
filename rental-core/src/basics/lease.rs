//! Leases: a worker's time-limited claim on a piece of work kept in the store
//! (a webhook delivery, a message, a feed pull, a payment movement), so that
//! several servers sharing a store never do one piece at the same time.
//!
//! The rules, one place for all four users, as pure functions of the stored
//! value and the clock's `now`: a claim takes work whose lease is absent or
//! lapsed, never one another (or the same) holder has live; only the holder
//! renews or releases it; a process that holds its store alone voids every
//! lease at start (they are an earlier run's). A holder that crashes leaves
//! its lease to lapse, and the work is claimable again then. What is leased,
//! how attempts are counted and when the next one falls due stay with each
//! user: the count outlives the lease, which every recorded attempt clears.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// One holder's claim on a piece of work until `until`.
///
/// Stored as `{"owner": …, "until": …}` inside the record it leases (or, for
/// a webhook delivery, in a lease record of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    /// Who holds it: one worker, unique per process and start (for instance
    /// `dispatcher-<pid>-<start>`).
    pub owner: String,
    /// When it lapses unless its holder renews it.
    #[serde(with = "crate::basics::timestamp")]
    pub until: DateTime<Utc>,
}

impl Lease {
    /// A lease for `owner` until `until`.
    pub fn new(owner: &str, until: DateTime<Utc>) -> Self {
        Lease { owner: owner.to_owned(), until }
    }

    /// True while the lease holds at `now`; at `until` it has lapsed.
    pub fn is_live(&self, now: DateTime<Utc>) -> bool {
        now < self.until
    }

    /// True when `owner` holds it (live or lapsed and not taken since).
    pub fn is_held_by(&self, owner: &str) -> bool {
        self.owner == owner
    }

    /// Extends the lease to `until` when `owner` holds it; false (and
    /// unchanged) for anyone else. A lapsed lease nobody has taken since is
    /// still its holder's: nobody else started on the work.
    pub fn renew(&mut self, owner: &str, until: DateTime<Utc>) -> bool {
        let held = self.is_held_by(owner);
        if held {
            self.until = until;
        }
        held
    }
}

/// A claim refused: a live lease holds the work until `until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// When the live lease lapses (unless renewed): a claim may wait until then.
    pub until: DateTime<Utc>,
}

/// The end of a lease taken at `now` for `term`, at the latest the end of time.
pub fn end(now: DateTime<Utc>, term: Duration) -> DateTime<Utc> {
    TimeDelta::from_std(term).ok().and_then(|t| now.checked_add_signed(t)).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// When the live lease in `slot` lapses, if one holds the work at `now`.
pub fn held_until(slot: Option<&Lease>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    slot.filter(|l| l.is_live(now)).map(|l| l.until)
}

/// Takes `slot` for `owner` until `until` when no lease in it is live at
/// `now` (none, or a lapsed one: its holder crashed or hung). A live lease
/// refuses the claim whoever holds it, `owner` too: one piece of work is done
/// once at a time, even within a process.
pub fn claim(slot: &mut Option<Lease>, owner: &str, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<(), Held> {
    if let Some(until) = held_until(slot.as_ref(), now) {
        return Err(Held { until });
    }
    *slot = Some(Lease::new(owner, until));
    Ok(())
}

/// Extends the lease in `slot` to `until` when `owner` holds it (see
/// [`Lease::renew`]); false when the slot is empty or another holds it.
pub fn renew(slot: &mut Option<Lease>, owner: &str, until: DateTime<Utc>) -> bool {
    slot.as_mut().is_some_and(|l| l.renew(owner, until))
}

/// Clears the lease in `slot` when `owner` holds it; false otherwise (an
/// `owner` of `None`, work done without a claim, clears nothing).
pub fn release(slot: &mut Option<Lease>, owner: Option<&str>) -> bool {
    let held = slot.as_ref().is_some_and(|l| owner.is_some_and(|o| l.is_held_by(o)));
    if held {
        *slot = None;
    }
    held
}

/// Clears the lease in `slot` whoever holds it; true when there was one. For
/// a recorded attempt (its holder is done) and a start that voids an earlier run's leases.
pub fn void(slot: &mut Option<Lease>) -> bool {
    slot.take().is_some()
}

/// The instant work due at `due` may be looked at, given the lease in `slot`:
/// `due`, or the lease's end when that is later, so a store's due index keeps
/// leased work out of a claim's sight until its lease lapses.
pub fn not_before(slot: Option<&Lease>, due: DateTime<Utc>) -> DateTime<Utc> {
    slot.map_or(due, |l| l.until.max(due))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[expect(clippy::unnecessary_wraps, reason = "a slot as the users store it")]
    fn held(owner: &str, until: &str) -> Option<Lease> {
        Some(Lease::new(owner, at(until)))
    }

    const NOW: &str = "2026-11-24T10:00:30Z";
    const LATER: &str = "2026-11-24T10:01:30Z";

    #[test]
    fn a_claim_takes_a_free_or_lapsed_lease_and_never_a_live_one() {
        let cases: [(Option<Lease>, &str, Result<(), Held>); 5] = [
            (None, "b", Ok(())),
            (held("a", "2026-11-24T10:00:00Z"), "b", Ok(())),
            (held("a", NOW), "b", Ok(())),
            (held("a", "2026-11-24T10:01:00Z"), "b", Err(Held { until: at("2026-11-24T10:01:00Z") })),
            (held("b", "2026-11-24T10:01:00Z"), "b", Err(Held { until: at("2026-11-24T10:01:00Z") })),
        ];
        for (before, owner, want) in cases {
            let mut slot = before.clone();
            assert_eq!(claim(&mut slot, owner, at(NOW), at(LATER)), want, "{before:?}");
            let after = if want.is_ok() { held(owner, LATER) } else { before.clone() };
            assert_eq!(slot, after, "{before:?}");
        }
    }

    #[test]
    fn only_the_holder_renews_even_a_lapsed_lease_nobody_took() {
        let cases: [(Option<Lease>, &str, bool); 4] = [
            (held("a", "2026-11-24T10:01:00Z"), "a", true),
            (held("a", "2026-11-24T10:00:00Z"), "a", true),
            (held("a", "2026-11-24T10:01:00Z"), "b", false),
            (None, "a", false),
        ];
        for (before, owner, want) in cases {
            let mut slot = before.clone();
            assert_eq!(renew(&mut slot, owner, at(LATER)), want, "{before:?} {owner}");
            assert_eq!(slot, if want { held("a", LATER) } else { before.clone() }, "{before:?} {owner}");
        }
    }

    #[test]
    fn only_the_holder_releases_and_a_void_clears_any() {
        let mut slot = held("a", LATER);
        assert!(!release(&mut slot, Some("b")) && slot.is_some());
        assert!(!release(&mut slot, None) && slot.is_some());
        assert!(release(&mut slot, Some("a")) && slot.is_none());
        assert!(!release(&mut slot, Some("a")));
        let mut slot = held("b", LATER);
        assert!(void(&mut slot) && slot.is_none());
        assert!(!void(&mut slot));
    }

    #[test]
    fn a_crashed_holders_work_is_claimed_by_another_once_its_lease_lapses() {
        let mut slot = None;
        claim(&mut slot, "a", at(NOW), end(at(NOW), Duration::from_secs(10))).unwrap();
        // "a" crashes: it neither renews nor releases.
        let lapse = at("2026-11-24T10:00:40Z");
        assert_eq!(claim(&mut slot, "b", at("2026-11-24T10:00:39Z"), at(LATER)), Err(Held { until: lapse }));
        assert_eq!(held_until(slot.as_ref(), at("2026-11-24T10:00:39Z")), Some(lapse));
        assert_eq!(held_until(slot.as_ref(), lapse), None);
        assert_eq!(claim(&mut slot, "b", lapse, at(LATER)), Ok(()));
        assert!(!renew(&mut slot, "a", at(LATER)), "the crashed holder, back, renews nothing it lost");
        assert!(!release(&mut slot, Some("a")));
        assert_eq!(slot, held("b", LATER));
    }

    #[test]
    fn leased_work_is_looked_at_when_due_or_when_its_lease_ends_whichever_is_later() {
        let due = at(NOW);
        assert_eq!(not_before(None, due), due);
        assert_eq!(not_before(held("a", LATER).as_ref(), due), at(LATER));
        assert_eq!(not_before(held("a", "2026-11-24T10:00:00Z").as_ref(), due), due);
        assert_eq!(end(due, Duration::from_secs(60)), at("2026-11-24T10:01:30Z"));
        assert_eq!(end(due, Duration::MAX), DateTime::<Utc>::MAX_UTC);
    }

    #[test]
    fn a_lease_reads_and_writes_as_stored_before() {
        let stored = r#"{"owner":"sender-1-ab","until":"2026-11-24T10:01:30Z"}"#;
        let lease: Lease = serde_json::from_str(stored).unwrap();
        assert_eq!(lease, Lease::new("sender-1-ab", at(LATER)));
        let written = serde_json::to_value(&lease).unwrap();
        assert_eq!(written["owner"], "sender-1-ab");
        assert_eq!(lease, serde_json::from_value(written).unwrap());
    }
}
