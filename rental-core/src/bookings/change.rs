//! Changing a booking's dates or guests (docs/API.md section 13): the new
//! stay checked and re-priced as pure functions, and the fields it changed.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::stay::{MAX_NIGHTS, Stay, StayError};
use crate::bookings::booking::{Booking, Status};
use crate::bookings::calendar::CalendarEntry;
use crate::bookings::event::Event;
use crate::bookings::lifecycle::Outcome;
use crate::bookings::pricing::{self, Problem, Quote};
use crate::error::{Error, FieldError};
use crate::properties::property::{MAX_GUESTS, Property};

/// New dates and/or guests for a booking; a field left out keeps its value.
///
/// ```
/// use rental_core::change::Change;
///
/// let change: Change = serde_json::from_str(r#"{"checkOut": "2026-12-28"}"#).unwrap();
/// assert_eq!(change.check_out, "2026-12-28".parse().ok());
/// assert!(change.check_in.is_none() && change.guests.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Change {
    /// The new arrival date.
    #[serde(
        default,
        deserialize_with = "crate::basics::date_json::deserialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub check_in: Option<NaiveDate>,
    /// The new departure date.
    #[serde(
        default,
        deserialize_with = "crate::basics::date_json::deserialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub check_out: Option<NaiveDate>,
    /// The new number of guests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guests: Option<u32>,
}

/// The stay and guests a change asks for, checked as far as the booking alone allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// The new stay.
    pub stay: Stay,
    /// The new number of guests.
    pub guests: u32,
}

impl Change {
    /// True when no field is given.
    pub fn is_empty(&self) -> bool {
        self.check_in.is_none() && self.check_out.is_none() && self.guests.is_none()
    }

    /// The stay and guests of `b` after this change: 422 when no field is
    /// given, the dates make no stay or the guests are out of range.
    pub fn target(&self, b: &Booking) -> Result<Target, Error> {
        if self.is_empty() {
            let message = "give checkIn, checkOut or guests";
            return Err(Error::invalid("checkIn", "required", message));
        }
        let mut errors = Vec::new();
        let guests = self.guests.unwrap_or(b.guests);
        if !(1..=MAX_GUESTS).contains(&guests) {
            errors.push(FieldError::new("guests", "invalid", format!("must be 1 to {MAX_GUESTS}")));
        }
        let stay = Stay::new(self.check_in.unwrap_or(b.check_in()), self.check_out.unwrap_or(b.check_out()));
        match stay {
            Ok(stay) if errors.is_empty() => Ok(Target { stay, guests }),
            Ok(_) => Err(Error::Validation(errors)),
            Err(e) => {
                let message = match e {
                    StayError::NotAfter => e.to_string(),
                    StayError::TooLong => format!("at most {MAX_NIGHTS} nights"),
                };
                errors.insert(0, FieldError::new("checkOut", "invalid_range", message));
                Err(Error::Validation(errors))
            }
        }
    }
}

/// Whether `b` may be changed on `today` (its property's local date): a
/// pending or confirmed stay that has not ended, that no channel owns, and
/// that was not checked out: its departure is a fact, and moving the dates
/// would only move a door-code window that the check-out already closed.
pub fn check_allowed(b: &Booking, today: NaiveDate) -> Result<(), Error> {
    let open = matches!(b.status, Status::Pending | Status::Confirmed)
        && today < b.check_out()
        && b.visit.checked_out_at.is_none();
    if open && !b.is_channel_owned() {
        Ok(())
    } else {
        Err(Error::InvalidTransition { from: b.status, action: "change", channel_owned: b.is_channel_owned() })
    }
}

/// The quote of `target` for `b`: every rule of a creation, with the nights
/// `b` itself holds counted free. A stay already under way that keeps its
/// check-in is not refused for starting in the past or at short notice (the
/// guest may extend it). The rules are those in force at `now`.
pub fn quote(
    b: &Booking,
    target: Target,
    property: &Property,
    calendar: &[CalendarEntry],
    now: DateTime<Utc>,
) -> Quote {
    let others: Vec<CalendarEntry> = calendar.iter().filter(|e| e.holder != b.code.as_str()).cloned().collect();
    let facts = pricing::Facts { now, calendar: &others, promo_uses: 0 };
    let mut quote = pricing::quote(property, &pricing::Asked::stay(target.stay, target.guests), &facts);
    if target.stay.check_in() == b.check_in() {
        quote.problems.retain(|p| !matches!(p, Problem::PastDates { .. } | Problem::AdvanceNotice { .. }));
        quote.available = quote.problems.is_empty();
    }
    quote
}

/// The booking after the change priced by `quote` (whose problems the
/// caller has refused), with one `booking.updated` naming the fields that
/// changed; [`Outcome::Unchanged`] when `target` is what `b` already is.
pub fn apply(b: &Booking, target: Target, quote: &Quote, now: DateTime<Utc>) -> Outcome {
    if is_same(b, target) {
        return Outcome::Unchanged;
    }
    let mut next = b.clone();
    next.stay = target.stay;
    next.nights = target.stay.nights();
    next.guests = target.guests;
    next.total = quote.total;
    next.updated_at = now;
    let changes = changed_fields(b, &next);
    let events = vec![Event::updated(&next, &changes, now)];
    Outcome::Changed { booking: next, events }
}

/// True when `target` asks for the stay and guests `b` already has.
pub fn is_same(b: &Booking, target: Target) -> bool {
    b.stay == target.stay && b.guests == target.guests
}

/// The JSON names of the changed fields, in the contract's order.
fn changed_fields(a: &Booking, b: &Booking) -> Vec<&'static str> {
    let fields = [
        ("checkIn", a.check_in() != b.check_in()),
        ("checkOut", a.check_out() != b.check_out()),
        ("guests", a.guests != b.guests),
        ("nights", a.nights != b.nights),
        ("total", a.total != b.total),
    ];
    fields.into_iter().filter(|(_, differs)| *differs).map(|(name, _)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::ids::Source;
    use crate::basics::short_text::ShortText;
    use crate::bookings::booking::{ExternalRef, PaymentStatus};
    use crate::bookings::calendar::EntryKind;
    use crate::demo;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn now() -> DateTime<Utc> {
        "2026-11-22T07:39:21.123Z".parse().unwrap()
    }

    fn sea_view() -> Property {
        demo::properties().into_iter().find(|p| p.slug.as_str() == "sea-view").unwrap()
    }

    fn booking() -> Booking {
        let mut b = demo::booking("BK-TEST22", "2026-12-20", "2026-12-27");
        b.guests = 2;
        b
    }

    fn entry(holder: &str, a: &str, z: &str) -> CalendarEntry {
        let stay = Stay::new(d(a), d(z)).unwrap();
        CalendarEntry {
            holder: holder.into(),
            stay,
            kind: EntryKind::Booked,
            guest_name: ShortText::default(),
            guests: 1,
        }
    }

    fn dates(check_in: &str, check_out: &str) -> Change {
        Change { check_in: Some(d(check_in)), check_out: Some(d(check_out)), guests: None }
    }

    #[test]
    fn an_empty_change_or_a_bad_stay_is_a_validation_error() {
        let b = booking();
        for change in [
            Change::default(),
            dates("2026-12-27", "2026-12-20"),
            Change { guests: Some(0), ..Change::default() },
            Change { check_out: Some(d("2028-01-01")), ..Change::default() },
        ] {
            assert!(matches!(change.target(&b), Err(Error::Validation(_))), "{change:?}");
        }
        let target = Change { guests: Some(3), ..Change::default() }.target(&b).unwrap();
        assert_eq!((target.stay, target.guests), (b.stay, 3), "left-out fields keep their values");
    }

    #[test]
    fn only_open_stays_of_our_own_may_change() {
        let today = d("2026-11-22");
        let mut b = booking();
        assert!(check_allowed(&b, today).is_ok());
        b.status = Status::Confirmed;
        assert!(check_allowed(&b, d("2026-12-26")).is_ok(), "the last night");
        assert!(check_allowed(&b, d("2026-12-27")).is_err(), "the stay has ended");
        b.status = Status::Cancelled;
        assert!(matches!(check_allowed(&b, today), Err(Error::InvalidTransition { action: "change", .. })));
        let mut channel = booking();
        channel.payment_status = PaymentStatus::External;
        channel.external = Some(ExternalRef { feed: Source::parse("airbnb").unwrap(), uid: "x".into() });
        assert!(matches!(check_allowed(&channel, today), Err(Error::InvalidTransition { channel_owned: true, .. })));
    }

    /// Noon UTC of `day`: in Lisbon, that day.
    fn noon(day: &str) -> DateTime<Utc> {
        format!("{day}T12:00:00Z").parse().unwrap()
    }

    #[test]
    fn the_booking_does_not_collide_with_its_own_nights() {
        let b = booking();
        let calendar = [entry("BK-TEST22", "2026-12-20", "2026-12-27"), entry("BK-OTHER2", "2026-12-28", "2026-12-30")];
        let target = dates("2026-12-22", "2026-12-28").target(&b).unwrap();
        let q = quote(&b, target, &sea_view(), &calendar, noon("2026-11-22"));
        assert!(q.available, "{:?}", q.problems);
        let target = dates("2026-12-22", "2026-12-29").target(&b).unwrap();
        let q = quote(&b, target, &sea_view(), &calendar, noon("2026-11-22"));
        assert_eq!(q.problems, [Problem::NightsTaken { dates: vec![d("2026-12-28")] }]);
    }

    #[test]
    fn a_stay_under_way_may_be_extended_but_not_moved_into_the_past() {
        let b = booking();
        let today = noon("2026-12-22");
        let extend = dates("2026-12-20", "2026-12-29").target(&b).unwrap();
        assert!(quote(&b, extend, &sea_view(), &[], today).available);
        let moved = dates("2026-12-21", "2026-12-29").target(&b).unwrap();
        assert!(!quote(&b, moved, &sea_view(), &[], today).available);
    }

    #[test]
    fn a_change_reprices_and_names_what_changed() {
        let b = booking();
        let target = dates("2026-12-21", "2026-12-27").target(&b).unwrap();
        let q = quote(&b, target, &sea_view(), &[], noon("2026-11-22"));
        let Outcome::Changed { booking, events } = apply(&b, target, &q, now()) else { panic!("no change") };
        assert_eq!((booking.nights, booking.total, booking.updated_at), (6, q.total, now()));
        assert_eq!(booking.payment_status, b.payment_status);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data["changes"], serde_json::json!(["checkIn", "nights", "total"]));
        let same = Change { guests: Some(2), ..Change::default() }.target(&b).unwrap();
        assert_eq!(apply(&b, same, &q, now()), Outcome::Unchanged);
    }
}
