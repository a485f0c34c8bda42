//! From what a feed says now and what it owned before, the changes to make:
//! pure, so every rule of docs/API.md section 8 is tested without a store.

use chrono::{Days, NaiveDate};

use super::classify::{EventKind, classify, without_markers};
use super::state::{FeedState, Owned, OwnedKind};
use crate::basics::stay::{MAX_NIGHTS, Stay};
use crate::channels::ical::FeedEvent;

/// Events starting this many days after today or later are not imported (channels open
/// their calendars about two years ahead; a feed can list decades).
pub const HORIZON_DAYS: u64 = 3 * 366;

/// What to do about one feed event key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The event key (`FeedEvent::uid`).
    pub uid: String,
    /// What it owned before, if anything.
    pub before: Option<Owned>,
    /// What to make of it now.
    pub action: EventAction,
}

/// The change for one event key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventAction {
    /// Make it a booking, or bring the booking it owns to these dates and this guest name.
    Booking {
        /// The stay.
        stay: Stay,
        /// The guest's name from the summary.
        guest_name: String,
        /// The event as read, to remember.
        seen: Seen,
    },
    /// Make it blocks over these stays, replacing what it owned.
    Blocks {
        /// The nights, in pieces of at most 366.
        stays: Vec<Stay>,
        /// The event as read, to remember.
        seen: Seen,
    },
    /// The channel dropped it: cancel its booking or remove its blocks.
    Drop,
    /// It ended in the past and the feed no longer lists it: forget it, change nothing.
    Forget,
}

/// An event's dates and summary, as the state remembers them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The first night.
    pub start: NaiveDate,
    /// The checkout day.
    pub end: NaiveDate,
    /// The summary.
    pub summary: String,
}

/// The steps that bring a feed's bookings and blocks in line with `events`, judged on
/// `today` in the property's time zone. Unchanged events produce no step.
///
/// Rules: check-in/out markers are dropped; events that ended by `today` are neither
/// imported nor changed (channels drop past stays, which is not a cancellation); events
/// starting [`HORIZON_DAYS`] or more ahead are not imported; a reservation longer than
/// 366 nights becomes blocks, like an event whose summary is not a reservation.
pub fn plan(state: &FeedState, events: Vec<FeedEvent>, patterns: &[String], today: NaiveDate) -> Vec<Step> {
    let horizon = today.checked_add_days(Days::new(HORIZON_DAYS)).unwrap_or(NaiveDate::MAX);
    let events = without_markers(events);
    let mut steps = Vec::new();
    for event in &events {
        if event.end <= today || event.start >= horizon {
            continue;
        }
        let before = state.items.get(&event.uid);
        let seen = Seen { start: event.start, end: event.end, summary: event.summary.clone() };
        let action = wanted(event, patterns, horizon, seen);
        if before.is_none_or(|owned| !already(owned, &action)) {
            steps.push(Step { uid: event.uid.clone(), before: before.cloned(), action });
        }
    }
    for (uid, owned) in &state.items {
        if events.iter().any(|e| &e.uid == uid && e.start < horizon && (e.end > today || owned.end <= today)) {
            continue;
        }
        let action = if owned.end <= today { EventAction::Forget } else { EventAction::Drop };
        steps.push(Step { uid: uid.clone(), before: Some(owned.clone()), action });
    }
    steps
}

fn wanted(event: &FeedEvent, patterns: &[String], horizon: NaiveDate, seen: Seen) -> EventAction {
    let end = event.end.min(horizon);
    match classify(&event.summary, patterns) {
        EventKind::Reservation { guest_name } => match Stay::new(event.start, end) {
            Ok(stay) => EventAction::Booking { stay, guest_name, seen },
            Err(_) => EventAction::Blocks { stays: pieces(event.start, end), seen },
        },
        EventKind::Block => EventAction::Blocks { stays: pieces(event.start, end), seen },
    }
}

/// `start..end` cut into stays of at most [`MAX_NIGHTS`] nights.
fn pieces(start: NaiveDate, end: NaiveDate) -> Vec<Stay> {
    let mut stays = Vec::new();
    let mut from = start;
    while from < end {
        let to = from.checked_add_days(Days::new(u64::from(MAX_NIGHTS))).map_or(end, |d| d.min(end));
        stays.extend(Stay::new(from, to).ok());
        from = to;
    }
    stays
}

/// True when `owned` already is what `action` asks for.
fn already(owned: &Owned, action: &EventAction) -> bool {
    let same = |seen: &Seen| owned.start == seen.start && owned.end == seen.end && owned.summary == seen.summary;
    match action {
        EventAction::Booking { seen, .. } => owned.kind == OwnedKind::Booking && same(seen),
        EventAction::Blocks { seen, .. } => owned.kind == OwnedKind::Block && same(seen),
        EventAction::Drop | EventAction::Forget => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::ids::{Slug, Source};

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn event(uid: &str, summary: &str, start: &str, end: &str) -> FeedEvent {
        FeedEvent { uid: uid.into(), summary: summary.into(), start: d(start), end: d(end) }
    }

    fn state(items: &[(&str, OwnedKind, &str, &str, &str)]) -> FeedState {
        let mut state = FeedState::new(Slug::parse("sea-view").unwrap(), Source::parse("airbnb").unwrap());
        for (uid, kind, start, end, summary) in items {
            let owned = Owned {
                kind: *kind,
                holders: vec![format!("h-{uid}")],
                start: d(start),
                end: d(end),
                summary: (*summary).into(),
            };
            state.items.insert((*uid).into(), owned);
        }
        state
    }

    fn actions(steps: &[Step]) -> Vec<(String, &'static str)> {
        let name = |a: &EventAction| match a {
            EventAction::Booking { .. } => "booking",
            EventAction::Blocks { .. } => "blocks",
            EventAction::Drop => "drop",
            EventAction::Forget => "forget",
        };
        steps.iter().map(|s| (s.uid.clone(), name(&s.action))).collect()
    }

    const TODAY: &str = "2026-10-01";

    #[test]
    fn a_first_pull_imports_reservations_as_bookings_and_the_rest_as_blocks() {
        let events = vec![
            event("a", "Reserved", "2026-10-02", "2026-10-06"),
            event("b", "Airbnb (Not available)", "2026-10-10", "2026-10-12"),
        ];
        let steps = plan(&state(&[]), events, &[], d(TODAY));
        assert_eq!(actions(&steps), [("a".into(), "booking"), ("b".into(), "blocks")]);
        let EventAction::Booking { stay, guest_name, .. } = &steps[0].action else { panic!() };
        assert_eq!(
            (stay.check_in(), stay.check_out(), guest_name.as_str()),
            (d("2026-10-02"), d("2026-10-06"), "Reserved")
        );
    }

    #[test]
    fn an_unchanged_pull_changes_nothing() {
        let before = state(&[("a", OwnedKind::Booking, "2026-10-02", "2026-10-06", "Reserved")]);
        let steps = plan(&before, vec![event("a", "Reserved", "2026-10-02", "2026-10-06")], &[], d(TODAY));
        assert!(steps.is_empty(), "{steps:?}");
    }

    #[test]
    fn new_dates_update_and_a_vanished_future_uid_is_dropped() {
        let before = state(&[
            ("a", OwnedKind::Booking, "2026-10-02", "2026-10-06", "Reserved"),
            ("b", OwnedKind::Booking, "2026-11-02", "2026-11-06", "Reserved"),
            ("c", OwnedKind::Block, "2026-12-02", "2026-12-06", "Blocked"),
        ]);
        let steps = plan(&before, vec![event("a", "Reserved", "2026-10-03", "2026-10-06")], &[], d(TODAY));
        assert_eq!(actions(&steps), [("a".into(), "booking"), ("b".into(), "drop"), ("c".into(), "drop")]);
        assert_eq!(steps[0].before.as_ref().map(|o| o.start), Some(d("2026-10-02")));
    }

    #[test]
    fn past_stays_are_neither_imported_nor_cancelled_when_they_vanish() {
        let before = state(&[("old", OwnedKind::Booking, "2026-09-01", "2026-09-05", "Reserved")]);
        let events = vec![event("past", "Reserved", "2026-09-20", "2026-10-01")];
        let steps = plan(&before, events, &[], d(TODAY));
        assert_eq!(actions(&steps), [("old".into(), "forget")]);
    }

    #[test]
    fn a_past_owned_stay_still_listed_is_kept_as_it_is() {
        let before = state(&[("old", OwnedKind::Booking, "2026-09-01", "2026-09-05", "Reserved")]);
        let steps = plan(&before, vec![event("old", "Reserved", "2026-09-01", "2026-09-05")], &[], d(TODAY));
        assert!(steps.is_empty(), "{steps:?}");
    }

    #[test]
    fn a_reservation_that_turns_into_a_block_is_replaced() {
        let before = state(&[("a", OwnedKind::Booking, "2026-10-02", "2026-10-06", "Reserved")]);
        let steps = plan(&before, vec![event("a", "Blocked", "2026-10-02", "2026-10-06")], &[], d(TODAY));
        assert_eq!(actions(&steps), [("a".into(), "blocks")]);
        assert_eq!(steps[0].before.as_ref().map(|o| o.kind), Some(OwnedKind::Booking));
    }

    #[test]
    fn long_closures_are_cut_into_blocks_and_far_future_events_are_skipped() {
        let events = vec![
            event("long", "Reserved", "2026-10-01", "2028-01-01"),
            event("far", "Reserved", "2035-01-01", "2035-01-05"),
        ];
        let steps = plan(&state(&[]), events, &[], d(TODAY));
        assert_eq!(actions(&steps), [("long".into(), "blocks")]);
        let EventAction::Blocks { stays, .. } = &steps[0].action else { panic!() };
        let nights: u32 = stays.iter().map(Stay::nights).sum();
        assert_eq!(nights, 457);
        assert_eq!(stays.first().map(Stay::check_in), Some(d("2026-10-01")));
        assert_eq!(stays.last().map(Stay::check_out), Some(d("2028-01-01")));
        assert!(stays.windows(2).all(|w| w[0].check_out() == w[1].check_in()));
    }

    #[test]
    fn markers_beside_a_stay_take_no_nights() {
        let events = vec![
            event("s", "Guest (Airbnb)", "2026-10-12", "2026-10-15"),
            event("o", "Check-out: Guest", "2026-10-15", "2026-10-16"),
        ];
        assert_eq!(actions(&plan(&state(&[]), events, &[], d(TODAY))), [("s".into(), "blocks")]);
    }
}
