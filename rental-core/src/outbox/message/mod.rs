//! Guest messages (docs/API.md section 21): each e-mail a booking causes is a
//! stored record, scheduled, leased, sent and retried like a webhook delivery.
//!
//! The parts: [`Message`] and its state machine ([`record`], [`cancel`],
//! [`skip`]); [`timing`], when instructions and reminders fall due in the
//! property's zone; [`template`], the built-in and host-written wording;
//! [`plan`], which messages a booking's change records; [`lead`], the
//! `checkInMessage` / `checkOutMessage` durations.

use std::fmt;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::ids::{BookingCode, Slug};
use crate::basics::lease::{self, Lease};

pub mod finished;
pub mod plan;
pub mod stored;
pub mod template;
pub mod test_message;
pub mod timing;

// The kinds and lead times are settings' words too, so they live below the
// properties (`wording`); their paths here are the ones embedders know.
pub use crate::wording::kind::{MessageKind, TimedTo, Timing};
pub use crate::wording::lead::{self, Lead};

/// The waits before each retry of a refused send (`mailRetries`): 1 min, 5 min, 30 min, 2 h, 6 h.
pub const DEFAULT_RETRIES: [Duration; 5] = [
    Duration::from_secs(60),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(6 * 3600),
];

/// Where a message is.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Waiting for its time, its first attempt or a retry.
    Scheduled,
    /// The mail server accepted it.
    Sent,
    /// Refused for good (SMTP 5xx) or retries exhausted.
    Failed,
    /// Not sent, and never will be: no mail server, disabled, or too late.
    Skipped,
    /// Not sent: the booking was cancelled or changed so that it no longer applies.
    Cancelled,
}

impl fmt::Display for MessageStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MessageStatus::Scheduled => "scheduled",
            MessageStatus::Sent => "sent",
            MessageStatus::Failed => "failed",
            MessageStatus::Skipped => "skipped",
            MessageStatus::Cancelled => "cancelled",
        })
    }
}

/// One e-mail to one recipient, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// `msg_` + 12 characters; also the left part of its `Message-ID`.
    pub id: String,
    /// The booking it is about.
    pub booking: BookingCode,
    /// The booking's property.
    pub property: Slug,
    /// Its place among the booking's messages, from 1: part of its key.
    pub seq: u32,
    /// What it is about.
    pub kind: MessageKind,
    /// The recipient's address.
    pub to: String,
    /// The subject, as rendered when recorded and again when sent.
    pub subject: String,
    /// Where it is.
    pub status: MessageStatus,
    /// When it goes out (the next attempt while scheduled); when it was due otherwise.
    #[serde(with = "crate::basics::timestamp")]
    pub due_at: DateTime<Utc>,
    /// When the mail server accepted it.
    #[serde(default, with = "crate::basics::timestamp::option")]
    pub sent_at: Option<DateTime<Utc>>,
    /// Attempts so far.
    pub attempts: u32,
    /// Why the last attempt failed, or why it was skipped or cancelled.
    #[serde(default)]
    pub error: Option<String>,
    /// The sender holding it, while an attempt may be on the network.
    #[serde(default)]
    pub lease: Option<Lease>,
    /// True for a message sent again by hand (at most 5 a booking a day).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resent: bool,
    /// When it was recorded.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
}

impl Message {
    /// Its store key: `{property}/{booking}/{seq:03}-{kind}`, so a booking's
    /// messages list in the order they were recorded.
    pub fn key_of(&self) -> String {
        format!("{}{:03}-{}", booking_prefix(self.property.as_str(), self.booking.as_str()), self.seq, self.kind)
    }

    /// The instant a sender should look at it: while scheduled, its due time
    /// or the end of a live lease, whichever is later; never once finished.
    pub fn wake_at(&self) -> Option<DateTime<Utc>> {
        (self.status == MessageStatus::Scheduled).then(|| lease::not_before(self.lease.as_ref(), self.due_at))
    }

    /// The `Message-ID` header: fixed per record, so a copy sent again after a
    /// crash is recognisable as the same message.
    pub fn message_id(&self, domain: &str) -> String {
        format!("<{}.{}@{}>", self.id, self.booking.as_str().to_ascii_lowercase(), domain)
    }

    /// True while `owner` holds a lease on it at `now`.
    pub fn leased_by(&self, owner: &str, now: DateTime<Utc>) -> bool {
        self.lease.as_ref().is_some_and(|l| l.is_held_by(owner) && l.is_live(now))
    }

    /// True while anyone holds a live lease on it at `now`.
    pub fn is_leased(&self, now: DateTime<Utc>) -> bool {
        lease::held_until(self.lease.as_ref(), now).is_some()
    }
}

/// A message as the API shows it (docs/API.md section 21): no lease, no body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// `msg_` + 12 characters.
    pub id: String,
    /// What it is about.
    pub kind: MessageKind,
    /// The recipient's address.
    pub to: String,
    /// The subject as last rendered.
    pub subject: String,
    /// `scheduled`, `sent`, `failed`, `skipped` or `cancelled`.
    pub status: MessageStatus,
    /// When it goes out (the next attempt while scheduled), else when it was due.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub due_at: DateTime<Utc>,
    /// When the mail server accepted it; null until then.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub sent_at: Option<DateTime<Utc>>,
    /// Attempts so far.
    pub attempts: u32,
    /// Why the last attempt failed, or why it was skipped or cancelled; null otherwise.
    pub error: Option<String>,
}

impl From<&Message> for MessageView {
    fn from(m: &Message) -> Self {
        MessageView {
            id: m.id.clone(),
            kind: m.kind,
            to: m.to.clone(),
            subject: m.subject.clone(),
            status: m.status,
            due_at: m.due_at,
            sent_at: m.sent_at,
            attempts: m.attempts,
            error: m.error.clone(),
        }
    }
}

/// `POST /api/v1/bookings/{code}/messages`: send a kind again now.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResendRequest {
    /// The kind to send again.
    pub kind: MessageKind,
}

/// The key prefix of every message of booking `code` at property `slug`.
pub fn booking_prefix(slug: &str, code: &str) -> String {
    format!("{slug}/{code}/")
}

/// How one attempt at sending ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The mail server accepted the message.
    Sent,
    /// A refusal worth retrying: an SMTP 4xx, a connection or TLS failure, a time-out.
    Transient(String),
    /// A refusal for good: an SMTP 5xx.
    Permanent(String),
}

/// Records one attempt ending at `at`: accepted is `sent`; a permanent refusal
/// is `failed` at once; a transient one is retried `retries[n - 1]` later
/// (n = attempts so far) until the schedule runs out, then `failed`. The lease
/// is cleared. A message cancelled while its attempt was on the network stays
/// cancelled unless the server accepted it: then it was sent, and says so.
pub fn record(message: &Message, outcome: &Outcome, at: DateTime<Utc>, retries: &[Duration]) -> Message {
    let mut next = Message { attempts: message.attempts + 1, lease: None, ..message.clone() };
    match outcome {
        Outcome::Sent => {
            (next.status, next.sent_at, next.error) = (MessageStatus::Sent, Some(at), None);
        }
        _ if message.status != MessageStatus::Scheduled => {}
        Outcome::Permanent(error) => {
            (next.status, next.error) = (MessageStatus::Failed, Some(error.clone()));
        }
        Outcome::Transient(error) => {
            next.error = Some(error.clone());
            let wait = retries.get(message.attempts as usize).and_then(|d| TimeDelta::from_std(*d).ok());
            match wait {
                Some(wait) => next.due_at = at + wait,
                None => next.status = MessageStatus::Failed,
            }
        }
    }
    next
}

/// A scheduled message given up before sending, because `reason`; any other is returned as it is.
pub fn cancel(message: &Message, reason: &str) -> Message {
    finish(message, MessageStatus::Cancelled, reason)
}

/// A scheduled message that will not be sent (no mail server, disabled, too late), because `reason`.
pub fn skip(message: &Message, reason: &str) -> Message {
    finish(message, MessageStatus::Skipped, reason)
}

fn finish(message: &Message, status: MessageStatus, reason: &str) -> Message {
    if message.status != MessageStatus::Scheduled {
        return message.clone();
    }
    Message { status, error: Some(reason.to_owned()), lease: None, ..message.clone() }
}

/// Why a message is not sent, as its `error` says.
pub mod reasons {
    /// No `smtp` is configured.
    pub const NO_MAIL_SERVER: &str = "no_mail_server";
    /// The property turned this kind off (`messages.<kind>.enabled: false`).
    pub const DISABLED: &str = "disabled";
    /// The booking was cancelled.
    pub const BOOKING_CANCELLED: &str = "booking_cancelled";
    /// The request was confirmed or cancelled before it lapsed.
    pub const ANSWERED: &str = "request_answered";
    /// The guest checked out before a reminder was due.
    pub const CHECKED_OUT: &str = "checked_out";
    /// Instructions fell due (after downtime) once the stay had ended.
    pub const STAY_ENDED: &str = "stay_ended";
    /// A reminder fell due (after downtime) once the departure time had passed.
    pub const DEPARTED: &str = "departed";
    /// The booking or its property no longer exists.
    pub const GONE: &str = "booking_gone";
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn scheduled() -> Message {
        Message {
            id: "msg_abc".into(),
            booking: serde_json::from_str("\"BK-7QX2MF\"").unwrap(),
            property: Slug::parse("sea-view").unwrap(),
            seq: 3,
            kind: MessageKind::CheckInInstructions,
            to: "ada@example.com".into(),
            subject: "Arriving".into(),
            status: MessageStatus::Scheduled,
            due_at: at("2026-12-18T15:00:00Z"),
            sent_at: None,
            attempts: 0,
            error: None,
            lease: None,
            resent: false,
            created_at: at("2026-11-22T08:00:00Z"),
        }
    }

    #[test]
    fn keys_list_a_bookings_messages_in_order_and_the_message_id_is_fixed() {
        let m = scheduled();
        assert_eq!(m.key_of(), "sea-view/BK-7QX2MF/003-check_in_instructions");
        assert_eq!(m.message_id("example.com"), "<msg_abc.bk-7qx2mf@example.com>");
        assert!(m.key_of().starts_with(&booking_prefix("sea-view", "BK-7QX2MF")));
    }

    #[test]
    fn each_outcome_moves_the_message_as_the_contract_says() {
        let now = at("2026-12-18T15:00:01Z");
        let sent = record(&scheduled(), &Outcome::Sent, now, &DEFAULT_RETRIES);
        assert_eq!((sent.status, sent.sent_at, sent.attempts), (MessageStatus::Sent, Some(now), 1));
        assert_eq!(sent.wake_at(), None);
        let refused = record(&scheduled(), &Outcome::Permanent("550 no such user".into()), now, &DEFAULT_RETRIES);
        assert_eq!((refused.status, refused.error.as_deref()), (MessageStatus::Failed, Some("550 no such user")));
        let later = record(&scheduled(), &Outcome::Transient("451 try later".into()), now, &DEFAULT_RETRIES);
        assert_eq!((later.status, later.due_at), (MessageStatus::Scheduled, at("2026-12-18T15:01:01Z")));
    }

    #[test]
    fn transient_refusals_follow_the_schedule_and_then_fail() {
        let mut m = scheduled();
        let mut now = at("2026-12-18T15:00:00Z");
        for wait in DEFAULT_RETRIES {
            m = record(&m, &Outcome::Transient("connection refused".into()), now, &DEFAULT_RETRIES);
            now += TimeDelta::from_std(wait).unwrap();
            assert_eq!((m.status, m.due_at), (MessageStatus::Scheduled, now));
        }
        m = record(&m, &Outcome::Transient("connection refused".into()), now, &DEFAULT_RETRIES);
        assert_eq!((m.status, m.attempts), (MessageStatus::Failed, 6));
    }

    #[test]
    fn a_lease_holds_a_message_back_until_it_lapses() {
        let mut m = scheduled();
        m.lease = Some(Lease::new("a", at("2026-12-18T15:01:00Z")));
        assert_eq!(m.wake_at(), Some(at("2026-12-18T15:01:00Z")));
        assert!(m.leased_by("a", at("2026-12-18T15:00:30Z")) && !m.leased_by("b", at("2026-12-18T15:00:30Z")));
        assert!(!m.is_leased(at("2026-12-18T15:01:00Z")));
    }

    #[test]
    fn a_cancelled_message_stays_cancelled_unless_the_server_took_it() {
        let cancelled = cancel(&scheduled(), reasons::BOOKING_CANCELLED);
        assert_eq!(cancelled.status, MessageStatus::Cancelled);
        let refused = record(&cancelled, &Outcome::Transient("451".into()), at("2026-12-18T15:00:00Z"), &[]);
        assert_eq!(refused.status, MessageStatus::Cancelled);
        let taken = record(&cancelled, &Outcome::Sent, at("2026-12-18T15:00:00Z"), &[]);
        assert_eq!(taken.status, MessageStatus::Sent);
        assert_eq!(skip(&taken, reasons::NO_MAIL_SERVER), taken, "only scheduled messages are skipped");
    }
}
