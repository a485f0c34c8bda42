//! Opens the booking engine on the local data directory with the configured
//! settings: the one place where a command gets its `Rental` from.

use rental_core::{RedbStore, Rental, StoreError};

use crate::config::Config;
use crate::error::CliError;

/// The engine every local command works on.
pub type Engine = Rental<RedbStore>;

/// Opens the store in the configured data directory (creating it when new).
///
/// A store held by another process, normally a running server, is
/// [`CliError::Busy`], so the user is told to talk to that server instead.
pub fn open(config: &Config) -> Result<Engine, CliError> {
    let store = RedbStore::open_dir(&config.data_dir).map_err(|e| match e {
        StoreError::Locked => CliError::Busy { data_dir: config.data_dir.clone() },
        other => other.into(),
    })?;
    let rental = Rental::new(store).with_settings(config.settings.clone())?;
    // While the CLI holds the store no server runs, so nothing else expires
    // lapsed checkouts: do it first, so a command never shows or confirms a
    // booking that the server would already have cancelled.
    rental.expire_due()?;
    Ok(rental)
}
