//! Admin password checks on a few threads of their own, with a short queue:
//! one argon2id check takes about 19 MiB and tens of milliseconds, so a burst
//! of logins must wait its turn, not take a blocking thread and its memory each.
//!
//! Memory stays bounded after a burst too: only these threads ever hold the
//! hash's working memory, and each reuses what its allocator already has.

use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use rental_core::{Rental, Store};

/// Checks that run at once (each on its own thread).
pub const CHECKERS: usize = 2;
/// Checks that may wait for a checker; past them a login is answered `429`.
pub const QUEUED: usize = 8;

/// One password check, run on a checker thread.
type Job = Box<dyn FnOnce() + Send>;

/// The checker threads and their queue; the threads end when this is dropped.
#[derive(Debug)]
pub struct PasswordChecks {
    jobs: Mutex<Option<SyncSender<Job>>>,
}

/// Why a password was not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unchecked {
    /// Every checker is busy and the queue is full: try again in a moment.
    #[error("too many logins are being checked; try again in a moment")]
    Busy,
    /// The check failed to run (the store could not be read, or a thread is gone).
    #[error("the password could not be checked")]
    Failed,
}

impl Default for PasswordChecks {
    fn default() -> Self {
        Self::new()
    }
}

impl PasswordChecks {
    /// [`CHECKERS`] threads behind a queue of [`QUEUED`]. The threads start on
    /// the first check, so a server nobody logs in to runs none.
    pub fn new() -> Self {
        PasswordChecks { jobs: Mutex::new(None) }
    }

    /// Whether `password` is the admin password, checked on a checker thread;
    /// [`Unchecked::Busy`] at once when the queue is full.
    pub async fn verify<S: Store + 'static>(
        &self,
        rental: &Arc<Rental<S>>,
        password: String,
    ) -> Result<bool, Unchecked> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let rental = Arc::clone(rental);
        let job: Job = Box::new(move || {
            let _ = answer.send(rental.worker().verify_admin_password(&password));
        });
        match self.sender().try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(Unchecked::Busy),
            Err(TrySendError::Disconnected(_)) => return Err(Unchecked::Failed),
        }
        match answered.await {
            Ok(Ok(matches)) => Ok(matches),
            Ok(Err(e)) => {
                tracing::error!(error = %e, "cannot check the admin password");
                Err(Unchecked::Failed)
            }
            Err(_) => Err(Unchecked::Failed),
        }
    }

    /// The queue's sender, starting the checker threads the first time.
    fn sender(&self) -> SyncSender<Job> {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        jobs.get_or_insert_with(start).clone()
    }
}

/// Starts [`CHECKERS`] threads taking jobs from one queue until it closes.
fn start() -> SyncSender<Job> {
    let (sender, receiver) = sync_channel::<Job>(QUEUED);
    let receiver = Arc::new(Mutex::new(receiver));
    for n in 0..CHECKERS {
        let receiver = Arc::clone(&receiver);
        let spawned = std::thread::Builder::new().name(format!("password-check-{n}")).spawn(move || {
            loop {
                // The lock is held only while waiting for the next job, not while running it.
                let job = receiver.lock().unwrap_or_else(PoisonError::into_inner).recv();
                match job {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            }
        });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a password check thread");
        }
    }
    sender
}
