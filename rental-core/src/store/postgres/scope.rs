//! Which write locks a PostgreSQL write holds. Most writes hold the write
//! lock alone, exclusive: one at a time across every process. A write for a
//! few properties ([`Store::write_for`](crate::Store::write_for): a group of
//! booking creations) holds it shared, with those properties' own locks, so
//! writes on other properties run beside it.
//!
//! Such a write takes what else it reaches as it reaches it: another
//! property's lock, or the write lock exclusive for anything that is not a
//! property's (keys, webhooks, deliveries, lists across properties).
//!
//! Two such writes may commit their events out of number order. The fan-out
//! still takes them in order: it is a write of everything, so when it reads
//! the outbox no write is open, and every number drawn so far is settled.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use super::{PgTx, WRITE_LOCK};
use crate::store::StoreResult;

/// The first key of every property's advisory lock (`rent` in ASCII); the
/// second is [`property_key`].
const PROPERTY_LOCKS: i32 = 0x72_65_6e_74;

/// The second key of a property's advisory lock: the first four bytes of
/// its slug's SHA-256. Two slugs that share one only wait for each other.
fn property_key(slug: &str) -> i32 {
    let digest = Sha256::digest(slug.as_bytes());
    i32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The statements that open a write for `properties`: the write lock shared,
/// then each property's lock in key order (so two such writes never wait
/// for each other in a circle), one row of an array each.
///
/// Its statements keep the plans made once per connection
/// (`plan_cache_mode`): left to choose, PostgreSQL plans the group's lookups
/// afresh on every call while groups are small (under about 10 bookings),
/// which cost the database 0.19 ms a group in planning alone.
pub(super) fn begin_for(properties: &BTreeSet<String>) -> String {
    let mut keys: Vec<i32> = properties.iter().map(|slug| property_key(slug)).collect();
    keys.sort_unstable();
    keys.dedup();
    let keys: Vec<String> = keys.iter().map(i32::to_string).collect();
    format!(
        "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL plan_cache_mode = force_generic_plan; \
         SELECT pg_advisory_xact_lock_shared({WRITE_LOCK}); SELECT pg_advisory_xact_lock({PROPERTY_LOCKS}, key) FROM unnest('{{{}}}'::integer[]) AS key",
        keys.join(",")
    )
}

impl PgTx<'_> {
    /// True for a write that holds some properties' locks, not the whole write lock.
    pub(super) fn is_scoped(&self) -> bool {
        self.scope.borrow().is_some()
    }

    /// Before reading or writing `slug`'s data: in a write for some
    /// properties, takes its lock if the write does not hold it yet.
    pub(super) fn hold_property(&self, slug: &str) -> StoreResult<()> {
        if self.holds(slug) {
            return Ok(());
        }
        self.send("SELECT pg_advisory_xact_lock($1, $2)", &[&PROPERTY_LOCKS, &property_key(slug)])?;
        if let Some(held) = self.scope.borrow_mut().as_mut() {
            held.insert(slug.to_owned());
        }
        Ok(())
    }

    /// Before reading or writing what is not one property's: in a write for
    /// some properties, takes the write lock exclusive, waiting for every
    /// other write to end; from then on the write holds everything.
    pub(super) fn hold_all(&self) -> StoreResult<()> {
        if !self.is_scoped() {
            return Ok(());
        }
        self.send("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK])?;
        *self.scope.borrow_mut() = None;
        Ok(())
    }

    /// True when this write holds `slug`'s lock (or the whole write lock).
    pub(super) fn holds(&self, slug: &str) -> bool {
        self.scope.borrow().as_ref().is_none_or(|held| held.contains(slug))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_for_properties_locks_each_once_in_key_order_after_the_shared_write_lock() {
        let slugs: BTreeSet<String> = ["sea-view", "alpine-cabin", "harbour-loft"].map(String::from).into();
        let sql = begin_for(&slugs);
        assert!(
            sql.starts_with("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL plan_cache_mode = force_generic_plan;")
        );
        assert!(sql.contains("; SELECT pg_advisory_xact_lock_shared("));
        let array = &sql[sql.find("unnest('{").unwrap() + 9..sql.find("}'::integer[])").unwrap()];
        let keys: Vec<i32> = array.split(',').map(|k| k.parse().unwrap()).collect();
        let mut sorted: Vec<i32> = slugs.iter().map(|s| property_key(s)).collect();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
    }

    #[test]
    fn a_property_key_is_the_same_in_every_process_and_build() {
        // The first four bytes of SHA-256("sea-view"), big-endian: not a hasher seeded per process.
        assert_eq!(property_key("sea-view"), -877_912_670);
    }
}
