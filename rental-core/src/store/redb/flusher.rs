//! A thread that syncs the redb file a few times a second while commits wait
//! for a checkpoint, so the checkpoint's own sync, which holds the writer, finds little left.
//!
//! Between checkpoints redb writes the pages its cache lets go into the file
//! without syncing them; a checkpoint then synced them all at once, 45–100 ms
//! on a store of 500,000 bookings (docs/PERFORMANCE.md, "Growth and memory"). Syncing
//! them from here, off the writer's path, took that stall's share of the
//! write p99 from about 95 ms to under 30.
//!
//! A failed sync is latched, not dropped: Linux marks the pages clean after
//! a failed writeback, so the checkpoint's own sync would succeed without
//! them and the log would be started again over the only copy of those
//! commits. Once latched, the store refuses checkpoints and commits until reopened.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::store::StoreResult;

use super::backend;
use super::disk::Syncer;

/// How often the thread syncs, when there is anything to sync.
const EVERY: Duration = Duration::from_millis(250);

/// The thread, running until dropped.
pub(super) struct Flusher {
    unsynced: Arc<AtomicBool>,
    #[cfg_attr(not(test), allow(dead_code))]
    sync: Syncer,
    #[cfg_attr(not(test), allow(dead_code))]
    failed: Arc<AtomicBool>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Flusher {
    /// Starts syncing redb's file with `sync`, setting `failed` when a sync fails.
    pub(super) fn start(sync: Syncer, failed: Arc<AtomicBool>) -> StoreResult<Self> {
        let unsynced = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = mpsc::channel::<()>();
        let (flag, thread_sync, latch) = (Arc::clone(&unsynced), Arc::clone(&sync), Arc::clone(&failed));
        let thread = std::thread::Builder::new()
            .name("redb-flusher".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    if flag.swap(false, Ordering::AcqRel) {
                        sync_or_latch(&thread_sync, &latch);
                    }
                }
            })
            .map_err(backend)?;
        Ok(Flusher { unsynced, sync, failed, stop: Some(stop), thread: Some(thread) })
    }

    /// Syncs now, on this thread, as the thread does every [`EVERY`].
    #[cfg(test)]
    pub(super) fn sync_now(&self) {
        self.unsynced.store(false, Ordering::Release);
        sync_or_latch(&self.sync, &self.failed);
    }

    /// Notes a commit that redb did not sync.
    pub(super) fn committed(&self) {
        self.unsynced.store(true, Ordering::Release);
    }
}

impl std::fmt::Debug for Flusher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Flusher").field("failed", &self.failed).finish_non_exhaustive()
    }
}

/// Syncs, latching a failure in `failed` for the log to see.
fn sync_or_latch(sync: &Syncer, failed: &AtomicBool) {
    if sync().is_err() {
        failed.store(true, Ordering::Release);
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
