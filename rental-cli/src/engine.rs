//! Opens the booking engine on the configured store with the configured
//! settings: the one place where a command gets its `Rental` from.

use rental_core::store::{AnyStore, PgStore};
use rental_core::{RedbStore, Rental, StoreError};

use crate::config::Config;
use crate::error::CliError;

/// The engine every local command works on.
pub type Engine = Rental<AnyStore>;

/// Opens the configured store: the PostgreSQL database of `database` (its
/// schema brought up to date), else the redb store in the data directory
/// (created when new).
///
/// A data directory held by another process, normally a running server, is
/// [`CliError::Busy`], so the user is told to talk to that server instead.
pub fn open(config: &Config) -> Result<Engine, CliError> {
    let rental = Rental::new(open_store(config)?).with_settings(config.settings.clone())?;
    // No server may be running to expire lapsed checkouts: do it first, so a
    // command never shows or confirms a booking a server would have cancelled.
    rental.expire_due()?;
    Ok(rental)
}

/// The configured store, not yet wrapped in an engine.
fn open_store(config: &Config) -> Result<AnyStore, CliError> {
    if let Some(url) = &config.database {
        return Ok(AnyStore::Postgres(Box::new(PgStore::open(url)?)));
    }
    let store = RedbStore::open_dir(&config.data_dir).map_err(|e| match e {
        StoreError::Locked => CliError::Busy { data_dir: config.data_dir.clone() },
        other => other.into(),
    })?;
    Ok(AnyStore::Redb(Box::new(store)))
}
