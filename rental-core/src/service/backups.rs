//! Taking a backup of the engine's store (the file's format and the restore are `crate::backup`).

use std::io::Write;

use crate::backup::{self, BackupError, Counts};
use crate::store::Store;

impl<S: Store> super::Rental<S> {
    /// Writes a backup of the whole store, read from one snapshot, to `out`;
    /// returns the counts. Writers go on meanwhile: the snapshot holds every
    /// write committed before it was opened, and none after.
    pub fn backup(&self, out: &mut impl Write) -> Result<Counts, BackupError> {
        backup::write(&self.store.read()?, self.now(), out)
    }
}
