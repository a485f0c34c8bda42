//! Delivery claims end to end (issue 12 item 5): deliveries are claimed as
//! leases in the store and recorded as they finish, so a receiver that answers
//! at once never gets a delivery twice, and shutdown ends within its grace.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rental_core::delivery::ClaimLimits;
use rental_core::webhook::Subscription;
use rental_core::{NewBooking, Store};
use rental_server::ServerConfig;
use rental_tests::http::TestServer;
use rental_tests::receiver::{Answer, Receiver};

use crate::webhooks::config;

/// Registers `n` webhooks for every event, all on `receiver` (paths `/hooks/0`, `/hooks/1`, ...).
fn webhooks<S: Store>(s: &TestServer<S>, receiver: &Receiver, n: usize) {
    for i in 0..n {
        let url = format!("http://{}/hooks/{i}", receiver.addr);
        s.rental.admin().add_webhook(&url, Subscription::parse("*").unwrap(), None).unwrap();
    }
}

/// Books `n` two-night stays through the library, alternating two properties, one write each.
async fn book<S: Store + 'static>(s: &TestServer<S>, n: u64) {
    let rental = std::sync::Arc::clone(&s.rental);
    tokio::task::spawn_blocking(move || {
        for i in 0..n {
            let check_in = rental_tests::d("2027-01-01") + chrono::Days::new(2 * (i / 2));
            let booking = NewBooking {
                property: ["sea-view", "harbour-loft"][usize::from(i % 2 == 1)].parse().unwrap(),
                check_in,
                check_out: check_in + chrono::Days::new(2),
                guest_name: "Ada Lovelace".into(),
                guest_email: "ada@example.com".into(),
                guests: 1,
                notes: None,
                source: None,
                children: 0,
                pets: 0,
                promo_code: None,
                locale: None,
            };
            rental.create_booking(&booking, None).unwrap();
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_deliveries_answered_at_once_each_arrive_exactly_once() {
    let receiver = Receiver::ok().await;
    let s = TestServer::redb_with_config(&config()).await;
    webhooks(&s, &receiver, 4);
    // Bookings are made while the dispatcher sends: claims, flushes and new fan-outs interleave.
    book(&s, 500).await;
    let got = receiver.wait_for(2_000, Duration::from_secs(60)).await;
    receiver.assert_no_more_than(2_000, Duration::from_secs(1)).await;
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in &got {
        *seen.entry(r.delivery()).or_default() += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "{} delivery ids arrived more than once: {twice:?}", twice.len());
    assert_eq!(seen.len(), 2_000);
    for webhook in s.rental.admin().webhooks().unwrap() {
        let deliveries = s.rental.admin().deliveries_of(&webhook.id, 1_000).unwrap();
        assert_eq!(deliveries.len(), 500);
        assert!(deliveries.iter().all(|d| d.attempts.len() == 1), "each recorded once, with one attempt");
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_with_a_slow_receiver_ends_within_the_grace_and_leaves_nothing_leased() {
    let receiver = Receiver::scripted([], Answer::Hang(Duration::from_secs(5))).await;
    let grace = Duration::from_secs(1);
    let mut s = TestServer::redb_with_config(&ServerConfig { shutdown_grace: grace, ..config() }).await;
    webhooks(&s, &receiver, 4);
    book(&s, 50).await;
    receiver.wait_for(4, Duration::from_secs(10)).await;
    let (addr, began) = (s.http.addr, Instant::now());
    let serving = s.begin_shutdown();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = tokio::net::TcpStream::connect(addr).await;
    assert!(refused.is_err(), "a new connection is refused at once while draining");
    serving.await.unwrap().expect("serve ends cleanly");
    let took = began.elapsed();
    assert!(took < grace + Duration::from_millis(300), "shutdown took {took:?} with a grace of {grace:?}");
    eprintln!("shutdown with 200 deliveries pending and 4 attempts hanging took {took:?} (grace {grace:?})");
    assert_eq!(receiver.count(), 4, "no attempt started once shutdown began");
    // The hanging attempts were cut unrecorded and their leases released: another
    // dispatcher claims every delivery of the four webhooks at once.
    s.rental.worker().fan_out(1_000).unwrap(); // the events of bookings made after the last poll
    let all = ClaimLimits { deliveries: 1_000, webhooks: 100 };
    let claimed = s.rental.worker().claim_deliveries("next", all, Duration::from_secs(60)).unwrap();
    assert_eq!(claimed.len(), 200, "none delivered, none left leased");
}
