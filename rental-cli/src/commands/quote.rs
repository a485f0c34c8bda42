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
    /// Number of guests, children included
    #[arg(long, value_name = "N", default_value_t = 1)]
    guests: u32,
    /// Of the guests, children under the tourist tax's exempt age
    #[arg(long, value_name = "N", default_value_t = 0)]
    children: u32,
    /// Pets coming along
    #[arg(long, value_name = "N", default_value_t = 0)]
    pets: u32,
    /// A promo code of the property
    #[arg(long, value_name = "CODE")]
    promo_code: Option<String>,
    /// Print the quote as the API's JSON (amounts in cents)
    #[arg(long)]
    json: bool,
    /// Where the property is: the local data directory, or a running server
    #[command(flatten)]
    pub remote: RemoteArgs,
}

const QUOTE_HELP: &str = "Every line of the quote is shown: each night's season rate and its price
after any lead-time adjustment, the one discount and its kind, fees, taxes
and the tourist tax. A stay that cannot be booked (taken nights, too short,
a weekday or notice rule, too many guests or pets, a promo code that cannot
be used) is still priced, with its problems listed; the command succeeds
either way.

Examples:
  rental quote --property sea-view --check-in 2026-12-20 --check-out 2026-12-27 --guests 3
  rental quote --property sea-view --check-in 2026-12-20 --check-out 2026-12-27 --guests 3 --children 1 --pets 1
  rental quote --property sea-view --check-in 2026-12-20 --check-out 2026-12-27 --promo-code WINTER --json
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
        children: args.children,
        pets: args.pets,
        promo_code: args.promo_code.clone(),
    })
}

fn render(quote: &Quote, name: &str) -> String {
    let guests = if quote.guests == 1 { "guest" } else { "guests" };
    let nights = if quote.nights == 1 { "night" } else { "nights" };
    let children =
        if quote.children > 0 { format!(" ({} under the exempt age)", quote.children) } else { String::new() };
    let pets = match quote.pets {
        0 => String::new(),
        1 => ", 1 pet".to_owned(),
        n => format!(", {n} pets"),
    };
    let party = format!("{} {guests}{children}{pets}", quote.guests);
    let mut out = format!(
        "{} ({})\n{} to {}: {} {nights}, {party}\n\n",
        output::visible(name),
        quote.property,
        output::day(quote.check_in),
        output::day(quote.check_out),
        quote.nights,
    );
    out.push_str(&output::ledger(&lines(quote)));
    out.push('\n');
    out.push_str(&availability(&quote.problems));
    out
}

fn lines(quote: &Quote) -> Vec<(String, String)> {
    let money = |amount| output::money(amount, &quote.currency);
    let night = |n: &rental_core::pricing::NightPrice| {
        let label = if n.base == n.price {
            output::day(n.date)
        } else {
            format!("{} (rate {}, adjusted)", output::day(n.date), money(n.base))
        };
        (label, money(n.price))
    };
    let mut lines: Vec<(String, String)> = quote.nightly.iter().map(night).collect();
    lines.push(("Accommodation".into(), money(quote.accommodation)));
    if quote.discount != 0 {
        let kind = quote.discount_kind.map_or("", |k| k.as_str());
        lines.push((format!("Discount ({})", kind.replace('_', " ")), money(-quote.discount)));
    }
    if quote.extra_guest_fee != 0 {
        lines.push(("Extra guest fee".into(), money(quote.extra_guest_fee)));
    }
    lines.push(("Cleaning fee".into(), money(quote.cleaning_fee)));
    if quote.pet_fee != 0 {
        lines.push(("Pet fee".into(), money(quote.pet_fee)));
    }
    lines.push(("Taxes".into(), money(quote.taxes)));
    if quote.tourist_tax != 0 {
        lines.push(("Tourist tax".into(), money(quote.tourist_tax)));
    }
    lines.push((format!("Total ({})", quote.currency), money(quote.total)));
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
