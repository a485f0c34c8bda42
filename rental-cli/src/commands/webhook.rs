//! `rental webhook add|list|remove|verify`: register the URLs that receive
//! events, and check a delivery's signature. A new webhook's secret is
//! printed once; `verify` needs no store, so it works while a server runs.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use rental_core::EventName;
use rental_core::webhook::{self, Subscription, Webhook};
use serde::Serialize;

use crate::commands::Printed;
use crate::engine::Engine;
use crate::error::CliError;
use crate::output::{self, Align, Table};

/// `rental webhook ...`.
#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Register a URL that receives events, and print its signing secret (shown only this once)
    #[command(after_help = ADD_HELP)]
    Add {
        /// Where events are sent: an http or https URL
        #[arg(long, value_name = "URL")]
        url: String,
        /// Which events: * for all, or comma-separated names such as booking.created,booking.cancelled
        #[arg(long, value_name = "EVENTS", default_value = "*", value_parser = parse_events)]
        events: Subscription,
        /// The signing secret, at least 8 characters (default: a new random one)
        #[arg(long, value_name = "SECRET")]
        secret: Option<String>,
        /// Print {"id", "url", "events", "secret", "active", "createdAt"}
        #[arg(long)]
        json: bool,
    },
    /// List every webhook: id, URL, events, whether active, when created (never the secret)
    #[command(after_help = LIST_HELP)]
    List {
        /// Print the webhooks (without their secrets) as a JSON array
        #[arg(long)]
        json: bool,
    },
    /// Remove a webhook by its id; its deliveries not yet made are given up
    #[command(after_help = REMOVE_HELP)]
    Remove {
        /// The webhook's id (wh_...)
        id: String,
    },
    /// Check a delivery's X-SVC-Signature against its body; exit 0 when valid, 1 when not
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
}

/// Arguments of `rental webhook verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The webhook's secret
    #[arg(long, value_name = "SECRET")]
    secret: String,
    /// The X-SVC-Signature header value: sha256= and 64 hex digits
    #[arg(long, value_name = "SIGNATURE", value_parser = parse_signature)]
    signature: String,
    /// The body, byte for byte as received (default, or -: stdin)
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

const ADD_HELP: &str = "Events: booking.created, booking.confirmed, booking.cancelled, booking.updated,
booking.payment_authorized, booking.payment_expired, calendar.synced, or * for all.
Each delivery is a POST of JSON signed in X-SVC-Signature with the secret.

Examples:
  rental webhook add --url https://example.com/hooks/rental
  rental webhook add --url https://example.com/hooks/rental --events booking.created,booking.cancelled
  rental webhook add --url https://example.com/hooks/rental --secret \"$SECRET\" --json";

const LIST_HELP: &str = "Examples:
  rental webhook list
  rental webhook list --json";

const REMOVE_HELP: &str = "Examples:
  rental webhook remove wh_3kTq9VbX1mZp";

const VERIFY_HELP: &str = "The body must be the raw bytes that were POSTed: a copy that was re-indented,
re-encoded or had a newline added no longer matches. This command does not
open the store, so it works while a server runs.

Examples:
  rental webhook verify --secret \"$SECRET\" --signature \"$SIGNATURE\" body.json
  rental webhook verify --secret \"$SECRET\" --signature \"$SIGNATURE\" < body.json";

/// A webhook as `list` shows it: everything but the secret.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    id: &'a str,
    url: &'a str,
    events: &'a Subscription,
    active: bool,
    created_at: String,
}

impl<'a> From<&'a Webhook> for Listed<'a> {
    fn from(w: &'a Webhook) -> Self {
        Listed {
            id: &w.id,
            url: &w.url,
            events: &w.events,
            active: w.active,
            created_at: rental_core::timestamp::format(&w.created_at),
        }
    }
}

/// Runs a `rental webhook` command on the local engine.
pub fn run(command: &WebhookCommand, engine: &Engine) -> Result<Printed, CliError> {
    match command {
        WebhookCommand::Add { url, events, secret, json } => add(engine, url, events, secret.as_deref(), *json),
        WebhookCommand::List { json } => list(engine, *json).map(Printed::from),
        WebhookCommand::Remove { id } => {
            engine.remove_webhook(id)?;
            Ok(format!("removed {id}\n").into())
        }
        WebhookCommand::Verify(_) => {
            unreachable!("verify needs no store; main dispatches it before opening one")
        }
    }
}

fn add(
    engine: &Engine,
    url: &str,
    events: &Subscription,
    secret: Option<&str>,
    json: bool,
) -> Result<Printed, CliError> {
    let webhook = engine.add_webhook(url, events.clone(), secret.map(str::to_owned))?;
    if json {
        return Ok(output::json(&webhook).into());
    }
    let data = output::fields(&[
        ("Id", webhook.id.clone()),
        ("URL", webhook.url.clone()),
        ("Events", events_text(&webhook.events)),
        ("Secret", webhook.secret.clone()),
    ]);
    let note = "The secret is shown only this once: give it to the receiver, which checks X-SVC-Signature with it.";
    Ok(Printed { data, note: Some(note.to_owned()) })
}

fn list(engine: &Engine, json: bool) -> Result<String, CliError> {
    let webhooks = engine.webhooks()?;
    if json {
        return Ok(output::json(&webhooks.iter().map(Listed::from).collect::<Vec<_>>()));
    }
    let mut table = Table::new(&[
        ("ID", Align::Left),
        ("URL", Align::Left),
        ("EVENTS", Align::Left),
        ("ACTIVE", Align::Left),
        ("CREATED", Align::Left),
    ]);
    for w in &webhooks {
        table.row(vec![
            w.id.clone(),
            w.url.clone(),
            events_text(&w.events),
            if w.active { "yes" } else { "no" }.to_owned(),
            output::when(w.created_at),
        ]);
    }
    Ok(table.render())
}

fn events_text(events: &Subscription) -> String {
    match events {
        Subscription::All(_) => "*".to_owned(),
        Subscription::Named(names) => names.iter().map(ToString::to_string).collect::<Vec<_>>().join(","),
    }
}

/// Checks the signature of the body in the file or on stdin: `valid`, or
/// [`CliError::InvalidSignature`] (exit 1).
pub fn verify(args: &VerifyArgs) -> Result<Printed, CliError> {
    let body = match args.file.as_deref() {
        None => read_stdin()?,
        Some(path) if path == Path::new("-") => read_stdin()?,
        Some(path) => std::fs::read(path)
            .map_err(|e| CliError::Input { path: path.to_owned(), message: format!("cannot read: {e}") })?,
    };
    if webhook::verify(args.secret.as_bytes(), &body, &args.signature) {
        Ok("valid\n".to_owned().into())
    } else {
        Err(CliError::InvalidSignature)
    }
}

fn read_stdin() -> Result<Vec<u8>, CliError> {
    let mut body = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut body)
        .map_err(|e| CliError::Input { path: "<stdin>".into(), message: format!("cannot read: {e}") })?;
    Ok(body)
}

/// `*` or comma-separated event names; a wrong name lists the right ones.
fn parse_events(s: &str) -> Result<Subscription, String> {
    Subscription::parse(s).map_err(|e| {
        let names: Vec<&str> = EventName::ALL.iter().map(|e| e.as_str()).collect();
        format!("{e}; the events are {}, or * for all", names.join(", "))
    })
}

/// `sha256=` and 64 hex digits, as the header carries it; whether it matches is for `verify` to say.
fn parse_signature(s: &str) -> Result<String, String> {
    let hex = s.trim().strip_prefix("sha256=").unwrap_or_default();
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(s.to_owned())
    } else {
        Err("expected sha256= followed by 64 hex digits, the X-SVC-Signature header's value".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_a_star_or_known_names() {
        assert_eq!(events_text(&parse_events("*").unwrap()), "*");
        let some = parse_events("booking.created,calendar.synced").unwrap();
        assert_eq!(events_text(&some), "booking.created,calendar.synced");
        let wrong = parse_events("booking.nope").unwrap_err();
        assert!(
            wrong.contains("booking.nope") && wrong.contains("booking.payment_expired, calendar.synced"),
            "{wrong}"
        );
        assert!(parse_events("").is_err());
    }

    #[test]
    fn a_signature_must_look_like_the_header() {
        let good = webhook::sign(b"k", b"{}");
        let cases = [
            (good.as_str(), true),
            ("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", true),
            ("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", false),
            ("sha256=5bdcc146", false),
            ("sha256=zzdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", false),
            ("", false),
        ];
        for (signature, ok) in cases {
            assert_eq!(parse_signature(signature).is_ok(), ok, "{signature:?}");
        }
    }
}
