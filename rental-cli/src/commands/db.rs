//! `rental db migrate` and `rental db copy --to URL`: the PostgreSQL
//! database's schema, and moving a redb data directory into one.

use clap::Subcommand;
use rental_core::RedbStore;
use rental_core::StoreError;
use rental_core::store::{PgStore, Store, is_postgres_url};

use crate::config::Config;
use crate::error::CliError;

/// `rental db ...`.
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Bring the schema of the shared database (given by --database) up to date
    #[command(after_help = "Servers migrate at start too, safely when several start at once.

Examples:
  rental db migrate --database postgres://rental@db.internal/rental
  RENTAL_DATABASE_URL=postgres://rental@db.internal/rental rental db migrate")]
    Migrate,
    /// Copy the redb store of the data directory into an empty PostgreSQL database, then check the counts
    #[command(after_help = "Stop the server that holds the data directory first.

Examples:
  rental db copy --data-dir /var/lib/rental --to postgres://rental@db.internal/rental")]
    Copy {
        /// The database to copy into (postgres://...)
        #[arg(long, value_name = "URL")]
        to: String,
    },
}

/// Runs a `db` command.
pub fn run(command: &DbCommand, config: &Config) -> Result<String, CliError> {
    match command {
        DbCommand::Migrate => migrate(config),
        DbCommand::Copy { to } => copy(config, to),
    }
}

fn migrate(config: &Config) -> Result<String, CliError> {
    let Some(url) = &config.database else {
        return Err(CliError::Usage(
            "rental db migrate needs a PostgreSQL database: pass --database URL or set RENTAL_DATABASE_URL".into(),
        ));
    };
    let applied = PgStore::connect(url)?.migrate()?;
    let version = PgStore::schema_version();
    Ok(if applied.is_empty() {
        format!("the schema is up to date (version {version})\n")
    } else {
        let list: Vec<String> = applied.iter().map(ToString::to_string).collect();
        format!("applied migration {}; the schema is at version {version}\n", list.join(", "))
    })
}

fn copy(config: &Config, to: &str) -> Result<String, CliError> {
    if !is_postgres_url(to) {
        return Err(CliError::Usage(format!("--to must be a postgres:// or postgresql:// URL, not {to:?}")));
    }
    let source = RedbStore::open_dir(&config.data_dir).map_err(|e| match e {
        StoreError::Locked => CliError::Busy { data_dir: config.data_dir.clone() },
        other => other.into(),
    })?;
    let target = PgStore::open(to)?;
    let read = source.read()?;
    let copied = target.copy_from(&read)?;
    let stored = target.counts()?;
    let mut lines = Vec::new();
    for ((table, read), (_, stored)) in copied.iter().zip(&stored) {
        if read != stored {
            return Err(CliError::Core(rental_core::Error::Store(StoreError::Corrupt(format!(
                "the copy of {table} does not match: {read} read, {stored} in the database"
            )))));
        }
        lines.push(format!("{table:<12} {stored:>8}"));
    }
    drop(read);
    Ok(format!("copied {} into the database; every count matches:\n{}\n", config.data_dir.display(), lines.join("\n")))
}
