//! docs/API.md section 6: creating, listing, paging and looking up bookings,
//! and `Idempotency-Key` replays.

use std::collections::BTreeSet;

use http::Method;
use http_body_util::Full;
use rental_tests::http::{TestServer, booking_body};
use rental_tests::{NOW, d};
use serde_json::{Value, json};

const PATH: &str = "/api/v1/bookings";

/// Every field of a booking body, as docs/API.md section 6 lists them.
const BOOKING_FIELDS: [&str; 29] = [
    "code",
    "property",
    "propertyName",
    "guestName",
    "guestEmail",
    "guests",
    "checkIn",
    "checkOut",
    "nights",
    "status",
    "paymentStatus",
    "total",
    "currency",
    "source",
    "locale",
    "notes",
    "createdAt",
    "updatedAt",
    "cancelledBy",
    "cancelReason",
    "checkedInAt",
    "checkedInBy",
    "checkedOutAt",
    "checkedOutBy",
    "access",
    "amountPaid",
    "amountRefunded",
    "balanceDue",
    "nextPaymentAt",
];

fn code_of(b: &Value) -> &str {
    b["code"].as_str().expect("a booking has a code")
}

fn codes(list: &[Value]) -> Vec<String> {
    list.iter().map(|b| code_of(b).to_owned()).collect()
}

fn looks_like_a_code(code: &str) -> bool {
    let alphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    code.len() == 9 && code.starts_with("BK-") && code[3..].chars().all(|c| alphabet.contains(c))
}

/// The codes of a listing's first page.
async fn listed(s: &TestServer<impl rental_core::Store>, query: &str) -> Vec<String> {
    let reply = s.get(&format!("{PATH}?{query}"), &s.read_key).await;
    reply.expect(200);
    assert!(reply.body["nextCursor"].is_null(), "{query}: one page expected");
    codes(reply.body["data"].as_array().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_created_booking_is_201_with_its_location_and_every_field() {
    let s = TestServer::memory().await;
    let reply = s.post(PATH, &s.write_key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 3)).await;
    reply.expect(201);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let b = &reply.body;
    let code = code_of(b);
    assert!(looks_like_a_code(code), "{code}");
    assert_eq!(reply.header("location"), Some(format!("/api/v1/bookings/{code}").as_str()));
    let mut fields: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
    fields.sort_unstable();
    let mut want_fields = BOOKING_FIELDS.to_vec();
    want_fields.sort_unstable();
    assert_eq!(fields, want_fields);
    let want = json!({"code": code, "property": "sea-view", "propertyName": "Sea View Cottage",
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 3,
        "checkIn": "2026-12-20", "checkOut": "2026-12-27", "nights": 7,
        "status": "pending", "paymentStatus": "unpaid", "total": 134_288, "currency": "USD",
        "source": "api", "locale": "en", "notes": [], "createdAt": NOW, "updatedAt": NOW,
        "cancelledBy": null, "cancelReason": null,
        "checkedInAt": null, "checkedInBy": null, "checkedOutAt": null, "checkedOutBy": null, "access": null,
        "amountPaid": 0, "amountRefunded": 0, "balanceDue": 134_288, "nextPaymentAt": NOW});
    assert_eq!(*b, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lookup_returns_the_body_the_creation_returned() {
    let s = TestServer::memory().await;
    let created = s.book("alpine-cabin", "2026-12-01", "2026-12-05", 5).await;
    let reply = s.get(&format!("{PATH}/{}", code_of(&created)), &s.read_key).await;
    reply.expect(200);
    assert_eq!(reply.body, created);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_code_is_404() {
    let s = TestServer::memory().await;
    s.get(&format!("{PATH}/BK-2345AB"), &s.read_key).await.problem(404, "not_found");
    s.get(&format!("{PATH}/nonsense"), &s.read_key).await.problem(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_and_source_are_taken_from_the_request() {
    let s = TestServer::memory().await;
    let mut body = booking_body("harbour-loft", "2026-12-01", "2026-12-02", 1);
    body["notes"] = json!("late arrival");
    body["source"] = json!("agent");
    let reply = s.post(PATH, &s.key, &body).await;
    reply.expect(201);
    assert_eq!(reply.body["source"], "agent");
    assert_eq!(reply.body["notes"], json!([{"text": "late arrival", "at": NOW}]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stay_over_taken_nights_is_409_and_names_no_other_guest() {
    let s = TestServer::memory().await;
    let mut first = booking_body("sea-view", "2026-12-20", "2026-12-24", 2);
    first["guestName"] = json!("Grace Hopper");
    first["guestEmail"] = json!("grace@navy.example");
    let first = s.post(PATH, &s.key, &first).await;
    first.expect(201);
    let reply = s.post(PATH, &s.key, &booking_body("sea-view", "2026-12-22", "2026-12-27", 2)).await;
    reply.problem(409, "dates_unavailable");
    for private in ["Grace", "grace@navy.example", code_of(&first.body)] {
        assert!(!reply.text().contains(private), "{private} leaked: {}", reply.text());
    }
    assert_eq!(s.all_bookings().await.len(), 1);
}

/// Five bookings over three properties, statuses and sources, for the filters.
struct Seeded {
    /// sea-view 12-01..12-05, confirmed.
    a: String,
    /// sea-view 12-10..12-12, pending, then confirmed an hour after [`NOW`].
    b: String,
    /// alpine-cabin 12-01..12-05, cancelled.
    c: String,
    /// harbour-loft 12-03..12-04, pending, from the agent.
    d: String,
    /// alpine-cabin 2027-01-10..01-15, pending, from the admin.
    e: String,
}

async fn seed(s: &TestServer<impl rental_core::Store>) -> Seeded {
    let create = |property: &'static str, check_in: &'static str, check_out: &'static str, source: &'static str| {
        let mut body = booking_body(property, check_in, check_out, 2);
        body["source"] = json!(source);
        async move {
            let reply = s.post(PATH, &s.key, &body).await;
            reply.expect(201);
            code_of(&reply.body).to_owned()
        }
    };
    let x = Seeded {
        a: create("sea-view", "2026-12-01", "2026-12-05", "api").await,
        b: create("sea-view", "2026-12-10", "2026-12-12", "api").await,
        c: create("alpine-cabin", "2026-12-01", "2026-12-05", "api").await,
        d: create("harbour-loft", "2026-12-03", "2026-12-04", "agent").await,
        e: create("alpine-cabin", "2027-01-10", "2027-01-15", "admin").await,
    };
    s.act(&x.a, &json!({"action": "confirm"})).await.expect(200);
    s.act(&x.c, &json!({"action": "cancel"})).await.expect(200);
    s.set_now("2026-11-22T08:39:21.123Z");
    s.act(&x.b, &json!({"action": "confirm"})).await.expect(200);
    x
}

/// `codes` sorted the way a listing orders them: check-in, then code.
fn ordered(pairs: &[(&str, &String)]) -> Vec<String> {
    let mut pairs: Vec<(&str, &String)> = pairs.to_vec();
    pairs.sort();
    pairs.into_iter().map(|(_, code)| code.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_has_every_status_ordered_by_check_in_then_code() {
    let s = TestServer::memory().await;
    let x = seed(&s).await;
    let want = ordered(&[
        ("2026-12-01", &x.a),
        ("2026-12-10", &x.b),
        ("2026-12-01", &x.c),
        ("2026-12-03", &x.d),
        ("2027-01-10", &x.e),
    ]);
    assert_eq!(listed(&s, "").await, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_filter_narrows_the_list() {
    let s = TestServer::memory().await;
    let x = seed(&s).await;
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("status=cancelled", vec![x.c.clone()]),
        ("status=pending", vec![x.d.clone(), x.e.clone()]),
        (
            "status=pending,confirmed",
            ordered(&[("2026-12-01", &x.a), ("2026-12-03", &x.d), ("2026-12-10", &x.b), ("2027-01-10", &x.e)]),
        ),
        ("status=pending%2Ccancelled", ordered(&[("2026-12-01", &x.c), ("2026-12-03", &x.d), ("2027-01-10", &x.e)])),
        ("property=alpine-cabin", ordered(&[("2026-12-01", &x.c), ("2027-01-10", &x.e)])),
        ("source=agent", vec![x.d.clone()]),
        ("source=admin", vec![x.e.clone()]),
        // Stays overlapping [12-05, 12-11): a stay leaving on the 5th does not.
        ("from=2026-12-05&to=2026-12-11", vec![x.b.clone()]),
        (
            "from=2026-12-04",
            ordered(&[("2026-12-01", &x.a), ("2026-12-01", &x.c), ("2026-12-10", &x.b), ("2027-01-10", &x.e)]),
        ),
        ("to=2026-12-03", ordered(&[("2026-12-01", &x.a), ("2026-12-01", &x.c)])),
        ("updatedSince=2026-11-22T08:00:00Z", vec![x.b.clone()]),
        (
            "updatedSince=2026-11-22T07:39:21.123Z",
            ordered(&[
                ("2026-12-01", &x.a),
                ("2026-12-10", &x.b),
                ("2026-12-01", &x.c),
                ("2026-12-03", &x.d),
                ("2027-01-10", &x.e),
            ]),
        ),
        ("status=pending&property=alpine-cabin", vec![x.e.clone()]),
        ("status=confirmed&property=sea-view&from=2026-12-06", vec![x.b.clone()]),
        ("property=sea-view&source=agent", vec![]),
    ];
    for (query, want) in cases {
        assert_eq!(listed(&s, query).await, want, "{query}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_filter_value_is_400_invalid_parameter() {
    let s = TestServer::memory().await;
    for (query, param) in [
        ("status=paid", "status"),
        ("status=pending,,bogus", "status"),
        ("from=2026-02-30", "from"),
        ("to=soon", "to"),
        ("updatedSince=yesterday", "updatedSince"),
        ("property=Not%20A%20Slug", "property"),
    ] {
        let reply = s.get(&format!("{PATH}?{query}"), &s.read_key).await;
        reply.problem(400, "invalid_parameter");
        assert_eq!(reply.error_fields(), [param], "{query}: {}", reply.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limit_defaults_to_50_and_must_be_1_to_200() {
    let s = TestServer::memory().await;
    for i in 0..55u64 {
        let night = d("2027-02-01") + chrono::Days::new(i);
        s.book("harbour-loft", &night.to_string(), &night.succ_opt().unwrap().to_string(), 1).await;
    }
    let page = s.get(PATH, &s.read_key).await;
    page.expect(200);
    assert_eq!(page.body["data"].as_array().unwrap().len(), 50);
    assert!(page.body["nextCursor"].is_string());
    for (limit, len) in [("1", 1), ("200", 55)] {
        let page = s.get(&format!("{PATH}?limit={limit}"), &s.read_key).await;
        assert_eq!(page.body["data"].as_array().unwrap().len(), len, "limit={limit}");
    }
    for limit in ["0", "201", "abc", "-1", "1.5"] {
        let reply = s.get(&format!("{PATH}?limit={limit}"), &s.read_key).await;
        reply.problem(400, "invalid_parameter");
        assert_eq!(reply.error_fields(), ["limit"], "limit={limit}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_walked_to_the_end_give_every_booking_once_in_order() {
    let s = TestServer::memory().await;
    // Two properties on the same nights, so check-in ties are broken by code.
    for i in 0..12u64 {
        let check_in = d("2027-02-01") + chrono::Days::new(3 * i);
        let check_out = check_in + chrono::Days::new(3);
        for property in ["sea-view", "harbour-loft"] {
            s.book(property, &check_in.to_string(), &check_out.to_string(), 2).await;
        }
    }
    let all = s.all_bookings().await;
    assert_eq!(all.len(), 24);
    let keys: Vec<(String, String)> =
        all.iter().map(|b| (b["checkIn"].as_str().unwrap().to_owned(), code_of(b).to_owned())).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "ordered by checkIn, then code");

    let mut walked = Vec::new();
    let mut path = format!("{PATH}?limit=5");
    let mut pages = 0;
    loop {
        let page = s.get(&path, &s.read_key).await;
        page.expect(200);
        pages += 1;
        let data = page.body["data"].as_array().unwrap();
        assert!(data.len() <= 5);
        walked.extend(data.iter().cloned());
        match page.body["nextCursor"].as_str() {
            Some(cursor) => path = format!("{PATH}?limit=5&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(pages, 5);
    let unique: BTreeSet<String> = codes(&walked).into_iter().collect();
    assert_eq!(unique.len(), walked.len(), "no booking twice");
    assert_eq!(walked, all, "no booking left out, none changed, same order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_keeps_the_filters_it_is_used_with() {
    let s = TestServer::memory().await;
    for i in 0..6u64 {
        let check_in = d("2027-02-01") + chrono::Days::new(2 * i);
        for property in ["sea-view", "harbour-loft"] {
            s.book(property, &check_in.to_string(), &(check_in + chrono::Days::new(2)).to_string(), 2).await;
        }
    }
    let mut walked = Vec::new();
    let mut path = format!("{PATH}?property=sea-view&limit=4");
    loop {
        let page = s.get(&path, &s.read_key).await;
        walked.extend(page.body["data"].as_array().unwrap().iter().cloned());
        match page.body["nextCursor"].as_str() {
            Some(cursor) => path = format!("{PATH}?property=sea-view&limit=4&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(walked.len(), 6);
    assert!(walked.iter().all(|b| b["property"] == "sea-view"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_that_was_not_handed_out_is_400() {
    let s = TestServer::memory().await;
    for cursor in ["abc", "zz", "6869", "not-a-cursor"] {
        let reply = s.get(&format!("{PATH}?cursor={cursor}"), &s.read_key).await;
        reply.problem(400, "invalid_parameter");
        assert_eq!(reply.error_fields(), ["cursor"], "{cursor}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_with_the_same_key_and_body_returns_the_first_response_and_creates_nothing() {
    let s = TestServer::memory().await;
    let body = booking_body("sea-view", "2026-12-20", "2026-12-27", 3);
    let send = |body: Value| {
        let request = s
            .request(Method::POST, PATH, &s.key)
            .header("content-type", "application/json")
            .header("idempotency-key", "order-4711")
            .body(Full::new(body.to_string().into()))
            .unwrap();
        s.send(request)
    };
    let first = send(body.clone()).await;
    first.expect(201);
    assert_eq!(first.header("idempotent-replayed"), None);
    s.set_now("2026-11-22T09:00:00Z");
    let again = send(body.clone()).await;
    again.expect(201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("location"), first.header("location"));
    assert_eq!(codes(&s.all_bookings().await), [code_of(&first.body)]);

    let mut other = body;
    other["guests"] = json!(2);
    let reused = send(other).await;
    reused.problem(422, "idempotency_key_reused");
    assert_eq!(codes(&s.all_bookings().await), [code_of(&first.body)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_is_remembered_per_api_key() {
    let s = TestServer::memory().await;
    let send = |key: &str, body: &Value| {
        let request = s
            .request(Method::POST, PATH, key)
            .header("content-type", "application/json")
            .header("idempotency-key", "order-1")
            .body(Full::new(body.to_string().into()))
            .unwrap();
        s.send(request)
    };
    let first = booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
    let mine = send(&s.key, &first).await;
    mine.expect(201);
    // Another key with the same value gets neither the first key's booking nor a refusal for it.
    let theirs = send(&s.write_key, &booking_body("sea-view", "2027-01-10", "2027-01-13", 2)).await;
    theirs.expect(201);
    assert_eq!(theirs.header("idempotent-replayed"), None);
    assert_ne!(code_of(&theirs.body), code_of(&mine.body));
    let same_body = send(&s.write_key, &first).await;
    same_body.problem(422, "idempotency_key_reused");
    // The first key still replays its own.
    let again = send(&s.key, &first).await;
    assert_eq!((again.header("idempotent-replayed"), code_of(&again.body)), (Some("true"), code_of(&mine.body)));
    assert_eq!(s.all_bookings().await.len(), 2);
    let long = "k".repeat(256);
    let request = s.request(Method::POST, PATH, &s.key).header("content-type", "application/json");
    let request = request.header("idempotency-key", long).body(Full::new(first.to_string().into())).unwrap();
    s.send(request).await.problem(422, "validation_failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unpaid_request_expires_after_a_day_within_two_seconds() {
    let s = TestServer::memory().await;
    let b = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    s.set_now("2026-11-23T07:39:22Z");
    let path = format!("{PATH}/{}", code_of(&b));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    let expired = loop {
        let reply = s.get(&path, &s.read_key).await;
        if reply.body["status"] == "cancelled" || std::time::Instant::now() > deadline {
            break reply.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(
        (&expired["status"], &expired["paymentStatus"], &expired["cancelledBy"]),
        (&json!("cancelled"), &json!("expired"), &json!("system"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calendar_sync_with_no_feeds_answers_the_empty_result() {
    let s = TestServer::memory().await;
    let request = s.request(Method::POST, "/api/v1/sync/ical", &s.write_key).body(Full::default()).unwrap();
    let reply = s.send(request).await;
    reply.expect(200);
    let want = json!({"startedAt": NOW, "finishedAt": NOW, "feeds": 0, "succeeded": 0, "failed": 0,
        "created": 0, "updated": 0, "cancelled": 0, "conflicts": 0, "results": []});
    assert_eq!(reply.body, want);
    let one = s.post("/api/v1/sync/ical?property=sea-view", &s.key, &json!({})).await;
    assert_eq!(one.body, want);
    s.post("/api/v1/sync/ical?property=nowhere", &s.key, &json!({})).await.problem(404, "not_found");
    assert!(s.all_bookings().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_address_the_mailer_would_refuse_is_refused_at_creation() {
    let s = TestServer::memory().await;
    for bad in ["<c@d.com>", "a@-example.com"] {
        let mut body = booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
        body["guestEmail"] = json!(bad);
        let reply = s.post(PATH, &s.key, &body).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_codes(), [("guestEmail".to_owned(), "invalid_email".to_owned())], "{bad}");
    }
    assert!(s.all_bookings().await.is_empty(), "nothing was made");
}
