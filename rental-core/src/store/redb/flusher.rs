//! A thread that syncs the redb file a few times a second while commits wait
//! for a checkpoint, so the checkpoint's own sync, which holds the writer, finds little left.
//!
//! Between checkpoints redb writes the pages its cache lets go into the file
//! without syncing them; a checkpoint then synced them all at once, 45–100 ms
//! on a store of 500,000 bookings (docs/PERFORMANCE.md, "Growth and memory"). Syncing
//! them from here, off the writer's path, took that stall's share of the
//! write p99 from about 95 ms to under 30.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::store::StoreResult;

use super::backend;

/// How often the thread syncs, when there is anything to sync.
const EVERY: Duration = Duration::from_millis(250);

/// The thread, running until dropped.
#[derive(Debug)]
pub(super) struct Flusher {
    unsynced: Arc<AtomicBool>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Flusher {
    /// Starts syncing the file at `path`.
    pub(super) fn start(path: &Path) -> StoreResult<Self> {
        let file = File::open(path).map_err(backend)?;
        let unsynced = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = mpsc::channel::<()>();
        let flag = Arc::clone(&unsynced);
        let thread = std::thread::Builder::new()
            .name("redb-flusher".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    if flag.swap(false, Ordering::AcqRel) {
                        // A failed sync leaves the pages to the checkpoint's own.
                        let _ = file.sync_data();
                    }
                }
            })
            .map_err(backend)?;
        Ok(Flusher { unsynced, stop: Some(stop), thread: Some(thread) })
    }

    /// Notes a commit that redb did not sync.
    pub(super) fn committed(&self) {
        self.unsynced.store(true, Ordering::Release);
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
