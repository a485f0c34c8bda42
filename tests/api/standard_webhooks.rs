//! docs/API.md section 16 end to end: a real server delivers to a recording
//! receiver, and the `standardwebhooks` crate (the reference Rust verifier, not
//! our code) checks every delivery, also during a secret rotation.
//!
//! The foreign verifier compares `webhook-timestamp` with the system clock, so
//! these servers run on a clock that starts at real time and follows it.

use std::sync::Arc;
use std::time::Duration;

use chrono::{Days, TimeDelta, Utc};
use http::HeaderValue;
use rental_core::webhook::{OVERLAP, StandardHeaders, Subscription, verify, verify_standard};
use rental_core::{ManualClock, MemoryStore};
use rental_tests::http::TestServer;
use rental_tests::receiver::{Received, Receiver};
use rental_tests::rental_with_demo;
use serde_json::json;
use standardwebhooks::{Webhook as Foreign, WebhookError};

use crate::webhooks::{config, follow_real_time};

const SOON: Duration = Duration::from_secs(5);

/// A server whose clock is real time, and that clock.
async fn server() -> TestServer<MemoryStore> {
    let clock = Arc::new(ManualClock::new(Utc::now()));
    follow_real_time(&clock);
    let rental = Arc::new(rental_with_demo(MemoryStore::new(), Arc::clone(&clock)));
    TestServer::serve(rental, clock, &config()).await
}

/// A date `days` from today, for stays that are always in the future.
fn ahead(days: u64) -> String {
    (Utc::now().date_naive() + Days::new(days)).to_string()
}

/// Registers `receiver` for every event with a generated secret; returns its id and secret.
fn subscribe(s: &TestServer<MemoryStore>, receiver: &Receiver) -> (String, String) {
    let webhook = s.rental.admin().add_webhook(&receiver.url(), Subscription::parse("*").unwrap(), None).unwrap();
    (webhook.id.clone(), webhook.secret().to_owned())
}

/// The request that carried delivery `id`, waiting for it to arrive.
async fn delivery(receiver: &Receiver, id: &str) -> Received {
    let deadline = std::time::Instant::now() + SOON;
    loop {
        if let Some(r) = receiver.requests().into_iter().find(|r| r.delivery() == id) {
            return r;
        }
        assert!(std::time::Instant::now() < deadline, "delivery {id} did not arrive");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_library_verifies_every_delivery_and_refuses_a_tampered_one() {
    let s = server().await;
    let receiver = Receiver::ok().await;
    let (_, secret) = subscribe(&s, &receiver);
    let foreign = Foreign::new(&secret).expect("the reference library takes a generated secret as it is");

    let created = s.book("sea-view", &ahead(20), &ahead(24), 2).await;
    let code = created["code"].as_str().unwrap();
    s.act(code, &json!({"action": "confirm"})).await.expect(200);
    s.act(code, &json!({"action": "cancel", "by": "guest", "reason": "plans changed"})).await.expect(200);
    let got = receiver.wait_for(5, SOON).await;

    for r in &got {
        let event = r.event();
        foreign.verify(&r.body, &r.headers).unwrap_or_else(|e| panic!("{event}: {e}: {:?}", r.headers));
        assert_eq!(r.header("webhook-id"), Some(r.delivery().as_str()), "webhook-id is X-SVC-Delivery");
        let timestamp: i64 = r.header("webhook-timestamp").unwrap().parse().unwrap();
        assert!((Utc::now().timestamp() - timestamp).abs() <= 5, "the attempt's own time: {timestamp}");
        assert!(verify(secret.as_bytes(), &r.body, r.header("x-svc-signature").unwrap()), "X-SVC-Signature stays");
        let ours = StandardHeaders {
            id: r.header("webhook-id").unwrap(),
            timestamp: r.header("webhook-timestamp").unwrap(),
            signature: r.header("webhook-signature").unwrap(),
        };
        assert_eq!(verify_standard(&secret, &r.body, &ours, Utc::now()), Ok(()), "our helper agrees");
    }

    let r = &got[0];
    let mut tampered = r.body.to_vec();
    let at = tampered.iter().position(|&b| b == b'2').expect("a digit to change");
    tampered[at] = b'3';
    assert!(matches!(foreign.verify(&tampered, &r.headers), Err(WebhookError::InvalidSignature)));
    let mut other_id = r.headers.clone();
    other_id.insert("webhook-id", HeaderValue::from_str(&got[1].delivery()).unwrap());
    assert!(matches!(foreign.verify(&r.body, &other_id), Err(WebhookError::InvalidSignature)));
    let mut replayed = r.headers.clone();
    let old = (Utc::now() - TimeDelta::minutes(6)).timestamp().to_string();
    replayed.insert("webhook-timestamp", HeaderValue::from_str(&old).unwrap());
    assert!(foreign.verify(&r.body, &replayed).is_err(), "an old timestamp is refused");
    assert!(Foreign::new("whsec_c29tZW9uZSBlbHNl").unwrap().verify(&r.body, &r.headers).is_err(), "another secret");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_a_rotation_both_secrets_verify_and_after_24_hours_only_the_new_one_signs() {
    let s = server().await;
    let receiver = Receiver::ok().await;
    let (id, old) = subscribe(&s, &receiver);
    let before = delivery(&receiver, &s.rental.admin().send_test_event(&id).unwrap().id).await;
    Foreign::new(&old).unwrap().verify(&before.body, &before.headers).expect("before the rotation");

    let new = s.rental.admin().rotate_webhook_secret(&id, None).unwrap().secret().to_owned();
    let during = delivery(&receiver, &s.rental.admin().send_test_event(&id).unwrap().id).await;
    for secret in [&old, &new] {
        let foreign = Foreign::new(secret).unwrap();
        foreign.verify(&during.body, &during.headers).unwrap_or_else(|e| panic!("{secret}: {e}"));
    }
    assert_eq!(during.header("webhook-signature").unwrap().split(' ').count(), 2);
    assert!(verify(new.as_bytes(), &during.body, during.header("x-svc-signature").unwrap()), "X-SVC: the new one");

    // A day later by the server's clock: the foreign library would now refuse the
    // timestamp against the real clock, so ask it only for the signature it expects.
    s.clock.advance(OVERLAP);
    let after = delivery(&receiver, &s.rental.admin().send_test_event(&id).unwrap().id).await;
    let timestamp: i64 = after.header("webhook-timestamp").unwrap().parse().unwrap();
    let expected =
        |secret: &str| Foreign::new(secret).unwrap().sign(&after.delivery(), timestamp, &after.body).unwrap();
    assert_eq!(after.header("webhook-signature"), Some(expected(&new).as_str()), "only the new secret signs");
    let kept = s.rental.admin().webhooks().unwrap().remove(0);
    assert_eq!(kept.secrets.all().len(), 1, "the previous secret is gone from the store");
    s.stop().await;
}
