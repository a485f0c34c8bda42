//! The event outbox (docs/API.md section 9) as a dispatcher reads it.

use rental_core::webhook::Subscription;
use rental_core::{Action, Store, webhook};
use rental_tests::{Harness, NOW, store_suite};

store_suite!(
    events_are_numbered_from_one_in_the_order_they_happened,
    events_after_pages_through_the_outbox,
    an_event_body_is_the_spec_envelope_with_a_millisecond_timestamp,
    a_test_event_takes_the_next_number_between_the_events_around_it,
);

fn events_are_numbered_from_one_in_the_order_they_happened<S: Store>(h: &Harness<S>) {
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    h.update_booking(b.code.as_str(), &Action::Annotate { note: "hi".into() }).unwrap();
    let events = h.events();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    let names: Vec<&str> = events.iter().map(|e| e.event.event.as_str()).collect();
    assert_eq!(names, ["booking.created", "booking.confirmed", "booking.updated", "booking.updated"]);
    assert!(events.iter().all(|e| e.event.data["code"] == b.code.as_str()));
}

fn events_after_pages_through_the_outbox<S: Store>(h: &Harness<S>) {
    for week in 0..5u64 {
        let check_in = rental_tests::d("2027-01-04") + chrono::Days::new(7 * week);
        h.create(&rental_core::NewBooking {
            check_in,
            check_out: check_in + chrono::Days::new(2),
            ..rental_tests::new_booking("sea-view", "2027-01-01", "2027-01-02", 2)
        });
    }
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = h.admin().events_after(after, 2).unwrap();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 2);
        after = page.last().unwrap().seq;
        seen.extend(page.into_iter().map(|e| e.seq));
    }
    assert_eq!(seen, [1, 2, 3, 4, 5]);
    assert!(h.admin().events_after(5, 10).unwrap().is_empty());
}

fn an_event_body_is_the_spec_envelope_with_a_millisecond_timestamp<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let body = h.events()[0].event.body();
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["event"], "booking.created");
    assert_eq!(json["timestamp"], NOW);
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    let header = webhook::sign(b"whsec_test", body.as_bytes());
    assert!(webhook::verify(b"whsec_test", body.as_bytes(), &header));
}

/// A webhook test event is numbered when it is appended (its delivery names
/// it), in the same order as the events written before and after it.
fn a_test_event_takes_the_next_number_between_the_events_around_it<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let hook = h.rental.admin().add_webhook("https://a.example/h", Subscription::parse("*").unwrap(), None).unwrap();
    let test = h.rental.admin().send_test_event(&hook.id).unwrap();
    h.book("sea-view", "2027-01-10", "2027-01-12", 2);
    assert_eq!(test.event_seq, 2);
    let events = h.events();
    let numbered: Vec<(u64, &str)> = events.iter().map(|e| (e.seq, e.event.event.as_str())).collect();
    assert_eq!(numbered, [(1, "booking.created"), (2, "webhook.test"), (3, "booking.created")]);
}
