//! Per-key rate limiting: a token bucket per API key id. Over the limit, a
//! request gets 429 `rate_limited` with `Retry-After`.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// Requests per second per key, with a burst allowance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Sustained requests per second.
    pub per_second: f64,
    /// Requests that may arrive at once after a quiet spell.
    pub burst: f64,
}

/// The buckets of every key seen.
#[derive(Debug, Default)]
pub struct Limiter {
    limit: Option<RateLimit>,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl Limiter {
    /// A limiter; `None` lets everything through.
    pub fn new(limit: Option<RateLimit>) -> Self {
        Limiter { limit, buckets: Mutex::default() }
    }

    /// Takes a token for `key` at `now`; `Err(seconds)` to wait when there is none.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), u64> {
        let Some(limit) = self.limit else { return Ok(()) };
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let (tokens, last) = buckets.entry(key.to_owned()).or_insert((limit.burst, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * limit.per_second).min(limit.burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - *tokens) / limit.per_second).ceil().max(1.0) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_key_gets_its_burst_then_waits_and_other_keys_are_unaffected() {
        let limiter = Limiter::new(Some(RateLimit { per_second: 1.0, burst: 3.0 }));
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.check("a", t0), Ok(()));
        }
        assert_eq!(limiter.check("a", t0), Err(1));
        assert_eq!(limiter.check("b", t0), Ok(()));
        assert_eq!(limiter.check("a", t0 + Duration::from_secs(1)), Ok(()));
        assert!(Limiter::new(None).check("a", t0).is_ok());
    }
}
