//! When the timed messages fall due: each kind's lead before its moment of
//! the stay ([`TimedTo`]: the access window opening, or `checkOutTime` on the
//! departure day), counted on the property's wall clock.
//!
//! A lead is subtracted from local time, not from UTC: 48 hours before a
//! 15:00 arrival is 15:00 two days earlier even when the clocks changed in
//! between, which is what a host means and a guest expects.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use chrono_tz::Tz;

use crate::bookings::booking::Booking;
use crate::properties::local_time::{instant, local_instant};
use crate::properties::property::Property;
use crate::stays::access;

use super::{Lead, MessageKind, TimedTo, reasons};

/// The instant `lead` before `at` on the wall clock of `tz` (a time a DST gap
/// skips is the end of the gap; one a fold repeats, its first occurrence).
///
/// ```
/// use rental_core::message::{timing::before_on_wall_clock, Lead};
/// // New York moves its clocks forward on 2027-03-14: 48 h of wall clock is 47 h of UTC.
/// let arrival = "2027-03-15T19:00:00Z".parse().unwrap(); // 15:00 EDT
/// let due = before_on_wall_clock(chrono_tz::America::New_York, arrival, Lead::CHECK_IN);
/// assert_eq!(due.to_rfc3339(), "2027-03-13T20:00:00+00:00"); // 15:00 EST
/// ```
pub fn before_on_wall_clock(tz: Tz, at: DateTime<Utc>, lead: Lead) -> DateTime<Utc> {
    let local = at.with_timezone(&tz).naive_local() - lead.delta();
    local_instant(tz, local)
}

/// When a stay's access window opens (docs/API.md section 15).
pub fn window_opens(property: &Property, check_in: NaiveDate, check_out: NaiveDate) -> DateTime<Utc> {
    access::window(property, check_in, check_out, None).0
}

/// The departure instant: `checkOutTime` on the departure day.
pub fn departure(property: &Property, check_out: NaiveDate) -> DateTime<Utc> {
    instant(property.timezone, check_out, property.stay_rules.check_out_time)
}

/// When each timed message of a stay `check_in..check_out` at `property`,
/// confirmed or changed at `now`, goes out, in [`MessageKind::ALL`]'s order:
/// its lead ([`MessageSettings::lead`](crate::property::MessageSettings::lead))
/// before its moment ([`TimedTo`]), or at once when that has passed. An
/// arrival message never goes before `accessRevealHours` before the window
/// opens; a departure message never before the arrival ones, so a one-night
/// stay's messages arrive in the order the guest needs them.
///
/// ```
/// use rental_core::{demo, message::{timing::schedule, MessageKind}};
/// let p = demo::sea_view(); // Lisbon, 15:00 to 11:00
/// let s = schedule(&p, "2026-12-20".parse().unwrap(), "2026-12-21".parse().unwrap(),
///                  "2026-11-22T08:00:00Z".parse().unwrap());
/// let at: Vec<_> = s.iter().map(|(kind, due)| (*kind, due.to_rfc3339())).collect();
/// assert_eq!(at, [
///     (MessageKind::CheckInInstructions, "2026-12-18T15:00:00+00:00".to_owned()),
///     (MessageKind::CheckOutReminder, "2026-12-20T19:00:00+00:00".to_owned()),
/// ]);
/// ```
pub fn schedule(
    property: &Property,
    check_in: NaiveDate,
    check_out: NaiveDate,
    now: DateTime<Utc>,
) -> Vec<(MessageKind, DateTime<Utc>)> {
    let tz = property.timezone;
    let opens = window_opens(property, check_in, check_out);
    // Never before the stay page may show the code (`accessRevealHours`, docs/API.md section 24).
    let reveal = crate::stays::access_gate::reveal_at(property, opens);
    let leave = departure(property, check_out);
    let timed =
        MessageKind::ALL.into_iter().filter_map(|kind| Some((kind, kind.timing()?.to, property.messages.lead(kind)?)));
    let arrivals: Vec<_> = timed.clone().filter(|(_, to, _)| *to == TimedTo::Arrival).collect();
    let last_arrival =
        arrivals.iter().map(|(_, _, lead)| before_on_wall_clock(tz, opens, *lead).max(reveal).max(now)).max();
    let departures_from = last_arrival.map_or(now, |at| at + TimeDelta::seconds(1));
    timed
        .map(|(kind, to, lead)| {
            let due = match to {
                TimedTo::Arrival => before_on_wall_clock(tz, opens, lead).max(reveal).max(now),
                TimedTo::Departure => before_on_wall_clock(tz, leave, lead).max(departures_from),
            };
            (kind, due)
        })
        .collect()
}

/// Why a message of `kind` about `booking` no longer makes sense at `now`
/// (after downtime, say), or `None` when it may go out: no arrival message
/// once the stay's window has closed, no departure message once the
/// departure time has passed or the guest checked out.
pub fn too_late(kind: MessageKind, booking: &Booking, property: &Property, now: DateTime<Utc>) -> Option<&'static str> {
    match kind.timing()?.to {
        TimedTo::Arrival => {
            let (_, until) =
                access::window(property, booking.check_in(), booking.check_out(), booking.visit.checked_out_at);
            (now >= until).then_some(reasons::STAY_ENDED)
        }
        TimedTo::Departure if booking.visit.checked_out_at.is_some() => Some(reasons::CHECKED_OUT),
        TimedTo::Departure => (now >= departure(property, booking.check_out())).then_some(reasons::DEPARTED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    /// The built-in timed messages' due times, by name.
    #[derive(Debug)]
    struct Due {
        instructions: DateTime<Utc>,
        reminder: DateTime<Utc>,
    }

    fn schedule(p: &Property, check_in: NaiveDate, check_out: NaiveDate, now: DateTime<Utc>) -> Due {
        let s = super::schedule(p, check_in, check_out, now);
        let of = |kind| s.iter().find(|(k, _)| *k == kind).map(|(_, at)| *at).expect("scheduled");
        Due { instructions: of(MessageKind::CheckInInstructions), reminder: of(MessageKind::CheckOutReminder) }
    }

    #[test]
    fn leads_count_on_the_wall_clock_across_dst_on_other_continents() {
        let mut p = demo::sea_view();
        // Sydney's clocks go back on 2027-04-04 (03:00 AEDT becomes 02:00 AEST).
        p.timezone = chrono_tz::Australia::Sydney;
        let s = schedule(&p, d("2027-04-05"), d("2027-04-08"), at("2027-01-01T00:00:00Z"));
        // 15:00 AEST on the 5th is 05:00Z; 48 h of wall clock before is 15:00 AEDT on the 3rd, 04:00Z.
        assert_eq!(s.instructions, at("2027-04-03T04:00:00Z"));
        // 16 h before 11:00 AEST on the 8th: 19:00 AEST on the 7th.
        assert_eq!(s.reminder, at("2027-04-07T09:00:00Z"));
    }

    #[test]
    fn the_lead_is_counted_from_the_window_which_may_open_early() {
        let mut p = demo::sea_view();
        p.access.access_before_minutes = 120;
        p.messages.check_in_lead = Lead::parse("1d").unwrap();
        let s = schedule(&p, d("2026-12-20"), d("2026-12-23"), at("2026-11-22T08:00:00Z"));
        assert_eq!(s.instructions, at("2026-12-19T13:00:00Z"));
    }

    #[test]
    fn inside_the_window_instructions_go_at_once_and_reminders_never_before_them() {
        let p = demo::sea_view();
        let now = at("2026-12-20T16:00:00Z");
        let s = schedule(&p, d("2026-12-20"), d("2026-12-21"), now);
        assert_eq!(s.instructions, now);
        assert_eq!(s.reminder, at("2026-12-20T19:00:00Z"));
        // A reminder lead longer than the stay would put it before the instructions.
        let mut long = demo::sea_view();
        long.messages.check_out_lead = Lead::parse("3d").unwrap();
        let s = schedule(&long, d("2026-12-20"), d("2026-12-21"), at("2026-11-22T08:00:00Z"));
        assert!(s.reminder > s.instructions, "{s:?}");
    }

    #[test]
    fn instructions_wait_for_the_access_reveal_time_when_it_is_later_than_the_lead() {
        let mut p = demo::sea_view();
        p.access.access_reveal_hours = 3;
        let s = schedule(&p, d("2026-12-20"), d("2026-12-23"), at("2026-11-22T08:00:00Z"));
        assert_eq!(s.instructions, at("2026-12-20T12:00:00Z"));
    }

    #[test]
    fn a_gap_in_the_wall_clock_moves_the_due_time_to_its_end() {
        let mut p = demo::sea_view();
        p.timezone = chrono_tz::America::New_York;
        p.stay_rules.check_in_time = crate::properties::property::ClockTime::parse("02:30").unwrap();
        p.messages.check_in_lead = Lead::parse("24h").unwrap();
        // 02:30 on 2027-03-14 does not exist in New York: 03:00 EDT.
        let s = schedule(&p, d("2027-03-15"), d("2027-03-17"), at("2027-01-01T00:00:00Z"));
        assert_eq!(s.instructions, at("2027-03-14T07:00:00Z"));
    }
}
