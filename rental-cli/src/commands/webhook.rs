//! `rental webhook add|list|remove|rotate-secret|verify`: register the URLs that
//! receive events, rotate their secrets, and check a delivery's signature.

mod verify;

use clap::Subcommand;
use rental_core::EventName;
use rental_core::webhook::{Subscription, Webhook};
use serde::Serialize;

pub use self::verify::{VerifyArgs, verify};
use rental_core::{Rental, Store};

use crate::commands::Printed;
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
    /// Give a webhook a new signing secret, printed once; the previous one keeps signing for 24 hours
    #[command(after_help = ROTATE_HELP)]
    RotateSecret {
        /// The webhook's id (wh_...)
        id: String,
        /// The new secret, at least 8 characters (default: a new random one)
        #[arg(long, value_name = "SECRET")]
        secret: Option<String>,
        /// Print {"id", "url", "secret", "previousSecretUntil"}
        #[arg(long)]
        json: bool,
    },
    /// Check a delivery's signature (X-SVC-Signature, or the Standard Webhooks headers) against its body; exit 0 when valid, 1 when not
    #[command(after_help = verify::VERIFY_HELP)]
    Verify(VerifyArgs),
}

const ADD_HELP: &str = "Events: booking.created, booking.confirmed, booking.cancelled, booking.updated,
booking.payment_authorized, booking.payment_expired, calendar.synced, or * for all.
Each delivery is a POST of JSON signed with the secret twice: X-SVC-Signature,
and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).
A generated secret is whsec_ and base64, the form Standard Webhooks libraries take.

Examples:
  rental webhook add --url https://example.com/hooks/rental
  rental webhook add --url https://example.com/hooks/rental --events booking.created,booking.cancelled
  rental webhook add --url https://example.com/hooks/rental --secret \"$SECRET\" --json";

const LIST_HELP: &str = "Examples:
  rental webhook list
  rental webhook list --json";

const REMOVE_HELP: &str = "Examples:
  rental webhook remove wh_3kTq9VbX1mZp";

const ROTATE_HELP: &str = "The new secret becomes current at once. Until 24 hours have passed, every
delivery is also signed with the previous secret (webhook-signature carries one
v1 entry per secret), so the receiver can be switched over without refusing a
delivery; X-SVC-Signature uses the new secret at once. Then the previous one is dropped.

Examples:
  rental webhook rotate-secret wh_3kTq9VbX1mZp
  rental webhook rotate-secret wh_3kTq9VbX1mZp --secret \"$NEW_SECRET\" --json";

/// A webhook just registered, with its secret, as `add --json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Added<'a> {
    id: &'a str,
    url: &'a str,
    events: &'a Subscription,
    secret: &'a str,
    active: bool,
    created_at: String,
}

/// A webhook's new secret, as `rotate-secret --json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Rotated<'a> {
    id: &'a str,
    url: &'a str,
    secret: &'a str,
    previous_secret_until: Option<String>,
}

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
pub fn run(command: &WebhookCommand, engine: &Rental<impl Store>) -> Result<Printed, CliError> {
    match command {
        WebhookCommand::Add { url, events, secret, json } => add(engine, url, events, secret.as_deref(), *json),
        WebhookCommand::List { json } => list(engine, *json).map(Printed::from),
        WebhookCommand::Remove { id } => {
            engine.admin().remove_webhook(id)?;
            Ok(format!("removed {id}\n").into())
        }
        WebhookCommand::RotateSecret { id, secret, json } => rotate(engine, id, secret.as_deref(), *json),
        WebhookCommand::Verify(_) => {
            unreachable!("verify needs no store; main dispatches it before opening one")
        }
    }
}

fn add(
    engine: &Rental<impl Store>,
    url: &str,
    events: &Subscription,
    secret: Option<&str>,
    json: bool,
) -> Result<Printed, CliError> {
    let webhook = engine.admin().add_webhook(url, events.clone(), secret.map(str::to_owned))?;
    if json {
        let added = Added {
            id: &webhook.id,
            url: &webhook.url,
            events: &webhook.events,
            secret: webhook.secret(),
            active: webhook.active,
            created_at: rental_core::timestamp::format(&webhook.created_at),
        };
        return Ok(output::json(&added).into());
    }
    let data = output::fields(&[
        ("Id", webhook.id.clone()),
        ("URL", webhook.url.clone()),
        ("Events", events_text(&webhook.events)),
        ("Secret", webhook.secret().to_owned()),
    ]);
    let note = "The secret is shown only this once: give it to the receiver, which checks the signatures with it.";
    Ok(Printed { data, note: Some(note.to_owned()) })
}

fn rotate(engine: &Rental<impl Store>, id: &str, secret: Option<&str>, json: bool) -> Result<Printed, CliError> {
    let webhook = engine.admin().rotate_webhook_secret(id, secret.map(str::to_owned))?;
    let until = webhook.secrets.overlap_ends(engine.now());
    if json {
        let rotated = Rotated {
            id: &webhook.id,
            url: &webhook.url,
            secret: webhook.secret(),
            previous_secret_until: until.map(|at| rental_core::timestamp::format(&at)),
        };
        return Ok(output::json(&rotated).into());
    }
    let data = output::fields(&[
        ("Id", webhook.id.clone()),
        ("URL", webhook.url.clone()),
        ("Secret", webhook.secret().to_owned()),
        ("Previous until", output::when_or_dash(until)),
    ]);
    let note = "The new secret is shown only this once. Deliveries are signed with both secrets until the time above: \
                switch the receiver to the new one before then.";
    Ok(Printed { data, note: Some(note.to_owned()) })
}

fn list(engine: &Rental<impl Store>, json: bool) -> Result<String, CliError> {
    let webhooks = engine.admin().webhooks()?;
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

/// `*` or comma-separated event names; a wrong name lists the right ones.
fn parse_events(s: &str) -> Result<Subscription, String> {
    Subscription::parse(s).map_err(|e| {
        let names: Vec<&str> = EventName::ALL.iter().map(|e| e.as_str()).collect();
        format!("{e}; the events are {}, or * for all", names.join(", "))
    })
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
            wrong.contains("booking.nope")
                && wrong.contains("booking.payment_expired, ")
                && wrong.contains("calendar.synced"),
            "{wrong}"
        );
        assert!(parse_events("").is_err());
    }
}
