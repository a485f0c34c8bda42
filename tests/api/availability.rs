//! docs/API.md section 4: per-night availability, its defaults, statuses and refusals.

use rental_core::Stay;
use rental_tests::d;
use rental_tests::http::TestServer;
use serde_json::Value;

const PATH: &str = "/api/v1/properties/sea-view/availability";

/// `(date, status)` of each night of an availability body.
fn statuses(body: &Value) -> Vec<(String, String)> {
    let nights = body["nights"].as_array().expect("nights is an array");
    nights.iter().map(|n| (n["date"].as_str().unwrap().to_owned(), n["status"].as_str().unwrap().to_owned())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_dates_it_covers_thirty_nights_from_the_local_today() {
    let s = TestServer::memory().await;
    let reply = s.get(PATH, &s.read_key).await;
    reply.expect(200);
    let b = &reply.body;
    assert_eq!(
        (b["property"].as_str(), b["from"].as_str(), b["to"].as_str()),
        (Some("sea-view"), Some("2026-11-22"), Some("2026-12-22"))
    );
    assert_eq!(b["currency"], "USD");
    assert_eq!(b["nights"].as_array().unwrap().len(), 30);
    // 12:00Z is already 01:00 on the 23rd in Auckland, still the 22nd in Lisbon.
    s.set_now("2026-11-22T12:00:00Z");
    let loft = s.get("/api/v1/properties/harbour-loft/availability", &s.read_key).await;
    assert_eq!((loft.body["from"].as_str(), loft.body["to"].as_str()), (Some("2026-11-23"), Some("2026-12-23")));
    let sea = s.get(PATH, &s.read_key).await;
    assert_eq!(sea.body["from"], "2026-11-22");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_dates_give_exactly_those_nights_with_their_fields() {
    let s = TestServer::memory().await;
    let reply = s.get(&format!("{PATH}?from=2026-12-01&to=2026-12-31"), &s.read_key).await;
    reply.expect(200);
    let nights = reply.body["nights"].as_array().unwrap();
    assert_eq!(nights.len(), 30);
    assert_eq!(
        nights[0],
        serde_json::json!({"date": "2026-12-01", "available": true, "price": 15000, "minNights": 2, "status": "available",
            "checkIn": true, "checkOut": true})
    );
    assert_eq!(nights[3]["date"], "2026-12-04");
    assert_eq!(nights[3]["price"], 18000, "Friday is a weekend night");
    assert_eq!(nights[29]["date"], "2026-12-30");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_from_alone_runs_thirty_nights_from_it() {
    let s = TestServer::memory().await;
    let reply = s.get(&format!("{PATH}?from=2027-01-10"), &s.read_key).await;
    reply.expect(200);
    assert_eq!((reply.body["from"].as_str(), reply.body["to"].as_str()), (Some("2027-01-10"), Some("2027-02-09")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_night_has_its_status() {
    let s = TestServer::memory().await;
    let held = s.book("sea-view", "2026-11-24", "2026-11-26", 2).await;
    let booked = s.book("sea-view", "2026-11-27", "2026-11-29", 2).await;
    s.act(booked["code"].as_str().unwrap(), &serde_json::json!({"action": "confirm"})).await.expect(200);
    let block = Stay::new(d("2026-11-29"), d("2026-11-30")).unwrap();
    s.rental.calendars().add_block("sea-view", block, "painting").unwrap();
    assert_eq!(held["status"], "pending");
    let reply = s.get(&format!("{PATH}?from=2026-11-21&to=2026-12-01"), &s.read_key).await;
    reply.expect(200);
    let want = [
        ("2026-11-21", "past"),
        ("2026-11-22", "available"),
        ("2026-11-23", "available"),
        ("2026-11-24", "held"),
        ("2026-11-25", "held"),
        ("2026-11-26", "available"),
        ("2026-11-27", "booked"),
        ("2026-11-28", "booked"),
        ("2026-11-29", "blocked"),
        ("2026-11-30", "available"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
    assert_eq!(statuses(&reply.body), want);
    for night in reply.body["nights"].as_array().unwrap() {
        assert_eq!(night["available"], night["status"] == "available", "{night}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_stay_frees_its_nights() {
    let s = TestServer::memory().await;
    let b = s.book("sea-view", "2026-12-01", "2026-12-03", 2).await;
    s.act(b["code"].as_str().unwrap(), &serde_json::json!({"action": "cancel"})).await.expect(200);
    let reply = s.get(&format!("{PATH}?from=2026-12-01&to=2026-12-03"), &s.read_key).await;
    assert!(statuses(&reply.body).iter().all(|(_, status)| status == "available"), "{}", reply.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_range_that_is_empty_backwards_or_over_366_nights_is_422() {
    let s = TestServer::memory().await;
    for query in ["from=2026-12-10&to=2026-12-10", "from=2026-12-10&to=2026-12-01", "from=2026-12-01&to=2027-12-03"] {
        let reply = s.get(&format!("{PATH}?{query}"), &s.read_key).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), ["to"], "{query}: {}", reply.body);
    }
    let longest = s.get(&format!("{PATH}?from=2026-12-01&to=2027-12-02"), &s.read_key).await;
    longest.expect(200);
    assert_eq!(longest.body["nights"].as_array().unwrap().len(), 366);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_that_does_not_exist_or_is_not_a_date_is_400_invalid_parameter() {
    let s = TestServer::memory().await;
    for (query, param) in [
        ("from=2026-02-30", "from"),
        ("from=garbage", "from"),
        ("from=2026-12-01&to=2026-13-01", "to"),
        ("to=tomorrow", "to"),
        ("from=01/12/2026", "from"),
    ] {
        let reply = s.get(&format!("{PATH}?{query}"), &s.read_key).await;
        reply.problem(400, "invalid_parameter");
        assert_eq!(reply.error_fields(), [param], "{query}: {}", reply.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn availability_of_an_unknown_or_inactive_property_is_404() {
    let s = TestServer::memory().await;
    s.get("/api/v1/properties/nowhere/availability", &s.read_key).await.problem(404, "not_found");
    let inactive = {
        let mut edited = rental_core::demo::harbour_loft();
        edited.active = false;
        edited
    };
    s.rental.import_properties(&[inactive]).unwrap();
    s.get("/api/v1/properties/harbour-loft/availability", &s.read_key).await.problem(404, "not_found");
}
