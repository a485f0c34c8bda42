//! docs/API.md sections 6 and 13: concurrent requests for overlapping nights
//! (creations, changes), exactly one wins, over HTTP and on the durable store.

use std::sync::Arc;

use http::Method;
use rental_tests::d;
use rental_tests::http::{Reply, TestServer, booking_body};
use serde_json::json;
use tokio::sync::Barrier;

/// Creates a booking from every body at once (all tasks wait at a barrier first), returning the replies in order.
async fn all_at_once(s: &TestServer<impl rental_core::Store>, bodies: Vec<serde_json::Value>) -> Vec<Reply> {
    let requests = bodies.into_iter().map(|body| (Method::POST, "/api/v1/bookings".to_owned(), body)).collect();
    requests_at_once(s, requests).await
}

/// Sends every `(method, path, body)` at once with the write key, returning the replies in order.
async fn requests_at_once(
    s: &TestServer<impl rental_core::Store>,
    requests: Vec<(Method, String, serde_json::Value)>,
) -> Vec<Reply> {
    let barrier = Arc::new(Barrier::new(requests.len()));
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|(method, path, body)| {
            let (http, key, barrier) = (s.http.clone(), s.write_key.clone(), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                http.send_json(method, &path, &key, &body).await
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
    let mut all = s.all_bookings().await;
    assert_eq!(all.len(), 1);
    let winner = &winners[0].body;
    // The write key that booked is not given the stay page's link; the listing's read key is.
    let link = all[0].as_object_mut().unwrap().remove("stayUrl").unwrap();
    assert!(link.as_str().unwrap().contains(&format!("/stay/{}.", winner["code"].as_str().unwrap())), "{link}");
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

/// The statuses of the replies, sorted.
fn statuses(replies: &[Reply]) -> Vec<u16> {
    let mut all: Vec<u16> = replies.iter().map(|r| r.status).collect();
    all.sort_unstable();
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_changes_racing_into_the_same_free_nights_one_wins() {
    let s = TestServer::redb().await;
    for round in 0..10u64 {
        let base = d("2027-03-01") + chrono::Days::new(round * 20);
        let night = |n: u64| (base + chrono::Days::new(n)).to_string();
        let a = s.book("sea-view", &night(0), &night(2), 2).await;
        let b = s.book("sea-view", &night(4), &night(6), 2).await;
        // Both move onto nights 2 and 3, free until one of them takes them.
        let change = json!({"action": "change", "checkIn": night(2), "checkOut": night(4)});
        let requests = [&a, &b]
            .iter()
            .map(|x| (Method::PATCH, format!("/api/v1/bookings/{}", x["code"].as_str().unwrap()), change.clone()))
            .collect();
        let replies = requests_at_once(&s, requests).await;
        // The racers hold a write-only key: a change they win answers 204, without the booking.
        assert_eq!(statuses(&replies), [204, 409], "round {round}");
        replies.iter().find(|r| r.status == 409).unwrap().problem(409, "dates_unavailable");
        let moved: Vec<_> = s.all_bookings().await.into_iter().filter(|x| x["checkIn"] == night(2)).collect();
        assert_eq!(moved.len(), 1, "round {round}: exactly one booking holds the nights");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_racing_a_creation_for_the_same_nights_one_wins() {
    let s = TestServer::redb().await;
    for round in 0..10u64 {
        let base = d("2027-03-01") + chrono::Days::new(round * 20);
        let night = |n: u64| (base + chrono::Days::new(n)).to_string();
        let a = s.book("sea-view", &night(0), &night(2), 2).await;
        let change = json!({"action": "change", "checkOut": night(4)});
        let requests = vec![
            (Method::PATCH, format!("/api/v1/bookings/{}", a["code"].as_str().unwrap()), change),
            (Method::POST, "/api/v1/bookings".to_owned(), booking_body("sea-view", &night(2), &night(4), 2)),
        ];
        let replies = requests_at_once(&s, requests).await;
        let won = replies.iter().filter(|r| r.status == 204 || r.status == 201).count();
        assert_eq!(won, 1, "round {round}: {:?}", statuses(&replies));
        replies.iter().find(|r| r.status == 409).expect("one loses").problem(409, "dates_unavailable");
        let from = night(2);
        let reply =
            s.get(&format!("/api/v1/properties/sea-view/availability?from={from}&to={}", night(4)), &s.read_key).await;
        let held = reply.body["nights"].as_array().unwrap().iter().filter(|n| n["status"] == "held").count();
        assert_eq!(held, 2, "round {round}: the nights are held once, by the winner");
    }
}
