//! When a guest may see the way in (docs/API.md section 24): the door code,
//! Wi-Fi and arrival notes. One function decides it for the stay page, the
//! `check_in_instructions` message and the occupancy summary alike.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::basics::stay::Stay;
use crate::bookings::booking::{Booking, PaymentStatus, Status};
use crate::bookings::visit::Visit;
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
    /// The property's check-in form has required fields, and the guest has not sent it.
    FormNotDone,
    /// The booking's security deposit is not held (yet, or any more).
    DepositNotHeld,
}

/// A stay's access details the occupancy summary holds back, and why
/// (docs/API.md section 15): its `access` is null, and so is its `doorCode`
/// while the held-back code would be valid.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Withheld {
    /// The booking whose code it is.
    pub booking: crate::basics::ids::BookingCode,
    /// The conditions that do not hold.
    pub missing: Vec<Missing>,
    /// From when time alone no longer holds it back.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub reveal_at: DateTime<Utc>,
}

/// What the gate needs to know beyond the booking and its property.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Conditions {
    /// Whether a payment provider is configured: the default of `accessRequiresPayment`.
    pub payments_configured: bool,
    /// Whether the booking's security deposit is held, if its ledger has one
    /// (a booking made while its property set `securityDeposit`):
    /// `crate::payments::deposit_held` reads it. `None`: no deposit to hold.
    pub deposit_held: Option<bool>,
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
/// `now`, under `conditions`.
///
/// ```
/// use rental_core::{demo, access_gate::{check, Conditions, Missing}};
///
/// let p = demo::sea_view(); // Lisbon, check-in 15:00, details 48 h before
/// let mut b = demo::booking("BK-7QX2MF", "2026-12-20", "2026-12-23");
/// b.status = rental_core::Status::Confirmed;
/// let none = Conditions::default();
/// let early = check(&b, &p, "2026-12-18T14:59:59Z".parse().unwrap(), none);
/// assert_eq!(early.missing, [Missing::TooEarly]);
/// assert!(check(&b, &p, "2026-12-18T15:00:00Z".parse().unwrap(), none).open());
/// ```
pub fn check(booking: &Booking, property: &Property, now: DateTime<Utc>, conditions: Conditions) -> AccessGate {
    check_stay(GateFacts::of(booking), booking.stay, &booking.visit, property, now, conditions)
}

/// What the gate reads of a booking besides its stay and visit: small enough
/// for the occupancy summary to keep beside the visit, so that it judges a
/// stay by [`check_stay`] without reading the booking again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateFacts {
    /// The booking is confirmed.
    pub confirmed: bool,
    /// Nothing of it is due and unpaid (paid, or paid outside the engine).
    pub paid: bool,
    /// The guest gave an e-mail address (a channel's guest may not have).
    pub has_email: bool,
}

impl GateFacts {
    /// The facts of `booking`.
    pub fn of(booking: &Booking) -> Self {
        GateFacts {
            confirmed: booking.status == Status::Confirmed,
            // A goodwill refund of part leaves nothing due.
            paid: matches!(
                booking.payment_status,
                PaymentStatus::Paid | PaymentStatus::PartiallyRefunded | PaymentStatus::External
            ),
            has_email: !booking.guest_email.is_empty(),
        }
    }
}

/// [`check`] from a booking's [`GateFacts`], its `stay` and its `visit`: the
/// one rule, for callers that hold these rather than the booking.
pub fn check_stay(
    facts: GateFacts,
    stay: Stay,
    visit: &Visit,
    property: &Property,
    now: DateTime<Utc>,
    conditions: Conditions,
) -> AccessGate {
    let (opens, closes) = window(property, stay.check_in(), stay.check_out(), visit.checked_out_at);
    let reveal_at = reveal_at(property, opens);
    let mut missing = Vec::new();
    if !facts.confirmed {
        missing.push(Missing::NotConfirmed);
    }
    if now < reveal_at {
        missing.push(Missing::TooEarly);
    }
    if now >= closes {
        missing.push(Missing::Ended);
    }
    let requires_payment = property.access.access_requires_payment.unwrap_or(conditions.payments_configured);
    if requires_payment && !facts.paid {
        missing.push(Missing::Unpaid);
    }
    if visit.check_in_form_at.is_none() && property.access.stay_page.check_in_form.has_required(facts.has_email) {
        missing.push(Missing::FormNotDone);
    }
    if conditions.deposit_held == Some(false) {
        missing.push(Missing::DepositNotHeld);
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
            assert_eq!(check(&b, &p, at(now), Conditions::default()).missing, want, "{now} {status:?} {requires:?}");
        }
        b.payment_status = PaymentStatus::Paid;
        p.access.access_requires_payment = Some(true);
        assert!(check(&b, &p, at("2026-12-20T12:00:00Z"), Conditions::default()).open(), "paid");
        p.access.access_requires_payment = None;
        b.payment_status = PaymentStatus::Unpaid;
        let provider = Conditions { payments_configured: true, deposit_held: None };
        assert_eq!(
            check(&b, &p, at("2026-12-20T12:00:00Z"), provider).missing,
            [Missing::Unpaid],
            "a provider's default"
        );
    }

    #[test]
    fn the_form_and_the_deposit_on_both_sides_of_their_boundary() {
        use crate::properties::check_in_form::{CheckInField, CheckInForm, FieldRule};
        let mut p = demo::sea_view();
        let mut b = demo::booking("BK-7QX2MF", "2026-12-20", "2026-12-23");
        b.status = Status::Confirmed;
        let now = at("2026-12-20T12:00:00Z");
        let none = Conditions::default();
        assert!(check(&b, &p, now, none).open(), "the default form has no required field for a guest with an e-mail");
        b.guest_email.clear();
        assert_eq!(check(&b, &p, now, none).missing, [Missing::FormNotDone], "a channel's guest owes an e-mail");
        b.guest_email = "ada@example.com".into();
        p.access.stay_page.check_in_form =
            CheckInForm::default().with(CheckInField::DocumentNumber, FieldRule::Required);
        assert_eq!(check(&b, &p, now, none).missing, [Missing::FormNotDone]);
        b.visit.check_in_form_at = Some(now);
        assert!(check(&b, &p, now, none).open(), "sent");
        for held in [false, true] {
            let gate = check(&b, &p, now, Conditions { payments_configured: false, deposit_held: Some(held) });
            assert_eq!(gate.missing.is_empty(), held, "held: {held}");
        }
    }
}
