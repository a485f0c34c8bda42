//! The admin dashboard's use cases on every store: a webhook's recent
//! deliveries, resend, the one-webhook test event, pausing a webhook, a
//! property's feed list, today's agenda and the admin password.

use chrono::TimeDelta;
use rental_core::delivery::{Attempt, DEFAULT_RETRIES, DeliveryStatus};
use rental_core::store::ReadTx;
use rental_core::webhook::Subscription;
use rental_core::{Action, Error, Store};
use rental_tests::{Harness, store_suite};

store_suite!(
    recent_deliveries_are_the_webhooks_own_newest_first,
    a_resend_makes_the_same_delivery_due_again_and_keeps_its_attempts,
    a_test_event_is_delivered_to_its_webhook_alone,
    a_deactivated_webhook_gives_up_pending_deliveries_and_refuses_tests_and_resends,
    feeds_are_added_and_removed_and_the_property_read_sees_them,
    the_agenda_has_todays_arrivals_departures_and_every_pending_request,
    the_admin_password_is_kept_as_a_hash_and_replaced_by_a_new_one,
);

fn hook<S: Store>(h: &Harness<S>, url: &str) -> String {
    h.rental.admin().add_webhook(url, Subscription::parse("*").unwrap(), None).unwrap().id
}

fn ok_attempt<S: Store>(h: &Harness<S>) -> Attempt {
    Attempt { at: h.rental.now(), status: Some(200), latency_ms: 3, error: None }
}

fn recent_deliveries_are_the_webhooks_own_newest_first<S: Store>(h: &Harness<S>) {
    let (a, b) = (hook(h, "https://a.example/h"), hook(h, "https://b.example/h"));
    let first = h.book("sea-view", "2026-12-01", "2026-12-04", 2);
    h.rental.update_booking(first.code.as_str(), &Action::Confirm).unwrap();
    h.rental.worker().fan_out(100).unwrap();
    let of_a = h.rental.admin().deliveries_of(&a, 10).unwrap();
    let names: Vec<&str> = of_a.iter().map(|d| d.event.as_str()).collect();
    assert_eq!(names, ["booking.updated", "booking.confirmed", "booking.created"]);
    assert!(of_a.iter().all(|d| d.webhook_id == a));
    assert_eq!(h.rental.admin().deliveries_of(&b, 2).unwrap().len(), 2, "the limit holds");
    assert!(h.rental.admin().deliveries_of("wh_nobody", 10).unwrap().is_empty());
}

fn a_resend_makes_the_same_delivery_due_again_and_keeps_its_attempts<S: Store>(h: &Harness<S>) {
    let id = hook(h, "https://a.example/h");
    h.book("sea-view", "2026-12-01", "2026-12-04", 2);
    h.rental.worker().fan_out(100).unwrap();
    let due = h.rental.worker().due_deliveries(10).unwrap().remove(0);
    h.rental.worker().record_attempt(&due.delivery.id, ok_attempt(h), &DEFAULT_RETRIES).unwrap();
    assert!(h.rental.worker().due_deliveries(10).unwrap().is_empty());

    h.advance(TimeDelta::minutes(5));
    let resent = h.rental.admin().resend_delivery(&due.delivery.id).unwrap();
    assert_eq!((resent.status, resent.next_attempt_at), (DeliveryStatus::Pending, Some(h.rental.now())));
    let again = h.rental.worker().due_deliveries(10).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!((again[0].delivery.id.as_str(), again[0].body.as_str()), (due.delivery.id.as_str(), due.body.as_str()));
    let done = h.rental.worker().record_attempt(&due.delivery.id, ok_attempt(h), &DEFAULT_RETRIES).unwrap();
    assert_eq!((done.status, done.attempts.len()), (DeliveryStatus::Delivered, 2));
    assert_eq!(h.rental.admin().deliveries_of(&id, 10).unwrap().len(), 1, "no new delivery was made");
    assert!(matches!(h.rental.admin().resend_delivery("dlv_nope"), Err(Error::NotFound(_))));
}

fn a_test_event_is_delivered_to_its_webhook_alone<S: Store>(h: &Harness<S>) {
    let (a, _b) = (hook(h, "https://a.example/h"), hook(h, "https://b.example/h"));
    let test = h.rental.admin().send_test_event(&a).unwrap();
    h.rental.worker().fan_out(100).unwrap();
    let due = h.rental.worker().due_deliveries(10).unwrap();
    assert_eq!(due.len(), 1, "the `*` webhook b gets nothing: {due:?}");
    assert_eq!((due[0].delivery.id.as_str(), due[0].delivery.webhook_id.as_str()), (test.id.as_str(), a.as_str()));
    let body: serde_json::Value = serde_json::from_str(&due[0].body).unwrap();
    assert_eq!(body["event"], "webhook.test");
    assert_eq!(body["data"]["webhook"], a.as_str());
    assert!(matches!(h.rental.admin().send_test_event("wh_nope"), Err(Error::NotFound(_))));
}

fn a_deactivated_webhook_gives_up_pending_deliveries_and_refuses_tests_and_resends<S: Store>(h: &Harness<S>) {
    let id = hook(h, "https://a.example/h");
    h.book("sea-view", "2026-12-01", "2026-12-04", 2);
    h.rental.worker().fan_out(100).unwrap();
    let pending = h.rental.admin().deliveries_of(&id, 10).unwrap().remove(0);
    assert!(!h.rental.admin().set_webhook_active(&id, false).unwrap().active);
    assert_eq!(h.rental.admin().delivery(&pending.id).unwrap().status, DeliveryStatus::Failed);
    assert!(h.rental.worker().due_deliveries(10).unwrap().is_empty());
    assert!(matches!(h.rental.admin().send_test_event(&id), Err(Error::Validation(_))));
    assert!(matches!(h.rental.admin().resend_delivery(&pending.id), Err(Error::Validation(_))));

    assert!(h.rental.admin().set_webhook_active(&id, true).unwrap().active);
    h.rental.admin().send_test_event(&id).unwrap();
    assert_eq!(h.rental.worker().due_deliveries(10).unwrap().len(), 1);
}

fn feeds_are_added_and_removed_and_the_property_read_sees_them<S: Store>(h: &Harness<S>) {
    let added = h
        .rental
        .calendars()
        .add_ical_feed("sea-view", " airbnb ", "https://www.airbnb.com/calendar/ical/1.ics")
        .unwrap();
    assert_eq!(added.feeds.ical_feeds.len(), 1);
    assert_eq!(h.rental.property("sea-view").unwrap().feeds.ical_feeds, added.feeds.ical_feeds);
    let refusals = [
        ("sea-view", "airbnb", "https://x.example/a.ics", "duplicate"),
        ("sea-view", "Air BnB", "https://x.example/a.ics", "invalid"),
        ("sea-view", "vrbo", "file:///etc/passwd", "invalid_url"),
    ];
    for (slug, name, url, code) in refusals {
        let faults = super::faults(h.rental.calendars().add_ical_feed(slug, name, url));
        assert_eq!(faults.first().map(|f| f.1), Some(code), "{name} {url}");
    }
    assert!(matches!(
        h.rental.calendars().add_ical_feed("nowhere", "vrbo", "https://x.example/a.ics"),
        Err(Error::NotFound(_))
    ));
    assert_eq!(
        super::faults(h.rental.calendars().remove_ical_feed("sea-view", "vrbo")),
        [("name".to_owned(), "unknown_feed")]
    );
    assert!(h.rental.calendars().remove_ical_feed("sea-view", "airbnb").unwrap().feeds.ical_feeds.is_empty());
    assert!(h.rental.property("sea-view").unwrap().feeds.ical_feeds.is_empty());
}

fn the_agenda_has_todays_arrivals_departures_and_every_pending_request<S: Store>(h: &Harness<S>) {
    // The harness clock: 2026-11-22 07:39 UTC, the same date in Lisbon (sea-view).
    h.set_now("2026-11-19T12:00:00Z");
    let leaving = h.book_confirmed("sea-view", "2026-11-19", "2026-11-22", 2);
    h.set_now("2026-11-22T07:39:21.123Z");
    let arriving = h.book("sea-view", "2026-11-22", "2026-11-24", 2);
    let later = h.book("alpine-cabin", "2026-12-10", "2026-12-13", 2);
    let agenda = h.rental.agenda().unwrap();
    let codes = |list: &[rental_core::Booking]| list.iter().map(|b| b.code.to_string()).collect::<Vec<_>>();
    assert_eq!(codes(&agenda.arrivals), [arriving.code.to_string()]);
    assert_eq!(codes(&agenda.departures), [leaving.code.to_string()]);
    assert_eq!(codes(&agenda.pending), [arriving.code.to_string(), later.code.to_string()]);
}

fn the_admin_password_is_kept_as_a_hash_and_replaced_by_a_new_one<S: Store>(h: &Harness<S>) {
    assert!(!h.rental.admin().has_admin_password().unwrap());
    h.rental.admin().set_admin_password("first password").unwrap();
    h.rental.admin().set_admin_password("second password").unwrap();
    assert!(h.rental.admin().has_admin_password().unwrap());
    assert!(!h.rental.worker().verify_admin_password("first password").unwrap());
    assert!(h.rental.worker().verify_admin_password("second password").unwrap());
    let kind = rental_core::store::KINDS.iter().find(|k| k.name == "admin_password").unwrap();
    let row = h.rental.store().read().unwrap().record(kind, "admin").unwrap().expect("the password's record");
    let stored = serde_json::from_slice::<serde_json::Value>(&row.doc).unwrap()["phc"].as_str().unwrap().to_owned();
    assert!(stored.starts_with("$argon2id$") && !stored.contains("second"), "{stored}");
}
