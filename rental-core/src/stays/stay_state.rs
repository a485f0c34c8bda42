//! A property's stay state at an instant (docs/API.md section 15): vacant,
//! awaiting check-in, checked in or checked out, and when it next changes.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::bookings::visit::Visit;
use crate::properties::local_time::{instant, start_of_day};
use crate::properties::property::Property;
use crate::stays::occupancy::today_in;

/// Where a property's confirmed stays are at an instant.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StayState {
    /// No stay arrives, is in or left today.
    Vacant,
    /// A stay arrives today and is not checked in yet.
    AwaitingCheckIn,
    /// A stay is checked in and not checked out.
    CheckedIn,
    /// A stay checked out today; until the next stay's check-in or the end of the day.
    CheckedOut,
}

impl StayState {
    /// `vacant`, `awaiting_check_in`, `checked_in` or `checked_out`.
    pub fn as_str(self) -> &'static str {
        match self {
            StayState::Vacant => "vacant",
            StayState::AwaitingCheckIn => "awaiting_check_in",
            StayState::CheckedIn => "checked_in",
            StayState::CheckedOut => "checked_out",
        }
    }
}

/// The state as the API writes it (`checked_in`, ...).
impl std::fmt::Display for StayState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One confirmed stay as the state machine sees it: when it is (or will be)
/// checked in and out, by the action where one was taken, else by the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StayTimes {
    /// The arrival day.
    pub arrival: NaiveDate,
    /// The departure day.
    pub departure: NaiveDate,
    /// The check-in instant: the recorded one, else `checkInTime` on the arrival day.
    pub check_in_at: DateTime<Utc>,
    /// The check-out instant: the recorded one, else `checkOutTime` on the departure day.
    pub check_out_at: DateTime<Utc>,
}

impl StayTimes {
    /// The times of the stay `arrival..departure` at `property` with what `visit` recorded.
    pub fn of(property: &Property, arrival: NaiveDate, departure: NaiveDate, visit: &Visit) -> Self {
        StayTimes {
            arrival,
            departure,
            check_in_at: visit.checked_in_at.unwrap_or_else(|| scheduled_check_in(property, arrival)),
            check_out_at: visit.checked_out_at.unwrap_or_else(|| scheduled_check_out(property, departure)),
        }
    }

    /// True when the stay is checked in and not checked out at `now`.
    pub fn is_in(&self, now: DateTime<Utc>) -> bool {
        self.check_in_at <= now && now < self.check_out_at
    }
}

/// `checkInTime` on `arrival`, in the property's zone.
pub fn scheduled_check_in(property: &Property, arrival: NaiveDate) -> DateTime<Utc> {
    instant(property.timezone, arrival, property.stay_rules.check_in_time)
}

/// `checkOutTime` on `departure`, in the property's zone.
pub fn scheduled_check_out(property: &Property, departure: NaiveDate) -> DateTime<Utc> {
    instant(property.timezone, departure, property.stay_rules.check_out_time)
}

/// The state and the next automatic change of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateAt {
    /// The state.
    pub state: StayState,
    /// When it next changes by itself, if it will.
    pub next_transition_at: Option<DateTime<Utc>>,
    /// The index in the stays given of the stay the state is about (none when vacant).
    pub stay: Option<usize>,
}

/// The state of `property` at `now`, given its confirmed stays that depart
/// today or later (more do no harm), in any order.
pub fn state_at(property: &Property, now: DateTime<Utc>, stays: &[StayTimes]) -> StateAt {
    let tz = property.timezone;
    let today = today_in(tz, now);
    let end_of_day = start_of_day(tz, today.succ_opt().unwrap_or(today));
    let arriving_today = || stays.iter().enumerate().filter(|(_, s)| s.arrival == today);
    if let Some(i) = stays.iter().position(|s| s.is_in(now)) {
        return StateAt { state: StayState::CheckedIn, next_transition_at: Some(stays[i].check_out_at), stay: Some(i) };
    }
    if let Some(i) = stays.iter().position(|s| s.check_out_at <= now && today_in(tz, s.check_out_at) == today) {
        let next_in = arriving_today().map(|(_, s)| s.check_in_at).filter(|t| *t > now).min();
        let next_transition_at = Some(next_in.unwrap_or(end_of_day));
        return StateAt { state: StayState::CheckedOut, next_transition_at, stay: Some(i) };
    }
    if let Some((i, s)) = arriving_today().filter(|(_, s)| s.check_in_at > now).min_by_key(|(_, s)| s.check_in_at) {
        return StateAt { state: StayState::AwaitingCheckIn, next_transition_at: Some(s.check_in_at), stay: Some(i) };
    }
    let next_arrival = stays.iter().map(|s| s.arrival).filter(|a| *a > today).min();
    StateAt { state: StayState::Vacant, next_transition_at: next_arrival.map(|a| start_of_day(tz, a)), stay: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::visit::TransitionBy;
    use crate::demo;
    use StayState::{AwaitingCheckIn, CheckedIn, CheckedOut, Vacant};
    use chrono_tz::Tz;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn in_zone(tz: Tz) -> Property {
        {
            let mut edited = demo::sea_view();
            edited.timezone = tz;
            edited
        } // 15:00 in, 11:00 out
    }

    fn stay(p: &Property, a: &str, b: &str) -> StayTimes {
        StayTimes::of(p, d(a), d(b), &Visit::default())
    }

    fn left_early(p: &Property, a: &str, b: &str, out: &str) -> StayTimes {
        let visit =
            Visit { checked_out_at: Some(at(out)), checked_out_by: Some(TransitionBy::Action), ..Visit::default() };
        StayTimes::of(p, d(a), d(b), &visit)
    }

    fn check(p: &Property, stays: &[StayTimes], now: &str, state: StayState, next: Option<&str>) {
        let got = state_at(p, at(now), stays);
        assert_eq!((got.state, got.next_transition_at), (state, next.map(at)), "{} at {now}", p.timezone);
    }

    #[test]
    fn a_stay_moves_through_the_day_in_tokyo() {
        // Tokyo is UTC+9: 15:00 local is 06:00Z, 11:00 local is 02:00Z, midnight is 15:00Z the day before.
        let p = in_zone(chrono_tz::Asia::Tokyo);
        let stays = [stay(&p, "2026-12-20", "2026-12-22")];
        check(&p, &stays, "2026-12-19T14:59:59Z", Vacant, Some("2026-12-19T15:00:00Z")); // 23:59:59 the day before
        check(&p, &stays, "2026-12-19T15:00:00Z", AwaitingCheckIn, Some("2026-12-20T06:00:00Z")); // local midnight
        check(&p, &stays, "2026-12-20T05:59:59Z", AwaitingCheckIn, Some("2026-12-20T06:00:00Z"));
        check(&p, &stays, "2026-12-20T06:00:00Z", CheckedIn, Some("2026-12-22T02:00:00Z"));
        check(&p, &stays, "2026-12-22T01:59:59Z", CheckedIn, Some("2026-12-22T02:00:00Z"));
        check(&p, &stays, "2026-12-22T02:00:00Z", CheckedOut, Some("2026-12-22T15:00:00Z"));
        check(&p, &stays, "2026-12-22T14:59:59Z", CheckedOut, Some("2026-12-22T15:00:00Z"));
        check(&p, &stays, "2026-12-22T15:00:00Z", Vacant, None); // local midnight after departure
    }

    #[test]
    fn the_same_instant_is_a_different_state_in_another_zone() {
        // 2026-12-20T06:30Z: 19:30 on the 20th in Auckland (UTC+13), 22:30 on the 19th in Los Angeles.
        let now = "2026-12-20T06:30:00Z";
        let akl = in_zone(chrono_tz::Pacific::Auckland);
        check(&akl, &[stay(&akl, "2026-12-20", "2026-12-23")], now, StayState::CheckedIn, Some("2026-12-22T22:00:00Z"));
        let lax = in_zone(chrono_tz::America::Los_Angeles);
        check(&lax, &[stay(&lax, "2026-12-20", "2026-12-23")], now, StayState::Vacant, Some("2026-12-20T08:00:00Z"));
    }

    #[test]
    fn a_same_day_turnover_is_checked_out_until_the_next_check_in() {
        let p = in_zone(chrono_tz::America::New_York); // UTC-5: 11:00 is 16:00Z, 15:00 is 20:00Z
        let stays = [stay(&p, "2026-12-18", "2026-12-20"), stay(&p, "2026-12-20", "2026-12-24")];
        check(&p, &stays, "2026-12-20T15:00:00Z", CheckedIn, Some("2026-12-20T16:00:00Z"));
        check(&p, &stays, "2026-12-20T16:00:00Z", CheckedOut, Some("2026-12-20T20:00:00Z"));
        check(&p, &stays, "2026-12-20T20:00:00Z", CheckedIn, Some("2026-12-24T16:00:00Z"));
    }

    #[test]
    fn an_early_check_out_ends_the_stay_that_day_and_the_next_day_is_vacant() {
        let p = in_zone(chrono_tz::Europe::Lisbon); // UTC+0 in December
        let stays = [left_early(&p, "2026-12-20", "2026-12-27", "2026-12-23T09:00:00Z")];
        check(&p, &stays, "2026-12-23T08:59:00Z", CheckedIn, Some("2026-12-23T09:00:00Z"));
        check(&p, &stays, "2026-12-23T09:00:00Z", CheckedOut, Some("2026-12-24T00:00:00Z"));
        check(&p, &stays, "2026-12-24T00:00:00Z", Vacant, None);
    }

    #[test]
    fn a_check_in_by_action_before_the_time_counts_at_once() {
        let p = in_zone(chrono_tz::Europe::Lisbon);
        let visit = Visit {
            checked_in_at: Some(at("2026-12-20T12:10:00Z")),
            checked_in_by: Some(TransitionBy::Action),
            ..Visit::default()
        };
        let stays = [StayTimes::of(&p, d("2026-12-20"), d("2026-12-22"), &visit)];
        check(&p, &stays, "2026-12-20T12:00:00Z", StayState::AwaitingCheckIn, Some("2026-12-20T12:10:00Z"));
        check(&p, &stays, "2026-12-20T12:10:00Z", StayState::CheckedIn, Some("2026-12-22T11:00:00Z"));
    }
}
