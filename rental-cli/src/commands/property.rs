//! `rental property import` and `rental property list`: load properties from
//! a file (upsert by slug, all or nothing) and show what the store holds.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use rental_core::{Rental, Store};
use serde::Serialize;

use crate::error::CliError;
use crate::output::{self, Align, Table};
use crate::property_file;

/// `rental property ...`.
#[derive(Debug, Subcommand)]
pub enum PropertyCommand {
    /// Insert or update properties from a JSON or TOML file, matched by slug
    ///
    /// Every property in the file is checked first; one bad property imports
    /// nothing. Properties already in the store but not in the file are kept.
    #[command(after_help = IMPORT_HELP)]
    Import {
        /// The file: JSON, or TOML when its name ends in .toml
        file: PathBuf,
        /// Print {"created": N, "updated": N} instead of a sentence
        #[arg(long)]
        json: bool,
    },
    /// List every property, active or not, by slug
    #[command(after_help = LIST_HELP)]
    List {
        /// Print the full property records as a JSON array, including the
        /// private fields (doorCode, wifiSsid, icalFeeds, active), in the form
        /// `rental property import` reads back
        #[arg(long)]
        json: bool,
    },
}

const IMPORT_HELP: &str = r#"JSON files hold an array of property objects (or one object) with the keys
of the API's Property (docs/API.md section 3), plus "active" (default true),
"doorCode", "wifiSsid" and "icalFeeds": [{"name": "airbnb", "url": "https://..."}].
Money is in cents; taxRate and discounts are basis points (1200 = 12 %).

TOML files hold one [[property]] table per property, with the same keys.
Dates and times may be written bare or quoted:

  [[property]]
  slug = "sea-view"
  name = "Sea View Cottage"
  timezone = "Europe/Lisbon"
  maxGuests = 4
  baseGuests = 2
  extraGuestFee = 2000        # cents per extra guest per night
  nightlyRate = 15000
  weekendRate = 18000         # Friday and Saturday nights
  cleaningFee = 6000
  taxRate = 1200
  minNights = 2
  checkInTime = 15:00
  checkOutTime = 11:00

  [[property.seasonalRates]]
  name = "Summer"
  startDate = 2026-06-01
  endDate = 2026-08-31        # inclusive
  nightlyRate = 22000
  minNights = 3

  [[property.icalFeeds]]
  name = "airbnb"
  url = "https://www.airbnb.com/calendar/ical/123.ics"

Examples:
  rental property import examples/demo-properties.json
  rental property import examples/demo-properties.toml"#;

const LIST_HELP: &str = "Examples:
  rental property list
  rental property list --json > properties.json";

/// What an import did.
#[derive(Debug, Serialize)]
struct Imported {
    created: usize,
    updated: usize,
}

/// Runs a `rental property` command.
pub fn run(command: &PropertyCommand, engine: &Rental<impl Store>) -> Result<String, CliError> {
    match command {
        PropertyCommand::Import { file, json } => import(engine, file, *json),
        PropertyCommand::List { json } => list(engine, *json),
    }
}

fn import(engine: &Rental<impl Store>, file: &Path, json: bool) -> Result<String, CliError> {
    let properties = property_file::read(file)?;
    let created = engine.import_properties(&properties)?;
    let result = Imported { created, updated: properties.len() - created };
    if json {
        return Ok(output::json(&result));
    }
    let noun = if properties.len() == 1 { "property" } else { "properties" };
    Ok(format!("imported {} {noun}: {} created, {} updated\n", properties.len(), result.created, result.updated))
}

fn list(engine: &Rental<impl Store>, json: bool) -> Result<String, CliError> {
    let properties = engine.all_properties()?;
    if json {
        return Ok(output::json(&properties));
    }
    let mut table = Table::new(&[
        ("SLUG", Align::Left),
        ("NAME", Align::Left),
        ("TIMEZONE", Align::Left),
        ("ACTIVE", Align::Left),
        ("NIGHTLY RATE", Align::Right),
        ("MAX GUESTS", Align::Right),
    ]);
    for p in &properties {
        table.row(vec![
            p.slug.to_string(),
            p.name.clone(),
            p.timezone.to_string(),
            if p.active { "yes" } else { "no" }.to_owned(),
            output::money(p.pricing.nightly_rate, &p.currency),
            p.pricing.max_guests.to_string(),
        ]);
    }
    Ok(table.render())
}
