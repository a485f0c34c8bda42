//! [`Worker`]: what servers and background workers call besides the use
//! cases (leases, claims and records of deliveries, messages and feed pulls).

use super::Rental;

/// The calls a server makes besides the use cases, from [`Rental::worker`]: admin sessions and the
/// login throttle, recognising keys from memory, and the background work
/// (fanning events out to webhooks, claiming and recording deliveries,
/// pulling channel calendars, the stay schedule, pruning). `rental-server`
/// makes them; a program that embeds only the engine needs none of them,
/// unless it delivers webhooks or pulls calendars itself.
///
/// It derefs to the [`Rental`], so every use case is reachable from it too.
///
/// ```
/// use rental_core::{MemoryStore, Rental};
///
/// let rental = Rental::new(MemoryStore::new());
/// // Nothing happened yet, so there is nothing to fan out to webhooks.
/// assert_eq!(rental.worker().fan_out(100)?, 0);
/// # Ok::<(), rental_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Worker<'r, S>(pub(super) &'r Rental<S>);

impl<S> Clone for Worker<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Worker<'_, S> {}

impl<S> std::ops::Deref for Worker<'_, S> {
    type Target = Rental<S>;
    fn deref(&self) -> &Rental<S> {
        self.0
    }
}

impl<S> Worker<'_, S> {
    /// True when reads are answered from memory (see [`Rental::with_read_cache`]).
    pub fn reads_from_memory(&self) -> bool {
        self.cache.is_some()
    }
}
