//! `rental`: the command-line tool of the rental booking engine. It reads the
//! configuration, opens the local store, runs one command and exits 0, 1 or 2.

mod cli;
mod commands;
mod config;
mod durable;
mod duration;
mod engine;
mod error;
mod logging;
mod mcp;
mod output;
mod page_secret;
mod payments_config;
mod property_file;
mod remote;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::commands::Printed;
use crate::commands::webhook::WebhookCommand;
use crate::config::Config;
use crate::error::CliError;
use crate::remote::RemoteArgs;

fn main() -> ExitCode {
    // clap prints its own usage errors and exits 2 (0 for --help and --version).
    let cli = Cli::parse();
    match run(&cli) {
        Ok(printed) => print(&printed),
        Err(e) => {
            to_stderr(&format!("error: {}", one_line(&e.to_string())));
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cli: &Cli) -> Result<Printed, CliError> {
    // Verifying a signature needs neither the configuration nor the store,
    // so it works while a server holds the store.
    if let cli::Command::Webhook(WebhookCommand::Verify(args)) = &cli.command {
        return commands::webhook::verify(args);
    }
    if let cli::Command::Completions(args) = &cli.command {
        return Ok(commands::completions::run(args).into());
    }
    // With --url (or RENTAL_URL) the command talks to a running server and
    // the local configuration and store are not touched.
    if let Some(remote) = cli.command.remote_args().map(RemoteArgs::remote).transpose()?.flatten() {
        return commands::run_remote(&cli.command, remote);
    }
    let config = Config::load(&cli.flags(), &|name| std::env::var(name).ok())?;
    match &cli.command {
        cli::Command::Serve(args) => return commands::serve::run(args, &config),
        cli::Command::Sync(args) => return commands::sync::run(args, &config),
        cli::Command::Db(command) => return commands::db::run(command, &config).map(Into::into),
        cli::Command::Backup(args) => return commands::backup::run(args, &config).map(Into::into),
        cli::Command::Restore(args) => return commands::backup::restore(args, &config).map(Into::into),
        _ => {}
    }
    engine::with_engine!(&config, |engine| commands::run(&cli.command, engine, &config))
}

/// Writes the data to stdout and the note to stderr. The operation is done by
/// now, so a reader that went away (`rental webhook add ... 2>&1 | head -2`)
/// is not an error: the exit code must not make a script do it again.
fn print(printed: &Printed) -> ExitCode {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(printed.data.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        Err(e) => {
            to_stderr(&format!("error: cannot write the output: {e}"));
            return ExitCode::FAILURE;
        }
    }
    if let Some(note) = &printed.note {
        to_stderr(note);
    }
    ExitCode::SUCCESS
}

/// One line on stderr. Unlike `eprintln!`, a closed stderr is not a panic.
fn to_stderr(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Errors are one line on stderr, whatever the message held.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}
