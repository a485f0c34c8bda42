//! At most so many booking-page posts per client address in a sliding window
//! (5 per 10 minutes by default): a guest needs one or two, a script many.
//!
//! Kept in this process's memory: it slows a flood down, and a client that
//! reaches two servers of one store gets twice the allowance, which is harmless.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};

/// How many posts an address may make per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostLimit {
    /// Posts allowed in one window.
    pub posts: usize,
    /// The window.
    pub window: TimeDelta,
}

impl Default for PostLimit {
    fn default() -> Self {
        PostLimit { posts: 5, window: TimeDelta::minutes(10) }
    }
}

/// The recent posts of each address.
#[derive(Debug, Default)]
pub struct Throttle {
    limit: PostLimit,
    recent: Mutex<HashMap<IpAddr, Vec<DateTime<Utc>>>>,
}

impl Throttle {
    /// A throttle allowing `limit`.
    pub fn new(limit: PostLimit) -> Self {
        Throttle { limit, recent: Mutex::default() }
    }

    /// Counts a post from `client` at `now`; `Err(seconds)` to wait when over the limit.
    pub fn check(&self, client: IpAddr, now: DateTime<Utc>) -> Result<(), u64> {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if recent.len() > 10_000 {
            recent.retain(|_, posts| posts.iter().any(|t| now - *t < self.limit.window));
        }
        let posts = recent.entry(client).or_default();
        posts.retain(|t| now - *t < self.limit.window);
        if posts.len() < self.limit.posts {
            posts.push(now);
            return Ok(());
        }
        let oldest = posts.iter().min().copied().unwrap_or(now);
        Err(u64::try_from((oldest + self.limit.window - now).num_seconds()).unwrap_or(0).max(1))
    }

    /// Takes back the post [`check`](Self::check) counted for `client` at
    /// `at`: only posts that made or tried to make a booking count, and a
    /// form refused for its fields (a blank name, a mistyped address) did neither.
    pub fn forget(&self, client: IpAddr, at: DateTime<Utc>) {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(posts) = recent.get_mut(&client)
            && let Some(i) = posts.iter().rposition(|t| *t == at)
        {
            posts.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sixth_post_in_ten_minutes_waits_and_other_addresses_do_not() {
        let throttle = Throttle::new(PostLimit::default());
        let t0: DateTime<Utc> = "2026-11-22T08:00:00Z".parse().unwrap();
        let (a, b): (IpAddr, IpAddr) = ("203.0.113.7".parse().unwrap(), "198.51.100.2".parse().unwrap());
        for i in 0..5 {
            assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(i)), Ok(()));
        }
        assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(60)), Err(540));
        assert_eq!(throttle.check(b, t0 + TimeDelta::seconds(60)), Ok(()));
        assert_eq!(throttle.check(a, t0 + TimeDelta::minutes(10)), Ok(()), "the first post left the window");
    }

    #[test]
    fn a_forgotten_post_leaves_room_for_another() {
        let throttle = Throttle::new(PostLimit { posts: 1, window: TimeDelta::minutes(10) });
        let t0: DateTime<Utc> = "2026-11-22T08:00:00Z".parse().unwrap();
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        assert_eq!(throttle.check(a, t0), Ok(()));
        throttle.forget(a, t0);
        assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(1)), Ok(()));
        assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(2)), Err(599));
    }
}
