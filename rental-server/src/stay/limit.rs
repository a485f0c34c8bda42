//! At most 10 posts per stay link per hour (docs/API.md section 24): a guest
//! needs a few, a script many. Counted in the store, like the booking page's
//! per-address throttle, so every server sharing a database counts together.

use std::sync::Arc;

use chrono::TimeDelta;
use rental_core::allowance::Allowance;
use rental_core::{Rental, Store};

use crate::reply::blocking;

/// Posts allowed per link in one window.
pub const POSTS_PER_LINK: usize = 10;
/// The window.
pub const WINDOW: TimeDelta = TimeDelta::hours(1);

/// The posts of each booking's link, counted in the store.
#[derive(Debug, Default)]
pub struct LinkLimit;

impl LinkLimit {
    /// Counts a post on booking `code`'s link now: `Err` with the seconds to
    /// wait when it is over the limit (and then it is not counted), or when
    /// the store cannot count it (a second: nothing is done unless counted).
    pub async fn check<S: Store + 'static>(&self, rental: &Arc<Rental<S>>, code: &str) -> Result<(), u64> {
        let key = format!("stay/{code}");
        let allowance = Allowance { uses: POSTS_PER_LINK, window: WINDOW };
        match blocking(rental, move |r| r.worker().take_allowance(&key, allowance)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(wait)) => Err(wait),
            Err(problem) => {
                tracing::warn!(detail = %problem.detail, "a stay link's post could not be counted");
                Err(1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rental_core::{ManualClock, MemoryStore};

    use super::*;

    #[tokio::test]
    async fn ten_posts_an_hour_per_link_then_a_wait() {
        let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
        let rental = Arc::new(Rental::new(MemoryStore::new()).with_clock(clock.clone()));
        let limit = LinkLimit;
        for i in 0..10 {
            assert_eq!(limit.check(&rental, "BK-1").await, Ok(()), "post {i}");
            clock.advance(TimeDelta::minutes(1));
        }
        assert_eq!(limit.check(&rental, "BK-1").await, Err(50 * 60));
        assert_eq!(limit.check(&rental, "BK-2").await, Ok(()), "another link");
        clock.advance(TimeDelta::minutes(50));
        assert_eq!(limit.check(&rental, "BK-1").await, Ok(()), "the first left the window");
    }
}
