//! `rental blocks add|list|remove`: close nights of a property for an owner
//! stay, maintenance or a closure, on the local store or through `--url`.

use chrono::NaiveDate;
use clap::{Args, Subcommand};
use rental_core::calendar::NewBlock;
use rental_core::{Rental, Store};
use serde_json::Value;

use crate::commands::{Printed, parse_date};
use crate::error::CliError;
use crate::output::{self, Align, Table};
use crate::remote::{self, Remote, RemoteArgs, RemoteError};

/// `rental blocks [--url U --api-key K] ...`.
#[derive(Debug, Args)]
#[command(after_help = BLOCKS_HELP)]
pub struct BlocksArgs {
    /// Where the blocks are: the local data directory, or a running server
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// What to do
    #[command(subcommand)]
    pub command: BlocksCommand,
}

const BLOCKS_HELP: &str = "Examples:
  rental blocks add sea-view --from 2026-12-01 --to 2026-12-05 --note painting
  rental blocks list sea-view --from 2026-12-01 --to 2027-01-01
  rental blocks remove sea-view blk_7QX2MF4H8KPA";

/// `rental blocks ...`.
#[derive(Debug, Subcommand)]
pub enum BlocksCommand {
    /// Close nights: --from is the first night, --to the day after the last
    #[command(after_help = "Nights a pending or confirmed stay holds cannot be blocked; blocks may
overlap each other. 1 to 366 nights, not before the property's today; the
note is at most 500 characters.

Example:
  rental blocks add sea-view --from 2026-12-01 --to 2026-12-05 --note \"owner stay\"")]
    Add {
        /// The property's slug
        property: String,
        /// The first night to close
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        from: NaiveDate,
        /// The day after the last night to close
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        to: NaiveDate,
        /// Why, for the record
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
        /// Print the block as the API's JSON
        #[arg(long)]
        json: bool,
    },
    /// List the blocks (manual and imported) holding a night in [--from, --to)
    #[command(after_help = "--from defaults to the property's today, --to to 30 days after --from.

Example:
  rental blocks list sea-view --from 2026-12-01 --to 2027-01-01 --json")]
    List {
        /// The property's slug
        property: String,
        /// The first night
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        from: Option<NaiveDate>,
        /// The day after the last night
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        to: Option<NaiveDate>,
        /// Print {"data": [Block...]} as the API does
        #[arg(long)]
        json: bool,
    },
    /// Remove a manual block, reopening its nights (a feed's blocks belong to the feed)
    #[command(after_help = "Example:
  rental blocks remove sea-view blk_7QX2MF4H8KPA")]
    Remove {
        /// The property's slug
        property: String,
        /// The block's id
        id: String,
    },
}

/// Runs a `rental blocks` command on the local store.
pub fn run(command: &BlocksCommand, engine: &Rental<impl Store>) -> Result<Printed, CliError> {
    match command {
        BlocksCommand::Add { property, from, to, note, json } => {
            let req = NewBlock { start_date: *from, end_date: *to, note: note.clone() };
            Ok(added(
                &serde_json::to_value(engine.calendars().create_block(property, &req)?.public()).unwrap_or_default(),
                *json,
            ))
        }
        BlocksCommand::List { property, from, to, json } => {
            let data: Vec<Value> = engine
                .calendars()
                .blocks(property, *from, *to)?
                .iter()
                .map(|b| serde_json::to_value(b.public()).unwrap_or_default())
                .collect();
            Ok(list(&data, *json))
        }
        BlocksCommand::Remove { property, id } => {
            engine.calendars().remove_block(property, id)?;
            Ok(removed(id))
        }
    }
}

/// Runs a `rental blocks` command through the API of a running server.
pub fn run_remote(command: &BlocksCommand, remote: &Remote) -> Result<Printed, CliError> {
    match command {
        BlocksCommand::Add { property, from, to, note, json } => {
            let req = NewBlock { start_date: *from, end_date: *to, note: note.clone() };
            Ok(added(&remote.post_json(&blocks_path(property), &req)?, *json))
        }
        BlocksCommand::List { property, from, to, json } => {
            let path = remote::with_query(
                &blocks_path(property),
                &[("from", from.map(|d| d.to_string())), ("to", to.map(|d| d.to_string()))],
            );
            let page = remote.get_json(&path)?;
            let data = page
                .get("data")
                .and_then(Value::as_array)
                .cloned()
                .ok_or_else(|| RemoteError::BadResponse("a block list without data".into()))?;
            Ok(list(&data, *json))
        }
        BlocksCommand::Remove { property, id } => {
            remote.delete_json(&format!("{}/{}", blocks_path(property), remote::encode(id)))?;
            Ok(removed(id))
        }
    }
}

fn blocks_path(property: &str) -> String {
    format!("/api/v1/properties/{}/blocks", remote::encode(property))
}

fn text(block: &Value, field: &str) -> String {
    block.get(field).and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn added(block: &Value, json: bool) -> Printed {
    if json {
        return output::json(block).into();
    }
    let (id, from, to) = (text(block, "id"), text(block, "startDate"), text(block, "endDate"));
    format!("{id}: {} closed from {from} to {to}\n", text(block, "property")).into()
}

fn list(blocks: &[Value], json: bool) -> Printed {
    if json {
        return output::json(&serde_json::json!({ "data": blocks })).into();
    }
    let mut table = Table::new(&[
        ("ID", Align::Left),
        ("FROM", Align::Left),
        ("TO", Align::Left),
        ("SOURCE", Align::Left),
        ("NOTE", Align::Left),
    ]);
    for b in blocks {
        table.row(vec![text(b, "id"), text(b, "startDate"), text(b, "endDate"), text(b, "source"), text(b, "note")]);
    }
    table.render().into()
}

fn removed(id: &str) -> Printed {
    format!("{id}: removed, its nights are open again\n").into()
}
