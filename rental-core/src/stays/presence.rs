//! Check-in and check-out of a confirmed stay (docs/API.md section 15): the
//! `check_in` and `check_out` actions, and the transitions the schedule makes.

use chrono::{DateTime, Utc};

use crate::bookings::booking::{Booking, Status};
use crate::bookings::event::{Event, EventName};
use crate::bookings::lifecycle::Outcome;
use crate::bookings::visit::TransitionBy;
use crate::error::Error;
use crate::properties::property::Property;
use crate::stays::occupancy::today_in;
use crate::stays::stay_state::{StayTimes, scheduled_check_in, scheduled_check_out};

/// Which door transition an action asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// `check_in`: a confirmed stay on its arrival day or later, before it ended.
    In,
    /// `check_out`: a checked-in stay leaves (early, or on time).
    Out,
}

impl Door {
    /// The action's name as the API spells it.
    pub fn name(self) -> &'static str {
        match self {
            Door::In => "check_in",
            Door::Out => "check_out",
        }
    }
}

/// Applies the `check_in` or `check_out` action to `b` of `property` at
/// `now`, after the scheduled transitions already due (so an action that the
/// schedule has already made is a repeat: 200, no event of its own).
pub fn act(b: &Booking, property: &Property, door: Door, now: DateTime<Utc>) -> Result<Outcome, Error> {
    let refuse = || Error::InvalidTransition { from: b.status, action: door.name(), channel_owned: false };
    if b.status != Status::Confirmed {
        return Err(refuse());
    }
    let (mut next, mut events) = match due(b, property, now) {
        Outcome::Changed { booking, events } => (booking, events),
        Outcome::Unchanged => (b.clone(), Vec::new()),
    };
    let times = StayTimes::of(property, next.check_in(), next.check_out(), &next.visit);
    match door {
        Door::In if next.visit.checked_in_at.is_some() => {}
        Door::In if today_in(property.timezone, now) < next.check_in() || now >= times.check_out_at => {
            return Err(refuse());
        }
        Door::In => {
            record(&mut next, Door::In, now, TransitionBy::Action);
            events.push(Event::stay(EventName::StayCheckedIn, &next, now, TransitionBy::Action, now));
        }
        Door::Out if next.visit.checked_out_at.is_some() => {}
        Door::Out if next.visit.checked_in_at.is_none() => return Err(refuse()),
        Door::Out => {
            record(&mut next, Door::Out, now, TransitionBy::Action);
            events.push(Event::stay(EventName::StayCheckedOut, &next, now, TransitionBy::Action, now));
        }
    }
    if events.is_empty() {
        return Ok(Outcome::Unchanged);
    }
    next.updated_at = now;
    Ok(Outcome::Changed { booking: next, events })
}

/// The transitions of a confirmed stay that its schedule has made by `now`
/// and that are not recorded yet: check-in at `checkInTime` on the arrival
/// day, then check-out at `checkOutTime` on the departure day, each at most once.
pub fn due(b: &Booking, property: &Property, now: DateTime<Utc>) -> Outcome {
    if b.status != Status::Confirmed {
        return Outcome::Unchanged;
    }
    let mut next = b.clone();
    let mut events = Vec::new();
    let check_in = scheduled_check_in(property, b.check_in());
    if next.visit.checked_in_at.is_none() && check_in <= now {
        record(&mut next, Door::In, check_in, TransitionBy::Schedule);
        events.push(Event::stay(EventName::StayCheckedIn, &next, check_in, TransitionBy::Schedule, now));
    }
    let check_out = scheduled_check_out(property, b.check_out());
    if next.visit.checked_in_at.is_some() && next.visit.checked_out_at.is_none() && check_out <= now {
        record(&mut next, Door::Out, check_out, TransitionBy::Schedule);
        events.push(Event::stay(EventName::StayCheckedOut, &next, check_out, TransitionBy::Schedule, now));
    }
    if events.is_empty() {
        return Outcome::Unchanged;
    }
    next.updated_at = now;
    Outcome::Changed { booking: next, events }
}

fn record(b: &mut Booking, door: Door, at: DateTime<Utc>, by: TransitionBy) {
    match door {
        Door::In => (b.visit.checked_in_at, b.visit.checked_in_by) = (Some(at), Some(by)),
        Door::Out => (b.visit.checked_out_at, b.visit.checked_out_by) = (Some(at), Some(by)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    /// A confirmed stay at Sea View (Lisbon, UTC+0 in December) 2026-12-20..2026-12-27.
    fn confirmed() -> Booking {
        let mut b = demo::booking("BK-TEST22", "2026-12-20", "2026-12-27");
        b.status = Status::Confirmed;
        b
    }

    fn names(o: &Outcome) -> Vec<(&'static str, String)> {
        match o {
            Outcome::Unchanged => Vec::new(),
            Outcome::Changed { events, .. } => events
                .iter()
                .map(|e| (e.event.as_str(), format!("{} {}", e.data["at"].as_str().unwrap(), e.data["by"])))
                .collect(),
        }
    }

    fn changed(o: Outcome) -> Booking {
        match o {
            Outcome::Changed { booking, .. } => booking,
            Outcome::Unchanged => panic!("nothing changed"),
        }
    }

    #[test]
    fn the_schedule_checks_in_at_check_in_time_and_out_at_check_out_time_each_once() {
        let p = demo::sea_view();
        let b = confirmed();
        assert_eq!(due(&b, &p, at("2026-12-20T14:59:59Z")), Outcome::Unchanged);
        let o = due(&b, &p, at("2026-12-20T15:00:30Z"));
        assert_eq!(names(&o), [("stay.checked_in", "2026-12-20T15:00:00.000Z \"schedule\"".to_owned())]);
        let b = changed(o);
        assert_eq!(due(&b, &p, at("2026-12-21T10:00:00Z")), Outcome::Unchanged, "once");
        let o = due(&b, &p, at("2026-12-27T11:00:00Z"));
        assert_eq!(names(&o), [("stay.checked_out", "2026-12-27T11:00:00.000Z \"schedule\"".to_owned())]);
        assert_eq!(due(&changed(o), &p, at("2026-12-28T00:00:00Z")), Outcome::Unchanged);
    }

    #[test]
    fn a_stay_missed_entirely_while_down_gets_both_transitions_in_order() {
        let o = due(&confirmed(), &demo::sea_view(), at("2026-12-29T08:00:00Z"));
        let got: Vec<&str> = names(&o).into_iter().map(|(n, _)| n).collect();
        assert_eq!(got, ["stay.checked_in", "stay.checked_out"]);
    }

    #[test]
    fn check_in_is_allowed_from_the_arrival_day_and_repeats_are_no_ops() {
        let p = demo::sea_view();
        let b = confirmed();
        let early = act(&b, &p, Door::In, at("2026-12-19T23:59:00Z"));
        assert!(matches!(early, Err(Error::InvalidTransition { .. })), "the day before arrival");
        let o = act(&b, &p, Door::In, at("2026-12-20T09:00:00Z")).unwrap();
        assert_eq!(names(&o), [("stay.checked_in", "2026-12-20T09:00:00.000Z \"action\"".to_owned())]);
        let b = changed(o);
        assert_eq!(act(&b, &p, Door::In, at("2026-12-20T16:00:00Z")).unwrap(), Outcome::Unchanged);
        assert_eq!(due(&b, &p, at("2026-12-20T16:00:00Z")), Outcome::Unchanged, "the schedule does not repeat it");
    }

    #[test]
    fn check_out_needs_a_checked_in_stay_and_ends_it_early() {
        let p = demo::sea_view();
        let b = confirmed();
        let before = act(&b, &p, Door::Out, at("2026-12-20T12:00:00Z"));
        assert!(matches!(before, Err(Error::InvalidTransition { .. })), "not checked in yet");
        // After 15:00 the schedule's check-in is recorded first, then the departure.
        let o = act(&b, &p, Door::Out, at("2026-12-23T09:00:00Z")).unwrap();
        assert_eq!(
            names(&o),
            [
                ("stay.checked_in", "2026-12-20T15:00:00.000Z \"schedule\"".to_owned()),
                ("stay.checked_out", "2026-12-23T09:00:00.000Z \"action\"".to_owned())
            ]
        );
        let b = changed(o);
        assert_eq!(act(&b, &p, Door::Out, at("2026-12-23T10:00:00Z")).unwrap(), Outcome::Unchanged);
        assert_eq!(due(&b, &p, at("2026-12-27T12:00:00Z")), Outcome::Unchanged, "no scheduled check-out after it");
    }

    #[test]
    fn pending_and_cancelled_stays_have_no_door() {
        let p = demo::sea_view();
        let mut b = demo::booking("BK-TEST22", "2026-12-20", "2026-12-27");
        for status in [Status::Pending, Status::Cancelled] {
            b.status = status;
            assert!(act(&b, &p, Door::In, at("2026-12-20T16:00:00Z")).is_err());
            assert_eq!(due(&b, &p, at("2026-12-20T16:00:00Z")), Outcome::Unchanged);
        }
    }
}
