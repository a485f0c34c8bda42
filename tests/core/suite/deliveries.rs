//! docs/API.md section 9: each outbox event fans out to the webhooks
//! subscribed to it; attempts are recorded and retried.

use std::time::Duration;

use chrono::TimeDelta;
use rental_core::delivery::{Attempt, DEFAULT_RETRIES, DeliveryStatus};
use rental_core::webhook::{Subscription, sign, verify};
use rental_core::{Action, Store};
use rental_tests::{Harness, store_suite};

store_suite!(
    a_booking_creates_one_delivery_per_subscribed_webhook,
    events_before_a_webhook_was_fanned_out_are_not_sent_twice,
    a_named_subscription_receives_only_its_events,
    the_due_body_is_the_event_exactly_and_signs_with_the_webhook_secret,
    a_failed_attempt_is_retried_on_the_schedule_under_the_same_id,
    gone_deactivates_the_webhook_and_gives_up_its_other_deliveries,
    removing_a_webhook_gives_up_its_pending_deliveries,
    an_inactive_webhook_gets_no_new_deliveries,
);

/// Fans the outbox out, then the deliveries due now, as a dispatcher sees them.
fn due<S: Store>(h: &Harness<S>, limit: usize) -> rental_core::Result<Vec<rental_core::worker::DueDelivery>> {
    h.rental.worker().fan_out(1000)?;
    h.rental.worker().due_deliveries(limit)
}

fn attempt<S: Store>(h: &Harness<S>, status: Option<u16>) -> Attempt {
    Attempt { at: h.rental.now(), status, latency_ms: 0, error: status.is_none().then(|| "timed out".into()) }
}

fn a_booking_creates_one_delivery_per_subscribed_webhook<S: Store>(h: &Harness<S>) {
    h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    h.rental.admin().add_webhook("https://b.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    assert!(due(h, 100).unwrap().is_empty());
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let due = due(h, 100).unwrap();
    assert_eq!(due.len(), 2, "booking.created to each webhook");
    assert!(due.iter().all(|d| d.delivery.event.as_str() == "booking.created"));
    assert_ne!(due[0].delivery.id, due[1].delivery.id);
}

fn a_named_subscription_receives_only_its_events<S: Store>(h: &Harness<S>) {
    let only = Subscription::parse("booking.confirmed").unwrap();
    h.rental.admin().add_webhook("https://a.example/hook", only, None).unwrap();
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    assert!(due(h, 100).unwrap().is_empty(), "booking.created is not subscribed");
    h.rental.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    let due = due(h, 100).unwrap();
    let names: Vec<&str> = due.iter().map(|d| d.delivery.event.as_str()).collect();
    assert_eq!(names, ["booking.confirmed"], "not booking.updated");
}

fn the_due_body_is_the_event_exactly_and_signs_with_the_webhook_secret<S: Store>(h: &Harness<S>) {
    let webhook =
        h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let due = due(h, 100).unwrap().remove(0);
    let event = h.rental.admin().events_after(0, 10).unwrap().remove(0).event;
    assert_eq!(due.body, event.body());
    assert_eq!(
        (due.url.as_str(), due.secrets.as_slice()),
        (webhook.url.as_str(), [webhook.secret().to_owned()].as_slice())
    );
    let body: serde_json::Value = serde_json::from_str(&due.body).unwrap();
    assert_eq!(body["data"]["code"], b.code.as_str());
    assert!(verify(
        due.secrets[0].as_bytes(),
        due.body.as_bytes(),
        &sign(webhook.secret().as_bytes(), due.body.as_bytes())
    ));
}

fn a_failed_attempt_is_retried_on_the_schedule_under_the_same_id<S: Store>(h: &Harness<S>) {
    h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let id = due(h, 1).unwrap().remove(0).delivery.id;
    let d = h.rental.worker().record_attempt(&id, attempt(h, Some(500)), &DEFAULT_RETRIES).unwrap();
    assert_eq!(d.status, DeliveryStatus::Pending);
    assert!(due(h, 10).unwrap().is_empty(), "not due for 10 s");
    h.advance(TimeDelta::seconds(10));
    let again = due(h, 10).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].delivery.id, id, "the same delivery id on a retry");
    let d = h.rental.worker().record_attempt(&id, attempt(h, Some(204)), &DEFAULT_RETRIES).unwrap();
    assert_eq!((d.status, d.attempts.len()), (DeliveryStatus::Delivered, 2));
    assert_eq!(h.rental.admin().delivery(&id).unwrap(), d, "kept in the store");
    h.advance(TimeDelta::days(2));
    assert!(due(h, 10).unwrap().is_empty());
}

fn gone_deactivates_the_webhook_and_gives_up_its_other_deliveries<S: Store>(h: &Harness<S>) {
    let webhook =
        h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    let b = h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    h.rental.update_booking(b.code.as_str(), &Action::Confirm).unwrap();
    let first = due(h, 10).unwrap();
    assert_eq!(first.len(), 3, "created, confirmed, updated");
    let d = h.rental.worker().record_attempt(&first[0].delivery.id, attempt(h, Some(410)), &DEFAULT_RETRIES).unwrap();
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert!(!h.rental.admin().webhooks().unwrap().iter().any(|w| w.id == webhook.id && w.active));
    assert!(due(h, 10).unwrap().is_empty());
    assert_eq!(h.rental.admin().delivery(&first[2].delivery.id).unwrap().status, DeliveryStatus::Failed);
}

fn removing_a_webhook_gives_up_its_pending_deliveries<S: Store>(h: &Harness<S>) {
    let webhook =
        h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let id = due(h, 1).unwrap().remove(0).delivery.id;
    h.rental.admin().remove_webhook(&webhook.id).unwrap();
    assert!(due(h, 10).unwrap().is_empty());
    assert_eq!(h.rental.admin().delivery(&id).unwrap().status, DeliveryStatus::Failed);
}

fn an_inactive_webhook_gets_no_new_deliveries<S: Store>(h: &Harness<S>) {
    h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    let id = due(h, 1).unwrap().remove(0).delivery.id;
    h.rental.worker().record_attempt(&id, attempt(h, Some(410)), &[Duration::from_secs(1)]).unwrap();
    h.book("sea-view", "2027-01-10", "2027-01-13", 2);
    assert!(due(h, 10).unwrap().is_empty());
}

fn events_before_a_webhook_was_fanned_out_are_not_sent_twice<S: Store>(h: &Harness<S>) {
    h.rental.admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    h.book("sea-view", "2026-12-20", "2026-12-27", 3);
    assert_eq!(h.rental.worker().fan_out(1000).unwrap(), 1);
    assert_eq!(h.rental.worker().fan_out(1000).unwrap(), 0, "the position moved past it");
    assert_eq!(h.rental.worker().due_deliveries(10).unwrap().len(), 1);
}
