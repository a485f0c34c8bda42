//! Webhook deliveries end to end (docs/API.md sections 6
//! and 9): the real server with its dispatcher sends to a recording
//! [`Receiver`] on 127.0.0.1, and every signature is checked with an HMAC
//! computed here, independently of `rental_core::webhook`.
//!
//! The server's clock is a `ManualClock`, and the dispatcher schedules
//! retries on it: the tests that need a retry to fall due let the clock
//! follow real time ([`follow_real_time`]).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::TimeDelta;
use hmac::{Hmac, KeyInit, Mac};
use http::Method;
use rental_core::delivery::DeliveryStatus;
use rental_core::webhook::{Subscription, Webhook};
use rental_core::{ManualClock, MemoryStore, Settings, Store};
use rental_server::dispatcher::DispatchConfig;
use rental_server::outbound::OutboundConfig;
use rental_server::{ServerConfig, WebhookConfig};
use rental_tests::NOW;
use rental_tests::http::{TestServer, booking_body};
use rental_tests::receiver::{Answer, Received, Receiver};
use serde_json::{Value, json};
use sha2::Sha256;

/// "the tests' own secret", in the Standard Webhooks form.
const SECRET: &str = "whsec_dGhlIHRlc3RzJyBvd24gc2VjcmV0";
/// "a second secret".
const OTHER_SECRET: &str = "whsec_YSBzZWNvbmQgc2VjcmV0";

/// Bound on waiting for a delivery that should come at once (the dispatcher polls every 50 ms).
const SOON: Duration = Duration::from_secs(5);
/// How long to watch for a delivery that must not come: many polls and every retry.
const QUIET: Duration = Duration::from_millis(800);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Short retries (three, 100, 200 and 300 ms), quick polls, a 2 s timeout, loopback allowed.
pub(crate) fn config() -> ServerConfig {
    let dispatch = DispatchConfig {
        retries: vec![ms(100), ms(200), ms(300)],
        poll: ms(50),
        timeout: Duration::from_secs(2),
        ..DispatchConfig::default()
    };
    let outbound = OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() };
    ServerConfig { webhooks: Some(WebhookConfig { dispatch, outbound }), ..ServerConfig::default() }
}

/// Registers `receiver` on the server for `events` (`*` or names) with `secret`.
fn subscribe<S: Store>(s: &TestServer<S>, receiver: &Receiver, events: &str, secret: &str) -> Webhook {
    let events = Subscription::parse(events).expect("a valid subscription");
    s.rental.admin().add_webhook(&receiver.url(), events, Some(secret.to_owned())).expect("the webhook is added")
}

/// `sha256=` and the hex HMAC-SHA256 of `body` under `secret`, computed here.
fn signature_of(secret: &str, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The HMAC of RFC 4231 test case 2, so the check above is known to be HMAC-SHA256.
#[test]
fn the_tests_own_hmac_is_rfc_4231() {
    assert_eq!(
        signature_of("Jefe", b"what do ya want for nothing?"),
        "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
}

/// Asserts everything docs/API.md section 9 says of one delivery request:
/// method, headers, the signature over the raw bytes, and the envelope.
#[track_caller]
fn assert_delivery(r: &Received, secret: &str) {
    let body = r.json();
    let event = body["event"].as_str().unwrap_or_default();
    assert_eq!(r.method, Method::POST, "{event}");
    assert_eq!(r.path, "/hooks", "{event}");
    assert_eq!(r.header("content-type"), Some("application/json"), "{event}");
    assert_eq!(r.header("x-svc-event"), Some(event), "X-SVC-Event is the body's event");
    assert!(r.header("x-svc-delivery").is_some_and(|id| !id.trim().is_empty()), "{event}: no X-SVC-Delivery");
    assert!(r.header("user-agent").is_some_and(|ua| ua.starts_with("rental/")), "{event}: {:?}", r.headers);
    let expected = signature_of(secret, &r.body);
    assert_eq!(r.header("x-svc-signature"), Some(expected.as_str()), "{event}: the signature of the raw body");
    assert_standard_headers(r, secret);
    let mut keys: Vec<&str> = body.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["data", "event", "timestamp"], "{body}");
    assert_millisecond_timestamp(body["timestamp"].as_str().unwrap_or_default());
}

/// The Standard Webhooks headers (docs/API.md section 16), as the reference
/// library computes them: the server's clock is stopped in the past, so the
/// library signs with the delivery's own timestamp rather than verifying it against now.
#[track_caller]
fn assert_standard_headers(r: &Received, secret: &str) {
    let id = r.header("webhook-id").unwrap_or_default();
    assert_eq!(id, r.delivery(), "webhook-id is X-SVC-Delivery");
    let timestamp: i64 = r.header("webhook-timestamp").and_then(|t| t.parse().ok()).expect("Unix seconds");
    let foreign = standardwebhooks::Webhook::new(secret).expect("a secret in the Standard form");
    let expected = foreign.sign(id, timestamp, &r.body).expect("a UTF-8 body");
    assert_eq!(r.header("webhook-signature"), Some(expected.as_str()), "one secret: one signature");
}

/// `2026-11-22T07:39:21.123Z`: RFC 3339, UTC, exactly three fraction digits.
#[track_caller]
fn assert_millisecond_timestamp(ts: &str) {
    let b = ts.as_bytes();
    let shaped = b.len() == 24 && b[19] == b'.' && b[20..23].iter().all(u8::is_ascii_digit) && ts.ends_with('Z');
    assert!(shaped && chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "not a millisecond UTC timestamp: {ts:?}");
}

/// The body's `event` of each request.
fn events(requests: &[Received]) -> Vec<String> {
    requests.iter().map(Received::event).collect()
}

/// Moves the clock along with real time from now on, so retries scheduled on it fall due.
pub(crate) fn follow_real_time(clock: &Arc<ManualClock>) {
    let clock = Arc::clone(clock);
    tokio::spawn(async move {
        let mut last = Instant::now();
        loop {
            tokio::time::sleep(ms(10)).await;
            let now = Instant::now();
            clock.advance(TimeDelta::from_std(now - last).unwrap_or_default());
            last = now;
        }
    });
}

/// Polls `check` every 20 ms until it is true; panics with `what` after `timeout`.
async fn eventually(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !check() {
        assert!(Instant::now() < deadline, "not within {timeout:?}: {what}");
        tokio::time::sleep(ms(20)).await;
    }
}

/// The envelope fields every booking event carries, with their values in `booking`.
#[track_caller]
fn assert_envelope(data: &Value, booking: &Value) {
    for field in ["code", "property", "propertyName", "guestName", "checkIn", "checkOut", "status", "paymentStatus"] {
        assert_eq!(data[field], booking[field], "{field} in {data}");
    }
}

/// The keys of an object, sorted.
fn keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    keys.sort_unstable();
    keys
}

const ENVELOPE: [&str; 8] =
    ["checkIn", "checkOut", "code", "guestName", "paymentStatus", "property", "propertyName", "status"];

/// The envelope's keys plus `extra`, sorted.
fn envelope_and(extra: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = ENVELOPE.iter().chain(extra).map(|s| (*s).to_owned()).collect();
    all.sort_unstable();
    all
}

/// The `changes` of a booking.updated, sorted.
fn changes(data: &Value) -> Vec<String> {
    let mut names: Vec<String> = data["changes"]
        .as_array()
        .expect("changes is an array")
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    names.sort_unstable();
    names
}

async fn every_event_arrives_signed_with_its_data<S: Store + 'static>(s: TestServer<S>) {
    let receiver = Receiver::ok().await;
    subscribe(&s, &receiver, "*", SECRET);

    let created = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let code = created["code"].as_str().unwrap().to_owned();
    let authorized = s.act(&code, &json!({"action": "authorize"})).await.expect(200).body.clone();
    let confirmed = s.act(&code, &json!({"action": "confirm"})).await.expect(200).body.clone();
    let annotated = s.act(&code, &json!({"action": "annotate", "note": "late arrival"})).await.expect(200).body.clone();
    let cancel = json!({"action": "cancel", "by": "host", "reason": "pipes burst"});
    let cancelled = s.act(&code, &cancel).await.expect(200).body.clone();
    let synced = s.post("/api/v1/sync/ical", &s.key, &json!({})).await.expect(200).body.clone();

    let got = receiver.wait_for(9, SOON).await;
    let names = [
        "booking.created",
        "booking.payment_authorized",
        "booking.updated",
        "booking.confirmed",
        "booking.updated",
        "booking.updated",
        "booking.cancelled",
        "booking.updated",
        "calendar.synced",
    ];
    assert_eq!(events(&got), names, "one delivery per event, in event order");
    receiver.assert_no_more_than(9, QUIET).await;
    for r in &got {
        assert_delivery(r, SECRET);
        assert_eq!(r.json()["timestamp"], NOW, "the event's time by the server's clock, to the millisecond");
    }
    let ids: HashSet<String> = got.iter().map(Received::delivery).collect();
    assert_eq!(ids.len(), got.len(), "X-SVC-Delivery is unique per event");

    let data: Vec<Value> = got.iter().map(|r| r.json()["data"].clone()).collect();
    assert_eq!(keys(&data[0]), envelope_and(&["guests", "source", "total"]), "{}", data[0]);
    assert_envelope(&data[0], &created);
    assert_eq!((data[0]["guests"].as_u64(), data[0]["source"].as_str()), (Some(3), Some("api")));
    assert_eq!(data[0]["total"], created["total"]);
    assert!(data[0]["total"].as_i64().is_some_and(|t| t > 0), "{}", data[0]);

    assert_eq!(keys(&data[1]), envelope_and(&[]), "payment events carry the envelope as is");
    assert_envelope(&data[1], &authorized);
    assert_eq!(data[1]["paymentStatus"], "authorized");
    assert_envelope(&data[2], &authorized);
    assert_eq!(changes(&data[2]), ["paymentStatus"]);

    assert_eq!(keys(&data[3]), envelope_and(&[]));
    assert_envelope(&data[3], &confirmed);
    assert_eq!((data[3]["status"].as_str(), data[3]["paymentStatus"].as_str()), (Some("confirmed"), Some("paid")));
    assert_eq!(changes(&data[4]), ["paymentStatus", "status"]);
    assert_envelope(&data[5], &annotated);
    assert_eq!(changes(&data[5]), ["notes"]);

    assert_eq!(keys(&data[6]), envelope_and(&["cancelReason", "cancelledBy"]));
    assert_envelope(&data[6], &cancelled);
    assert_eq!(
        (data[6]["cancelledBy"].as_str(), data[6]["cancelReason"].as_str()),
        (Some("host"), Some("pipes burst"))
    );
    assert_eq!((data[6]["status"].as_str(), data[6]["paymentStatus"].as_str()), (Some("cancelled"), Some("refunded")));
    assert_envelope(&data[7], &cancelled);
    assert_eq!(changes(&data[7]), ["cancelReason", "cancelledBy", "paymentStatus", "status"]);

    assert_eq!(data[8], synced, "calendar.synced carries the sync result");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_arrives_signed_with_its_data_on_a_memory_store() {
    every_event_arrives_signed_with_its_data(TestServer::with_config(&config()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_arrives_signed_with_its_data_on_a_redb_store() {
    every_event_arrives_signed_with_its_data(TestServer::redb_with_config(&config()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_gets_only_the_events_it_subscribes_to_under_its_own_delivery_ids() {
    let s = TestServer::with_config(&config()).await;
    let (some, all) = (Receiver::ok().await, Receiver::ok().await);
    subscribe(&s, &some, "booking.created,booking.cancelled", OTHER_SECRET);
    subscribe(&s, &all, "*", SECRET);

    let code = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "annotate", "note": "late arrival"})).await.expect(200);
    s.act(&code, &json!({"action": "cancel", "by": "guest", "reason": "changed plans"})).await.expect(200);
    s.post("/api/v1/sync/ical", &s.key, &json!({})).await.expect(200);

    let to_all = all.wait_for(5, SOON).await;
    let names = ["booking.created", "booking.updated", "booking.cancelled", "booking.updated", "calendar.synced"];
    assert_eq!(events(&to_all), names);
    let to_some = some.wait_for(2, SOON).await;
    assert_eq!(events(&to_some), ["booking.created", "booking.cancelled"]);
    some.assert_no_more_than(2, QUIET).await;
    all.assert_no_more_than(5, ms(0)).await;

    for (requests, secret) in [(&to_all, SECRET), (&to_some, OTHER_SECRET)] {
        for r in requests {
            assert_delivery(r, secret);
        }
    }
    for (a, b) in [(&to_some[0], &to_all[0]), (&to_some[1], &to_all[2])] {
        assert_eq!(a.body, b.body, "the same event, byte for byte");
        assert_ne!(a.delivery(), b.delivery(), "each webhook has its own delivery of an event");
        assert_ne!(a.header("x-svc-signature"), b.header("x-svc-signature"), "signed with each webhook's secret");
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_receiver_gets_the_same_delivery_on_each_retry_until_it_takes_it() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let receiver = Receiver::scripted([500, 500, 500].map(Answer::Status), Answer::Status(200)).await;
    subscribe(&s, &receiver, "*", SECRET);

    s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let got = receiver.wait_for(4, SOON).await;
    receiver.assert_no_more_than(4, QUIET).await;
    for r in &got {
        assert_delivery(r, SECRET);
        assert_eq!(r.event(), "booking.created");
        assert_eq!(r.delivery(), got[0].delivery(), "X-SVC-Delivery is the same on every retry");
        assert_eq!(r.body, got[0].body, "the body is the same bytes on every retry");
    }
    for (i, wait) in [ms(100), ms(200), ms(300)].into_iter().enumerate() {
        let gap = got[i + 1].at - got[i].at;
        assert!(gap + ms(20) >= wait, "retry {} came after {gap:?}, before its {wait:?}", i + 1);
    }
    let delivery = s.rental.admin().delivery(&got[0].delivery()).expect("the delivery is recorded");
    assert_eq!(delivery.status, DeliveryStatus::Delivered);
    let statuses: Vec<Option<u16>> = delivery.attempts.iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(500), Some(500), Some(500), Some(200)]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_always_fails_gets_the_first_try_and_every_retry_and_no_more() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let receiver = Receiver::scripted([], Answer::Status(503)).await;
    subscribe(&s, &receiver, "*", SECRET);

    s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let got = receiver.wait_for(4, SOON).await;
    receiver.assert_no_more_than(4, QUIET).await;
    let id = got[0].delivery();
    assert!(got.iter().all(|r| r.delivery() == id));
    let delivery = s.rental.admin().delivery(&id).expect("the delivery is recorded");
    assert_eq!((delivery.status, delivery.attempts.len()), (DeliveryStatus::Failed, 4), "{delivery:?}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_2xx_is_a_delivery_and_is_not_retried() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let receiver = Receiver::scripted([Answer::Status(204)], Answer::Status(500)).await;
    subscribe(&s, &receiver, "*", SECRET);

    s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let got = receiver.wait_for(1, SOON).await;
    receiver.assert_no_more_than(1, QUIET).await;
    let delivery = s.rental.admin().delivery(&got[0].delivery()).expect("the delivery is recorded");
    assert_eq!((delivery.status, delivery.attempts.len()), (DeliveryStatus::Delivered, 1), "{delivery:?}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_webhook_gets_no_more_retries() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let receiver = Receiver::scripted([], Answer::Status(500)).await;
    let hook = subscribe(&s, &receiver, "*", SECRET);

    s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let got = receiver.wait_for(1, SOON).await;
    s.rental.admin().remove_webhook(&hook.id).expect("the webhook is removed");
    let seen = receiver.count();
    assert!(seen <= 2, "at most the attempt in flight while it was removed: {seen}");
    receiver.assert_no_more_than(seen, QUIET).await;
    let delivery = s.rental.admin().delivery(&got[0].delivery()).expect("the delivery is kept");
    assert_eq!(delivery.status, DeliveryStatus::Failed, "given up: {delivery:?}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attempt_in_flight_when_its_webhook_is_removed_does_not_make_the_delivery_pending_again() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let receiver = Receiver::scripted([], Answer::Hang(Duration::from_secs(10))).await;
    let hook = subscribe(&s, &receiver, "*", SECRET);

    s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let id = receiver.wait_for(1, SOON).await[0].delivery();
    s.rental.admin().remove_webhook(&hook.id).expect("the webhook is removed");
    assert_eq!(s.rental.admin().delivery(&id).unwrap().status, DeliveryStatus::Failed, "given up with its webhook");
    let recorded = || s.rental.admin().delivery(&id).is_ok_and(|d| !d.attempts.is_empty());
    eventually("the attempt in flight times out (2 s) and is recorded", SOON, recorded).await;
    let delivery = s.rental.admin().delivery(&id).unwrap();
    assert_eq!((delivery.status, delivery.next_attempt_at), (DeliveryStatus::Failed, None), "{delivery:?}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_410_deactivates_the_webhook_and_later_events_are_not_sent_to_it() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let (gone, ok) = (Receiver::scripted([], Answer::Status(410)).await, Receiver::ok().await);
    let gone_hook = subscribe(&s, &gone, "*", SECRET);
    subscribe(&s, &ok, "*", SECRET);

    let code = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await["code"].as_str().unwrap().to_owned();
    let first = gone.wait_for(1, SOON).await;
    let inactive = || s.rental.admin().webhooks().unwrap().iter().any(|w| w.id == gone_hook.id && !w.active);
    eventually("the webhook that answered 410 is inactive", SOON, inactive).await;
    let delivery = s.rental.admin().delivery(&first[0].delivery()).expect("the delivery is recorded");
    assert_eq!((delivery.status, delivery.attempts.len()), (DeliveryStatus::Failed, 1), "no retry after 410");

    s.act(&code, &json!({"action": "annotate", "note": "late arrival"})).await.expect(200);
    assert_eq!(events(&ok.wait_for(2, SOON).await), ["booking.created", "booking.updated"]);
    gone.assert_no_more_than(1, QUIET).await;
    assert!(
        s.rental.admin().webhooks().unwrap().iter().any(|w| w.id != gone_hook.id && w.active),
        "the other stays active"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_is_not_followed_and_counts_as_a_failed_attempt() {
    let s = TestServer::with_config(&config()).await;
    follow_real_time(&s.clock);
    let receiver = Receiver::scripted([Answer::Redirect("/elsewhere".into())], Answer::Status(200)).await;
    subscribe(&s, &receiver, "*", SECRET);

    s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let got = receiver.wait_for(2, SOON).await;
    receiver.assert_no_more_than(2, QUIET).await;
    assert!(got.iter().all(|r| r.path == "/hooks"), "the Location was never asked for: {:?}", got[1].path);
    assert_eq!(got[1].delivery(), got[0].delivery(), "the 302 was retried");
    assert_eq!(got[1].body, got[0].body);
    let delivery = s.rental.admin().delivery(&got[0].delivery()).expect("the delivery is recorded");
    let statuses: Vec<Option<u16>> = delivery.attempts.iter().map(|a| a.status).collect();
    assert_eq!((delivery.status, statuses), (DeliveryStatus::Delivered, vec![Some(302), Some(200)]));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_receiver_does_not_slow_booking_requests() {
    let s = TestServer::with_config(&config()).await;
    let receiver = Receiver::scripted([], Answer::Hang(Duration::from_secs(10))).await;
    subscribe(&s, &receiver, "*", SECRET);

    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    for i in 0..20u64 {
        let check_in = rental_tests::d("2027-01-04") + chrono::Days::new(3 * i);
        let body = booking_body("sea-view", &check_in.to_string(), &(check_in + chrono::Days::new(2)).to_string(), 2);
        let one = Instant::now();
        s.post("/api/v1/bookings", &s.key, &body).await.expect(201);
        slowest = slowest.max(one.elapsed());
    }
    let total = started.elapsed();
    assert!(total < Duration::from_secs(5), "20 bookings took {total:?} with a hanging webhook");
    assert!(slowest < Duration::from_secs(2), "a booking took {slowest:?}, as long as a delivery's timeout");

    let first = receiver.wait_for(1, SOON).await;
    let id = first[0].delivery();
    let timed_out =
        || s.rental.admin().delivery(&id).is_ok_and(|d| d.attempts.first().is_some_and(|a| a.error.is_some()));
    eventually("the hanging attempt is given up at the 2 s timeout", SOON, timed_out).await;
    let attempt = s.rental.admin().delivery(&id).unwrap().attempts[0].clone();
    assert_eq!(attempt.status, None, "{attempt:?}");
    assert!(attempt.error.as_deref().is_some_and(|e| e.contains("timed out")), "{attempt:?}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lapsed_checkout_link_cancels_the_booking_frees_its_nights_and_sends_three_events() {
    let settings = Settings { checkout_ttl: Some(TimeDelta::seconds(2)), ..Settings::default() };
    let s = TestServer::with_settings(MemoryStore::new(), settings, &config()).await;
    let receiver = Receiver::ok().await;
    subscribe(&s, &receiver, "*", SECRET);

    let created = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let path = format!("/api/v1/bookings/{}", created["code"].as_str().unwrap());
    assert_eq!(events(&receiver.wait_for(1, SOON).await), ["booking.created"]);
    s.clock.advance(TimeDelta::seconds(3));

    let deadline = Instant::now() + SOON;
    let booking = loop {
        let booking = s.get(&path, &s.key).await.expect(200).body.clone();
        if booking["status"] == "cancelled" {
            break booking;
        }
        assert!(Instant::now() < deadline, "still not expired: {booking}");
        tokio::time::sleep(ms(50)).await;
    };
    assert_eq!((booking["paymentStatus"].as_str(), booking["cancelledBy"].as_str()), (Some("expired"), Some("system")));
    let nights = s.get("/api/v1/properties/sea-view/availability?from=2026-12-20&to=2026-12-27", &s.key).await;
    let nights = nights.expect(200).body["nights"].as_array().unwrap().clone();
    assert_eq!(nights.len(), 7);
    assert!(nights.iter().all(|n| n["available"] == true), "the nights are free again: {nights:?}");

    let got = receiver.wait_for(4, SOON).await;
    let names = ["booking.created", "booking.payment_expired", "booking.cancelled", "booking.updated"];
    assert_eq!(events(&got), names);
    receiver.assert_no_more_than(4, QUIET).await;
    for r in &got {
        assert_delivery(r, SECRET);
    }
    let data: Vec<Value> = got.iter().map(|r| r.json()["data"].clone()).collect();
    for d in &data[1..] {
        assert_envelope(d, &booking);
    }
    assert_eq!(got[1].json()["timestamp"], "2026-11-22T07:39:24.123Z", "the expiry's time by the server's clock");
    assert_eq!(keys(&data[1]), envelope_and(&[]));
    assert_eq!(keys(&data[2]), envelope_and(&["cancelReason", "cancelledBy"]));
    assert_eq!((&data[2]["cancelledBy"], &data[2]["cancelReason"]), (&json!("system"), &booking["cancelReason"]));
    assert!(
        changes(&data[3]).contains(&"paymentStatus".to_owned()) && changes(&data[3]).contains(&"status".to_owned())
    );
    s.stop().await;
}
