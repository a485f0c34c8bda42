//! The commands, one module each, and what they share: the value parsers
//! of their arguments and what a command hands back to print.

pub mod admin;
pub mod backup;
pub mod blocks;
pub mod bookings;
pub mod completions;
pub mod db;
pub mod keys;
pub mod mcp;
pub mod property;
pub mod quote;
pub mod sealed;
pub mod serve;
pub mod sync;
pub mod webhook;

use chrono::NaiveDate;
use rental_core::{Rental, Store};

use crate::cli::Command;
use crate::config::Config;
use crate::error::CliError;
use crate::remote::Remote;

/// What a command prints: data for stdout and, apart, a note for people on stderr.
#[derive(Debug, Default)]
pub struct Printed {
    /// The data: a table, a sentence, or JSON.
    pub data: String,
    /// A hint that is not data, such as how to fetch the next page.
    pub note: Option<String>,
}

impl From<String> for Printed {
    fn from(data: String) -> Self {
        Printed { data, note: None }
    }
}

/// Runs `command` on the local engine.
pub fn run<S: Store + 'static>(command: &Command, engine: Rental<S>, config: &Config) -> Result<Printed, CliError> {
    match command {
        Command::Property(c) => property::run(c, &engine).map(Printed::from),
        Command::Keys(c) => keys::run(c, &engine).map(Printed::from),
        Command::Quote(args) => quote::run(args, &engine).map(Printed::from),
        Command::Bookings(args) => bookings::run(&args.command, &engine, config),
        Command::Blocks(args) => blocks::run(&args.command, &engine),
        Command::Webhook(c) => webhook::run(c, &engine),
        Command::Admin(c) => admin::run(c, &engine, &mut std::io::stdin().lock()).map(Printed::from),
        Command::Mcp(_) => mcp::run(engine),
        Command::Serve(_)
        | Command::Sync(_)
        | Command::Completions(_)
        | Command::Db(_)
        | Command::Backup(_)
        | Command::Restore(_) => {
            unreachable!("serve, sync, db, backup, restore and completions run on their own; main dispatches them")
        }
    }
}

/// Runs `command` through the API of the running server at `remote`.
pub fn run_remote(command: &Command, remote: Remote) -> Result<Printed, CliError> {
    match command {
        Command::Quote(args) => quote::run_remote(args, &remote).map(Printed::from),
        Command::Bookings(args) => bookings::run_remote(&args.command, &remote),
        Command::Blocks(args) => blocks::run_remote(&args.command, &remote),
        Command::Mcp(_) => mcp::run_remote(remote),
        Command::Sync(args) => sync::run_remote(args, &remote),
        Command::Backup(args) => backup::run_remote(args, &remote).map(Printed::from),
        Command::Serve(_)
        | Command::Restore(_)
        | Command::Property(_)
        | Command::Keys(_)
        | Command::Webhook(_)
        | Command::Admin(_)
        | Command::Db(_)
        | Command::Completions(_) => {
            unreachable!("only the commands with Command::remote_args take --url; main dispatches by it")
        }
    }
}

/// A `YYYY-MM-DD` date argument.
pub fn parse_date(s: &str) -> Result<NaiveDate, String> {
    rental_core::parse_date(s).ok_or_else(|| format!("{s:?} is not a date written YYYY-MM-DD, like 2026-12-20"))
}
