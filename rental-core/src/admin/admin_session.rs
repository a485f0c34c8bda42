//! What the store keeps for the admin dashboard besides its password: the
//! sessions (by the SHA-256 of their id) and the failed logins per client.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// Failed logins allowed in a row before the waits begin.
pub const FREE_FAILURES: u32 = 5;
/// The longest wait after failed logins.
pub const MAX_WAIT: TimeDelta = TimeDelta::seconds(15 * 60);
/// Clients tracked before the quiet ones (no failure for [`MAX_WAIT`]) are forgotten.
pub const MAX_TRACKED: usize = 10_000;
/// A session's `last_seen` is written again only when older than this, so
/// that page views do not each cost a durable commit; a session may thus
/// expire up to this much before `idle` has passed since its last request.
pub const SEEN_EVERY: TimeDelta = TimeDelta::seconds(60);

/// A message shown once on a session's next page: what an action did, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Flash {
    /// True for a failure.
    pub error: bool,
    /// The sentence.
    pub message: String,
    /// A secret shown this once (a new key or webhook secret): a label and the value.
    pub secret: Option<(String, String)>,
}

impl Flash {
    /// A success message.
    pub fn done(message: impl Into<String>) -> Self {
        Flash { error: false, message: message.into(), secret: None }
    }

    /// A failure message.
    pub fn failed(message: impl Into<String>) -> Self {
        Flash { error: true, message: message.into(), secret: None }
    }
}

/// A stored admin session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminSession {
    /// The token every form of this session carries.
    pub csrf: String,
    /// The last request that was recorded (see [`SEEN_EVERY`]), by the server's clock.
    #[serde(with = "crate::basics::timestamp")]
    pub last_seen: DateTime<Utc>,
    /// The message left for the next page.
    pub flash: Option<Flash>,
}

/// Failed logins in a row from one client address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginFailures {
    /// How many in a row.
    pub count: u32,
    /// When the last one was.
    #[serde(with = "crate::basics::timestamp")]
    pub last: DateTime<Utc>,
    /// Until when the client must wait before trying again.
    #[serde(with = "crate::basics::timestamp::option")]
    pub locked_until: Option<DateTime<Utc>>,
}

impl LoginFailures {
    /// These failures with one more at `now`.
    pub fn and_one(failures: Option<LoginFailures>, now: DateTime<Utc>) -> LoginFailures {
        let count = failures.map_or(0, |f| f.count) + 1;
        let locked_until = (count >= FREE_FAILURES).then(|| now + wait_after(count));
        let locked_until = locked_until.or(failures.and_then(|f| f.locked_until));
        LoginFailures { count, last: now, locked_until }
    }
}

/// The wait after the `count`th failure in a row (from the [`FREE_FAILURES`]th on):
/// 1 s, doubling with each further failure, up to [`MAX_WAIT`].
pub fn wait_after(count: u32) -> TimeDelta {
    let doublings = count.saturating_sub(FREE_FAILURES).min(20);
    TimeDelta::seconds(1i64 << doublings).min(MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_capped() {
        let cases = [(5, 1), (6, 2), (7, 4), (10, 32), (15, 900), (100, 900)];
        for (count, secs) in cases {
            assert_eq!(wait_after(count), TimeDelta::seconds(secs), "{count}");
        }
    }
}
