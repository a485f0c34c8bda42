//! `rental quote`: prices a stay as the API would, night by night, with the
//! discount, fees, taxes and the reasons it could not be booked; on the local
//! store or through a running server's API (`--url`).

use chrono::NaiveDate;
use clap::Args;
use rental_core::QuoteRequest;
use rental_core::pricing::{Problem, Quote};
use rental_core::{Rental, Store};

use crate::commands::parse_date;
use crate::error::CliError;
use crate::output;
use crate::remote::{self, Remote, RemoteArgs, RemoteError};

/// `rental quote ...`.
#[derive(Debug, Args)]
#[command(after_help = QUOTE_HELP)]
pub struct QuoteArgs {
    /// The property's slug
    #[arg(long, value_name = "SLUG")]
    property: String,
    /// Arrival date (the first night)
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    check_in: NaiveDate,
    /// Departure date (the morning after the last night)
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    check_out: NaiveDate,
    /// Number of guests
    #[arg(long, value_name = "N", default_value_t = 1)]
    guests: u32,
    /// Print the quote as the API's JSON (amounts in cents)
    #[arg(long)]
    json: bool,
    /// Where the property is: the local data directory, or a running server
    #[command(flatten)]
    pub remote: RemoteArgs,
}

const QUOTE_HELP: &str = "A stay that cannot be booked (taken nights, too short, too many guests,
in the past) is still priced, with its problems listed; the command
succeeds either way.

Examples:
  rental quote --property sea-view --check-in 2026-12-20 --check-out 2026-12-27 --guests 3
  rental quote --property sea-view --check-in 2026-12-20 --check-out 2026-12-27 --json
  rental quote --url http://127.0.0.1:8080 --api-key \"$KEY\" --property sea-view --check-in 2026-12-20 --check-out 2026-12-27";

/// Runs `rental quote` on the local store.
pub fn run(args: &QuoteArgs, engine: &Rental<impl Store>) -> Result<String, CliError> {
    let quote = engine.quote(&request(args)?)?;
    if args.json {
        return Ok(output::json(&quote));
    }
    let name = engine.property(quote.property.as_str())?.name;
    Ok(render(&quote, &name))
}

/// Runs `rental quote` through the API of a running server.
pub fn run_remote(args: &QuoteArgs, remote: &Remote) -> Result<String, CliError> {
    let bad = |e: serde_json::Error| RemoteError::BadResponse(e.to_string());
    let quote: Quote = serde_json::from_value(remote.post_json("/api/v1/quotes", &request(args)?)?).map_err(bad)?;
    if args.json {
        return Ok(output::json(&quote));
    }
    let path = format!("/api/v1/properties/{}", remote::encode(quote.property.as_str()));
    let property = remote.get_json(&path)?;
    let name = property["name"].as_str().unwrap_or(quote.property.as_str()).to_owned();
    Ok(render(&quote, &name))
}

/// The request of `args`; a malformed slug names no property, as the server says too.
fn request(args: &QuoteArgs) -> rental_core::Result<QuoteRequest> {
    let unknown = |_| rental_core::Error::NotFound(rental_core::NotFound::Property(args.property.clone()));
    Ok(QuoteRequest {
        property: args.property.parse().map_err(unknown)?,
        check_in: args.check_in,
        check_out: args.check_out,
        guests: args.guests,
    })
}

fn render(quote: &Quote, name: &str) -> String {
    let guests = if quote.guests == 1 { "guest" } else { "guests" };
    let nights = if quote.nights == 1 { "night" } else { "nights" };
    let mut out = format!(
        "{} ({})\n{} to {}: {} {nights}, {} {guests}\n\n",
        output::visible(name),
        quote.property,
        output::day(quote.check_in),
        output::day(quote.check_out),
        quote.nights,
        quote.guests,
    );
    out.push_str(&output::ledger(&lines(quote)));
    out.push('\n');
    out.push_str(&availability(&quote.problems));
    out
}

fn lines(quote: &Quote) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> =
        quote.nightly.iter().map(|n| (output::day(n.date), output::money(n.price, &quote.currency))).collect();
    lines.push(("Accommodation".into(), output::money(quote.accommodation, &quote.currency)));
    if quote.discount != 0 {
        lines.push(("Discount".into(), output::money(-quote.discount, &quote.currency)));
    }
    if quote.extra_guest_fee != 0 {
        lines.push(("Extra guest fee".into(), output::money(quote.extra_guest_fee, &quote.currency)));
    }
    lines.push(("Cleaning fee".into(), output::money(quote.cleaning_fee, &quote.currency)));
    lines.push(("Taxes".into(), output::money(quote.taxes, &quote.currency)));
    lines.push((format!("Total ({})", quote.currency), output::money(quote.total, &quote.currency)));
    lines
}

fn availability(problems: &[Problem]) -> String {
    if problems.is_empty() {
        return "Available\n".to_owned();
    }
    let lines: Vec<String> = problems.iter().map(|p| format!("  {}: {}\n", p.code(), problem_text(p))).collect();
    format!("Not available:\n{}", lines.concat())
}

fn problem_text(problem: &Problem) -> String {
    match problem {
        Problem::NightsTaken { dates } => {
            let dates: Vec<String> = dates.iter().map(|d| output::day(*d)).collect();
            format!("already taken: {}", dates.join(", "))
        }
        other => other.message(),
    }
}
