//! docs/API.md section 14: manual blocks under
//! `/api/v1/properties/{slug}/blocks`, and what they close.

use rental_tests::http::TestServer;
use serde_json::{Value, json};

const BLOCKS: &str = "/api/v1/properties/sea-view/blocks";

async fn add(s: &TestServer<impl rental_core::Store>, body: &Value) -> rental_tests::http::Reply {
    s.http.post(BLOCKS, &s.write_key, body).await
}

async fn statuses(s: &TestServer<impl rental_core::Store>, from: &str, to: &str) -> Vec<String> {
    let reply = s.get(&format!("/api/v1/properties/sea-view/availability?from={from}&to={to}"), &s.read_key).await;
    reply.expect(200);
    reply.body["nights"].as_array().unwrap().iter().map(|n| n["status"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_is_created_listed_and_closes_its_nights() {
    let s = TestServer::memory().await;
    let reply = add(&s, &json!({"startDate": "2026-12-01", "endDate": "2026-12-03", "note": "painting"})).await;
    reply.expect(201);
    let block = reply.body.clone();
    let id = block["id"].as_str().unwrap();
    assert!(id.starts_with("blk_"), "{id}");
    assert_eq!(reply.header("location"), Some(format!("{BLOCKS}/{id}").as_str()));
    assert_eq!(
        block,
        json!({"id": id, "property": "sea-view", "startDate": "2026-12-01", "endDate": "2026-12-03",
               "note": "painting", "source": "manual", "createdAt": "2026-11-22T07:39:21.123Z"})
    );
    assert_eq!(statuses(&s, "2026-11-30", "2026-12-04").await, ["available", "blocked", "blocked", "available"]);

    let quote = json!({"property": "sea-view", "checkIn": "2026-12-02", "checkOut": "2026-12-05", "guests": 2});
    let quoted = s.http.post("/api/v1/quotes", &s.read_key, &quote).await;
    assert_eq!(quoted.body["problems"], json!([{"code": "dates_unavailable", "dates": ["2026-12-02"]}]));
    let booking = rental_tests::http::booking_body("sea-view", "2026-12-02", "2026-12-05", 2);
    s.http.post("/api/v1/bookings", &s.write_key, &booking).await.problem(409, "dates_unavailable");
    let ics = s.get("/api/v1/calendar/sea-view.ics", "").await;
    assert!(ics.text().contains("SUMMARY:Not available"), "{}", ics.text());

    let list = s.get(&format!("{BLOCKS}?from=2026-12-02&to=2026-12-10"), &s.read_key).await;
    list.expect(200);
    assert_eq!(list.body, json!({"data": [block]}));
    let before = s.get(&format!("{BLOCKS}?from=2026-11-22&to=2026-12-01"), &s.read_key).await;
    assert_eq!(before.body, json!({"data": []}), "to is exclusive");
    let by_default = s.get(BLOCKS, &s.read_key).await;
    assert_eq!(by_default.body["data"].as_array().unwrap().len(), 1, "from today for 30 days");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_block_reopens_its_nights_and_is_gone() {
    let s = TestServer::memory().await;
    let block = add(&s, &json!({"startDate": "2026-12-01", "endDate": "2026-12-03"})).await.body.clone();
    assert_eq!(block["note"], Value::Null, "no note");
    let path = format!("{BLOCKS}/{}", block["id"].as_str().unwrap());
    s.http.send_json(http::Method::DELETE, &path, &s.read_key, &json!({})).await.problem(403, "insufficient_scope");
    let reply = s.http.send_json(http::Method::DELETE, &path, &s.write_key, &json!({})).await;
    reply.expect(204);
    assert!(reply.text().is_empty());
    assert_eq!(statuses(&s, "2026-12-01", "2026-12-03").await, ["available", "available"]);
    s.http.send_json(http::Method::DELETE, &path, &s.write_key, &json!({})).await.problem(404, "not_found");
    let other = format!("/api/v1/properties/alpine-cabin/blocks/{}", block["id"].as_str().unwrap());
    let again = add(&s, &json!({"startDate": "2026-12-01", "endDate": "2026-12-03"})).await.body.clone();
    let other_path = other.replace(block["id"].as_str().unwrap(), again["id"].as_str().unwrap());
    s.http.send_json(http::Method::DELETE, &other_path, &s.write_key, &json!({})).await.problem(404, "not_found");
    assert_eq!(
        statuses(&s, "2026-12-01", "2026-12-03").await,
        ["blocked", "blocked"],
        "another property's path removes nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_over_a_stay_is_409_and_blocks_may_overlap_each_other() {
    let s = TestServer::memory().await;
    s.book("sea-view", "2026-12-10", "2026-12-13", 2).await;
    let reply = add(&s, &json!({"startDate": "2026-12-12", "endDate": "2026-12-15"})).await;
    reply.problem(409, "dates_unavailable");
    assert!(reply.body["detail"].as_str().unwrap().contains("2026-12-12"));
    assert!(!reply.text().contains("Ada"), "no other guest's data");
    add(&s, &json!({"startDate": "2026-12-13", "endDate": "2026-12-15"})).await.expect(201);
    add(&s, &json!({"startDate": "2026-12-14", "endDate": "2026-12-16"})).await.expect(201);
    let list = s.get(&format!("{BLOCKS}?from=2026-12-01&to=2026-12-31"), &s.read_key).await;
    assert_eq!(list.body["data"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_blocks_are_refused_and_change_nothing() {
    let s = TestServer::memory().await;
    let cases = [
        (json!({"startDate": "2026-12-05", "endDate": "2026-12-05"}), "endDate"),
        (json!({"startDate": "2026-12-05", "endDate": "2028-01-05"}), "endDate"),
        (json!({"startDate": "2026-12-05", "endDate": "2026-12-06", "note": "x".repeat(501)}), "note"),
        (json!({"startDate": "2026-11-01", "endDate": "2026-11-30"}), "startDate"),
    ];
    for (body, field) in cases {
        let reply = add(&s, &body).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), [field], "{body}");
    }
    let accents = "é".repeat(500);
    add(&s, &json!({"startDate": "2026-12-05", "endDate": "2026-12-06", "note": accents})).await.expect(201);
    for body in [
        json!({"startDate": "2026-12-05"}),
        json!({"startDate": "2026-12-5", "endDate": "2026-12-06"}),
        json!({"startDate": "2026-12-05", "endDate": "2026-12-06", "colour": "red"}),
    ] {
        add(&s, &body).await.problem(422, "validation_failed");
    }
    let range = s.get(&format!("{BLOCKS}?from=2026-12-05&to=2026-12-05"), &s.read_key).await;
    range.problem(422, "validation_failed");
    s.get(&format!("{BLOCKS}?from=yesterday"), &s.read_key).await.problem(400, "invalid_parameter");
    s.get("/api/v1/properties/nowhere/blocks", &s.read_key).await.problem(404, "not_found");
    let nowhere = json!({"startDate": "2026-12-05", "endDate": "2026-12-06"});
    s.http.post("/api/v1/properties/nowhere/blocks", &s.write_key, &nowhere).await.problem(404, "not_found");
    s.http.post(BLOCKS, &s.read_key, &nowhere).await.problem(403, "insufficient_scope");
    let list = s.get(&format!("{BLOCKS}?from=2026-11-22&to=2027-11-22"), &s.read_key).await;
    assert_eq!(list.body["data"].as_array().unwrap().len(), 1, "only the good block");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_past_the_booking_horizon_is_refused_as_a_booking_would_be() {
    let s = TestServer::memory().await; // today 2026-11-22: the last check-in is 2029-11-22
    for (start, end) in [("9999-12-30", "9999-12-31"), ("2029-11-23", "2029-11-25")] {
        let reply = add(&s, &json!({"startDate": start, "endDate": end})).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_codes(), [("startDate".to_owned(), "beyond_horizon".to_owned())], "{}", reply.text());
        let booking = json!({"property": "sea-view", "checkIn": start, "checkOut": end, "guests": 2,
                             "guestName": "Ada", "guestEmail": "ada@example.com"});
        let refused = s.post("/api/v1/bookings", &s.key, &booking).await;
        let horizon =
            refused.body["errors"].as_array().unwrap().iter().find(|e| e["code"] == "beyond_horizon").cloned();
        assert_eq!(horizon.unwrap()["message"], reply.body["errors"][0]["message"], "the same words");
    }
    add(&s, &json!({"startDate": "2029-11-22", "endDate": "2029-11-23"})).await.expect(201);
    let list = s.get(&format!("{BLOCKS}?from=2029-11-01&to=2029-12-01"), &s.read_key).await;
    assert_eq!(list.body["data"].as_array().unwrap().len(), 1, "only the block on the last night");
}
