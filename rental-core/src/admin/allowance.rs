//! Allowances kept in the store: so many uses of a key (a
//! client's posts, a link's) in a sliding window, counted together by every
//! server sharing the store, each key's record gone once its window is.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// So many uses per sliding window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowance {
    /// Uses allowed within any `window`.
    pub uses: usize,
    /// The window.
    pub window: TimeDelta,
}

/// The uses of one key still inside its window, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UseWindow {
    /// What is counted: `book/{client}`, `stay/{code}`, ...
    pub key: String,
    /// The instants of the uses, in milliseconds since 1970.
    pub uses: Vec<i64>,
    /// When the newest use leaves the window: the record may go then.
    #[serde(with = "crate::basics::timestamp")]
    pub expires_at: DateTime<Utc>,
}

/// Counts a use of `key` at `now` on top of `stored`: the window to store,
/// or the wait until a use leaves it (at least a second) when `allowance`
/// is spent, and then nothing is counted.
pub fn take(stored: Option<UseWindow>, key: &str, allowance: Allowance, now: DateTime<Utc>) -> Result<UseWindow, u64> {
    let since = (now - allowance.window).timestamp_millis();
    let mut uses: Vec<i64> = stored.map(|w| w.uses).unwrap_or_default();
    uses.retain(|at| *at > since);
    if uses.len() >= allowance.uses {
        let oldest = uses.first().copied().unwrap_or(since);
        let wait_ms = oldest - since;
        return Err(u64::try_from(wait_ms).unwrap_or(0).div_ceil(1_000).max(1));
    }
    uses.push(now.timestamp_millis());
    Ok(UseWindow { key: key.to_owned(), uses, expires_at: now + allowance.window })
}

/// `stored` without its use at `at` (the newest such), if it had one.
pub fn give_back(mut stored: UseWindow, at: DateTime<Utc>) -> UseWindow {
    if let Some(i) = stored.uses.iter().rposition(|u| *u == at.timestamp_millis()) {
        stored.uses.remove(i);
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_uses_in_ten_minutes_then_a_wait_until_the_oldest_leaves() {
        let allowance = Allowance { uses: 5, window: TimeDelta::minutes(10) };
        let t0: DateTime<Utc> = "2026-11-22T08:00:00Z".parse().unwrap();
        let mut stored = None;
        for i in 0..5 {
            stored = Some(take(stored, "book/1.2.3.4", allowance, t0 + TimeDelta::minutes(i)).unwrap());
        }
        assert_eq!(take(stored.clone(), "book/1.2.3.4", allowance, t0 + TimeDelta::minutes(5)), Err(5 * 60));
        let later = t0 + TimeDelta::minutes(10);
        let w = take(stored.clone(), "book/1.2.3.4", allowance, later).unwrap();
        assert_eq!((w.uses.len(), w.expires_at), (5, later + allowance.window), "the first left the window");
        let back = give_back(stored.unwrap(), t0 + TimeDelta::minutes(4));
        assert_eq!(take(Some(back), "book/1.2.3.4", allowance, t0 + TimeDelta::minutes(5)).unwrap().uses.len(), 5);
    }
}
