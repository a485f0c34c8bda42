//! Webhook signatures and registrations. Receivers embed [`verify`]: it
//! checks `X-SVC-Signature` over the raw body bytes in constant time.

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::event::EventName;

/// The `X-SVC-Signature` value of `body` under `secret`: `sha256=` and the hex HMAC-SHA256.
///
/// ```
/// let header = rental_core::webhook::sign(b"whsec_test", br#"{"event":"booking.created"}"#);
/// assert!(header.starts_with("sha256="));
/// assert!(rental_core::webhook::verify(b"whsec_test", br#"{"event":"booking.created"}"#, &header));
/// ```
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    format!("sha256={}", hex::encode(mac(secret, body)))
}

/// True when `header` is exactly the signature of `body` under `secret`.
///
/// Compares the full header value, lengths first, in constant time, as
/// SPEC.md section 6 asks of receivers. Pass the raw body bytes as received,
/// before any JSON parsing.
///
/// ```
/// use rental_core::webhook::{sign, verify};
///
/// let body = br#"{"data":{},"event":"calendar.synced","timestamp":"2026-11-22T07:39:21.123Z"}"#;
/// let header = sign(b"s3cret", body);
/// assert!(verify(b"s3cret", body, &header));
/// assert!(!verify(b"other", body, &header));
/// assert!(!verify(b"s3cret", b"tampered", &header));
/// assert!(!verify(b"s3cret", body, "sha256=00"));
/// ```
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    let expected = sign(secret, body);
    let (expected, given) = (expected.as_bytes(), header.trim().as_bytes());
    expected.len() == given.len() && bool::from(expected.ct_eq(given))
}

fn mac(secret: &[u8], body: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(secret).unwrap_or_else(|_| unreachable!("hmac takes any key length"));
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

/// A registered receiver of events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// `wh_` + 12 characters.
    pub id: String,
    /// Where events are sent, by `POST`.
    pub url: String,
    /// The signing secret.
    pub secret: String,
    /// Which events it receives.
    pub events: Subscription,
    /// Deliveries are made only while active.
    pub active: bool,
    /// When it was registered.
    #[serde(with = "crate::timestamp")]
    pub created_at: DateTime<Utc>,
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
    fn the_signature_is_the_rfc_4231_hmac_in_hex() {
        // RFC 4231 test case 2.
        let header = sign(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(header, "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn verify_refuses_anything_but_the_exact_header() {
        let body = b"{}";
        let good = sign(b"k", body);
        let cases = [
            (good.clone(), true),
            (format!(" {good} "), true), // surrounding whitespace of a header value
            (good.to_uppercase(), false),
            (good.replace("sha256=", ""), false),
            (good[..good.len() - 1].to_owned(), false),
            (String::new(), false),
        ];
        for (header, want) in cases {
            assert_eq!(verify(b"k", body, &header), want, "{header:?}");
        }
    }

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
}
