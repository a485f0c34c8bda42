//! docs/API.md section 1: every error code, with its status, its
//! `application/problem+json` body and its headers; and a refused request
//! changes nothing (the bookings, the summary and the outbox are as before).

use http::Method;
use http_body_util::Full;
use rental_core::Store;
use rental_server::ServerConfig;
use rental_server::ratelimit::RateLimit;
use rental_tests::http::{BACKEND_MESSAGE, FailingStore, Failure, NO_KEY, Reply, TestServer, booking_body, raw};
use serde_json::{Value, json};

const BOOKINGS: &str = "/api/v1/bookings";

/// What a refused request must leave as it was.
#[derive(Debug, PartialEq)]
struct Snapshot {
    bookings: Vec<Value>,
    summary: Value,
    events: usize,
}

async fn snapshot<S: Store + 'static>(s: &TestServer<S>) -> Snapshot {
    let events = s.rental.admin().events_after(0, 1_000_000).expect("the outbox reads").len();
    Snapshot { bookings: s.all_bookings().await, summary: s.summary().await, events }
}

/// A server with some history (a confirmed stay, a pending request), and its snapshot.
async fn seeded() -> (TestServer<rental_core::MemoryStore>, Snapshot, String) {
    let s = TestServer::memory().await;
    let confirmed = s.book("sea-view", "2026-12-01", "2026-12-05", 2).await;
    let code = confirmed["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    s.book("alpine-cabin", "2026-12-01", "2026-12-05", 2).await;
    let before = snapshot(&s).await;
    assert_eq!((before.bookings.len(), before.events), (2, 4));
    (s, before, code)
}

/// A valid booking request with `field` set to `value` (removed when `value` is `None`).
fn booking_with(field: &str, value: Option<Value>) -> Value {
    let mut body = booking_body("sea-view", "2026-12-20", "2026-12-27", 2);
    match value {
        Some(value) => body[field] = value,
        None => {
            body.as_object_mut().unwrap().remove(field);
        }
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_a_json_object_is_400_invalid_json() {
    let (s, before, code) = seeded().await;
    let patch = format!("{BOOKINGS}/{code}");
    for body in ["{\"property\":", "{\"a\": 1,}", "[1, 2]", "\"text\"", "null", "42", "", "   ", "\u{feff}{}", "{}{}"] {
        for (method, path) in [(Method::POST, BOOKINGS), (Method::POST, "/api/v1/quotes"), (Method::PATCH, &patch)] {
            let reply = s.send_bytes(method.clone(), path, &s.key, "application/json", body.to_owned()).await;
            assert_eq!(reply.status, 400, "{method} {path} {body:?}: {}", reply.text());
            reply.problem(400, "invalid_json");
        }
    }
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_application_json_is_415() {
    let (s, before, _) = seeded().await;
    let valid = booking_body("sea-view", "2026-12-20", "2026-12-27", 2).to_string();
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "application/jsonp", "text/json"] {
        let reply = s.send_bytes(Method::POST, BOOKINGS, &s.key, content_type, valid.clone()).await;
        assert_eq!(reply.status, 415, "{content_type}: {}", reply.text());
        reply.problem(415, "unsupported_media_type");
    }
    let untyped = s.request(Method::POST, BOOKINGS, &s.key).body(Full::new(valid.into())).unwrap();
    s.send(untyped).await.problem(415, "unsupported_media_type");
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_content_type_with_a_charset_is_accepted() {
    let s = TestServer::memory().await;
    let body = booking_body("sea-view", "2026-12-20", "2026-12-27", 2).to_string();
    s.send_bytes(Method::POST, BOOKINGS, &s.key, "application/json; charset=utf-8", body).await.expect(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_64_kib_is_413_and_one_of_64_kib_is_read() {
    let (s, before, _) = seeded().await;
    let auth = format!("Authorization: Bearer {}\r\n", s.key);
    // Announced with Content-Length (and never sent: the length alone refuses it).
    let announced = format!(
        "POST {BOOKINGS} HTTP/1.1\r\nHost: test\r\n{auth}Content-Type: application/json\r\nContent-Length: 65537\r\n\r\n"
    );
    let response = raw(s.addr, announced.as_bytes()).await;
    assert!(response.starts_with("HTTP/1.1 413 "), "{response}");
    assert!(response.contains("payload_too_large") && response.contains("application/problem+json"), "{response}");
    // Sent chunked, so only counting the bytes can refuse it.
    let chunk = vec![b' '; 70 * 1024];
    let mut chunked = format!(
        "POST {BOOKINGS} HTTP/1.1\r\nHost: test\r\n{auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n",
        chunk.len()
    )
    .into_bytes();
    chunked.extend_from_slice(&chunk);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let response = raw(s.addr, &chunked).await;
    assert!(response.starts_with("HTTP/1.1 413 "), "{response}");
    assert!(response.contains("payload_too_large"), "{response}");
    assert_eq!(snapshot(&s).await, before);

    // Exactly 64 KiB (a valid request padded with spaces) is within the limit.
    let body = booking_body("sea-view", "2027-01-10", "2027-01-13", 2).to_string();
    let padded = format!("{body}{}", " ".repeat(64 * 1024 - body.len()));
    assert_eq!(padded.len(), 65_536);
    s.send_bytes(Method::POST, BOOKINGS, &s.key, "application/json", padded).await.expect(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_well_formed_booking_that_breaks_a_rule_is_422_on_its_field() {
    let (s, before, _) = seeded().await;
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (booking_with("guests", Some(json!(0))), vec!["guests"]),
        (booking_with("guests", Some(json!(5))), vec!["guests"]), // sea-view takes 4
        (booking_with("checkOut", Some(json!("2036-12-20"))), vec!["checkOut"]), // ten years
        (booking_with("checkOut", Some(json!("2026-12-20"))), vec!["checkOut"]), // no night
        (booking_with("checkOut", Some(json!("2026-12-19"))), vec!["checkOut"]), // backwards
        (booking_with("guestEmail", Some(json!("ada"))), vec!["guestEmail"]),
        (booking_with("guestEmail", Some(json!("ada@example"))), vec!["guestEmail"]),
        (booking_with("guestEmail", Some(json!("ada @example.com"))), vec!["guestEmail"]),
        (booking_with("guestEmail", Some(json!(""))), vec!["guestEmail"]),
        (booking_with("guestName", Some(json!("  "))), vec!["guestName"]),
    ];
    for (body, fields) in cases {
        let reply = s.post(BOOKINGS, &s.key, &body).await;
        assert_eq!(reply.status, 422, "{body}: {}", reply.text());
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), fields, "{body}: {}", reply.body);
    }
    let mut several = booking_with("guests", Some(json!(0)));
    several["guestEmail"] = json!("nope");
    several["checkOut"] = json!("2026-12-01");
    let reply = s.post(BOOKINGS, &s.key, &several).await;
    reply.problem(422, "validation_failed");
    let mut fields = reply.error_fields();
    fields.sort();
    assert_eq!(fields, ["checkOut", "guestEmail", "guests"], "every fault is reported");
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stay_the_property_does_not_allow_is_422() {
    let (s, before, _) = seeded().await;
    let cases = [
        booking_body("sea-view", "2026-12-20", "2026-12-21", 2), // min_nights
        booking_body("sea-view", "2027-01-01", "2027-02-01", 2), // max_nights
        booking_body("sea-view", "2026-11-21", "2026-11-24", 2), // past_dates
    ];
    for body in cases {
        let reply = s.post(BOOKINGS, &s.key, &body).await;
        assert_eq!(reply.status, 422, "{body}: {}", reply.text());
        reply.problem(422, "validation_failed");
    }
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_missing_required_field_is_422_naming_it() {
    let (s, before, _) = seeded().await;
    for field in ["property", "checkIn", "checkOut", "guestName", "guestEmail", "guests"] {
        let reply = s.post(BOOKINGS, &s.key, &booking_with(field, None)).await;
        assert_eq!(reply.status, 422, "without {field}: {}", reply.text());
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), [field], "{}", reply.body);
    }
    assert_eq!(snapshot(&s).await, before);
}

/// Well-formed JSON with a field of the wrong type or an impossible value.
fn wrong_types() -> Vec<(&'static str, Value)> {
    vec![
        ("guests", json!("two")),
        ("guests", json!(true)),
        ("guests", json!(-1)),
        ("guests", json!(2.5)),
        ("guests", json!(4_294_967_296_u64)),
        ("property", json!(5)),
        ("checkIn", json!(20_261_220)),
        ("checkIn", json!("2026-02-30")),
        ("checkIn", json!("20.12.2026")),
        ("checkOut", json!("2026-12-27T10:00:00Z")),
        ("guestName", json!(null)),
        ("guestEmail", json!(["ada@example.com"])),
        ("notes", json!(5)),
        ("source", json!("Not A Source!")),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_of_the_wrong_type_or_an_impossible_date_is_422() {
    let (s, before, _) = seeded().await;
    for (field, value) in wrong_types() {
        let body = booking_with(field, Some(value));
        let reply = s.post(BOOKINGS, &s.key, &body).await;
        assert_eq!(reply.status, 422, "{body}: {}", reply.text());
        reply.problem(422, "validation_failed");
    }
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn field_errors_name_a_field_of_the_request_never_a_value() {
    let s = TestServer::memory().await;
    let fields = ["property", "checkIn", "checkOut", "guestName", "guestEmail", "guests", "notes", "source"];
    for (field, value) in wrong_types() {
        let reply = s.post(BOOKINGS, &s.key, &booking_with(field, Some(value))).await;
        for named in reply.error_fields() {
            assert!(fields.contains(&named.as_str()), "{field}: errors name {named:?}: {}", reply.text());
        }
    }
    let code = s.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    for action in [json!({"action": "refund"}), json!({"action": 1}), json!({"action": "cancel", "by": "system"})] {
        let reply = s.act(&code, &action).await;
        reply.problem(422, "validation_failed");
        for named in reply.error_fields() {
            assert!(["action", "by", "reason", "note"].contains(&named.as_str()), "{action}: {}", reply.text());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_that_does_not_exist_is_reported_on_its_field() {
    let s = TestServer::memory().await;
    for field in ["checkIn", "checkOut"] {
        let reply = s.post(BOOKINGS, &s.key, &booking_with(field, Some(json!("2026-02-30")))).await;
        reply.problem(422, "validation_failed");
        assert_eq!(
            reply.error_fields(),
            [field],
            "the contract's example: {{\"field\": \"checkIn\", \"code\": \"invalid_date\"}}; got {}",
            reply.text()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_route_is_404_not_found_with_or_without_a_key() {
    let (s, before, _) = seeded().await;
    for path in ["/", "/api", "/api/v2/properties", "/api/v1/properties/", "/api/v1/booking", "/api/v1/bookings/BK-1/x"]
    {
        for key in [NO_KEY, &s.key] {
            let reply = s.get(path, key).await;
            assert_eq!(reply.status, 404, "{path}: {}", reply.text());
            reply.problem(404, "not_found");
        }
    }
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_method_the_route_does_not_have_is_405_with_allow() {
    let (s, before, code) = seeded().await;
    let booking = format!("{BOOKINGS}/{code}");
    let cases = [
        (Method::DELETE, BOOKINGS, "GET, POST"),
        (Method::PUT, booking.as_str(), "GET, PATCH"),
        (Method::DELETE, booking.as_str(), "GET, PATCH"),
        (Method::POST, "/api/v1/properties", "GET"),
        (Method::GET, "/api/v1/quotes", "POST"),
        (Method::GET, "/api/v1/sync/ical", "POST"),
        (Method::PATCH, "/api/v1/ha/summary", "GET"),
        (Method::POST, "/api/openapi.json", "GET"),
    ];
    for (method, path, allow) in cases {
        let reply = s.send_json(method.clone(), path, &s.key, &json!({"action": "cancel"})).await;
        assert_eq!(reply.status, 405, "{method} {path}: {}", reply.text());
        reply.problem(405, "method_not_allowed");
        assert_eq!(reply.header("allow"), Some(allow), "{method} {path}");
    }
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflicts_and_a_reused_idempotency_key_change_nothing() {
    let (s, _, code) = seeded().await;
    let send = |body: Value| {
        let request = s
            .request(Method::POST, BOOKINGS, &s.key)
            .header("content-type", "application/json")
            .header("idempotency-key", "k-1")
            .body(Full::new(body.to_string().into()))
            .unwrap();
        s.send(request)
    };
    send(booking_body("sea-view", "2027-01-10", "2027-01-13", 2)).await.expect(201);
    let before = snapshot(&s).await;
    s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-03", "2026-12-06", 2))
        .await
        .problem(409, "dates_unavailable");
    s.act(&code, &json!({"action": "authorize"})).await.problem(409, "invalid_transition");
    send(booking_body("sea-view", "2027-01-20", "2027-01-23", 2)).await.problem(422, "idempotency_key_reused");
    let too_long = s
        .request(Method::POST, BOOKINGS, &s.key)
        .header("content-type", "application/json")
        .header("idempotency-key", "k".repeat(256))
        .body(Full::new(booking_body("sea-view", "2027-02-10", "2027-02-13", 2).to_string().into()))
        .unwrap();
    s.send(too_long).await.problem(422, "validation_failed");
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_over_its_rate_gets_429_with_retry_after() {
    let config =
        ServerConfig { rate_limit: Some(RateLimit { per_second: 1.0, burst: 2.0 }), ..ServerConfig::default() };
    let s = TestServer::with_config(&config).await;
    s.get("/api/v1/properties", &s.read_key).await.expect(200);
    s.get("/api/v1/properties", &s.read_key).await.expect(200);
    let limited = s.get("/api/v1/properties", &s.read_key).await;
    limited.problem(429, "rate_limited");
    let wait: u64 = limited.header("retry-after").expect("Retry-After").parse().expect("Retry-After is seconds");
    assert!((1..=2).contains(&wait), "{wait}");
    assert!(limited.header("x-request-id").is_some());
    s.post(BOOKINGS, &s.write_key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await.expect(201);
    s.get("/api/openapi.json", NO_KEY).await.expect(200);
}

async fn failing() -> TestServer<FailingStore> {
    TestServer::with_store(FailingStore::new(), &ServerConfig::default()).await
}

#[track_caller]
fn leaks_nothing(reply: &Reply) {
    let text = reply.text().to_lowercase();
    for secret in ["redb", "/var", "rental.redb", "page 17", "i/o", BACKEND_MESSAGE] {
        assert!(!text.contains(&secret.to_lowercase()), "{secret:?} leaked: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_store_is_500_internal_and_the_body_says_nothing_of_it() {
    let s = failing().await;
    let before = snapshot(&s).await;
    s.rental.store().fail_with(Failure::Backend);
    let requests = [
        s.get("/api/v1/properties", &s.read_key).await,
        s.get("/api/v1/ha/summary", &s.read_key).await,
        s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await,
    ];
    for reply in &requests {
        reply.problem(500, "internal");
        leaks_nothing(reply);
        assert!(reply.header("x-request-id").is_some());
    }
    assert!(s.rental.store().refused() >= 3);
    s.get("/api/openapi.json", NO_KEY).await.expect(200);
    s.rental.store().fail_with(Failure::None);
    assert_eq!(snapshot(&s).await, before, "the failed creation wrote nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_store_is_503_unavailable_with_retry_after() {
    let s = failing().await;
    let before = snapshot(&s).await;
    s.rental.store().fail_with(Failure::Locked);
    for reply in [
        s.get("/api/v1/bookings", &s.read_key).await,
        s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await,
    ] {
        reply.problem(503, "unavailable");
        let wait: u64 = reply.header("retry-after").expect("Retry-After").parse().expect("Retry-After is seconds");
        assert!(wait >= 1);
        leaks_nothing(&reply);
    }
    s.rental.store().fail_with(Failure::None);
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_always_conflicts_is_retried_then_503_and_writes_nothing() {
    let s = failing().await;
    let before = snapshot(&s).await;
    s.rental.store().fail_with(Failure::Conflict);
    let reply = s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await;
    reply.problem(503, "unavailable");
    let wait: u64 = reply.header("retry-after").expect("Retry-After").parse().expect("Retry-After is seconds");
    assert!(wait >= 1);
    leaks_nothing(&reply);
    // At least: the server's background passes may write (and be refused) in the same window.
    assert!(s.rental.store().refused() >= rental_core::WRITE_ATTEMPTS, "tried again before giving up");
    s.rental.store().fail_with(Failure::None);
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_conflicts_a_few_times_succeeds_once() {
    let s = failing().await;
    s.rental.store().fail_times(Failure::Conflict, 2);
    let reply = s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await;
    reply.expect(201);
    assert_eq!(s.rental.store().refused(), 2);
    let listed = s.get("/api/v1/bookings?property=sea-view", &s.read_key).await;
    let codes: Vec<&str> = listed.body["data"].as_array().unwrap().iter().filter_map(|b| b["code"].as_str()).collect();
    assert_eq!(codes, [reply.body["code"].as_str().unwrap()], "one booking, not one per try");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_has_a_request_id_and_a_client_id_is_echoed() {
    let s = TestServer::memory().await;
    let replies = [
        s.get("/api/openapi.json", NO_KEY).await,
        s.get("/api/v1/properties", &s.read_key).await,
        s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await,
        s.send_bytes(Method::POST, BOOKINGS, &s.key, "application/json", "{").await,
        s.get("/api/v1/properties", NO_KEY).await,
        s.get("/api/v1/properties", &s.write_key).await,
        s.get("/api/v2", NO_KEY).await,
        s.send_json(Method::DELETE, BOOKINGS, &s.key, &json!({})).await,
        s.send_bytes(Method::POST, BOOKINGS, &s.key, "text/plain", "x").await,
        s.post(BOOKINGS, &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await,
    ];
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 201, 400, 401, 403, 404, 405, 415, 409]);
    let ids: std::collections::BTreeSet<&str> =
        replies.iter().map(|r| r.header("x-request-id").expect("every response has X-Request-Id")).collect();
    assert_eq!(ids.len(), replies.len(), "each request has its own id");
    assert!(ids.iter().all(|id| !id.is_empty()));

    for (path, key) in [("/api/v1/properties", s.read_key.as_str()), ("/api/v1/properties", NO_KEY), ("/nope", NO_KEY)]
    {
        let request =
            s.request(Method::GET, path, key).header("x-request-id", "trace-7f3a-0001").body(Full::default()).unwrap();
        let reply = s.send(request).await;
        assert_eq!(reply.header("x-request-id"), Some("trace-7f3a-0001"), "{path} ({})", reply.status);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_not_written_yyyy_mm_dd_is_refused_everywhere_and_books_nothing() {
    let (s, before, _) = seeded().await;
    let year_zero = "0000-12-20";
    for bad in ["2027-1-5", "+2027-03-01", "+10000-01-03", "2027-01-05T00:00:00", " 2027-01-05", "20270105", year_zero]
    {
        for field in ["checkIn", "checkOut"] {
            let reply = s.post(BOOKINGS, &s.key, &booking_with(field, Some(json!(bad)))).await;
            reply.problem(422, "validation_failed");
            assert_eq!(reply.error_codes(), [(field.to_owned(), "invalid_date".to_owned())], "{bad}: {}", reply.text());
            let quote = json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", field: bad});
            s.post("/api/v1/quotes", &s.key, &quote).await.problem(422, "validation_failed");
        }
        let query = bad.replace('+', "%2B").replace(' ', "%20");
        let availability = format!("/api/v1/properties/sea-view/availability?from={query}");
        s.get(&availability, &s.key).await.problem(400, "invalid_parameter");
        s.get(&format!("{BOOKINGS}?to={query}"), &s.key).await.problem(400, "invalid_parameter");
    }
    assert_eq!(snapshot(&s).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stay_may_start_up_to_the_booking_horizon_and_not_a_night_later() {
    // The test clock's today is 2026-11-22; the horizon is 36 months.
    let (s, before, _) = seeded().await;
    let last = booking_with("checkIn", Some(json!("2029-11-22")));
    let mut past_it = booking_with("checkIn", Some(json!("2029-11-23")));
    past_it["checkOut"] = json!("2029-11-30");
    let reply = s.post(BOOKINGS, &s.key, &past_it).await;
    reply.problem(422, "validation_failed");
    assert_eq!(reply.error_codes(), [("checkIn".to_owned(), "beyond_horizon".to_owned())], "{}", reply.text());
    let quote = json!({"property": "sea-view", "checkIn": "2029-11-23", "checkOut": "2029-11-30", "guests": 2});
    let quote = s.post("/api/v1/quotes", &s.key, &quote).await;
    quote.expect(200);
    assert_eq!(
        (&quote.body["available"], &quote.body["problems"][0]["code"]),
        (&json!(false), &json!("beyond_horizon"))
    );
    let far = "/api/v1/properties/sea-view/availability?from=2029-11-23";
    s.get(far, &s.key).await.problem(422, "validation_failed");
    s.get("/api/v1/properties/sea-view/availability?from=2029-11-22", &s.key).await.expect(200);
    assert_eq!(snapshot(&s).await, before);
    let mut last = last;
    last["checkOut"] = json!("2029-11-29");
    s.post(BOOKINGS, &s.key, &last).await.expect(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_names_and_notes_are_422_and_a_tab_is_not() {
    let (s, before, code) = seeded().await;
    let (c1, bidi, del) = ("A\u{9b}31mB", "Ann\u{202e}eeL", "Ann\u{7f}Lee");
    let breaks = ["Ann\nLee", "Ann\rLee"];
    for bad in
        ["Ann\u{0}Lee", "Ann\u{1b}[31mLee", c1, bidi, del, "\u{2066}Ann", "Ann\u{2028}Lee"].into_iter().chain(breaks)
    {
        let paragraph_ok = breaks.contains(&bad);
        for field in ["guestName", "notes"].into_iter().filter(|f| !(paragraph_ok && *f == "notes")) {
            let reply = s.post(BOOKINGS, &s.key, &booking_with(field, Some(json!(bad)))).await;
            reply.problem(422, "validation_failed");
            let expected = [(field.to_owned(), "control_character".to_owned())];
            assert_eq!(reply.error_codes(), expected, "{bad:?}: {}", reply.text());
        }
        if !paragraph_ok {
            let note = s.act(&code, &json!({"action": "annotate", "note": bad})).await;
            assert_eq!(note.error_codes(), [("note".to_owned(), "control_character".to_owned())], "{}", note.text());
        }
        let cancel = s.act(&code, &json!({"action": "cancel", "by": "host", "reason": bad})).await;
        assert_eq!(cancel.error_codes(), [("reason".to_owned(), "control_character".to_owned())], "{}", cancel.text());
    }
    assert_eq!(snapshot(&s).await, before);
    let mut tabbed = booking_with("guestName", Some(json!("Ann\tLee")));
    tabbed["notes"] = json!("arriving\tlate");
    s.post(BOOKINGS, &s.key, &tabbed).await.expect(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_take_paragraphs_with_line_breaks_stored_as_lf() {
    let (s, _, code) = seeded().await;
    let written = "Arriving late.\r\nWe have a dog.\rAnd a cat.\n\nThanks!";
    let made = s.post(BOOKINGS, &s.key, &booking_with("notes", Some(json!(written)))).await;
    let notes = &made.expect(201).body["notes"];
    assert_eq!(notes[0]["text"], json!("Arriving late.\nWe have a dog.\nAnd a cat.\n\nThanks!"), "{notes}");
    let note = s.act(&code, &json!({"action": "annotate", "note": "Gate code changed.\r\nTell the guest."})).await;
    let notes = &note.expect(200).body["notes"];
    assert_eq!(
        notes.as_array().and_then(|n| n.last()).map(|n| n["text"].clone()),
        Some(json!("Gate code changed.\nTell the guest."))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_query_parameter_given_empty_is_400_invalid_parameter() {
    let s = TestServer::memory().await;
    let cases = [
        ("/api/v1/properties/sea-view/availability?from=", "from"),
        ("/api/v1/properties/sea-view/availability?to=", "to"),
        ("/api/v1/bookings?status=", "status"),
        ("/api/v1/bookings?property=", "property"),
        ("/api/v1/bookings?source=", "source"),
        ("/api/v1/bookings?from=", "from"),
        ("/api/v1/bookings?to=", "to"),
        ("/api/v1/bookings?updatedSince=", "updatedSince"),
        ("/api/v1/bookings?limit=", "limit"),
        ("/api/v1/bookings?cursor=", "cursor"),
    ];
    for (path, field) in cases {
        let reply = s.get(path, &s.key).await;
        reply.problem(400, "invalid_parameter");
        assert_eq!(reply.error_fields(), [field], "{path}");
    }
    let reply = s.send_bytes(Method::POST, "/api/v1/sync/ical?property=", &s.key, "application/json", "").await;
    reply.problem(400, "invalid_parameter");
    assert_eq!(reply.error_fields(), ["property"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_that_cannot_be_echoed_is_replaced_and_the_request_still_served() {
    let s = TestServer::memory().await;
    for sent in ["", &"x".repeat(129), "has space"] {
        let request = s
            .request(Method::GET, "/api/v1/properties", &s.read_key)
            .header("x-request-id", sent)
            .body(Full::default())
            .unwrap();
        let reply = s.send(request).await;
        reply.expect(200);
        let id = reply.header("x-request-id").expect("a request id");
        assert!(!id.is_empty() && id != sent, "{sent:?} gave {id:?}");
    }
}
