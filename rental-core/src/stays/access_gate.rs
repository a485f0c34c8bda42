//! When a guest may see the way in (docs/API.md section 24): the door code,
//! Wi-Fi and arrival notes. One function decides it for the stay page, the
//! `check_in_instructions` message and the occupancy summary alike.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::bookings::booking::{Booking, PaymentStatus, Status};
use crate::properties::local_time::local_instant;
use crate::properties::property::Property;
use crate::stays::access::window;

/// A condition of the access section that does not hold.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Missing {
    /// The booking is not confirmed (a request, or cancelled).
    NotConfirmed,
    /// It is earlier than `accessRevealHours` before the access window opens.
    TooEarly,
    /// The access window has closed.
    Ended,
    /// Something due is unpaid, and the property requires payment first.
    Unpaid,
}

/// The verdict on a stay's access details at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessGate {
    /// From when the details may be shown: `accessRevealHours` before the window opens.
    pub reveal_at: DateTime<Utc>,
    /// When the door code starts to open the door.
    pub opens: DateTime<Utc>,
    /// When it stops.
    pub closes: DateTime<Utc>,
    /// What does not hold now; empty when the details may be shown.
    pub missing: Vec<Missing>,
}

impl AccessGate {
    /// True when every condition holds.
    pub fn open(&self) -> bool {
        self.missing.is_empty()
    }

    /// True when only time stands between the guest and the details (time
    /// alone passes; the others need the host, the guest or a payment).
    pub fn waits_only_for_time(&self) -> bool {
        self.missing.iter().all(|m| *m == Missing::TooEarly)
    }
}

/// Whether `booking`'s guest may see the access details of `property` at
/// `now`. `payments_configured` is the default of `accessRequiresPayment`.
///
/// ```
/// use rental_core::{demo, access_gate::{check, Missing}};
///
/// let p = demo::sea_view(); // Lisbon, check-in 15:00, details 48 h before
/// let mut b = demo::booking("BK-7QX2MF", "2026-12-20", "2026-12-23");
/// b.status = rental_core::Status::Confirmed;
/// let early = check(&b, &p, "2026-12-18T14:59:59Z".parse().unwrap(), false);
/// assert_eq!(early.missing, [Missing::TooEarly]);
/// assert!(check(&b, &p, "2026-12-18T15:00:00Z".parse().unwrap(), false).open());
/// ```
pub fn check(booking: &Booking, property: &Property, now: DateTime<Utc>, payments_configured: bool) -> AccessGate {
    let (opens, closes) = window(property, booking.check_in(), booking.check_out(), booking.visit.checked_out_at);
    let reveal_at = reveal_at(property, opens);
    let mut missing = Vec::new();
    if booking.status != Status::Confirmed {
        missing.push(Missing::NotConfirmed);
    }
    if now < reveal_at {
        missing.push(Missing::TooEarly);
    }
    if now >= closes {
        missing.push(Missing::Ended);
    }
    let requires_payment = property.access.access_requires_payment.unwrap_or(payments_configured);
    if requires_payment && !paid(booking) {
        missing.push(Missing::Unpaid);
    }
    AccessGate { reveal_at, opens, closes, missing }
}

/// `accessRevealHours` before `opens`, counted on the property's wall clock
/// as message leads are: the code and its message appear together across DST.
pub fn reveal_at(property: &Property, opens: DateTime<Utc>) -> DateTime<Utc> {
    let tz = property.timezone;
    let local =
        opens.with_timezone(&tz).naive_local() - TimeDelta::hours(i64::from(property.access.access_reveal_hours));
    local_instant(tz, local)
}

/// True when nothing of the booking is due and unpaid.
fn paid(booking: &Booking) -> bool {
    matches!(booking.payment_status, PaymentStatus::Paid | PaymentStatus::External)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn each_condition_on_both_sides_of_its_boundary() {
        let mut p = demo::sea_view(); // Lisbon (UTC+0 in December), 15:00 to 11:00
        p.access.access_reveal_hours = 24;
        let mut b = demo::booking("BK-7QX2MF", "2026-12-20", "2026-12-23");
        b.status = Status::Confirmed;
        let cases = [
            ("2026-12-19T14:59:59Z", Status::Confirmed, None, vec![Missing::TooEarly]),
            ("2026-12-19T15:00:00Z", Status::Confirmed, None, vec![]),
            ("2026-12-23T10:59:59Z", Status::Confirmed, None, vec![]),
            ("2026-12-23T11:00:00Z", Status::Confirmed, None, vec![Missing::Ended]),
            ("2026-12-20T12:00:00Z", Status::Pending, None, vec![Missing::NotConfirmed]),
            ("2026-12-20T12:00:00Z", Status::Confirmed, Some(true), vec![Missing::Unpaid]),
            ("2026-12-20T12:00:00Z", Status::Confirmed, Some(false), vec![]),
        ];
        for (now, status, requires, want) in cases {
            let (mut p, mut b) = (p.clone(), b.clone());
            b.status = status;
            b.payment_status = PaymentStatus::Unpaid;
            p.access.access_requires_payment = requires;
            assert_eq!(check(&b, &p, at(now), false).missing, want, "{now} {status:?} {requires:?}");
        }
        b.payment_status = PaymentStatus::Paid;
        p.access.access_requires_payment = Some(true);
        assert!(check(&b, &p, at("2026-12-20T12:00:00Z"), false).open(), "paid");
        p.access.access_requires_payment = None;
        b.payment_status = PaymentStatus::Unpaid;
        assert_eq!(check(&b, &p, at("2026-12-20T12:00:00Z"), true).missing, [Missing::Unpaid], "a provider's default");
    }
}
