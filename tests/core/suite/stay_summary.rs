//! docs/API.md section 15 in the summary: each property's stay state and
//! door code follow the stay's check-in, check-out and date changes at once.

use rental_core::access::DoorCodeMode;
use rental_core::change::Change;
use rental_core::occupancy::PropertySummary;
use rental_core::stay_state::StayState;
use rental_core::{Action, Store, demo};
use rental_tests::{Harness, at, d, store_suite};

store_suite!(the_summary_follows_a_stay_from_arrival_to_departure_as_it_happens);

/// Sea View in the summary now.
fn sea_view<S: Store>(h: &Harness<S>) -> PropertySummary {
    let summary = h.summary().unwrap();
    summary.properties.into_iter().find(|p| p.slug.as_str() == "sea-view").unwrap()
}

/// The stay state, the next transition and the door code's window, as a host reads them.
fn stay_of(p: &PropertySummary) -> (StayState, Option<String>, Option<(String, String)>) {
    let window = p.access.as_ref().map(|a| (a.valid_from.to_rfc3339(), a.valid_until.to_rfc3339()));
    (p.stay_state, p.next_transition_at.map(|t| t.to_rfc3339()), window)
}

fn the_summary_follows_a_stay_from_arrival_to_departure_as_it_happens<S: Store>(h: &Harness<S>) {
    // Lisbon, UTC+0 in November: check-in 15:00, check-out 11:00; codes 30 min before to 15 after.
    let per_stay = {
        let mut edited = demo::sea_view();
        edited.access.door_code_mode = DoorCodeMode::PerStay;
        edited.access.access_before_minutes = 30;
        edited.access.access_after_minutes = 15;
        edited
    };
    h.import_properties(&[per_stay]).unwrap();
    let stay = h.book_confirmed("sea-view", "2026-11-22", "2026-11-25", 2);
    let code = stay.code.as_str();
    let first = sea_view(h);
    let door = first.access.as_ref().map(|a| a.code.clone()).expect("a per-stay code is issued on confirmation");
    assert_eq!(
        stay_of(&first),
        (
            StayState::AwaitingCheckIn,
            Some("2026-11-22T15:00:00+00:00".into()),
            Some(("2026-11-22T14:30:00+00:00".into(), "2026-11-25T11:15:00+00:00".into()))
        )
    );

    let later = Change { check_out: Some(d("2026-11-26")), ..Change::default() };
    h.update_booking(code, &Action::Change(later)).unwrap();
    let changed = sea_view(h);
    assert_eq!(changed.access.as_ref().map(|a| a.valid_until), Some(at("2026-11-26T11:15:00Z")), "the code moved");
    assert_eq!(changed.access.map(|a| a.code), Some(door), "the same code");

    h.update_booking(code, &Action::CheckIn).unwrap();
    assert_eq!(
        stay_of(&sea_view(h)),
        (
            StayState::CheckedIn,
            Some("2026-11-26T11:00:00+00:00".into()),
            Some(("2026-11-22T14:30:00+00:00".into(), "2026-11-26T11:15:00+00:00".into()))
        )
    );

    h.set_now("2026-11-23T09:00:00Z");
    h.update_booking(code, &Action::CheckOut).unwrap();
    let left = sea_view(h);
    assert_eq!(left.stay_state, StayState::CheckedOut);
    let until = left.access.map(|a| a.valid_until);
    assert_eq!(until, Some(at("2026-11-23T09:15:00Z")), "an early departure ends the code 15 minutes later");
}
