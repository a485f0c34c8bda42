//! docs/API.md section 13: the `change` action re-checks and re-prices a
//! booking's stay in one transaction, with one `booking.updated`.

use rental_tests::http::TestServer;
use serde_json::{Value, json};

fn code_of(b: &Value) -> String {
    b["code"].as_str().expect("a booking has a code").to_owned()
}

/// The names and `changes` of the events written after outbox position `from`.
fn events_since(s: &TestServer<impl rental_core::Store>, from: usize) -> Vec<(String, Value)> {
    let all = s.rental.admin().events_after(0, 1_000_000).expect("the outbox reads");
    all[from..].iter().map(|e| (e.event.event.to_string(), e.event.data["changes"].clone())).collect()
}

fn outbox_len(s: &TestServer<impl rental_core::Store>) -> usize {
    s.rental.admin().events_after(0, 1_000_000).expect("the outbox reads").len()
}

async fn quote_total(s: &TestServer<impl rental_core::Store>, check_in: &str, check_out: &str, guests: u32) -> Value {
    let body = json!({"property": "sea-view", "checkIn": check_in, "checkOut": check_out, "guests": guests});
    let reply = s.http.post("/api/v1/quotes", &s.read_key, &body).await;
    reply.expect(200);
    reply.body["total"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_moves_the_stay_reprices_it_and_says_what_changed() {
    let s = TestServer::memory().await;
    let code = code_of(&s.book("sea-view", "2026-12-20", "2026-12-27", 3).await);
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let before = outbox_len(&s);
    s.set_now("2026-11-23T09:00:00Z");
    let body = json!({"action": "change", "checkIn": "2026-12-21", "checkOut": "2026-12-24", "guests": 2});
    let reply = s.act(&code, &body).await;
    reply.expect(200);
    let b = &reply.body;
    assert_eq!(
        (&b["checkIn"], &b["checkOut"], &b["nights"], &b["guests"]),
        (&json!("2026-12-21"), &json!("2026-12-24"), &json!(3), &json!(2))
    );
    assert_eq!(b["total"], quote_total(&s, "2026-12-21", "2026-12-24", 2).await);
    assert_eq!((&b["status"], &b["paymentStatus"]), (&json!("confirmed"), &json!("paid")));
    assert_eq!(b["updatedAt"], "2026-11-23T09:00:00.000Z");
    assert_eq!(
        events_since(&s, before),
        [("booking.updated".into(), json!(["checkIn", "checkOut", "guests", "nights", "total"]))]
    );

    let nights = s.get("/api/v1/properties/sea-view/availability?from=2026-12-20&to=2026-12-27", &s.read_key).await;
    let statuses: Vec<&str> =
        nights.body["nights"].as_array().unwrap().iter().map(|n| n["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["available", "booked", "booked", "booked", "available", "available", "available"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_left_out_keeps_its_value_and_the_same_values_are_a_no_op() {
    let s = TestServer::memory().await;
    let code = code_of(&s.book("sea-view", "2026-12-20", "2026-12-27", 3).await);
    let before = outbox_len(&s);
    let reply = s.act(&code, &json!({"action": "change", "guests": 4})).await;
    reply.expect(200);
    assert_eq!(
        (&reply.body["checkIn"], &reply.body["checkOut"], &reply.body["guests"]),
        (&json!("2026-12-20"), &json!("2026-12-27"), &json!(4))
    );
    assert_eq!(events_since(&s, before), [("booking.updated".into(), json!(["guests", "total"]))]);

    let after = outbox_len(&s);
    let same = s.act(&code, &json!({"action": "change", "checkIn": "2026-12-20", "guests": 4})).await;
    same.expect(200);
    assert_eq!(same.body, reply.body, "nothing changed, not even updatedAt");
    assert_eq!(outbox_len(&s), after, "a no-op emits nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_may_overlap_its_own_nights_but_not_anyone_elses() {
    let s = TestServer::memory().await;
    let code = code_of(&s.book("sea-view", "2026-12-20", "2026-12-27", 2).await);
    s.book("sea-view", "2026-12-28", "2026-12-31", 2).await;
    let block = json!({"startDate": "2027-01-05", "endDate": "2027-01-07", "note": "painting"});
    s.http.post("/api/v1/properties/sea-view/blocks", &s.write_key, &block).await.expect(201);

    s.act(&code, &json!({"action": "change", "checkIn": "2026-12-22", "checkOut": "2026-12-28"})).await.expect(200);
    let before = outbox_len(&s);
    let held = s.act(&code, &json!({"action": "change", "checkOut": "2026-12-29"})).await;
    held.problem(409, "dates_unavailable");
    assert!(held.body["detail"].as_str().unwrap().contains("2026-12-28"));
    let blocked = s.act(&code, &json!({"action": "change", "checkIn": "2027-01-04", "checkOut": "2027-01-08"})).await;
    blocked.problem(409, "dates_unavailable");
    assert_eq!(outbox_len(&s), before, "a refused change emits nothing");
    let now = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await;
    assert_eq!((&now.body["checkIn"], &now.body["checkOut"]), (&json!("2026-12-22"), &json!("2026-12-28")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_changes_and_broken_stay_rules_are_422() {
    let s = TestServer::memory().await;
    let code = code_of(&s.book("sea-view", "2026-12-20", "2026-12-27", 2).await);
    let cases = [
        (json!({"action": "change"}), "checkIn"),
        (json!({"action": "change", "checkOut": "2026-12-19"}), "checkOut"),
        (json!({"action": "change", "checkOut": "2026-12-21"}), "checkOut"),
        (json!({"action": "change", "checkOut": "2027-01-30"}), "checkOut"),
        (json!({"action": "change", "guests": 5}), "guests"),
        (json!({"action": "change", "guests": 0}), "guests"),
        (json!({"action": "change", "checkIn": "2026-11-21", "checkOut": "2026-11-24"}), "checkIn"),
    ];
    for (body, field) in cases {
        let reply = s.act(&code, &body).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), [field], "{body}");
    }
    for body in [json!({"action": "change", "checkIn": "2026-12-1"}), json!({"action": "change", "nights": 3})] {
        s.act(&code, &body).await.problem(422, "validation_failed");
    }
    let unchanged = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await;
    assert_eq!((&unchanged.body["checkOut"], &unchanged.body["guests"]), (&json!("2026-12-27"), &json!(2)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_ended_and_channel_bookings_cannot_change() {
    let s = TestServer::memory().await;
    let cancelled = code_of(&s.book("sea-view", "2026-12-20", "2026-12-27", 2).await);
    s.act(&cancelled, &json!({"action": "cancel"})).await.expect(200);
    s.act(&cancelled, &json!({"action": "change", "guests": 3})).await.problem(409, "invalid_transition");

    let ended = code_of(&s.book("sea-view", "2026-11-24", "2026-11-26", 2).await);
    s.act(&ended, &json!({"action": "confirm"})).await.expect(200);
    s.set_now("2026-11-26T12:00:00Z");
    s.act(&ended, &json!({"action": "change", "checkOut": "2026-11-28"})).await.problem(409, "invalid_transition");
    s.act("BK-ZZZZZZ", &json!({"action": "change", "guests": 2})).await.problem(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_already_in_the_house_may_extend_the_stay() {
    let s = TestServer::memory().await;
    let code = code_of(&s.book("sea-view", "2026-11-24", "2026-11-27", 2).await);
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    s.set_now("2026-11-25T12:00:00Z");
    let reply = s.act(&code, &json!({"action": "change", "checkOut": "2026-11-29"})).await;
    reply.expect(200);
    assert_eq!(reply.body["nights"], 5);
    s.act(&code, &json!({"action": "change", "checkIn": "2026-11-23"})).await.problem(422, "validation_failed");
}
