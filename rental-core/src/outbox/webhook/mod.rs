//! Webhook registrations and signatures. Receivers embed the checks: [`verify`] for
//! `X-SVC-Signature`, [`verify_standard`] for the Standard Webhooks headers.

mod secrets;
mod signature;
mod standard;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use self::secrets::{OVERLAP, Secret, Secrets};
pub use self::signature::{sign, verify};
pub use self::standard::{
    SECRET_PREFIX, StandardError, StandardHeaders, TOLERANCE, is_standard_secret, sign_standard, standard_key,
    verify_standard,
};
use crate::bookings::event::EventName;

/// A registered receiver of events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Stored", into = "Stored")]
pub struct Webhook {
    /// `wh_` + 12 characters.
    pub id: String,
    /// Where events are sent, by `POST`.
    pub url: String,
    /// The signing secrets: the current one, and those replaced less than [`OVERLAP`] ago.
    pub secrets: Secrets,
    /// Which events it receives.
    pub events: Subscription,
    /// Deliveries are made only while active.
    pub active: bool,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
}

impl Webhook {
    /// The current signing secret.
    pub fn secret(&self) -> &str {
        self.secrets.current()
    }
}

/// A webhook as stored. `secret` is the current secret: the only one in
/// records written before rotation existed, and what an older binary still
/// reads; `secrets` (when present) is the whole list.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    id: String,
    url: String,
    secret: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    secrets: Option<Secrets>,
    events: Subscription,
    active: bool,
    #[serde(with = "crate::basics::timestamp")]
    created_at: DateTime<Utc>,
}

impl From<Stored> for Webhook {
    fn from(s: Stored) -> Self {
        let secrets = s.secrets.unwrap_or_else(|| Secrets::new(s.secret, s.created_at));
        Webhook { id: s.id, url: s.url, secrets, events: s.events, active: s.active, created_at: s.created_at }
    }
}

impl From<Webhook> for Stored {
    fn from(w: Webhook) -> Self {
        Stored {
            id: w.id,
            url: w.url,
            secret: w.secrets.current().to_owned(),
            secrets: Some(w.secrets),
            events: w.events,
            active: w.active,
            created_at: w.created_at,
        }
    }
}

/// The events a webhook subscribes to: all (`*`) or named ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Subscription {
    /// `*`: every event.
    All(AllEvents),
    /// Only these.
    Named(Vec<EventName>),
}

/// The `*` of a subscription to every event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllEvents {
    /// `*`.
    #[serde(rename = "*")]
    Star,
}

impl Subscription {
    /// True when events named `name` are delivered.
    pub fn includes(&self, name: EventName) -> bool {
        match self {
            Subscription::All(_) => true,
            Subscription::Named(names) => names.contains(&name),
        }
    }

    /// Reads `*` or a comma-separated list of event names.
    pub fn parse(s: &str) -> Result<Self, String> {
        if s.trim() == "*" {
            return Ok(Subscription::All(AllEvents::Star));
        }
        let names: Result<Vec<EventName>, String> = s.split(',').map(|n| n.trim().parse()).collect();
        match names? {
            names if names.is_empty() => Err("no events given".to_owned()),
            names => Ok(Subscription::Named(names)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_read_star_or_names() {
        let all = Subscription::parse("*").unwrap();
        assert!(all.includes(EventName::CalendarSynced));
        let some = Subscription::parse("booking.created, booking.cancelled").unwrap();
        assert!(some.includes(EventName::BookingCancelled));
        assert!(!some.includes(EventName::BookingUpdated));
        assert!(Subscription::parse("booking.nope").is_err());
        assert_eq!(serde_json::to_string(&all).unwrap(), "\"*\"");
    }

    #[test]
    fn a_webhook_stored_before_rotation_reads_with_its_one_secret() {
        let old = r#"{"id":"wh_3kTq9VbX1mZp","url":"https://example.com/h","secret":"whsec_old_style",
            "events":"*","active":true,"createdAt":"2026-11-01T10:00:00.000Z"}"#;
        let webhook: Webhook = serde_json::from_str(old).unwrap();
        assert_eq!(webhook.secret(), "whsec_old_style");
        assert_eq!(webhook.secrets.all().len(), 1);
        assert_eq!(webhook.secrets.all()[0].created_at, webhook.created_at);
        assert_eq!(webhook.secrets.all()[0].retired_at, None);
    }

    #[test]
    fn a_stored_webhook_keeps_every_secret_and_names_the_current_one_for_older_readers() {
        let t0 = "2026-11-22T07:39:21.123Z".parse().unwrap();
        let mut secrets = Secrets::new("first-secret".into(), t0);
        secrets.rotate("second-secret".into(), t0);
        let webhook = Webhook {
            id: "wh_3kTq9VbX1mZp".into(),
            url: "https://example.com/h".into(),
            secrets,
            events: Subscription::parse("*").unwrap(),
            active: true,
            created_at: t0,
        };
        let json = serde_json::to_value(&webhook).unwrap();
        assert_eq!(json["secret"], "second-secret");
        assert_eq!(json["secrets"].as_array().map(Vec::len), Some(2));
        assert_eq!(serde_json::from_value::<Webhook>(json).unwrap(), webhook);
    }
}
