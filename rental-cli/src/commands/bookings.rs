//! `rental bookings list|show|confirm|cancel`: find bookings with the API's
//! filters and take them through their lifecycle as the host.

use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Subcommand};
use rental_core::booking::{Cursor, Page};
use rental_core::lifecycle::Party;
use rental_core::{Action, Booking, BookingQuery, Slug, Source, Status};
use serde::Serialize;

use crate::commands::{Printed, parse_date};
use crate::engine::Engine;
use crate::error::CliError;
use crate::output::{self, Align, Table};

/// `rental bookings ...`.
#[derive(Debug, Subcommand)]
pub enum BookingsCommand {
    /// List bookings by check-in date, then code, a page at a time
    #[command(after_help = LIST_HELP)]
    List(ListArgs),
    /// Show one booking
    #[command(after_help = SHOW_HELP)]
    Show {
        /// The booking's code
        code: String,
        /// Print the booking as the API's JSON
        #[arg(long)]
        json: bool,
    },
    /// Confirm a pending booking (its payment is captured)
    #[command(after_help = CONFIRM_HELP)]
    Confirm {
        /// The booking's code
        code: String,
        /// Print the booking as the API's JSON
        #[arg(long)]
        json: bool,
    },
    /// Cancel a pending or confirmed booking, releasing its nights
    #[command(after_help = CANCEL_HELP)]
    Cancel {
        /// The booking's code
        code: String,
        /// Who cancels: host or guest
        #[arg(long, value_name = "WHO", default_value = "host", value_parser = parse_party)]
        by: Party,
        /// Why, for the record
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// Print the booking as the API's JSON
        #[arg(long)]
        json: bool,
    },
}

/// The filters of `rental bookings list` (those of `GET /api/v1/bookings`).
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only these statuses: pending, confirmed, cancelled (comma-separated)
    #[arg(long, value_name = "STATUSES", value_delimiter = ',')]
    status: Vec<Status>,
    /// Only this property (slug)
    #[arg(long, value_name = "SLUG", value_parser = parse_slug)]
    property: Option<Slug>,
    /// Only bookings from this source: api, admin, cli, agent, or a channel feed's name
    #[arg(long, value_name = "SOURCE", value_parser = parse_source)]
    source: Option<Source>,
    /// Only stays with a night on or after this date
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    from: Option<NaiveDate>,
    /// Only stays with a night before this date
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    to: Option<NaiveDate>,
    /// Only bookings changed at or after this time (RFC 3339, such as 2026-11-22T07:39:21Z)
    #[arg(long, value_name = "TIME", value_parser = parse_timestamp)]
    updated_since: Option<DateTime<Utc>>,
    /// Page size, 1 to 200
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..=200))]
    limit: u16,
    /// Where to start: the cursor a previous page ended with
    #[arg(long, value_name = "CURSOR", value_parser = parse_cursor)]
    cursor: Option<Cursor>,
    /// Print {"data": [Booking...], "nextCursor": ...} as the API does
    #[arg(long)]
    json: bool,
}

const LIST_HELP: &str = "Stays overlapping [--from, --to) are listed. When there are more, the
command that fetches the next page is printed on stderr.

Examples:
  rental bookings list
  rental bookings list --status pending,confirmed --property sea-view
  rental bookings list --from 2026-12-01 --to 2027-01-01 --json";

const SHOW_HELP: &str = "Examples:
  rental bookings show BK-7QX2MF
  rental bookings show BK-7QX2MF --json";

const CONFIRM_HELP: &str = "Confirming a booking that is already confirmed changes nothing.

Example:
  rental bookings confirm BK-7QX2MF";

const CANCEL_HELP: &str = "A paid booking is refunded. A confirmed stay that has ended cannot be
cancelled; cancelling a cancelled booking changes nothing.

Examples:
  rental bookings cancel BK-7QX2MF
  rental bookings cancel BK-7QX2MF --by guest --reason \"flight cancelled\"";

/// A page as the API writes it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PageJson<'a> {
    data: &'a [Booking],
    next_cursor: Option<String>,
}

/// Runs a `rental bookings` command.
pub fn run(command: &BookingsCommand, engine: &Engine) -> Result<Printed, CliError> {
    match command {
        BookingsCommand::List(args) => list(engine, args),
        BookingsCommand::Show { code, json } => Ok(show(&engine.booking(&normalize(code))?, *json).into()),
        BookingsCommand::Confirm { code, json } => act(engine, code, &Action::Confirm, *json),
        BookingsCommand::Cancel { code, by, reason, json } => {
            act(engine, code, &Action::Cancel { by: *by, reason: reason.clone() }, *json)
        }
    }
}

/// Booking codes are upper case; people type them in any case.
fn normalize(code: &str) -> String {
    code.trim().to_ascii_uppercase()
}

fn list(engine: &Engine, args: &ListArgs) -> Result<Printed, CliError> {
    let page = engine.bookings(&BookingQuery {
        statuses: args.status.clone(),
        property: args.property.clone(),
        source: args.source.clone(),
        from: args.from,
        to: args.to,
        updated_since: args.updated_since,
        after: args.cursor.clone(),
        limit: usize::from(args.limit),
    })?;
    let next = page.next.as_ref().map(Cursor::encode);
    if args.json {
        return Ok(output::json(&PageJson { data: &page.data, next_cursor: next }).into());
    }
    let note = next.map(|c| format!("more bookings: rental bookings list --cursor {c} (with the same filters)"));
    Ok(Printed { data: table(&page), note })
}

fn table(page: &Page) -> String {
    let mut table = Table::new(&[
        ("CODE", Align::Left),
        ("PROPERTY", Align::Left),
        ("CHECK-IN", Align::Left),
        ("CHECK-OUT", Align::Left),
        ("NIGHTS", Align::Right),
        ("GUESTS", Align::Right),
        ("GUEST", Align::Left),
        ("STATUS", Align::Left),
        ("PAYMENT", Align::Left),
        ("TOTAL", Align::Right),
        ("SOURCE", Align::Left),
    ]);
    for b in &page.data {
        table.row(vec![
            b.code.to_string(),
            b.property.to_string(),
            output::day(b.check_in()),
            output::day(b.check_out()),
            b.nights.to_string(),
            b.guests.to_string(),
            b.guest_name.clone(),
            b.status.to_string(),
            b.payment_status.to_string(),
            output::money(b.total),
            b.source.to_string(),
        ]);
    }
    table.render()
}

fn show(b: &Booking, json: bool) -> String {
    if json {
        return output::json(b);
    }
    let guest =
        if b.guest_email.is_empty() { b.guest_name.clone() } else { format!("{} <{}>", b.guest_name, b.guest_email) };
    let mut fields = vec![
        ("Code", b.code.to_string()),
        ("Property", format!("{} ({})", b.property_name, b.property)),
        ("Guest", guest),
        ("Guests", b.guests.to_string()),
        ("Stay", format!("{} to {}, {} nights", output::day(b.check_in()), output::day(b.check_out()), b.nights)),
        ("Status", b.status.to_string()),
        ("Payment", b.payment_status.to_string()),
        ("Total", format!("{} ({})", output::money(b.total), b.currency)),
        ("Source", b.source.to_string()),
        ("Created", output::when(b.created_at)),
        ("Updated", output::when(b.updated_at)),
    ];
    if let Some(by) = b.cancelled_by {
        fields.push(("Cancelled by", by.to_string()));
    }
    if let Some(reason) = &b.cancel_reason {
        fields.push(("Reason", reason.clone()));
    }
    for note in &b.notes {
        fields.push(("Note", format!("{} ({})", note.text, output::when(note.at))));
    }
    output::fields(&fields)
}

fn act(engine: &Engine, code: &str, action: &Action, json: bool) -> Result<Printed, CliError> {
    let b = engine.update_booking(&normalize(code), action)?;
    if json {
        return Ok(output::json(&b).into());
    }
    let by = b.cancelled_by.map(|by| format!(" by {by}")).unwrap_or_default();
    Ok(format!("{}: {}{by}, payment {}\n", b.code, b.status, b.payment_status).into())
}

fn parse_party(s: &str) -> Result<Party, String> {
    match s {
        "host" => Ok(Party::Host),
        "guest" => Ok(Party::Guest),
        other => Err(format!("{other:?} is not host or guest")),
    }
}

fn parse_slug(s: &str) -> Result<Slug, String> {
    Slug::parse(s).map_err(|e| e.to_string())
}

fn parse_source(s: &str) -> Result<Source, String> {
    Source::parse(s).map_err(|e| e.to_string())
}

fn parse_timestamp(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.to_utc())
        .map_err(|_| format!("{s:?} is not a time like 2026-11-22T07:39:21Z"))
}

fn parse_cursor(s: &str) -> Result<Cursor, String> {
    Cursor::decode(s).ok_or_else(|| format!("{s:?} is not a cursor from a previous page"))
}
