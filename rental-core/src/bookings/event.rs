//! Events: what a change caused, as data. Use cases write them to the outbox
//! in the same transaction as the change; payloads follow docs/API.md section 9.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::bookings::booking::Booking;
use crate::bookings::visit::TransitionBy;

/// The name of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EventName {
    /// A new booking or request, from any source.
    #[serde(rename = "booking.created")]
    BookingCreated,
    /// The host confirmed; payment captured.
    #[serde(rename = "booking.confirmed")]
    BookingConfirmed,
    /// Cancelled by host, guest, channel or the system.
    #[serde(rename = "booking.cancelled")]
    BookingCancelled,
    /// Status or details changed.
    #[serde(rename = "booking.updated")]
    BookingUpdated,
    /// The guest's card hold succeeded.
    #[serde(rename = "booking.payment_authorized")]
    PaymentAuthorized,
    /// An unpaid checkout link lapsed.
    #[serde(rename = "booking.payment_expired")]
    PaymentExpired,
    /// An installment was paid (charged, or its hold captured).
    #[serde(rename = "booking.payment_succeeded")]
    PaymentSucceeded,
    /// The provider refused an installment (a decline, or the bank wants the guest).
    #[serde(rename = "booking.payment_failed")]
    PaymentFailed,
    /// The security deposit's card hold was taken.
    #[serde(rename = "booking.deposit_held")]
    DepositHeld,
    /// The security deposit's card hold was let go (what was not claimed).
    #[serde(rename = "booking.deposit_released")]
    DepositReleased,
    /// Money was given back to the guest (a cancellation's refund by the policy, or a goodwill refund).
    #[serde(rename = "booking.payment_refunded")]
    PaymentRefunded,
    /// A pull of channel calendars finished.
    #[serde(rename = "calendar.synced")]
    CalendarSynced,
    /// A stay was checked in, by the `check_in` action or at `checkInTime`.
    #[serde(rename = "stay.checked_in")]
    StayCheckedIn,
    /// A stay was checked out, by the `check_out` action or at `checkOutTime`.
    #[serde(rename = "stay.checked_out")]
    StayCheckedOut,
    /// A stay's door code was issued, moved or revoked.
    #[serde(rename = "access.updated")]
    AccessUpdated,
    /// A test sent from the admin dashboard to one webhook; never fanned
    /// out to subscribers and not in [`EventName::ALL`].
    #[serde(rename = "webhook.test")]
    WebhookTest,
}

impl EventName {
    /// Every event, in the order docs/API.md section 9 lists them.
    pub const ALL: [EventName; 15] = [
        EventName::BookingCreated,
        EventName::BookingConfirmed,
        EventName::BookingCancelled,
        EventName::BookingUpdated,
        EventName::PaymentAuthorized,
        EventName::PaymentExpired,
        EventName::PaymentSucceeded,
        EventName::PaymentFailed,
        EventName::DepositHeld,
        EventName::DepositReleased,
        EventName::PaymentRefunded,
        EventName::CalendarSynced,
        EventName::StayCheckedIn,
        EventName::StayCheckedOut,
        EventName::AccessUpdated,
    ];

    /// `booking.created` and so on.
    pub fn as_str(self) -> &'static str {
        match self {
            EventName::BookingCreated => "booking.created",
            EventName::BookingConfirmed => "booking.confirmed",
            EventName::BookingCancelled => "booking.cancelled",
            EventName::BookingUpdated => "booking.updated",
            EventName::PaymentAuthorized => "booking.payment_authorized",
            EventName::PaymentExpired => "booking.payment_expired",
            EventName::PaymentSucceeded => "booking.payment_succeeded",
            EventName::PaymentFailed => "booking.payment_failed",
            EventName::DepositHeld => "booking.deposit_held",
            EventName::DepositReleased => "booking.deposit_released",
            EventName::PaymentRefunded => "booking.payment_refunded",
            EventName::CalendarSynced => "calendar.synced",
            EventName::StayCheckedIn => "stay.checked_in",
            EventName::StayCheckedOut => "stay.checked_out",
            EventName::AccessUpdated => "access.updated",
            EventName::WebhookTest => "webhook.test",
        }
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EventName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EventName::ALL.into_iter().find(|e| e.as_str() == s).ok_or_else(|| format!("{s:?} is not an event name"))
    }
}

/// Something that happened, with its payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Which event.
    pub event: EventName,
    /// When it happened.
    #[serde(with = "crate::basics::timestamp")]
    pub timestamp: DateTime<Utc>,
    /// The payload (docs/API.md section 9).
    pub data: Value,
}

impl Event {
    /// The exact JSON body a webhook receives: `{"data", "event", "timestamp"}`.
    pub fn body(&self) -> String {
        // Serialising plain JSON values cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `booking.created`: the envelope plus `guests`, `total` and `source`.
    pub fn created(b: &Booking, at: DateTime<Utc>) -> Self {
        let mut data = envelope(b);
        data.insert("guests".into(), json!(b.guests));
        data.insert("total".into(), json!(b.total));
        data.insert("source".into(), json!(b.source));
        Event { event: EventName::BookingCreated, timestamp: at, data: Value::Object(data) }
    }

    /// `booking.cancelled`: the envelope plus `cancelledBy` and `cancelReason`.
    pub fn cancelled(b: &Booking, at: DateTime<Utc>) -> Self {
        let mut data = envelope(b);
        data.insert("cancelledBy".into(), json!(b.cancelled_by));
        data.insert("cancelReason".into(), json!(b.cancel_reason));
        Event { event: EventName::BookingCancelled, timestamp: at, data: Value::Object(data) }
    }

    /// `booking.updated`: the envelope plus `changes`, the names of the fields that changed.
    pub fn updated(b: &Booking, changes: &[&str], at: DateTime<Utc>) -> Self {
        let mut data = envelope(b);
        data.insert("changes".into(), json!(changes));
        Event { event: EventName::BookingUpdated, timestamp: at, data: Value::Object(data) }
    }

    /// An event whose payload is the booking envelope as is
    /// (`booking.confirmed` and the payment events).
    pub fn plain(event: EventName, b: &Booking, at: DateTime<Utc>) -> Self {
        Event { event, timestamp: at, data: Value::Object(envelope(b)) }
    }
}

impl Event {
    /// `stay.checked_in` or `stay.checked_out`: the envelope plus `at` (when
    /// the transition took effect) and `by` (`action` or `schedule`).
    pub fn stay(event: EventName, b: &Booking, at: DateTime<Utc>, by: TransitionBy, now: DateTime<Utc>) -> Self {
        let mut data = envelope(b);
        data.insert("at".into(), json!(crate::basics::timestamp::format(&at)));
        data.insert("by".into(), json!(by.as_str()));
        Event { event, timestamp: now, data: Value::Object(data) }
    }

    /// `access.updated`: the envelope plus `access`, the booking's code and
    /// window now (null once revoked).
    pub fn access(b: &Booking, now: DateTime<Utc>) -> Self {
        let mut data = envelope(b);
        data.insert("access".into(), serde_json::to_value(&b.visit.access).unwrap_or(Value::Null));
        Event { event: EventName::AccessUpdated, timestamp: now, data: Value::Object(data) }
    }
}

/// The fields every booking event carries (docs/API.md section 9).
pub(crate) fn envelope(b: &Booking) -> Map<String, Value> {
    let value = json!({
        "code": b.code,
        "property": b.property,
        "propertyName": b.property_name,
        "guestName": b.guest_name,
        "checkIn": b.check_in(),
        "checkOut": b.check_out(),
        "status": b.status,
        "paymentStatus": b.payment_status,
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// An event as kept in the outbox, numbered in the order it was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutboxEvent {
    /// Position in the outbox, from 1, increasing.
    pub seq: u64,
    /// The event.
    pub event: Event,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stay_and_access_events_are_named_and_subscribable_like_the_others() {
        for name in ["stay.checked_in", "stay.checked_out", "access.updated"] {
            let event: EventName = name.parse().unwrap();
            assert_eq!(event.as_str(), name);
            assert!(EventName::ALL.contains(&event), "{name} can be subscribed to");
        }
    }
}
