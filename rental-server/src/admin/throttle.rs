//! Slows down password guessing: after [`FREE_FAILURES`] failed logins in a
//! row from one IP address, that address must wait before trying again, and
//! the wait doubles with each further failure (1 s, 2 s, 4 s ... 15 min).
//! The address is the client's as [`crate::client_addr`] finds it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Failed logins allowed in a row before the waits begin.
pub const FREE_FAILURES: u32 = 5;
/// The longest wait.
pub const MAX_WAIT: Duration = Duration::from_secs(15 * 60);
/// Addresses tracked before the oldest quiet ones are forgotten.
const MAX_TRACKED: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
    locked_until: Option<Instant>,
}

/// Failed logins per client address.
#[derive(Debug, Default)]
pub struct LoginThrottle {
    failures: Mutex<HashMap<IpAddr, Failures>>,
}

impl LoginThrottle {
    /// `Err(wait)` while `ip` must wait before its next login attempt.
    pub fn check(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        let failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        match failures.get(&ip).and_then(|f| f.locked_until) {
            Some(until) if until > now => Err(until - now),
            _ => Ok(()),
        }
    }

    /// Notes a failed login from `ip`.
    pub fn failed(&self, ip: IpAddr, now: Instant) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        if failures.len() >= MAX_TRACKED {
            failures.retain(|_, f| now.duration_since(f.last) < MAX_WAIT);
        }
        let f = failures.entry(ip).or_insert(Failures { count: 0, last: now, locked_until: None });
        f.count += 1;
        f.last = now;
        if f.count >= FREE_FAILURES {
            f.locked_until = Some(now + wait_after(f.count));
        }
    }

    /// Forgets the failures of `ip` after a successful login.
    pub fn succeeded(&self, ip: IpAddr) {
        self.failures.lock().unwrap_or_else(PoisonError::into_inner).remove(&ip);
    }
}

/// The wait after the `count`th failure in a row (from the [`FREE_FAILURES`]th on).
fn wait_after(count: u32) -> Duration {
    let doublings = count.saturating_sub(FREE_FAILURES).min(20);
    Duration::from_secs(1u64 << doublings).min(MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_begin_after_five_failures_and_double() {
        let throttle = LoginThrottle::default();
        let (ip, other): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..4 {
            throttle.failed(ip, t0);
            assert!(throttle.check(ip, t0).is_ok());
        }
        throttle.failed(ip, t0);
        assert_eq!(throttle.check(ip, t0), Err(Duration::from_secs(1)));
        assert!(throttle.check(other, t0).is_ok());
        let t1 = t0 + Duration::from_secs(1);
        assert!(throttle.check(ip, t1).is_ok());
        throttle.failed(ip, t1);
        assert_eq!(throttle.check(ip, t1), Err(Duration::from_secs(2)));
        throttle.succeeded(ip);
        assert!(throttle.check(ip, t1).is_ok());
    }

    #[test]
    fn the_wait_is_capped() {
        let cases = [(5, 1), (6, 2), (7, 4), (10, 32), (15, 900), (100, 900)];
        for (count, secs) in cases {
            assert_eq!(wait_after(count), Duration::from_secs(secs), "{count}");
        }
    }
}
