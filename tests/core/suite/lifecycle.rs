//! docs/API.md section 6: the PATCH actions through `update_booking`.

use chrono::TimeDelta;
use rental_core::availability::NightStatus;
use rental_core::booking::CancelledBy;
use rental_core::lifecycle::Party;
use rental_core::{Action, Error, NotFound, PaymentStatus, Status, Store};
use rental_tests::{Harness, at, d, store_suite};

use super::faults;

store_suite!(
    confirm_makes_a_request_confirmed_and_paid_with_two_events,
    a_confirmed_stay_shows_as_booked,
    confirming_a_confirmed_booking_is_a_no_op_without_events,
    cancel_of_a_pending_booking_releases_its_nights,
    cancel_of_a_paid_booking_refunds_it,
    cancel_of_an_authorized_request_releases_the_hold,
    cancel_of_a_cancelled_booking_is_a_no_op,
    confirm_of_a_cancelled_booking_is_an_invalid_transition,
    a_confirmed_stay_that_has_ended_cannot_be_cancelled,
    annotate_appends_a_note_and_emits_booking_updated,
    annotate_works_on_a_cancelled_booking,
    an_empty_note_is_refused,
    authorize_marks_a_request_authorized,
    authorize_of_a_confirmed_booking_is_an_invalid_transition,
    acting_on_an_unknown_booking_is_not_found,
);

fn cancel(by: Party, reason: &str) -> Action {
    Action::Cancel { by, reason: Some(reason.to_owned()) }
}

fn confirm_makes_a_request_confirmed_and_paid_with_two_events<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    h.advance(TimeDelta::minutes(5));
    let confirmed = h.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    assert_eq!((confirmed.status, confirmed.payment_status), (Status::Confirmed, PaymentStatus::Paid));
    assert_eq!(confirmed.updated_at, h.now());
    assert_eq!(h.booking(b.code.as_str()).unwrap(), confirmed, "the change is stored");
    assert_eq!(h.event_names_after(seq), ["booking.confirmed", "booking.updated"]);
    let events = h.events();
    assert_eq!(events[1].event.data["status"], "confirmed");
    assert_eq!(events[2].event.data["changes"], serde_json::json!(["status", "paymentStatus"]));
}

fn a_confirmed_stay_shows_as_booked<S: Store>(h: &Harness<S>) {
    h.book_confirmed("sea-view", "2026-12-20", "2026-12-22", 2);
    let a = h.availability("sea-view", Some(d("2026-12-20")), Some(d("2026-12-22"))).unwrap();
    assert!(a.nights.iter().all(|n| n.status == NightStatus::Booked && !n.available));
}

fn confirming_a_confirmed_booking_is_a_no_op_without_events<S: Store>(h: &Harness<S>) {
    let b = h.book_confirmed("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    h.advance(TimeDelta::minutes(5));
    let again = h.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    assert_eq!(again, b, "unchanged, updatedAt included");
    assert!(h.event_names_after(seq).is_empty());
}

fn cancel_of_a_pending_booking_releases_its_nights<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    let cancelled = h.update_booking(b.code.as_str(), &cancel(Party::Guest, "plans changed")).unwrap();
    assert_eq!((cancelled.status, cancelled.payment_status), (Status::Cancelled, PaymentStatus::Unpaid));
    assert_eq!(
        (cancelled.cancelled_by, cancelled.cancel_reason.as_deref()),
        (Some(CancelledBy::Guest), Some("plans changed"))
    );
    assert_eq!(h.event_names_after(seq), ["booking.cancelled", "booking.updated"]);
    let data = &h.events()[1].event.data;
    assert_eq!((&data["cancelledBy"], &data["cancelReason"]), (&"guest".into(), &"plans changed".into()));
    let a = h.availability("sea-view", Some(d("2026-12-20")), Some(d("2026-12-27"))).unwrap();
    assert!(a.nights.iter().all(|n| n.available), "the nights are free again");
    h.book("sea-view", "2026-12-20", "2026-12-27", 2);
}

fn cancel_of_a_paid_booking_refunds_it<S: Store>(h: &Harness<S>) {
    let b = h.book_confirmed("sea-view", "2026-12-20", "2026-12-27", 3);
    let cancelled = h.update_booking(b.code.as_str(), &Action::Cancel { by: Party::Host, reason: None }).unwrap();
    assert_eq!((cancelled.status, cancelled.payment_status), (Status::Cancelled, PaymentStatus::Refunded));
    assert_eq!((cancelled.cancelled_by, cancelled.cancel_reason), (Some(CancelledBy::Host), None));
    let a = h.availability("sea-view", Some(d("2026-12-20")), Some(d("2026-12-27"))).unwrap();
    assert!(a.nights.iter().all(|n| n.available));
}

fn cancel_of_an_authorized_request_releases_the_hold<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.update_booking(b.code.as_str(), &Action::Authorize).unwrap();
    let cancelled = h.update_booking(b.code.as_str(), &cancel(Party::Host, "no")).unwrap();
    assert_eq!(cancelled.payment_status, PaymentStatus::Unpaid);
}

fn cancel_of_a_cancelled_booking_is_a_no_op<S: Store>(h: &Harness<S>) {
    let b = h.book_confirmed("sea-view", "2026-12-20", "2026-12-27", 3);
    let cancelled = h.update_booking(b.code.as_str(), &cancel(Party::Host, "first")).unwrap();
    let seq = h.last_seq();
    h.advance(TimeDelta::minutes(5));
    let again = h.update_booking(b.code.as_str(), &cancel(Party::Guest, "second")).unwrap();
    assert_eq!(again, cancelled, "who and why stay those of the first cancel");
    assert!(h.event_names_after(seq).is_empty());
}

fn confirm_of_a_cancelled_booking_is_an_invalid_transition<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.update_booking(b.code.as_str(), &cancel(Party::Host, "x")).unwrap();
    let seq = h.last_seq();
    let got = h.update_booking(b.code.as_str(), &Action::Confirm);
    assert!(
        matches!(
            got,
            Err(Error::InvalidTransition { from: Status::Cancelled, action: "confirm", channel_owned: false })
        ),
        "{got:?}"
    );
    assert!(h.event_names_after(seq).is_empty());
    assert_eq!(h.booking(b.code.as_str()).unwrap().status, Status::Cancelled);
}

fn a_confirmed_stay_that_has_ended_cannot_be_cancelled<S: Store>(h: &Harness<S>) {
    h.set_now("2026-11-01T10:00:00Z");
    let b = h.book_confirmed("sea-view", "2026-11-10", "2026-11-12", 2);
    h.set_now("2026-11-12T10:00:00Z"); // departure day in Lisbon
    let got = h.update_booking(b.code.as_str(), &cancel(Party::Guest, "too late"));
    assert!(matches!(got, Err(Error::InvalidTransition { from: Status::Confirmed, action: "cancel", .. })), "{got:?}");
    h.set_now("2026-11-11T10:00:00Z"); // the last night
    assert_eq!(h.update_booking(b.code.as_str(), &cancel(Party::Guest, "ill")).unwrap().status, Status::Cancelled);
}

fn annotate_appends_a_note_and_emits_booking_updated<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    h.set_now("2026-11-23T09:00:00.000Z");
    h.update_booking(b.code.as_str(), &Action::Annotate { note: "late arrival".into() }).unwrap();
    let noted = h.update_booking(b.code.as_str(), &Action::Annotate { note: "  needs a cot ".into() }).unwrap();
    let texts: Vec<(&str, _)> = noted.notes.iter().map(|n| (n.text.as_str(), n.at)).collect();
    let t = at("2026-11-23T09:00:00.000Z");
    assert_eq!(texts, [("late arrival", t), ("needs a cot", t)]);
    assert_eq!((noted.status, noted.updated_at), (Status::Pending, t));
    assert_eq!(h.event_names_after(seq), ["booking.updated", "booking.updated"]);
    assert_eq!(h.events().last().unwrap().event.data["changes"], serde_json::json!(["notes"]));
}

fn annotate_works_on_a_cancelled_booking<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.update_booking(b.code.as_str(), &cancel(Party::Host, "x")).unwrap();
    let noted = h.update_booking(b.code.as_str(), &Action::Annotate { note: "refund sent".into() }).unwrap();
    assert_eq!((noted.status, noted.notes.len()), (Status::Cancelled, 1));
}

fn an_empty_note_is_refused<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    let got = h.update_booking(b.code.as_str(), &Action::Annotate { note: "   ".into() });
    assert_eq!(faults(got), [("note".to_owned(), "invalid")]);
    assert!(h.event_names_after(seq).is_empty());
}

fn authorize_marks_a_request_authorized<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let seq = h.last_seq();
    let authorized = h.update_booking(b.code.as_str(), &Action::Authorize).unwrap();
    assert_eq!((authorized.status, authorized.payment_status), (Status::Pending, PaymentStatus::Authorized));
    assert_eq!(h.event_names_after(seq), ["booking.payment_authorized", "booking.updated"]);
    let again = h.update_booking(b.code.as_str(), &Action::Authorize).unwrap();
    assert_eq!(again, authorized);
    assert_eq!(h.event_names_after(seq).len(), 2, "a repeat emits nothing");
    let paid = h.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    assert_eq!(paid.payment_status, PaymentStatus::Paid);
}

fn authorize_of_a_confirmed_booking_is_an_invalid_transition<S: Store>(h: &Harness<S>) {
    let b = h.book_confirmed("sea-view", "2026-12-20", "2026-12-27", 3);
    let got = h.update_booking(b.code.as_str(), &Action::Authorize);
    assert!(matches!(got, Err(Error::InvalidTransition { from: Status::Confirmed, action: "authorize", .. })));
}

fn acting_on_an_unknown_booking_is_not_found<S: Store>(h: &Harness<S>) {
    let got = h.update_booking("BK-NOPE22", &Action::Confirm);
    assert!(matches!(got, Err(Error::NotFound(NotFound::Booking(_)))), "{got:?}");
}
