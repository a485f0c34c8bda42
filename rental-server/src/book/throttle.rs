//! At most so many booking-page posts per client in a sliding window (5 per
//! 10 minutes by default): a guest needs one or two, a script many.
//!
//! A client is a [`ClientGroup`] (an IPv6 client's whole /64). Its posts are
//! counted in the store (`Worker::take_allowance`, a record per client that
//! retention removes once its window has passed), so every server sharing a
//! database counts together: N servers do not give N times the allowance.
//! A post looks up one key, so its cost does not grow with the clients.

use std::net::IpAddr;

use chrono::{DateTime, TimeDelta, Utc};
use rental_core::allowance::Allowance;
use rental_core::{Rental, Store};

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

/// The booking page's posts per client, counted in the store.
#[derive(Debug, Default)]
pub struct Throttle {
    limit: PostLimit,
}

impl Throttle {
    /// A throttle allowing `limit`.
    pub fn new(limit: PostLimit) -> Self {
        Throttle { limit }
    }

    /// Counts a post from `client` now: the instant counted (for
    /// [`forget`](Self::forget)), or `Err(seconds)` to wait when over the limit.
    /// Blocks on the store: call it where the store may be waited on.
    pub fn check<S: Store>(
        &self,
        rental: &Rental<S>,
        client: IpAddr,
    ) -> rental_core::Result<Result<DateTime<Utc>, u64>> {
        let allowance = Allowance { uses: self.limit.posts, window: self.limit.window };
        rental.worker().take_allowance(&key(client), allowance)
    }

    /// Takes back the post [`check`](Self::check) counted for `client` at
    /// `at`: only posts that made or tried to make a booking count, and a
    /// form refused for its fields (a blank name, a mistyped address) did neither.
    pub fn forget<S: Store>(&self, rental: &Rental<S>, client: IpAddr, at: DateTime<Utc>) -> rental_core::Result<()> {
        rental.worker().give_back(&key(client), at)
    }
}

/// The allowance's key of `client`: its group.
fn key(client: IpAddr) -> String {
    format!("book/{}", ClientGroup::of(client))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rental_core::{ManualClock, MemoryStore};

    use super::*;

    fn t0() -> DateTime<Utc> {
        "2026-11-22T08:00:00Z".parse().unwrap()
    }

    fn rental() -> (Rental<MemoryStore>, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(t0()));
        (Rental::new(MemoryStore::new()).with_clock(clock.clone()), clock)
    }

    fn ok(r: rental_core::Result<Result<DateTime<Utc>, u64>>) -> bool {
        r.unwrap().is_ok()
    }

    #[test]
    fn the_sixth_post_in_ten_minutes_waits_and_other_addresses_do_not() {
        let (r, clock) = rental();
        let throttle = Throttle::new(PostLimit::default());
        let (a, b): (IpAddr, IpAddr) = ("203.0.113.7".parse().unwrap(), "198.51.100.2".parse().unwrap());
        for _ in 0..5 {
            assert!(ok(throttle.check(&r, a)));
            clock.advance(TimeDelta::seconds(1));
        }
        clock.set(t0() + TimeDelta::seconds(60));
        assert_eq!(throttle.check(&r, a).unwrap(), Err(540));
        assert!(ok(throttle.check(&r, b)));
        clock.set(t0() + TimeDelta::minutes(10));
        assert!(ok(throttle.check(&r, a)), "the first post left the window");
    }

    #[test]
    fn addresses_of_one_ipv6_64_share_one_allowance() {
        let (r, _) = rental();
        let throttle = Throttle::new(PostLimit::default());
        for i in 0..5 {
            let ip: IpAddr = format!("2001:db8:7:1::{i:x}").parse().unwrap();
            assert!(ok(throttle.check(&r, ip)));
        }
        assert!(!ok(throttle.check(&r, "2001:db8:7:1:aaaa::1".parse().unwrap())));
        assert!(ok(throttle.check(&r, "2001:db8:7:2::1".parse().unwrap())), "another /64");
    }

    #[test]
    fn a_post_costs_the_same_past_thousands_of_addresses_and_quiet_ones_are_forgotten() {
        // On redb, the store servers use: one key looked up and written per post.
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(t0()));
        let store = rental_core::RedbStore::open(dir.path().join("rental.redb")).unwrap();
        let r = Rental::new(store).with_clock(clock.clone());
        let throttle = Throttle::new(PostLimit::default());
        let ip = |i: u32| IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
        let time = |from: u32, to: u32| {
            let started = std::time::Instant::now();
            for i in from..to {
                assert!(ok(throttle.check(&r, ip(i))));
            }
            started.elapsed()
        };
        let first = time(0, 200);
        time(200, 2_000);
        let later = time(2_000, 2_200);
        assert!(later < first * 3 + std::time::Duration::from_millis(200), "{first:?} then {later:?}");
        // Once the window has passed, retention forgets every quiet address.
        clock.advance(TimeDelta::minutes(10));
        assert_eq!(r.worker().prune().unwrap().use_windows, 2_200);
    }

    #[test]
    fn a_forgotten_post_leaves_room_for_another() {
        let (r, clock) = rental();
        let throttle = Throttle::new(PostLimit { posts: 1, window: TimeDelta::minutes(10) });
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let at = throttle.check(&r, a).unwrap().unwrap();
        throttle.forget(&r, a, at).unwrap();
        clock.advance(TimeDelta::seconds(1));
        assert!(ok(throttle.check(&r, a)));
        clock.advance(TimeDelta::seconds(1));
        assert_eq!(throttle.check(&r, a).unwrap(), Err(599));
        clock.set(t0() + TimeDelta::seconds(601));
        assert!(ok(throttle.check(&r, a)));
    }

    /// The CPU a page post spends counting itself on redb, the default store
    /// (docs/PERFORMANCE.md): `cargo test -p rental-server --lib -- --ignored
    /// --nocapture cpu_of_a_counted_post`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn cpu_of_a_counted_post() {
        fn cpu_ticks() -> u64 {
            let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
            let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
            fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
        }
        let dir = tempfile::tempdir().unwrap();
        let store = rental_core::RedbStore::open(dir.path().join("rental.redb")).unwrap();
        let clock = Arc::new(ManualClock::new(t0()));
        let r = Rental::new(store).with_clock(clock.clone());
        let throttle = Throttle::new(PostLimit::default());
        let n = 3_000u32;
        let (ticks, started) = (cpu_ticks(), std::time::Instant::now());
        for i in 0..n {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i % 1_000));
            throttle.check(&r, ip).unwrap().unwrap(); // three posts per address, under its five
        }
        let cpu_us = (cpu_ticks() - ticks) * 10_000 / u64::from(n);
        let wall_us = started.elapsed().as_micros() / u128::from(n);
        eprintln!("a counted post on redb: {cpu_us} us CPU, {wall_us} us wall");
    }
}
