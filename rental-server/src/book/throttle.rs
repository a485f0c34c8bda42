//! At most so many booking-page posts per client in a sliding window (5 per
//! 10 minutes by default): a guest needs one or two, a script many.
//!
//! A client is a [`ClientGroup`] (an IPv6 client's whole /64). The posts are
//! kept in this process's memory as an expiring map: every post is also queued
//! in time order, and each check forgets the posts that left the window from
//! the queue's front, so a check costs O(1) amortised however many clients
//! there are, and a client's entry goes once its last post has left the
//! window. A client that reaches two servers of one store gets twice the
//! allowance, which is harmless.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};

use crate::client_addr::ClientGroup;

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

/// The recent posts of each client.
#[derive(Debug, Default)]
pub struct Throttle {
    limit: PostLimit,
    recent: Mutex<Recent>,
}

/// Each client's posts in the window (oldest first), and every post in the order made.
#[derive(Debug, Default)]
struct Recent {
    by_client: HashMap<ClientGroup, VecDeque<DateTime<Utc>>>,
    in_order: VecDeque<(DateTime<Utc>, ClientGroup)>,
}

impl Recent {
    /// Forgets the posts made `window` or longer before `now`, oldest first.
    fn expire(&mut self, now: DateTime<Utc>, window: TimeDelta) {
        while let Some(&(at, client)) = self.in_order.front() {
            if now - at < window {
                return;
            }
            self.in_order.pop_front();
            // A post taken back by `forget` is no longer at its client's front.
            if let Some(posts) = self.by_client.get_mut(&client)
                && posts.front() == Some(&at)
            {
                posts.pop_front();
                if posts.is_empty() {
                    self.by_client.remove(&client);
                }
            }
        }
    }
}

impl Throttle {
    /// A throttle allowing `limit`.
    pub fn new(limit: PostLimit) -> Self {
        Throttle { limit, recent: Mutex::default() }
    }

    /// Counts a post from `client` at `now`; `Err(seconds)` to wait when over the limit.
    pub fn check(&self, client: IpAddr, now: DateTime<Utc>) -> Result<(), u64> {
        let client = ClientGroup::of(client);
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent.expire(now, self.limit.window);
        let posts = recent.by_client.entry(client).or_default();
        if posts.len() < self.limit.posts {
            posts.push_back(now);
            recent.in_order.push_back((now, client));
            return Ok(());
        }
        let oldest = posts.front().copied().unwrap_or(now);
        Err(u64::try_from((oldest + self.limit.window - now).num_seconds()).unwrap_or(0).max(1))
    }

    /// Takes back the post [`check`](Self::check) counted for `client` at
    /// `at`: only posts that made or tried to make a booking count, and a
    /// form refused for its fields (a blank name, a mistyped address) did neither.
    pub fn forget(&self, client: IpAddr, at: DateTime<Utc>) {
        let client = ClientGroup::of(client);
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(posts) = recent.by_client.get_mut(&client)
            && let Some(i) = posts.iter().rposition(|t| *t == at)
        {
            posts.remove(i);
            if posts.is_empty() {
                recent.by_client.remove(&client);
            }
        }
        // Its entry in `in_order` stays, and matches nothing when it lapses (see `expire`).
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        "2026-11-22T08:00:00Z".parse().unwrap()
    }

    #[test]
    fn the_sixth_post_in_ten_minutes_waits_and_other_addresses_do_not() {
        let throttle = Throttle::new(PostLimit::default());
        let t0 = t0();
        let (a, b): (IpAddr, IpAddr) = ("203.0.113.7".parse().unwrap(), "198.51.100.2".parse().unwrap());
        for i in 0..5 {
            assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(i)), Ok(()));
        }
        assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(60)), Err(540));
        assert_eq!(throttle.check(b, t0 + TimeDelta::seconds(60)), Ok(()));
        assert_eq!(throttle.check(a, t0 + TimeDelta::minutes(10)), Ok(()), "the first post left the window");
    }

    #[test]
    fn addresses_of_one_ipv6_64_share_one_allowance() {
        let throttle = Throttle::new(PostLimit::default());
        for i in 0..5 {
            let ip: IpAddr = format!("2001:db8:7:1::{i:x}").parse().unwrap();
            assert_eq!(throttle.check(ip, t0()), Ok(()));
        }
        assert!(throttle.check("2001:db8:7:1:aaaa::1".parse().unwrap(), t0()).is_err());
        assert_eq!(throttle.check("2001:db8:7:2::1".parse().unwrap(), t0()), Ok(()), "another /64");
    }

    #[test]
    fn a_post_costs_the_same_past_a_hundred_thousand_addresses_and_quiet_ones_are_forgotten() {
        let throttle = Throttle::new(PostLimit::default());
        let t0 = t0();
        let ip = |i: u32| IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
        for i in 0..100_000 {
            throttle.check(ip(i), t0).unwrap();
        }
        // Scanning every address per post (as before) took seconds for these; a map lookup takes microseconds.
        let started = std::time::Instant::now();
        for i in 100_000..102_000 {
            throttle.check(ip(i), t0 + TimeDelta::seconds(1)).unwrap();
        }
        assert!(started.elapsed() < std::time::Duration::from_millis(500), "{:?}", started.elapsed());
        // Once the window has passed, one post forgets every quiet address.
        throttle.check(ip(0), t0 + TimeDelta::minutes(11)).unwrap();
        let recent = throttle.recent.lock().unwrap();
        assert_eq!((recent.by_client.len(), recent.in_order.len()), (1, 1));
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
        // The forgotten post's place in the time order lapses without taking a later post with it.
        assert_eq!(throttle.check(a, t0 + TimeDelta::minutes(10)), Err(1));
        assert_eq!(throttle.check(a, t0 + TimeDelta::seconds(601)), Ok(()));
    }
}
