//! docs/API.md section 6: `PATCH /api/v1/bookings/{code}`, each action, each
//! refused transition, repeats as no-ops, and malformed actions.

use rental_tests::http::TestServer;
use serde_json::{Value, json};

fn code_of(b: &Value) -> String {
    b["code"].as_str().expect("a booking has a code").to_owned()
}

async fn pending(s: &TestServer<impl rental_core::Store>) -> String {
    code_of(&s.book("sea-view", "2026-12-20", "2026-12-27", 3).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_makes_a_pending_request_confirmed_and_paid() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    s.set_now("2026-11-22T08:00:00Z");
    let reply = s.act(&code, &json!({"action": "confirm"})).await;
    reply.expect(200);
    assert_eq!((&reply.body["status"], &reply.body["paymentStatus"]), (&json!("confirmed"), &json!("paid")));
    assert_eq!(reply.body["updatedAt"], "2026-11-22T08:00:00.000Z");
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body, reply.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_records_who_and_why_and_refunds_a_paid_booking() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let reply = s.act(&code, &json!({"action": "cancel", "by": "guest", "reason": "flight cancelled"})).await;
    reply.expect(200);
    let b = &reply.body;
    assert_eq!(
        (&b["status"], &b["paymentStatus"], &b["cancelledBy"], &b["cancelReason"]),
        (&json!("cancelled"), &json!("refunded"), &json!("guest"), &json!("flight cancelled"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_by_default_is_by_the_host_and_an_unpaid_pending_request_stays_unpaid() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    let reply = s.act(&code, &json!({"action": "cancel"})).await;
    reply.expect(200);
    let b = &reply.body;
    assert_eq!(
        (&b["status"], &b["paymentStatus"], &b["cancelledBy"], &b["cancelReason"]),
        (&json!("cancelled"), &json!("unpaid"), &json!("host"), &json!(null))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorize_marks_the_card_hold_and_cancel_releases_it() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    let reply = s.act(&code, &json!({"action": "authorize"})).await;
    reply.expect(200);
    assert_eq!((&reply.body["status"], &reply.body["paymentStatus"]), (&json!("pending"), &json!("authorized")));
    let cancelled = s.act(&code, &json!({"action": "cancel", "by": "host"})).await;
    cancelled.expect(200);
    assert_eq!(cancelled.body["paymentStatus"], "unpaid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotate_appends_notes_in_any_state() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    s.act(&code, &json!({"action": "annotate", "note": "late arrival"})).await.expect(200);
    s.act(&code, &json!({"action": "cancel"})).await.expect(200);
    s.set_now("2026-11-22T10:00:00Z");
    let reply = s.act(&code, &json!({"action": "annotate", "note": "refund sent"})).await;
    reply.expect(200);
    assert_eq!(
        reply.body["notes"],
        json!([{"text": "late arrival", "at": "2026-11-22T07:39:21.123Z"},
               {"text": "refund sent", "at": "2026-11-22T10:00:00.000Z"}])
    );
    assert_eq!(reply.body["status"], "cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeating_a_transition_is_a_200_no_op() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    let confirmed = s.act(&code, &json!({"action": "confirm"})).await;
    s.set_now("2026-11-22T09:00:00Z");
    let again = s.act(&code, &json!({"action": "confirm"})).await;
    again.expect(200);
    assert_eq!(again.body, confirmed.body, "nothing changed, not even updatedAt");

    let other = code_of(&s.book("harbour-loft", "2026-12-01", "2026-12-02", 1).await);
    let authorized = s.act(&other, &json!({"action": "authorize"})).await;
    let again = s.act(&other, &json!({"action": "authorize"})).await;
    again.expect(200);
    assert_eq!(again.body, authorized.body);
    let cancelled = s.act(&other, &json!({"action": "cancel", "reason": "first"})).await;
    let again = s.act(&other, &json!({"action": "cancel", "by": "guest", "reason": "second"})).await;
    again.expect(200);
    assert_eq!(again.body, cancelled.body, "the first cancellation stands");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_action_from_a_state_not_allowed_is_409_invalid_transition() {
    let s = TestServer::memory().await;
    let cancelled = pending(&s).await;
    s.act(&cancelled, &json!({"action": "cancel"})).await.expect(200);
    let confirmed = code_of(&s.book("harbour-loft", "2026-12-01", "2026-12-02", 1).await);
    s.act(&confirmed, &json!({"action": "confirm"})).await.expect(200);
    let cases = [
        (&cancelled, json!({"action": "confirm"})),
        (&cancelled, json!({"action": "authorize"})),
        (&confirmed, json!({"action": "authorize"})),
    ];
    for (code, action) in cases {
        let before = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body;
        s.act(code, &action).await.problem(409, "invalid_transition");
        assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body, before, "{action}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stay_that_has_ended_cannot_be_cancelled() {
    let s = TestServer::memory().await;
    let code = code_of(&s.book("harbour-loft", "2026-11-23", "2026-11-25", 1).await);
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    s.set_now("2026-11-26T00:00:00Z");
    s.act(&code, &json!({"action": "cancel"})).await.problem(409, "invalid_transition");
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body["status"], "confirmed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_or_missing_action_is_422() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    let before = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body;
    for body in [
        json!({}),
        json!({"action": "refund"}),
        json!({"action": "CONFIRM"}),
        json!({"action": 1}),
        json!({"note": "no action"}),
        json!({"action": "cancel", "by": "system"}),
        json!({"action": "annotate"}),
        json!({"action": "confirm", "extra": 1}),
        json!({"action": "authorize", "extra": 1}),
        json!({"action": "cancel", "extra": 1}),
    ] {
        s.act(&code, &body).await.problem(422, "validation_failed");
    }
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patching_an_unknown_booking_is_404() {
    let s = TestServer::memory().await;
    s.act("BK-2345AB", &json!({"action": "confirm"})).await.problem(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_reason_over_2000_bytes_is_422_even_on_a_cancelled_booking() {
    let s = TestServer::memory().await;
    let code = pending(&s).await;
    let long = json!({"action": "cancel", "reason": "é".repeat(1001)});
    let reply = s.act(&code, &long).await;
    reply.problem(422, "validation_failed");
    assert_eq!(reply.error_fields(), ["reason"]);
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body["status"], "pending");
    s.act(&code, &json!({"action": "cancel", "reason": "x".repeat(2000)})).await.expect(200);
    s.act(&code, &long).await.problem(422, "validation_failed");
}
