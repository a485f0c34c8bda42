//! At most 10 posts per stay link per hour (docs/API.md section 24): a guest
//! needs a few, a script many. Kept in this process's memory, like the
//! booking page's per-address throttle: a link reaching two servers of one
//! store gets twice the allowance, which is harmless.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};

/// Posts allowed per link in one window.
pub const POSTS_PER_LINK: usize = 10;
/// The window.
pub const WINDOW: TimeDelta = TimeDelta::hours(1);

/// The recent posts of each booking's link.
#[derive(Debug, Default)]
pub struct LinkLimit {
    recent: Mutex<HashMap<String, VecDeque<DateTime<Utc>>>>,
}

impl LinkLimit {
    /// Counts a post on booking `code`'s link at `now`: `Err` with the
    /// seconds to wait when it is over the limit (and then it is not counted).
    pub fn check(&self, code: &str, now: DateTime<Utc>) -> Result<(), u64> {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        // Links nobody posted to within the window are forgotten, so the map stays small.
        recent.retain(|_, posts| posts.back().is_some_and(|last| now - *last < WINDOW));
        let posts = recent.entry(code.to_owned()).or_default();
        while posts.front().is_some_and(|first| now - *first >= WINDOW) {
            posts.pop_front();
        }
        if posts.len() >= POSTS_PER_LINK {
            let oldest = posts.front().copied().unwrap_or(now);
            let wait = (oldest + WINDOW - now).num_seconds().max(1);
            return Err(u64::try_from(wait).unwrap_or(1));
        }
        posts.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_posts_an_hour_per_link_then_a_wait() {
        let limit = LinkLimit::default();
        let t0: DateTime<Utc> = "2026-11-22T08:00:00Z".parse().unwrap();
        for i in 0..10 {
            assert_eq!(limit.check("BK-1", t0 + TimeDelta::minutes(i)), Ok(()), "post {i}");
        }
        assert_eq!(limit.check("BK-1", t0 + TimeDelta::minutes(10)), Err(50 * 60));
        assert_eq!(limit.check("BK-2", t0 + TimeDelta::minutes(10)), Ok(()), "another link");
        assert_eq!(limit.check("BK-1", t0 + TimeDelta::minutes(60)), Ok(()), "the first left the window");
    }
}
