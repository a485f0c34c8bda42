//! `rental bookings list|show|messages|confirm|cancel|change`: find bookings with the
//! API's filters and take them through their lifecycle as the host, on the local
//! store or through a running server's API (`--url`); the output is the same.

use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Subcommand};
use rental_core::booking::Cursor;
use rental_core::change::Change;
use rental_core::lifecycle::Party;
use rental_core::message::MessageView;
use rental_core::{Action, Booking, BookingQuery, Slug, Source, Status};
use rental_core::{Rental, Store};
use serde::{Deserialize, Serialize};

mod print;

use self::print::{MessagesJson, Shown, acted, changed, list, messages, show};
use crate::commands::{Printed, parse_date};
use crate::config::Config;
use crate::error::CliError;
use crate::remote::{self, Remote, RemoteArgs, RemoteError};
use rental_core::stay_link::StayLinks;

/// `rental bookings [--url U --api-key K] ...`.
#[derive(Debug, Args)]
pub struct BookingsArgs {
    /// Where the bookings are: the local data directory, or a running server
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// What to do
    #[command(subcommand)]
    pub command: BookingsCommand,
}

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
    /// Show the guest messages of one booking: what went out, when, and what is scheduled
    #[command(after_help = MESSAGES_HELP)]
    Messages {
        /// The booking's code
        code: String,
        /// Print the messages as the API's JSON
        #[arg(long)]
        json: bool,
    },
    /// Show the payments of one booking: installments, deposit and refunds
    #[command(after_help = super::ledger::HELP)]
    Payments {
        /// The booking's code
        code: String,
        /// Print the payments as the API's JSON
        #[arg(long)]
        json: bool,
    },
    /// Give money back to the guest through the payment provider (a goodwill refund; needs --url)
    #[command(after_help = super::ledger::REFUND_HELP)]
    Refund {
        /// The booking's code
        code: String,
        /// How much, in the currency's minor unit (5000 is €50.00; ¥ has none)
        amount: i64,
        /// Why, kept on the refund
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// Print the refunds as the API's JSON
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
    /// Change a booking's dates or guests; it is re-checked and re-priced
    #[command(after_help = CHANGE_HELP)]
    Change {
        /// The booking's code
        code: String,
        /// The new arrival date (YYYY-MM-DD)
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        check_in: Option<NaiveDate>,
        /// The new departure date (YYYY-MM-DD)
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        check_out: Option<NaiveDate>,
        /// The new number of guests
        #[arg(long, value_name = "N")]
        guests: Option<u32>,
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
  rental bookings list --from 2026-12-01 --to 2027-01-01 --json
  rental bookings list --url http://127.0.0.1:8080 --api-key \"$KEY\" --status pending";

const SHOW_HELP: &str = "Examples:
  rental bookings show BK-7QX2MF
  rental bookings show BK-7QX2MF --json";

const MESSAGES_HELP: &str = "Each e-mail the booking caused, in the order recorded, with its status
(scheduled, sent, failed, skipped, cancelled), when it is or was due, when the
mail server took it, the attempts and the last error.

Examples:
  rental bookings messages BK-7QX2MF
  rental bookings messages BK-7QX2MF --json";

const CONFIRM_HELP: &str = "Confirming a booking that is already confirmed changes nothing.

Example:
  rental bookings confirm BK-7QX2MF";

const CANCEL_HELP: &str = "A paid booking is refunded. A confirmed stay that has ended cannot be
cancelled; cancelling a cancelled booking changes nothing.

Examples:
  rental bookings cancel BK-7QX2MF
  rental bookings cancel BK-7QX2MF --by guest --reason \"flight cancelled\"";

const CHANGE_HELP: &str = "Give at least one of --check-in, --check-out and --guests; the others keep
their values. The new stay is checked like a new booking (its own nights
count as free) and re-priced at today's rates; the payment status stays.
Pending and confirmed stays that have not ended can change, except those a
channel feed imported. The same values change nothing.

Examples:
  rental bookings change BK-7QX2MF --check-in 2026-12-21 --check-out 2026-12-28
  rental bookings change BK-7QX2MF --guests 2 --json";

/// A page as the API writes it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageJson {
    data: Vec<Booking>,
    next_cursor: Option<String>,
}

/// Runs a `rental bookings` command on the local store.
pub fn run(command: &BookingsCommand, engine: &Rental<impl Store>, config: &Config) -> Result<Printed, CliError> {
    match command {
        BookingsCommand::List(args) => {
            let page = engine.bookings(&query(args))?;
            let page = PageJson { data: page.data, next_cursor: page.next.as_ref().map(Cursor::encode) };
            Ok(list(&page, args.json))
        }
        BookingsCommand::Show { code, json } => {
            let booking = engine.booking(&normalize(code))?;
            let links = StayLinks::new(&crate::page_secret::load_or_make(&config.data_dir)?);
            let stay_url = links.url(&config.base_url, &booking);
            Ok(show(&Shown { booking, stay_url: Some(stay_url) }, *json).into())
        }
        BookingsCommand::Messages { code, json } => {
            let code = normalize(code);
            let data = engine.messages(&code)?.iter().map(MessageView::from).collect();
            let zone = engine.property(engine.booking(&code)?.property.as_str())?.timezone;
            Ok(messages(&MessagesJson { data }, zone, *json))
        }
        BookingsCommand::Payments { code, json } => {
            let code = normalize(code);
            let data = engine.payments(&code)?.iter().map(rental_core::payments::PaymentView::from).collect();
            let zone = engine.property(engine.booking(&code)?.property.as_str())?.timezone;
            Ok(super::ledger::payments(&super::ledger::PaymentsJson { data }, zone, *json))
        }
        BookingsCommand::Refund { .. } => Err(CliError::Usage(
            "a refund goes through the server's payment provider: run it with --url and a key with the write scope"
                .to_owned(),
        )),
        BookingsCommand::Confirm { code, json } => {
            Ok(acted(&engine.update_booking(&normalize(code), &Action::Confirm)?, *json))
        }
        BookingsCommand::Cancel { code, by, reason, json } => {
            let action = Action::Cancel { by: *by, reason: reason.clone() };
            Ok(acted(&engine.update_booking(&normalize(code), &action)?, *json))
        }
        BookingsCommand::Change { code, check_in, check_out, guests, json } => {
            let action = Action::Change(Change { check_in: *check_in, check_out: *check_out, guests: *guests });
            Ok(changed(&engine.update_booking(&normalize(code), &action)?, *json))
        }
    }
}

/// Runs a `rental bookings` command through the API of a running server.
pub fn run_remote(command: &BookingsCommand, remote: &Remote) -> Result<Printed, CliError> {
    match command {
        BookingsCommand::List(args) => Ok(list(&decode(remote.get_json(&list_path(args))?)?, args.json)),
        BookingsCommand::Show { code, json } => Ok(show(&decode(remote.get_json(&booking_path(code))?)?, *json).into()),
        BookingsCommand::Messages { code, json } => {
            let path = format!("{}/messages", booking_path(code));
            let list = decode(remote.get_json(&path)?)?;
            let booking: Booking = decode(remote.get_json(&booking_path(code))?)?;
            let property = remote.get_json(&format!("/api/v1/properties/{}", booking.property))?;
            let zone = property["timezone"].as_str().and_then(|z| z.parse().ok()).unwrap_or(rental_core::Tz::UTC);
            Ok(messages(&list, zone, *json))
        }
        BookingsCommand::Payments { code, json } => {
            let list = decode(remote.get_json(&format!("{}/payments", booking_path(code)))?)?;
            let booking: Booking = decode(remote.get_json(&booking_path(code))?)?;
            let property = remote.get_json(&format!("/api/v1/properties/{}", booking.property))?;
            let zone = property["timezone"].as_str().and_then(|z| z.parse().ok()).unwrap_or(rental_core::Tz::UTC);
            Ok(super::ledger::payments(&list, zone, *json))
        }
        BookingsCommand::Refund { code, amount, reason, json } => {
            let body = serde_json::json!({"amount": amount, "reason": reason});
            let made = decode(remote.post_json(&format!("{}/refunds", booking_path(code)), &body)?)?;
            let booking: Booking = decode(remote.get_json(&booking_path(code))?)?;
            let property = remote.get_json(&format!("/api/v1/properties/{}", booking.property))?;
            let zone = property["timezone"].as_str().and_then(|z| z.parse().ok()).unwrap_or(rental_core::Tz::UTC);
            Ok(super::ledger::payments(&made, zone, *json))
        }
        BookingsCommand::Confirm { code, json } => patch(remote, code, &Action::Confirm, *json, acted),
        BookingsCommand::Cancel { code, by, reason, json } => {
            let action = Action::Cancel { by: *by, reason: reason.clone() };
            patch(remote, code, &action, *json, acted)
        }
        BookingsCommand::Change { code, check_in, check_out, guests, json } => {
            let action = Action::Change(Change { check_in: *check_in, check_out: *check_out, guests: *guests });
            patch(remote, code, &action, *json, changed)
        }
    }
}

/// `PATCH /api/v1/bookings/{code}` with `action`, the answer printed by `print`. A
/// key without the `read` scope gets `204 No Content`: the change is done, unseen.
fn patch(
    remote: &Remote,
    code: &str,
    action: &Action,
    json: bool,
    print: fn(&Booking, bool) -> Printed,
) -> Result<Printed, CliError> {
    let answer = remote.patch_json(&booking_path(code), action)?;
    if answer.is_null() {
        let data = if json { String::new() } else { format!("{}: done\n", normalize(code)) };
        let note = "the API key lacks the read scope, so the server does not show the booking".to_owned();
        return Ok(Printed { data, note: Some(note) });
    }
    Ok(print(&decode(answer)?, json))
}

/// `GET /api/v1/bookings` with the filters of `args`.
fn list_path(args: &ListArgs) -> String {
    let q = query(args);
    let statuses: Vec<String> = q.statuses.iter().map(ToString::to_string).collect();
    remote::with_query(
        "/api/v1/bookings",
        &[
            ("status", (!statuses.is_empty()).then(|| statuses.join(","))),
            ("property", q.property.map(|p| p.to_string())),
            ("source", q.source.map(|s| s.to_string())),
            ("from", q.from.map(|d| d.to_string())),
            ("to", q.to.map(|d| d.to_string())),
            ("updatedSince", q.updated_since.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))),
            ("limit", Some(q.limit.to_string())),
            ("cursor", q.after.as_ref().map(Cursor::encode)),
        ],
    )
}

fn booking_path(code: &str) -> String {
    format!("/api/v1/bookings/{}", remote::encode(&normalize(code)))
}

/// The API's JSON as the library's type.
fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, CliError> {
    serde_json::from_value(value).map_err(|e| RemoteError::BadResponse(e.to_string()).into())
}

fn query(args: &ListArgs) -> BookingQuery {
    BookingQuery {
        statuses: args.status.clone(),
        property: args.property.clone(),
        source: args.source.clone(),
        from: args.from,
        to: args.to,
        updated_since: args.updated_since,
        after: args.cursor.clone(),
        limit: usize::from(args.limit),
    }
}

/// Booking codes are upper case; people type them in any case.
fn normalize(code: &str) -> String {
    code.trim().to_ascii_uppercase()
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
