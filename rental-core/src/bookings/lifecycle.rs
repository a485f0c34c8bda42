//! The booking state machine (docs/API.md section 6): one exhaustive match
//! over (status, action) that returns the new booking and the events it causes.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::bookings::booking::{Booking, CancelledBy, Note, PaymentStatus, Status};
use crate::bookings::change::Change;
use crate::bookings::event::{Event, EventName};
use crate::bookings::verification;
use crate::error::Error;

/// The longest note or cancel reason, in bytes.
pub const MAX_NOTE_LEN: usize = 2_000;
/// The most notes one booking keeps.
pub const MAX_NOTES: usize = 100;

/// What a host, guest or payment integration asks of a booking (the PATCH body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "BookingAction"))]
#[serde(tag = "action", rename_all = "lowercase", deny_unknown_fields, from = "WireAction")]
pub enum Action {
    /// Approve a pending request; payment is captured.
    Confirm,
    /// Cancel; the nights are released.
    Cancel {
        /// Who asks: `host` (default) or `guest`.
        #[serde(default)]
        by: Party,
        /// Why, for the record.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Append a note.
    Annotate {
        /// The note.
        note: String,
    },
    /// The guest's card hold succeeded.
    Authorize,
    /// New dates and/or guests, re-checked and re-priced (docs/API.md section 13).
    Change(Change),
    /// The guest arrived (a lock's first unlock, or the host).
    #[serde(rename = "check_in")]
    CheckIn,
    /// The guest left, perhaps early.
    #[serde(rename = "check_out")]
    CheckOut,
}

// How [`Action`] is read (and, through schemars, documented). serde lets an
// internally tagged unit variant (`{"action": "confirm", "extra": 1}`) through
// `deny_unknown_fields`; an empty struct variant refuses the extra field as
// the other actions do.
#[derive(Deserialize)]
#[cfg_attr(
    feature = "schemars",
    derive(schemars::JsonSchema),
    schemars(rename = "BookingAction", description = "One action on a booking, chosen by `action`.")
)]
#[serde(tag = "action", rename_all = "lowercase", deny_unknown_fields)]
enum WireAction {
    /// Approve a pending request; payment is captured.
    Confirm {},
    /// Cancel; the nights are released.
    Cancel {
        /// Who asks: `host` (default) or `guest`.
        #[serde(default)]
        by: Party,
        /// Why, for the record; at most 2000 bytes.
        #[serde(default)]
        #[cfg_attr(feature = "schemars", schemars(length(max = 2000)))]
        reason: Option<String>,
    },
    /// Append a note.
    Annotate {
        /// The note: not blank, at most 2000 bytes.
        #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 2000)))]
        note: String,
    },
    /// Record that the guest's card hold succeeded (for payment integrations).
    Authorize {},
    /// New dates and/or guests (at least one), re-checked like a creation and
    /// re-priced at today's rates; a field left out keeps its value.
    Change {
        /// The new arrival date, `YYYY-MM-DD`.
        #[serde(default, rename = "checkIn", deserialize_with = "crate::basics::date_json::deserialize_opt")]
        check_in: Option<NaiveDate>,
        /// The new departure date, `YYYY-MM-DD`.
        #[serde(default, rename = "checkOut", deserialize_with = "crate::basics::date_json::deserialize_opt")]
        check_out: Option<NaiveDate>,
        /// The new number of guests, 1 to the property's `maxGuests`.
        #[serde(default)]
        #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 100)))]
        guests: Option<u32>,
    },
    /// Check a confirmed stay in: on its arrival day or later, before it ended
    /// (for a lock that reports the first unlock). A repeat is a no-op.
    #[serde(rename = "check_in")]
    CheckIn {},
    /// Check a checked-in stay out (an early departure); its per-stay code
    /// stops 15 minutes later. A repeat is a no-op.
    #[serde(rename = "check_out")]
    CheckOut {},
}

impl From<WireAction> for Action {
    fn from(wire: WireAction) -> Self {
        match wire {
            WireAction::Confirm {} => Action::Confirm,
            WireAction::Cancel { by, reason } => Action::Cancel { by, reason },
            WireAction::Annotate { note } => Action::Annotate { note },
            WireAction::Authorize {} => Action::Authorize,
            WireAction::Change { check_in, check_out, guests } => {
                Action::Change(Change { check_in, check_out, guests })
            }
            WireAction::CheckIn {} => Action::CheckIn,
            WireAction::CheckOut {} => Action::CheckOut,
        }
    }
}

impl Action {
    /// The action's name as the API spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Confirm => "confirm",
            Action::Cancel { .. } => "cancel",
            Action::Annotate { .. } => "annotate",
            Action::Authorize => "authorize",
            Action::Change(_) => "change",
            Action::CheckIn => "check_in",
            Action::CheckOut => "check_out",
        }
    }
}

/// Who may cancel through the API.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Party {
    /// The host.
    #[default]
    Host,
    /// The guest.
    Guest,
}

impl std::str::FromStr for Party {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "host" => Ok(Party::Host),
            "guest" => Ok(Party::Guest),
            other => Err(format!("{other:?} is not host or guest")),
        }
    }
}

/// The result of applying an action.
#[expect(clippy::large_enum_variant, reason = "short-lived return value; boxing would only add an allocation")]
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The booking had already made this transition: nothing changes, no event.
    Unchanged,
    /// The booking changed.
    Changed {
        /// The booking after the change.
        booking: Booking,
        /// What the change caused, in order.
        events: Vec<Event>,
    },
}

/// The free text an action carries, refused (422 on its field) when it holds
/// a character [`crate::text`] refuses (a note may hold line breaks, a reason may not) or, for a cancel reason, is over [`MAX_NOTE_LEN`] bytes
/// (checked before the state, so a repeated cancel refuses it too).
fn check_text(action: &Action) -> Result<(), Error> {
    let (field, text) = match action {
        Action::Annotate { note } => ("note", note.as_str()),
        Action::Cancel { reason: Some(reason), .. } => ("reason", reason.as_str()),
        _ => return Ok(()),
    };
    match action {
        Action::Annotate { .. } => crate::basics::text::paragraph_field_error(field, text).map_or(Ok(()), Err)?,
        _ => crate::basics::text::check(field, text)?,
    }
    if field == "reason" && text.trim().len() > MAX_NOTE_LEN {
        return Err(Error::invalid(field, "invalid", format!("must be at most {MAX_NOTE_LEN} bytes")));
    }
    Ok(())
}

/// Applies `action` to `b` at `now`; `today` is the property's local date.
/// A [`Action::Change`] needs the property and its calendar: it is refused
/// here, and [`crate::change`] does it.
pub fn apply(b: &Booking, action: &Action, now: DateTime<Utc>, today: NaiveDate) -> Result<Outcome, Error> {
    check_text(action)?;
    let refuse =
        || Error::InvalidTransition { from: b.status, action: action.name(), channel_owned: b.is_channel_owned() };
    if b.is_channel_owned() && matches!(action, Action::Confirm | Action::Cancel { .. }) {
        return Err(refuse());
    }
    if let Action::Change(_) = action {
        return Err(Error::invalid("action", "invalid", "a change is priced with its property's calendar"));
    }
    let stay_ended = today >= b.check_out();
    match (b.status, action) {
        (Status::Pending, Action::Confirm) => Ok(confirm(b, now)),
        (Status::Confirmed, Action::Confirm) | (Status::Cancelled, Action::Cancel { .. }) => Ok(Outcome::Unchanged),
        (Status::Cancelled, Action::Confirm) | (Status::Confirmed | Status::Cancelled, Action::Authorize) => {
            Err(refuse())
        }
        (Status::Confirmed, Action::Cancel { .. }) if stay_ended => Err(refuse()),
        (Status::Pending | Status::Confirmed, Action::Cancel { by, reason }) => {
            let by = match by {
                Party::Host => CancelledBy::Host,
                Party::Guest => CancelledBy::Guest,
            };
            Ok(cancel(b, by, reason.clone(), now, None))
        }
        (_, Action::Annotate { note }) => annotate(b, note, now),
        (Status::Pending, Action::Authorize) => match b.payment_status {
            PaymentStatus::Unpaid => Ok(authorize(b, now)),
            PaymentStatus::Authorized => Ok(Outcome::Unchanged),
            _ => Err(refuse()),
        },
        // They need the property and its calendar or times: `change::apply`
        // and `presence::act` apply them.
        (_, Action::CheckIn | Action::CheckOut | Action::Change(_)) => Err(refuse()),
    }
}

/// The checkout expiry: a pending, unpaid booking created `ttl` or longer ago
/// is cancelled by the system with payment `expired`. `None` when not due.
pub fn expire(b: &Booking, now: DateTime<Utc>, ttl: chrono::TimeDelta) -> Option<Outcome> {
    if !may_lapse(b) || b.created_at + ttl > now {
        return None;
    }
    Some(cancel(b, CancelledBy::System, Some("checkout link expired".to_owned()), now, Some(PaymentStatus::Expired)))
}

/// The `cancelReason` of a booking cancelled because an installment stayed unpaid past its grace.
pub const PAYMENT_OVERDUE: &str = "payment_overdue";

/// Cancels `b` for an installment left unpaid past its grace (docs/API.md section 23), by
/// the system, as a guest's cancellation would refund. `None` unless it is still to come.
pub fn overdue(b: &Booking, now: DateTime<Utc>) -> Option<Outcome> {
    if !b.is_active() {
        return None;
    }
    Some(cancel(b, CancelledBy::System, Some(PAYMENT_OVERDUE.to_owned()), now, None))
}

/// Cancels the request `b` once its guest's address has gone unverified for
/// [`verification::UNVERIFIED_HOLD`] (its nights are released).
pub fn lapse_unverified(b: &Booking, now: DateTime<Utc>) -> Option<Outcome> {
    if !verification::is_unverified_hold(b) || verification::lapses_at(b) > now {
        return None;
    }
    let reason = Some(verification::UNVERIFIED_REASON.to_owned());
    Some(cancel(b, CancelledBy::System, reason, now, Some(PaymentStatus::Expired)))
}

/// Marks the guest's address of the request `b` verified at `now` (its link
/// was opened). Anything but an unverified pending request is unchanged.
pub fn verify_guest_email(b: &Booking, now: DateTime<Utc>) -> Outcome {
    if !verification::is_unverified_hold(b) {
        return Outcome::Unchanged;
    }
    let mut next = b.clone();
    next.guest_email_verified_at = Some(now);
    next.updated_at = now;
    Outcome::Changed { booking: next, events: Vec::new() }
}

/// True for a hold a checkout TTL can expire: a pending, unpaid booking that
/// no channel owns. Stores index these by creation time.
pub fn may_lapse(b: &Booking) -> bool {
    b.status == Status::Pending && b.payment_status == PaymentStatus::Unpaid && !b.is_channel_owned()
}

/// Cancels `b` on behalf of the channel that owns it (its feed dropped the event).
pub fn cancel_by_channel(b: &Booking, now: DateTime<Utc>) -> Outcome {
    if b.status == Status::Cancelled {
        return Outcome::Unchanged;
    }
    cancel(b, CancelledBy::Channel, None, now, None)
}

fn confirm(b: &Booking, now: DateTime<Utc>) -> Outcome {
    let mut next = b.clone();
    next.status = Status::Confirmed;
    next.payment_status = PaymentStatus::Paid;
    next.updated_at = now;
    let events =
        vec![Event::plain(EventName::BookingConfirmed, &next, now), Event::updated(&next, &changed(b, &next), now)];
    Outcome::Changed { booking: next, events }
}

fn cancel(
    b: &Booking,
    by: CancelledBy,
    reason: Option<String>,
    now: DateTime<Utc>,
    expired: Option<PaymentStatus>,
) -> Outcome {
    let mut next = b.clone();
    next.status = Status::Cancelled;
    next.payment_status = expired.unwrap_or(match b.payment_status {
        PaymentStatus::Paid | PaymentStatus::PartiallyPaid | PaymentStatus::PartiallyRefunded => {
            PaymentStatus::Refunded
        }
        PaymentStatus::Authorized => PaymentStatus::Unpaid,
        other => other,
    });
    next.cancelled_by = Some(by);
    next.cancel_reason = reason.map(|r| truncate(r.trim(), MAX_NOTE_LEN)).filter(|r| !r.is_empty());
    next.updated_at = now;
    let mut events = Vec::with_capacity(3);
    if expired.is_some() {
        events.push(Event::plain(EventName::PaymentExpired, &next, now));
    }
    events.push(Event::cancelled(&next, now));
    events.push(Event::updated(&next, &changed(b, &next), now));
    Outcome::Changed { booking: next, events }
}

fn annotate(b: &Booking, note: &str, now: DateTime<Utc>) -> Result<Outcome, Error> {
    let note = note.trim();
    if note.is_empty() || note.len() > MAX_NOTE_LEN {
        return Err(Error::invalid("note", "invalid", format!("must be 1 to {MAX_NOTE_LEN} bytes")));
    }
    if b.notes.len() >= MAX_NOTES {
        return Err(Error::invalid("note", "too_many", format!("a booking keeps at most {MAX_NOTES} notes")));
    }
    let mut next = b.clone();
    next.notes.push(Note { text: crate::basics::text::paragraphs(note).into_owned(), at: now });
    next.updated_at = now;
    let events = vec![Event::updated(&next, &["notes"], now)];
    Ok(Outcome::Changed { booking: next, events })
}

fn authorize(b: &Booking, now: DateTime<Utc>) -> Outcome {
    let mut next = b.clone();
    next.payment_status = PaymentStatus::Authorized;
    next.updated_at = now;
    let events =
        vec![Event::plain(EventName::PaymentAuthorized, &next, now), Event::updated(&next, &["paymentStatus"], now)];
    Outcome::Changed { booking: next, events }
}

/// The JSON names of the lifecycle fields that differ between `a` and `b`.
fn changed(a: &Booking, b: &Booking) -> Vec<&'static str> {
    let fields = [
        ("status", a.status != b.status),
        ("paymentStatus", a.payment_status != b.payment_status),
        ("cancelledBy", a.cancelled_by != b.cancelled_by),
        ("cancelReason", a.cancel_reason != b.cancel_reason),
    ];
    fields.into_iter().filter(|(_, differs)| *differs).map(|(name, _)| name).collect()
}

fn truncate(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::ids::Source;
    use crate::bookings::booking::ExternalRef;
    use crate::demo;

    fn now() -> DateTime<Utc> {
        "2026-11-22T07:39:21.123Z".parse().unwrap()
    }

    fn today() -> NaiveDate {
        "2026-11-22".parse().unwrap()
    }

    fn booking(status: Status, payment: PaymentStatus) -> Booking {
        let mut b = demo::booking("BK-TEST22", "2026-12-20", "2026-12-27");
        b.status = status;
        b.payment_status = payment;
        b
    }

    fn names(outcome: &Outcome) -> Vec<&'static str> {
        match outcome {
            Outcome::Unchanged => vec![],
            Outcome::Changed { events, .. } => events.iter().map(|e| e.event.as_str()).collect(),
        }
    }

    fn after(outcome: Outcome) -> Booking {
        match outcome {
            Outcome::Changed { booking, .. } => booking,
            Outcome::Unchanged => panic!("expected a change"),
        }
    }

    fn cancel_by(by: Party) -> Action {
        Action::Cancel { by, reason: Some("plans changed".into()) }
    }

    type Expected = Result<(Status, PaymentStatus, &'static [&'static str]), ()>;

    #[test]
    fn the_transition_table_of_the_contract() {
        use PaymentStatus::*;
        use Status::*;
        let annotate = Action::Annotate { note: "late arrival".into() };
        #[rustfmt::skip]
        let cases: Vec<(Status, PaymentStatus, Action, Expected)> = vec![
            (Pending, Unpaid, Action::Confirm, Ok((Confirmed, Paid, &["booking.confirmed", "booking.updated"]))),
            (Pending, Authorized, Action::Confirm, Ok((Confirmed, Paid, &["booking.confirmed", "booking.updated"]))),
            (Confirmed, Paid, Action::Confirm, Ok((Confirmed, Paid, &[]))),
            (Cancelled, Unpaid, Action::Confirm, Err(())),
            (Pending, Unpaid, cancel_by(Party::Guest), Ok((Cancelled, Unpaid, &["booking.cancelled", "booking.updated"]))),
            (Pending, Authorized, cancel_by(Party::Host), Ok((Cancelled, Unpaid, &["booking.cancelled", "booking.updated"]))),
            (Confirmed, Paid, cancel_by(Party::Host), Ok((Cancelled, Refunded, &["booking.cancelled", "booking.updated"]))),
            (Cancelled, Refunded, cancel_by(Party::Host), Ok((Cancelled, Refunded, &[]))),
            (Pending, Unpaid, annotate.clone(), Ok((Pending, Unpaid, &["booking.updated"]))),
            (Cancelled, Refunded, annotate, Ok((Cancelled, Refunded, &["booking.updated"]))),
            (Pending, Unpaid, Action::Authorize, Ok((Pending, Authorized, &["booking.payment_authorized", "booking.updated"]))),
            (Pending, Authorized, Action::Authorize, Ok((Pending, Authorized, &[]))),
            (Confirmed, Paid, Action::Authorize, Err(())),
            (Cancelled, Unpaid, Action::Authorize, Err(())),
        ];
        for (status, payment, action, want) in cases {
            let b = booking(status, payment);
            let got = apply(&b, &action, now(), today());
            match (got, want) {
                (Ok(outcome), Ok((s, p, events))) => {
                    assert_eq!(names(&outcome), events, "{status:?} {action:?}");
                    let next = if let Outcome::Changed { booking, .. } = outcome { booking } else { b.clone() };
                    assert_eq!((next.status, next.payment_status), (s, p), "{status:?} {action:?}");
                }
                (Err(Error::InvalidTransition { .. }), Err(())) => {}
                (got, want) => panic!("{status:?} {action:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn a_confirmed_stay_that_has_ended_cannot_be_cancelled() {
        let b = booking(Status::Confirmed, PaymentStatus::Paid);
        let after_stay: NaiveDate = "2026-12-27".parse().unwrap();
        let got = apply(&b, &cancel_by(Party::Host), now(), after_stay);
        assert!(matches!(got, Err(Error::InvalidTransition { from: Status::Confirmed, action: "cancel", .. })));
        let last_night: NaiveDate = "2026-12-26".parse().unwrap();
        assert!(apply(&b, &cancel_by(Party::Host), now(), last_night).is_ok());
    }

    #[test]
    fn cancelling_records_who_and_why_and_says_what_changed() {
        let b = booking(Status::Confirmed, PaymentStatus::Paid);
        let Outcome::Changed { booking, events } = apply(&b, &cancel_by(Party::Guest), now(), today()).unwrap() else {
            panic!("no change")
        };
        assert_eq!(booking.cancelled_by, Some(CancelledBy::Guest));
        assert_eq!(booking.cancel_reason.as_deref(), Some("plans changed"));
        assert_eq!(events[0].data["cancelledBy"], "guest");
        assert_eq!(events[0].data["cancelReason"], "plans changed");
        assert_eq!(
            events[1].data["changes"],
            serde_json::json!(["status", "paymentStatus", "cancelledBy", "cancelReason"])
        );
    }

    #[test]
    fn channel_bookings_cannot_be_confirmed_or_cancelled_through_the_api_but_can_be_annotated() {
        let mut b = booking(Status::Confirmed, PaymentStatus::External);
        b.external = Some(ExternalRef { feed: Source::parse("airbnb").unwrap(), uid: "x@airbnb.com".into() });
        for action in [Action::Confirm, cancel_by(Party::Host)] {
            let got = apply(&b, &action, now(), today());
            assert!(matches!(got, Err(Error::InvalidTransition { channel_owned: true, .. })), "{action:?}");
        }
        assert!(apply(&b, &Action::Annotate { note: "towels".into() }, now(), today()).is_ok());
        assert_eq!(after(cancel_by_channel(&b, now())).cancelled_by, Some(CancelledBy::Channel));
    }

    #[test]
    fn empty_or_huge_notes_are_refused() {
        let b = booking(Status::Pending, PaymentStatus::Unpaid);
        for note in ["", "   ", &"x".repeat(MAX_NOTE_LEN + 1)] {
            let got = apply(&b, &Action::Annotate { note: note.into() }, now(), today());
            assert!(matches!(got, Err(Error::Validation(_))));
        }
    }

    #[test]
    fn a_huge_cancel_reason_is_refused_even_when_already_cancelled() {
        let reason = Some("x".repeat(MAX_NOTE_LEN + 1));
        for status in [Status::Pending, Status::Cancelled] {
            let b = booking(status, PaymentStatus::Unpaid);
            let got = apply(&b, &Action::Cancel { by: Party::Host, reason: reason.clone() }, now(), today());
            assert!(matches!(got, Err(Error::Validation(_))), "{status:?}");
        }
    }

    #[test]
    fn an_unpaid_request_expires_after_the_ttl_with_three_events() {
        let ttl = chrono::TimeDelta::hours(24);
        let mut b = booking(Status::Pending, PaymentStatus::Unpaid);
        b.created_at = now() - ttl;
        let outcome = expire(&b, now(), ttl).expect("due");
        assert_eq!(names(&outcome), ["booking.payment_expired", "booking.cancelled", "booking.updated"]);
        let b2 = after(outcome);
        assert_eq!(
            (b2.status, b2.payment_status, b2.cancelled_by),
            (Status::Cancelled, PaymentStatus::Expired, Some(CancelledBy::System))
        );

        b.created_at = now() - ttl + chrono::TimeDelta::seconds(1);
        assert!(expire(&b, now(), ttl).is_none(), "not yet due");
        b.created_at = now() - ttl;
        b.payment_status = PaymentStatus::Authorized;
        assert!(expire(&b, now(), ttl).is_none(), "an authorized hold does not lapse");
    }

    #[test]
    fn actions_read_from_the_patch_body() {
        let cases = [
            (r#"{"action":"confirm"}"#, Action::Confirm),
            (
                r#"{"action":"cancel","by":"guest","reason":"ill"}"#,
                Action::Cancel { by: Party::Guest, reason: Some("ill".into()) },
            ),
            (r#"{"action":"cancel"}"#, Action::Cancel { by: Party::Host, reason: None }),
            (r#"{"action":"annotate","note":"hi"}"#, Action::Annotate { note: "hi".into() }),
            (r#"{"action":"authorize"}"#, Action::Authorize),
        ];
        for (json, want) in cases {
            assert_eq!(serde_json::from_str::<Action>(json).unwrap(), want, "{json}");
        }
        let extra =
            [r#"{"action":"confirm","x":1}"#, r#"{"action":"authorize","x":1}"#, r#"{"action":"cancel","x":1}"#];
        for bad in ["{}", r#"{"action":"refund"}"#, r#"{"action":"cancel","by":"system"}"#].into_iter().chain(extra) {
            assert!(serde_json::from_str::<Action>(bad).is_err(), "{bad}");
        }
    }
}
