//! CONTRACT.md section 6: two concurrent requests for overlapping nights,
//! exactly one wins, over HTTP and on the durable store.

use std::sync::Arc;

use rental_tests::d;
use rental_tests::http::{Reply, TestServer, booking_body};
use tokio::sync::Barrier;

/// Sends every body at once (all tasks wait at a barrier first), returning the replies in order.
async fn all_at_once(s: &TestServer<impl rental_core::Store>, bodies: Vec<serde_json::Value>) -> Vec<Reply> {
    let barrier = Arc::new(Barrier::new(bodies.len()));
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let (http, key, barrier) = (s.http.clone(), s.write_key.clone(), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                http.post("/api/v1/bookings", &key, &body).await
            })
        })
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.expect("a request task does not panic"));
    }
    replies
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_overlapping_requests_at_once_give_one_booking_and_49_conflicts() {
    let s = TestServer::redb().await;
    // Every stay holds the nights of 2027-02-10 and 02-11, so any two overlap.
    let bodies: Vec<_> = (0..50u64)
        .map(|i| {
            let check_in = d("2027-02-10") - chrono::Days::new(i % 3);
            let check_out = d("2027-02-12") + chrono::Days::new(i % 4);
            booking_body("sea-view", &check_in.to_string(), &check_out.to_string(), 2)
        })
        .collect();
    let replies = all_at_once(&s, bodies).await;
    let winners: Vec<&Reply> = replies.iter().filter(|r| r.status == 201).collect();
    assert_eq!(winners.len(), 1, "{:?}", replies.iter().map(|r| r.status).collect::<Vec<_>>());
    for loser in replies.iter().filter(|r| r.status != 201) {
        loser.problem(409, "dates_unavailable");
    }
    let all = s.all_bookings().await;
    assert_eq!(all.len(), 1);
    let winner = &winners[0].body;
    assert_eq!(all[0], *winner);

    let (check_in, check_out) = (d(winner["checkIn"].as_str().unwrap()), d(winner["checkOut"].as_str().unwrap()));
    let reply = s.get("/api/v1/properties/sea-view/availability?from=2027-02-01&to=2027-02-20", &s.read_key).await;
    reply.expect(200);
    for night in reply.body["nights"].as_array().unwrap() {
        let date = d(night["date"].as_str().unwrap());
        let want = if (check_in..check_out).contains(&date) { "held" } else { "available" };
        assert_eq!(night["status"], want, "{date}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_separate_stays_at_once_are_all_booked() {
    let s = TestServer::redb().await;
    let bodies: Vec<_> = (0..20u64)
        .map(|i| {
            let check_in = d("2027-03-01") + chrono::Days::new(2 * i);
            booking_body("sea-view", &check_in.to_string(), &(check_in + chrono::Days::new(2)).to_string(), 2)
        })
        .collect();
    let replies = all_at_once(&s, bodies).await;
    assert!(replies.iter().all(|r| r.status == 201), "{:?}", replies.iter().map(|r| r.status).collect::<Vec<_>>());
    assert_eq!(s.all_bookings().await.len(), 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_requests_at_once_with_one_idempotency_key_create_one_booking() {
    let s = TestServer::redb().await;
    let barrier = Arc::new(Barrier::new(10));
    let body = booking_body("sea-view", "2026-12-20", "2026-12-27", 3).to_string();
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (http, key, barrier, body) = (s.http.clone(), s.key.clone(), Arc::clone(&barrier), body.clone());
            tokio::spawn(async move {
                let request = http
                    .request(http::Method::POST, "/api/v1/bookings", &key)
                    .header("content-type", "application/json")
                    .header("idempotency-key", "same-order")
                    .body(http_body_util::Full::new(body.into()))
                    .unwrap();
                barrier.wait().await;
                http.send(request).await
            })
        })
        .collect();
    let mut created = Vec::new();
    for task in tasks {
        let reply = task.await.unwrap();
        match reply.status {
            201 => created.push(reply.body),
            _ => {
                reply.problem(409, "idempotency_in_progress");
            }
        }
    }
    let all = s.all_bookings().await;
    assert_eq!(all.len(), 1);
    assert!(created.iter().all(|b| *b == all[0]), "every 201 is the one booking");
}
