//! Opens the booking engine on the configured store with the configured
//! settings: the one place where a command gets its `Rental` from.
//!
//! The store is chosen at run time (a data directory's redb file, or a
//! PostgreSQL URL) while `Rental` is generic over it: [`with_engine!`] runs a
//! command's body once for each store type, so no wrapper store forwards calls.

use rental_core::store::PgStore;
use rental_core::{RedbStore, Rental, Store, StoreError};

use crate::config::Config;
use crate::error::CliError;

/// The store the configuration names, opened but not yet wrapped in an engine.
#[derive(Debug)]
pub enum Opened {
    /// The redb store in the data directory.
    Redb(Box<RedbStore>),
    /// The PostgreSQL database of `database`.
    Postgres(Box<PgStore>),
}

/// Runs `$body` with `$engine` bound to a [`rental_core::Rental`] on the
/// configured store (see [`open`]); the body is compiled once per store type,
/// so what it calls is generic over `S: Store`. Errors of opening return early with `?`.
macro_rules! with_engine {
    ($config:expr, |$engine:ident| $body:expr) => {
        match $crate::engine::open_store($config)? {
            $crate::engine::Opened::Redb(store) => {
                let $engine = $crate::engine::open(*store, $config)?;
                $body
            }
            $crate::engine::Opened::Postgres(store) => {
                let $engine = $crate::engine::open(*store, $config)?;
                $body
            }
        }
    };
}
pub(crate) use with_engine;

/// The engine on `store` with the configured settings.
///
/// No server may be running to expire lapsed checkouts, so that is done
/// first: a command never shows or confirms a booking a server would have cancelled.
pub fn open<S: Store>(store: S, config: &Config) -> Result<Rental<S>, CliError> {
    let rental = Rental::new(store).with_settings(config.settings.clone())?;
    rental.worker().expire_due()?;
    Ok(rental)
}

/// Opens the configured store: the PostgreSQL database of `database` (its
/// schema brought up to date), else the redb store in the data directory
/// (created when new).
///
/// A data directory held by another process, normally a running server, is
/// [`CliError::Busy`], so the user is told to talk to that server instead.
pub fn open_store(config: &Config) -> Result<Opened, CliError> {
    if let Some(url) = &config.database {
        return Ok(Opened::Postgres(Box::new(PgStore::open(url)?)));
    }
    let store = RedbStore::open_dir(&config.data_dir).map_err(|e| match e {
        StoreError::Locked => CliError::Busy { data_dir: config.data_dir.clone() },
        other => other.into(),
    })?;
    Ok(Opened::Redb(Box::new(store)))
}
