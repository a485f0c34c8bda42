//! `rental keys create|list|revoke`: API keys for the HTTP API. A new key's
//! secret is printed once, alone on stdout, so a shell can capture it.

use chrono::{DateTime, Utc};
use clap::Subcommand;
use rental_core::keys::{ApiKey, Scope};
use rental_core::{Rental, Store};
use serde::Serialize;

use crate::error::CliError;
use crate::output::{self, Align, Table};

/// `rental keys ...`.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create an API key and print its secret (shown only this once)
    #[command(after_help = CREATE_HELP)]
    Create {
        /// A name to recognise the key by (revoke takes it too)
        #[arg(long, value_name = "NAME")]
        name: String,
        /// What the key may do: read, write, or both (read,write); write does not imply read
        #[arg(long = "scope", value_name = "SCOPES", required = true, value_delimiter = ',')]
        scopes: Vec<Scope>,
        /// Print {"id", "key", "name", "scopes", "createdAt"} instead of the secret alone
        #[arg(long)]
        json: bool,
    },
    /// List every key: id, name, scopes, when created, last used and revoked
    #[command(after_help = LIST_HELP)]
    List {
        /// Print the key records (never their secrets) as a JSON array
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key by its id, or by the name of an unrevoked key
    #[command(after_help = REVOKE_HELP)]
    Revoke {
        /// The key's id (key_...) or name
        #[arg(value_name = "ID_OR_NAME")]
        key: String,
        /// Print the revoked key's record as JSON
        #[arg(long)]
        json: bool,
    },
}

const CREATE_HELP: &str = "Examples:
  KEY=$(rental keys create --name website --scope read)
  rental keys create --name channel-manager --scope read,write --json";

const LIST_HELP: &str = "Examples:
  rental keys list
  rental keys list --json";

const REVOKE_HELP: &str = "Examples:
  rental keys revoke key_3kTq9VbX1mZp
  rental keys revoke website";

/// A new key as `--json` prints it: the record plus its secret.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CreatedKey<'a> {
    id: &'a str,
    key: &'a str,
    name: &'a str,
    scopes: &'a [Scope],
    #[serde(serialize_with = "timestamp")]
    created_at: DateTime<Utc>,
}

fn timestamp<S: serde::Serializer>(t: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&rental_core::timestamp::format(t))
}

/// Runs a `rental keys` command.
pub fn run(command: &KeysCommand, engine: &Rental<impl Store>) -> Result<String, CliError> {
    match command {
        KeysCommand::Create { name, scopes, json } => create(engine, name, scopes, *json),
        KeysCommand::List { json } => list(engine, *json),
        KeysCommand::Revoke { key, json } => revoke(engine, key, *json),
    }
}

fn create(engine: &Rental<impl Store>, name: &str, scopes: &[Scope], json: bool) -> Result<String, CliError> {
    let new = engine.admin().create_key(name, scopes)?;
    if !json {
        return Ok(format!("{}\n", new.secret));
    }
    let k = &new.key;
    Ok(output::json(&CreatedKey {
        id: &k.id,
        key: &new.secret,
        name: &k.name,
        scopes: &k.scopes,
        created_at: k.created_at,
    }))
}

fn list(engine: &Rental<impl Store>, json: bool) -> Result<String, CliError> {
    let keys = engine.admin().keys()?;
    if json {
        return Ok(output::json(&keys));
    }
    let mut table = Table::new(&[
        ("ID", Align::Left),
        ("NAME", Align::Left),
        ("SCOPES", Align::Left),
        ("CREATED", Align::Left),
        ("LAST USED", Align::Left),
        ("REVOKED", Align::Left),
    ]);
    for k in &keys {
        table.row(vec![
            k.id.clone(),
            k.name.clone(),
            scopes(k),
            output::when(k.created_at),
            output::when_or_dash(k.last_used_at),
            output::when_or_dash(k.revoked_at),
        ]);
    }
    Ok(table.render())
}

fn scopes(key: &ApiKey) -> String {
    key.scopes.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

fn revoke(engine: &Rental<impl Store>, id_or_name: &str, json: bool) -> Result<String, CliError> {
    let key = engine.admin().revoke_key(id_or_name)?;
    if json {
        return Ok(output::json(&key));
    }
    Ok(format!("revoked {} (\"{}\")\n", key.id, output::visible(&key.name)))
}
