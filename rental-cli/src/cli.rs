//! The command line: global flags and the command tree, as clap reads them.
//! Each command's own arguments live next to its code in `commands`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands::admin::AdminCommand;
use crate::commands::backup::{BackupArgs, RestoreArgs};
use crate::commands::blocks::BlocksArgs;
use crate::commands::bookings::BookingsArgs;
use crate::commands::completions::CompletionsArgs;
use crate::commands::db::DbCommand;
use crate::commands::keys::KeysCommand;
use crate::commands::mcp::McpArgs;
use crate::commands::property::PropertyCommand;
use crate::commands::quote::QuoteArgs;
use crate::commands::serve::ServeArgs;
use crate::commands::sync::SyncArgs;
use crate::commands::webhook::WebhookCommand;
use crate::config::Flags;
use crate::remote::RemoteArgs;

/// Manage a short-term rental booking engine: properties, API keys, webhooks, quotes and bookings.
#[derive(Debug, Parser)]
#[command(name = "rental", version, after_help = MAIN_HELP)]
pub struct Cli {
    /// Read the configuration from FILE (default: ./rental.toml, if it exists)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The data directory holding the store (default: ./rental-data)
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Use the PostgreSQL database at URL (postgres://...) that several servers share, instead of the data directory
    #[arg(long, global = true, value_name = "URL")]
    pub database: Option<String>,
    /// What to do
    #[command(subcommand)]
    pub command: Command,
}

const MAIN_HELP: &str = "Settings come from rental.toml (camelCase keys: listen, dataDir, baseUrl,
timezone, codePrefix, syncInterval, checkoutTtl, webhookRetries,
allowPrivateTargets, rateLimit, retention, trustedProxies, shutdownGrace,
webhookLease, database, metricsListen, logFormat; guest messages: smtp,
smtpCaFile, mailFrom, hostEmail, mailRetries, mailLease; a [payments] table:
provider, secretKey, publishableKey, webhookSecret, apiBase, jsUrl), overridden by
RENTAL_* environment variables (RENTAL_DATA_DIR, RENTAL_DATABASE_URL, RENTAL_TIMEZONE,
RENTAL_CODE_PREFIX, RENTAL_CHECKOUT_TTL, RENTAL_SMTP_URL, RENTAL_MAIL_FROM,
RENTAL_HOST_EMAIL, RENTAL_PAYMENTS_PROVIDER, RENTAL_STRIPE_SECRET_KEY, ...), overridden by flags. Durations are written 90s, 30m, 24h; 0 turns one off.

Commands work on the local data directory, or on the PostgreSQL database
named by --database (RENTAL_DATABASE_URL), which any number of servers and
commands share at once. While `rental serve` holds a data directory,
quote, bookings and mcp work through the server's API instead: pass --url
and --api-key (or set RENTAL_URL and RENTAL_API_KEY).

Data goes to stdout (a table, or the API's JSON with --json); errors go to
stderr. Exit codes: 0 success, 1 the operation failed, 2 usage error.

Examples:
  rental serve --demo
  rental property import examples/demo-properties.json
  rental quote --property sea-view --check-in 2026-12-20 --check-out 2026-12-27 --guests 3
  KEY=$(rental keys create --name website --scope read)
  rental webhook add --url https://example.com/hooks/rental --events booking.created,booking.cancelled
  rental bookings list --status pending
  rental bookings list --url http://127.0.0.1:8080 --api-key \"$KEY\"
  rental completions bash > ~/.local/share/bash-completion/completions/rental";

const PROPERTY_HELP: &str = "Examples:
  rental property import examples/demo-properties.toml
  rental property list";

const KEYS_HELP: &str = "Examples:
  KEY=$(rental keys create --name website --scope read)
  rental keys list
  rental keys revoke website";

const WEBHOOK_HELP: &str = "Examples:
  rental webhook add --url https://example.com/hooks/rental
  rental webhook list
  rental webhook remove wh_3kTq9VbX1mZp
  rental webhook rotate-secret wh_3kTq9VbX1mZp
  rental webhook verify --secret \"$SECRET\" --signature \"$SIGNATURE\" body.json";

const BOOKINGS_HELP: &str = "Examples:
  rental bookings list --status pending
  rental bookings show BK-7QX2MF
  rental bookings confirm BK-7QX2MF
  rental bookings cancel BK-7QX2MF --by guest --reason \"change of plans\"
  RENTAL_URL=http://127.0.0.1:8080 RENTAL_API_KEY=rk_... rental bookings list";

const DB_HELP: &str = "The PostgreSQL database that several servers share (docs/SEVERAL-SERVERS.md).

Examples:
  rental db migrate --database postgres://rental@db.internal/rental
  rental db copy --data-dir /var/lib/rental --to postgres://rental@db.internal/rental";

const ADMIN_HELP: &str = "Examples:
  rental admin set-password < password.txt";

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server
    Serve(ServeArgs),
    /// Import and list properties
    #[command(subcommand, after_help = PROPERTY_HELP)]
    Property(PropertyCommand),
    /// Create, list and revoke API keys
    #[command(subcommand, after_help = KEYS_HELP)]
    Keys(KeysCommand),
    /// Register, list and remove webhooks; rotate their secrets; verify a delivery's signature
    #[command(subcommand, after_help = WEBHOOK_HELP)]
    Webhook(WebhookCommand),
    /// Price a stay
    Quote(QuoteArgs),
    /// List, show, confirm, cancel and change bookings
    #[command(after_help = BOOKINGS_HELP)]
    Bookings(BookingsArgs),
    /// Close nights (owner stays, maintenance), list and remove blocks
    Blocks(BlocksArgs),
    /// Serve the agent tools (Model Context Protocol) over stdio
    Mcp(McpArgs),
    /// Print a shell completion script (bash, zsh or fish)
    Completions(CompletionsArgs),
    /// Pull the channel calendars (iCal feeds) now
    Sync(SyncArgs),
    /// The admin dashboard: set its password
    #[command(subcommand, after_help = ADMIN_HELP)]
    Admin(AdminCommand),
    /// The shared PostgreSQL database: migrate its schema, copy a data directory into it
    #[command(subcommand, after_help = DB_HELP)]
    Db(DbCommand),
    /// Write one checked file of the whole store, also while a server runs (--url)
    Backup(BackupArgs),
    /// Fill an empty data directory or database from a backup file, then check the counts
    Restore(RestoreArgs),
}

impl Command {
    /// `--url`/`--api-key` of the commands that can work through a running server's API.
    pub fn remote_args(&self) -> Option<&RemoteArgs> {
        match self {
            Command::Quote(args) => Some(&args.remote),
            Command::Bookings(args) => Some(&args.remote),
            Command::Blocks(args) => Some(&args.remote),
            Command::Mcp(args) => Some(&args.remote),
            Command::Sync(args) => Some(&args.remote),
            Command::Backup(args) => Some(&args.remote),
            Command::Serve(_)
            | Command::Restore(_)
            | Command::Property(_)
            | Command::Keys(_)
            | Command::Webhook(_)
            | Command::Admin(_)
            | Command::Db(_)
            | Command::Completions(_) => None,
        }
    }
}

impl Cli {
    /// The flags that take part in the configuration.
    pub fn flags(&self) -> Flags {
        let (listen, trusted_proxies) = match &self.command {
            Command::Serve(args) => (args.listen.clone(), args.trusted_proxies.clone()),
            _ => (None, None),
        };
        Flags {
            config: self.config.clone(),
            data_dir: self.data_dir.clone(),
            listen,
            trusted_proxies,
            database: self.database.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_tree_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_main_help_names_every_setting() {
        let help = Cli::command().get_after_help().map(ToString::to_string).unwrap_or_default();
        let words: Vec<&str> = help.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').collect();
        for key in crate::config::setting_names() {
            assert!(words.contains(&key), "rental --help leaves out {key}");
        }
    }

    #[test]
    fn every_command_shows_an_example_in_its_help() {
        fn walk(cmd: &clap::Command, path: &str) {
            let help = cmd.get_after_help().map(ToString::to_string).unwrap_or_default();
            let example = ["\n  rental ", "\n  KEY=$(rental ", "\n  RENTAL_URL="].iter().any(|e| help.contains(e));
            assert!(example, "{path} has no example");
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                walk(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        walk(&Cli::command(), "rental");
    }
}
