//! The commands, one module each, and what they share: the value parsers
//! of their arguments and what a command hands back to print.

pub mod admin;
pub mod bookings;
pub mod keys;
pub mod property;
pub mod quote;
pub mod serve;
pub mod sync;
pub mod webhook;

use chrono::NaiveDate;

use crate::cli::Command;
use crate::engine::Engine;
use crate::error::CliError;

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
pub fn run(command: &Command, engine: &Engine) -> Result<Printed, CliError> {
    match command {
        Command::Property(c) => property::run(c, engine).map(Printed::from),
        Command::Keys(c) => keys::run(c, engine).map(Printed::from),
        Command::Quote(args) => quote::run(args, engine).map(Printed::from),
        Command::Bookings(c) => bookings::run(c, engine),
        Command::Webhook(c) => webhook::run(c, engine),
        Command::Admin(c) => admin::run(c, engine, &mut std::io::stdin().lock()).map(Printed::from),
        Command::Serve(_) | Command::Sync(_) => {
            unreachable!("serve and sync run async work on their own engine; main dispatches them")
        }
    }
}

/// A `YYYY-MM-DD` date argument.
pub fn parse_date(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| format!("{s:?} is not a date like 2026-12-20"))
}
