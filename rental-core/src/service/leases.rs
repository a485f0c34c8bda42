//! Failover (docs/API.md section 22): leases are short and renewed by a
//! heartbeat while their holder lives, and a store one process holds voids an earlier run's at start.

use std::time::Duration;

use crate::basics::ids::{Slug, Source};
use crate::basics::lease;
use crate::channels::pull::FeedState;
use crate::error::Result;
use crate::store::{ReadRecords, ReadTx, Store, StoreResult, feed_key};

impl<S: Store> super::Worker<'_, S> {
    /// Extends every delivery lease `owner` holds to `lease` from now, in one
    /// write; returns how many. A lease `owner` no longer holds (recorded,
    /// released, or lapsed and taken by another) is left alone.
    pub fn renew_delivery_leases(&self, owner: &str, lease: Duration) -> Result<usize> {
        let until = lease::end(self.now(), lease);
        self.write(|tx| {
            let mut renewed = 0;
            for mut claim in tx.delivery_leases()? {
                if claim.lease.renew(owner, until) {
                    tx.put_lease(&claim)?;
                    renewed += 1;
                }
            }
            Ok(renewed)
        })
    }

    /// Extends the pull leases `owner` holds on `feeds` to `lease` from now, in one write; returns how many.
    pub fn renew_feed_leases(&self, owner: &str, feeds: &[(Slug, Source)], lease: Duration) -> Result<usize> {
        let until = lease::end(self.now(), lease);
        self.write(|tx| {
            let mut renewed = 0;
            for (property, feed) in feeds {
                let Some(mut state) = tx.get::<FeedState>(&feed_key(property.as_str(), feed.as_str()))? else {
                    continue;
                };
                if !lease::renew(&mut state.lease, owner, until) {
                    continue;
                }
                tx.put(&state)?;
                renewed += 1;
            }
            Ok(renewed)
        })
    }

    /// Voids every delivery and feed pull lease in the store; returns how
    /// many. Only for a store one process holds (redb locks its file), when
    /// that process starts: whatever leases are there, an earlier run took,
    /// and nobody is working on them any more.
    pub fn void_leases(&self) -> Result<usize> {
        if self.store.change_marks().is_some() {
            return Ok(0);
        }
        self.write(|tx| {
            let mut voided = 0;
            for lease in tx.delivery_leases()? {
                tx.remove_lease(&lease.delivery_id)?;
                voided += 1;
            }
            for mut state in tx.list_all::<FeedState>("")? {
                if lease::void(&mut state.lease) {
                    tx.put(&state)?;
                    voided += 1;
                }
            }
            Ok(voided)
        })
    }

    /// Whether the store answers a read, and whether its schema is the one
    /// this build reads and writes (`false`: a newer process moved it on).
    pub fn check_store(&self) -> StoreResult<bool> {
        self.store.read()?.property("readyz")?;
        self.store.schema_current()
    }

    /// The webhook deliveries waiting (pending, due or not), and when the
    /// oldest of them was created.
    pub fn webhook_backlog(&self) -> Result<(usize, Option<chrono::DateTime<chrono::Utc>>)> {
        let pending = self.store.read()?.pending_deliveries()?;
        Ok((pending.len(), pending.iter().map(|d| d.created_at).min()))
    }
}
