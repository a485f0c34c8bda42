//! docs/API.md section 2: keys and scopes. A missing,
//! malformed, unknown or revoked key is 401 with the challenge; a valid key
//! without the scope is 403; both are decided before the body is read.

use http::Method;
use rental_core::keys::Scope;
use rental_tests::http::{Http, NO_KEY, Reply, TestServer, booking_body, raw};
use serde_json::json;

/// Every `/api/v1` endpoint that reads, with a sample path.
const READ_ENDPOINTS: [(&str, &str); 7] = [
    ("GET", "/api/v1/properties"),
    ("GET", "/api/v1/properties/sea-view"),
    ("GET", "/api/v1/properties/sea-view/availability"),
    ("POST", "/api/v1/quotes"),
    ("GET", "/api/v1/bookings"),
    ("GET", "/api/v1/bookings/BK-2345AB"),
    ("GET", "/api/v1/ha/summary"),
];

/// Every `/api/v1` endpoint that writes, with a sample path.
const WRITE_ENDPOINTS: [(&str, &str); 3] =
    [("POST", "/api/v1/bookings"), ("PATCH", "/api/v1/bookings/BK-2345AB"), ("POST", "/api/v1/sync/ical")];

/// Sends `method path` with `authorization` as the raw header value (none when empty).
async fn call(http: &Http, method: &str, path: &str, authorization: &str) -> Reply {
    let method: Method = method.parse().unwrap();
    let body = match (method.as_str(), path) {
        ("POST", "/api/v1/quotes") => {
            json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27"})
        }
        ("POST", "/api/v1/bookings") => booking_body("sea-view", "2026-12-20", "2026-12-27", 2),
        ("PATCH", _) => json!({"action": "confirm"}),
        _ => json!({}),
    };
    let mut request = http.request(method.clone(), path, NO_KEY);
    if !authorization.is_empty() {
        request = request.header("authorization", authorization);
    }
    let request = if method == Method::GET {
        request.body(http_body_util::Full::default())
    } else {
        request.header("content-type", "application/json").body(http_body_util::Full::new(body.to_string().into()))
    };
    http.send(request.unwrap()).await
}

#[track_caller]
fn unauthorized(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 401, "{what}: {}", reply.text());
    reply.problem(401, "unauthorized");
    assert_eq!(reply.header("www-authenticate"), Some(r#"Bearer realm="rental""#), "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_refuses_a_missing_malformed_or_unknown_key_with_401() {
    let s = TestServer::memory().await;
    let unknown = format!("Bearer rk_{}", "A1b2C3d4".repeat(4));
    let short = format!("Bearer {}", &s.key[..s.key.len() - 1]);
    let lower_scheme = format!("bearer {}", &s.key).replace(&s.key, &s.key.to_lowercase());
    let authorizations = [
        "",
        "Bearer",
        "Bearer ",
        "Bearer nope",
        "Basic dXNlcjpwYXNz",
        &unknown,
        &short,
        &lower_scheme,
        &s.key, // the key without a scheme
    ];
    for (method, path) in READ_ENDPOINTS.iter().chain(&WRITE_ENDPOINTS) {
        for authorization in &authorizations {
            let reply = call(&s, method, path, authorization).await;
            unauthorized(&reply, &format!("{method} {path} with {authorization:?}"));
        }
    }
    assert!(s.all_bookings().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_is_401_from_then_on() {
    let s = TestServer::memory().await;
    let new = s.rental.admin().create_key("temporary", &[Scope::Read]).unwrap();
    s.get("/api/v1/properties", &new.secret).await.expect(200);
    s.rental.admin().revoke_key(&new.key.id).unwrap();
    unauthorized(&s.get("/api/v1/properties", &new.secret).await, "revoked");
    unauthorized(&s.get("/api/v1/ha/summary", &new.secret).await, "revoked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scheme_is_case_insensitive() {
    let s = TestServer::memory().await;
    let reply = call(&s, "GET", "/api/v1/properties", &format!("bearer {}", s.read_key)).await;
    reply.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_key_cannot_write() {
    let s = TestServer::memory().await;
    for (method, path) in WRITE_ENDPOINTS {
        let reply = call(&s, method, path, &format!("Bearer {}", s.read_key)).await;
        reply.problem(403, "insufficient_scope");
        assert_eq!(reply.header("www-authenticate"), None, "{method} {path}");
    }
    assert!(s.all_bookings().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_only_key_cannot_read() {
    let s = TestServer::memory().await;
    for (method, path) in READ_ENDPOINTS {
        let reply = call(&s, method, path, &format!("Bearer {}", s.write_key)).await;
        assert_eq!(reply.status, 403, "{method} {path}: {}", reply.text());
        reply.problem(403, "insufficient_scope");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_scope_is_enough_for_its_own_endpoints() {
    let s = TestServer::memory().await;
    for (method, path) in READ_ENDPOINTS {
        let reply = call(&s, method, path, &format!("Bearer {}", s.read_key)).await;
        let want = if path.ends_with("BK-2345AB") { 404 } else { 200 };
        assert_eq!(reply.status, want, "{method} {path}: {}", reply.text());
    }
    let reply =
        s.post("/api/v1/bookings", &s.write_key, &booking_body("sea-view", "2026-12-20", "2026-12-27", 2)).await;
    reply.expect(201);
    let code = reply.body["code"].as_str().unwrap();
    s.patch(&format!("/api/v1/bookings/{code}"), &s.write_key, &json!({"action": "confirm"})).await.expect(204);
    s.post("/api/v1/sync/ical", &s.write_key, &json!({})).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scope_is_checked_before_the_body_is_read() {
    let s = TestServer::memory().await;
    let bad_bodies: [(&str, &[u8]); 3] =
        [("application/json", b"{not json"), ("application/json", b"[1, 2]"), ("text/plain", b"hello")];
    for (content_type, body) in bad_bodies {
        for (method, path) in WRITE_ENDPOINTS {
            let method: Method = method.parse().unwrap();
            let reply = s.send_bytes(method.clone(), path, &s.read_key, content_type, body.to_vec()).await;
            assert_eq!(reply.status, 403, "{method} {path} {content_type}: {}", reply.text());
            reply.problem(403, "insufficient_scope");
            let reply = s.send_bytes(method.clone(), path, NO_KEY, content_type, body.to_vec()).await;
            unauthorized(&reply, &format!("{method} {path} {content_type} without a key"));
        }
    }
    assert!(s.all_bookings().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_is_answered_without_waiting_for_a_large_body() {
    let s = TestServer::memory().await;
    // The body is announced (over 64 KiB) and never sent: only an answer that
    // does not read it can arrive.
    for (authorization, status) in [(format!("Bearer {}", s.read_key), "403"), (String::new(), "401")] {
        let auth_line =
            if authorization.is_empty() { String::new() } else { format!("Authorization: {authorization}\r\n") };
        let request = format!(
            "POST /api/v1/bookings HTTP/1.1\r\nHost: test\r\n{auth_line}Content-Type: application/json\r\n\
             Content-Length: 100000\r\n\r\n"
        );
        let response = raw(s.addr, request.as_bytes()).await;
        assert!(response.starts_with(&format!("HTTP/1.1 {status} ")), "{response}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_is_public_json() {
    let s = TestServer::memory().await;
    for authorization in ["", "Bearer nope"] {
        let reply = call(&s, "GET", "/api/openapi.json", authorization).await;
        reply.expect(200);
        assert!(
            reply.header("content-type").is_some_and(|ct| ct.starts_with("application/json")),
            "{:?}",
            reply.headers
        );
        assert!(reply.body["openapi"].as_str().is_some_and(|v| v.starts_with("3.")), "{}", reply.body["openapi"]);
        assert!(reply.body["paths"]["/api/v1/bookings"].is_object());
    }
}
