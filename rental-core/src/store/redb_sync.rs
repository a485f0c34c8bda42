//! Group commit for redb: write transactions commit without a sync, and
//! [`GroupSync::flush`] makes them durable, one sync for every caller waiting.
//!
//! A caller's commit is counted after it returns; the leader of a sync reads
//! the count before it opens its own (empty, durable) transaction, and redb
//! has one writer at a time, so every commit counted by then is inside what
//! that sync persists. Callers that arrive while a sync runs wait for the
//! next one unless the running one already covers them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use redb::{Database, Durability};

use super::StoreResult;

/// Counts commits and syncs them in groups.
#[derive(Debug, Default)]
pub(super) struct GroupSync {
    /// Commits made so far, durable or not.
    committed: AtomicU64,
    state: Mutex<State>,
    synced: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// Every commit up to this count is on disk.
    durable: u64,
    /// A sync is running.
    leader: bool,
}

impl GroupSync {
    /// Notes that one more commit has returned.
    pub(super) fn committed(&self) {
        self.committed.fetch_add(1, Ordering::SeqCst);
    }

    /// Returns once every commit noted before the call is durable.
    pub(super) fn flush(&self, db: &Database) -> StoreResult<()> {
        let ticket = self.committed.load(Ordering::SeqCst);
        let mut state = self.lock();
        loop {
            if state.durable >= ticket {
                return Ok(());
            }
            if state.leader {
                state = self.synced.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            state.leader = true;
            drop(state);
            let covered = self.committed.load(Ordering::SeqCst);
            let synced = sync(db);
            state = self.lock();
            state.leader = false;
            if synced.is_ok() {
                state.durable = state.durable.max(covered);
            }
            self.synced.notify_all();
            synced?;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One empty durable commit: redb then persists every commit before it.
fn sync(db: &Database) -> StoreResult<()> {
    let mut tx = db.begin_write().map_err(super::redb::backend)?;
    tx.set_durability(Durability::Immediate).map_err(super::redb::backend)?;
    tx.commit().map_err(super::redb::backend)
}
