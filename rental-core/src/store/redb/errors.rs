//! Why the redo log refuses to open or to take a commit: a kind callers can
//! match, carried in [`StoreError::Backend`] and found by [`RedoError::of`].

use crate::store::StoreError;

/// Why the redo log refused.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedoError {
    /// A sync of the log or of redb's file failed, or a failed commit could not
    /// be taken back: what the disk holds is no longer known, so the store
    /// takes no commit and no checkpoint until it is reopened (which replays the log).
    #[error("an earlier sync or take-back failed; the store refuses writes until it is reopened")]
    Broken,
    /// The log's header names another store, or another epoch of this one:
    /// the two files do not belong together.
    #[error("the redo log belongs to store {log_store:016x} epoch {log_epoch}, not to this file's ({file})")]
    ForeignLog {
        /// The store id in the log's header.
        log_store: u64,
        /// The epoch in the log's header.
        log_epoch: u64,
        /// The file's store id and epoch, or why it has none.
        file: String,
    },
    /// The first record the file needs is not the first the log holds past
    /// the file's last checkpoint: the file is older (or newer) than its log.
    #[error("the redo log's records past the checkpoint start at {first}, but the file needs {redo_from}")]
    Gap {
        /// The first record the file's last checkpoint did not hold.
        redo_from: u64,
        /// The first record in the log numbered at or after it.
        first: u64,
    },
    /// The log was written in a record format this version does not read.
    #[error("the redo log has record format {0}, which this version does not read")]
    UnknownFormat(u32),
    /// The log's header fails its digest.
    #[error("the redo log's header is damaged")]
    BadHeader,
}

impl RedoError {
    /// The redo log's refusal inside a store error, if that is what it is.
    pub fn of(err: &StoreError) -> Option<&RedoError> {
        match err {
            StoreError::Backend(inner) => inner.downcast_ref(),
            _ => None,
        }
    }
}

impl From<RedoError> for StoreError {
    fn from(e: RedoError) -> Self {
        StoreError::Backend(Box::new(e))
    }
}
