//! What a redb store keeps across a server restart, and a graceful shutdown
//! that lets a request in flight finish.

use std::time::Duration;

use rental_tests::d;
use rental_tests::http::{TestServer, booking_body, raw_in_parts};
use serde_json::{Value, json};

/// A server on the redb store of `dir` as `rental serve` runs it with
/// `baseUrl` and its page secret kept in the data directory: a booking's
/// `stayUrl` is the same across restarts.
async fn on(dir: &std::path::Path) -> TestServer<rental_core::RedbStore> {
    let admin =
        rental_server::admin::AdminConfig { base_url: Some("https://stay.example".into()), ..Default::default() };
    let book = rental_server::book::BookConfig { secret: b"kept in the data directory".to_vec(), ..Default::default() };
    let config = rental_server::ServerConfig { admin, book, ..Default::default() };
    TestServer::with_store(rental_tests::open_redb(dir), &config).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_booking_is_there_unchanged_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let s = on(dir.path()).await;
    let mut created = Vec::new();
    for i in 0..20u64 {
        let check_in = d("2027-02-01") + chrono::Days::new(3 * i);
        let property = ["sea-view", "harbour-loft"][usize::from(i % 2 == 1)];
        created.push(s.book(property, &check_in.to_string(), &(check_in + chrono::Days::new(2)).to_string(), 2).await);
    }
    // Some history beyond creation, so more than the first write must survive.
    for (i, b) in created.iter_mut().enumerate() {
        let code = b["code"].as_str().unwrap().to_owned();
        let action = match i % 4 {
            0 => json!({"action": "confirm"}),
            1 => json!({"action": "cancel", "by": "guest", "reason": "changed plans"}),
            2 => json!({"action": "annotate", "note": format!("note {i}")}),
            _ => continue,
        };
        let reply = s.act(&code, &action).await;
        reply.expect(200);
        *b = reply.body;
    }
    let before = s.all_bookings().await;
    assert_eq!(before.len(), 20);
    s.stop().await;

    let s = on(dir.path()).await;
    assert_eq!(s.all_bookings().await, before);
    for b in &created {
        let reply = s.get(&format!("/api/v1/bookings/{}", b["code"].as_str().unwrap()), &s.read_key).await;
        assert_eq!(reply.body, *b);
    }
    s.stop().await;
}

/// The JSON body of a raw HTTP/1.1 response.
fn body_of(response: &str) -> Value {
    let (_, body) = response.split_once("\r\n\r\n").expect("a response has a head and a body");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_in_flight_when_shutdown_begins_still_gets_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = on(dir.path()).await;
    let body = booking_body("sea-view", "2026-12-20", "2026-12-27", 3).to_string();
    let (first, rest) = body.split_at(body.len() / 2);
    let head = format!(
        "POST /api/v1/bookings HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{first}",
        s.key,
        body.len()
    );
    // The head and half the body arrive now; the rest only after shutdown has begun.
    let parts = vec![(head.into_bytes(), Duration::ZERO), (rest.as_bytes().to_vec(), Duration::from_millis(400))];
    let request = tokio::spawn(raw_in_parts(s.addr, parts));
    tokio::time::sleep(Duration::from_millis(150)).await;
    let serving = s.begin_shutdown();
    let response = request.await.unwrap();
    assert!(response.starts_with("HTTP/1.1 201 "), "{response}");
    let created = body_of(&response);
    serving.await.unwrap().expect("serve ends cleanly");
    s.stop().await;

    let s = on(dir.path()).await;
    let reply = s.get(&format!("/api/v1/bookings/{}", created["code"].as_str().unwrap()), &s.read_key).await;
    reply.expect(200);
    assert_eq!(reply.body, created);
    s.stop().await;
}
