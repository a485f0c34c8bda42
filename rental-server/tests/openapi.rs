//! The OpenAPI document: it describes exactly the routed endpoints, every
//! `$ref` resolves, an independent validator accepts it, and what the server
//! really answers (statuses, content types, headers, bodies) matches it.
//!
//! The validator is Python's `openapi-spec-validator` (with its
//! `openapi-schema-validator`), run as a subprocess; these tests fail, not
//! skip, when it is missing.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::Arc;

use http::Method;
use rental_core::booking::ExternalRef;
use rental_core::keys::Scope;
use rental_core::store::WriteTx;
use rental_core::{ManualClock, MemoryStore, Rental, Source, Stay, Store, demo};
use rental_server::openapi::document;
use rental_server::ratelimit::RateLimit;
use rental_server::routes;
use rental_server::{AppState, ServerConfig};
use serde_json::{Value, json};

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// `(METHOD, path template, operation)` of every operation in the document.
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths is an object") {
        for method in METHODS {
            if let Some(op) = item.get(method) {
                all.push((method.to_uppercase(), path.clone(), op.clone()));
            }
        }
    }
    all
}

/// Follows a local `$ref` to what it names.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(r) => doc.pointer(r.trim_start_matches('#')).unwrap_or_else(|| panic!("{r} does not resolve")),
        None => value,
    }
}

#[test]
fn the_document_describes_exactly_the_routed_endpoints() {
    let documented: BTreeSet<(String, String)> = operations(&document()).into_iter().map(|(m, p, _)| (m, p)).collect();
    let routed: BTreeSet<(String, String)> =
        routes::all().map(|r| (r.method().to_string(), r.path().to_owned())).collect();
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(undocumented.is_empty(), "routed but not in the document: {undocumented:?}");
    assert!(unrouted.is_empty(), "in the document but not routed: {unrouted:?}");
    assert_eq!(documented.len(), routes::all().count(), "the route table lists an endpoint twice");
}

#[test]
fn every_ref_resolves_to_an_existing_component() {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    match (key.as_str(), v) {
                        ("$ref", Value::String(r)) => out.push(r.clone()),
                        ("mapping", Value::Object(m)) => {
                            out.extend(m.values().filter_map(Value::as_str).map(String::from));
                        }
                        _ => refs(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let doc = document();
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(all.len() > 50, "suspiciously few references: {}", all.len());
    for r in all {
        let pointer = r.strip_prefix("#/components/").unwrap_or_else(|| panic!("{r} is not a local component"));
        assert!(doc["components"].pointer(&format!("/{pointer}")).is_some(), "{r} does not resolve");
    }
}

#[test]
fn every_operation_is_named_described_scoped_and_answers_with_a_request_id() {
    let doc = document();
    let mut ids = BTreeSet::new();
    for (method, path, op) in operations(&doc) {
        let at = format!("{method} {path}");
        for field in ["operationId", "summary", "description"] {
            assert!(op[field].as_str().is_some_and(|s| !s.is_empty()), "{at}: no {field}");
        }
        assert!(ids.insert(op["operationId"].as_str().unwrap_or_default().to_owned()), "{at}: operationId reused");
        let concrete = path.replace("{slug}", "sea-view").replace("{code}", "BK-7QX2MF");
        let route = routes::resolve(&method.parse::<Method>().expect("a method"), &concrete).expect("routed");
        let want = match route.scope() {
            None => json!([]),
            Some(scope) => json!([{"bearer": [scope.to_string()]}]),
        };
        assert_eq!(op["security"], want, "{at}: security does not match the route's scope");
        let responses = op["responses"].as_object().expect("responses");
        assert!(responses.keys().any(|s| s.starts_with('2')), "{at}: no success response");
        if route.scope().is_some() {
            for status in ["401", "403", "429", "500", "503"] {
                assert!(responses.contains_key(status), "{at}: {status} not documented");
            }
        }
        for (status, response) in responses {
            let headers = &resolve(&doc, response)["headers"];
            assert!(headers.get("X-Request-Id").is_some(), "{at} {status}: no X-Request-Id header");
        }
    }
}

#[test]
fn the_document_passes_openapi_spec_validator() {
    if !python_validator() {
        return;
    }
    let file = json_file(&document());
    let out = Command::new("python3")
        .args(["-m", "openapi_spec_validator", "--schema", "3.1"])
        .arg(file.path())
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "openapi-spec-validator rejected the document:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_examples_in_the_document_match_their_schemas() {
    let doc = document();
    let mut cases = Vec::new();
    examples(&doc["paths"], "paths", &mut cases);
    examples(&doc["components"]["responses"], "responses", &mut cases);
    assert!(cases.len() > 20, "suspiciously few examples: {}", cases.len());
    validate_cases(&doc, &cases);
}

/// Every `(schema, example)` pair of the media types under `value`.
fn examples(value: &Value, at: &str, out: &mut Vec<(String, Value, Value)>) {
    let Value::Object(map) = value else { return };
    if let Some(schema) = map.get("schema") {
        if let Some(example) = map.get("example") {
            out.push((at.to_owned(), schema.clone(), example.clone()));
        }
        for (name, example) in map.get("examples").and_then(Value::as_object).into_iter().flatten() {
            out.push((format!("{at} example {name}"), schema.clone(), example["value"].clone()));
        }
    }
    for (key, v) in map {
        examples(v, &format!("{at}/{key}"), out);
    }
}

// ---------------------------------------------------------------- the server against the document

#[test]
fn what_the_server_answers_matches_the_document() {
    let server = Server::start(ServerConfig::default());
    let doc = document();
    let mut check = Checker { doc: &doc, server: &server, cases: Vec::new() };
    check.meta_and_properties();
    check.quotes();
    let code = check.bookings();
    check.booking_actions(&code);
    check.channel_booking();
    check.summary_and_sync();
    check.auth_and_methods();

    let limited = Server::start(ServerConfig {
        rate_limit: Some(RateLimit { per_second: 0.001, burst: 1.0 }),
        ..ServerConfig::default()
    });
    let mut check = Checker { doc: &doc, server: &limited, cases: check.cases };
    check.call(200, "GET", "/api/v1/properties", "/api/v1/properties", &[], None);
    check.call(429, "GET", "/api/v1/properties", "/api/v1/properties", &[], None);
    let cases = check.cases;
    validate_cases(&doc, &cases);
}

impl Checker<'_> {
    fn meta_and_properties(&mut self) {
        let spec = self.call(200, "GET", "/api/openapi.json", "/api/openapi.json", &[], None);
        assert_eq!(spec, document(), "the served document is not document()");
        self.get(200, "/api/v1/properties", "/api/v1/properties");
        self.get(200, "/api/v1/properties/{slug}", "/api/v1/properties/sea-view");
        self.get(200, "/api/v1/properties/{slug}", "/api/v1/properties/alpine-cabin");
        self.get(404, "/api/v1/properties/{slug}", "/api/v1/properties/nowhere");
        let availability = "/api/v1/properties/{slug}/availability";
        let nights =
            self.get(200, availability, "/api/v1/properties/sea-view/availability?from=2026-11-20&to=2026-12-31");
        let statuses: BTreeSet<&str> =
            nights["nights"].as_array().into_iter().flatten().filter_map(|n| n["status"].as_str()).collect();
        assert_eq!(statuses.len(), 4, "wanted past, available, blocked and booked nights: {statuses:?}");
        self.get(200, availability, "/api/v1/properties/sea-view/availability");
        self.get(400, availability, "/api/v1/properties/sea-view/availability?from=tomorrow");
        self.get(422, availability, "/api/v1/properties/sea-view/availability?from=2026-12-10&to=2026-12-01");
        self.get(404, availability, "/api/v1/properties/nowhere/availability");
    }

    fn quotes(&mut self) {
        let quote = |body: &Value| Some(body.to_string());
        let q = self.post(
            200,
            "/api/v1/quotes",
            "/api/v1/quotes",
            quote(&json!({"property": "sea-view",
            "checkIn": "2026-11-23", "checkOut": "2026-11-24", "guests": 5})),
        );
        assert_eq!(q["problems"].as_array().map(Vec::len), Some(3), "taken, too short, too many: {q}");
        self.post(
            200,
            "/api/v1/quotes",
            "/api/v1/quotes",
            quote(&json!({"property": "sea-view",
            "checkIn": "2026-11-01", "checkOut": "2026-12-15"})),
        );
        self.post(
            200,
            "/api/v1/quotes",
            "/api/v1/quotes",
            quote(&json!({"property": "sea-view",
            "checkIn": "2027-01-04", "checkOut": "2027-01-11", "guests": 2})),
        );
        self.post(400, "/api/v1/quotes", "/api/v1/quotes", Some("{".into()));
        self.post(
            404,
            "/api/v1/quotes",
            "/api/v1/quotes",
            quote(&json!({"property": "nowhere",
            "checkIn": "2027-01-04", "checkOut": "2027-01-11"})),
        );
        self.post(
            422,
            "/api/v1/quotes",
            "/api/v1/quotes",
            quote(&json!({"property": "sea-view", "checkIn": "2027-01-04"})),
        );
        self.post(413, "/api/v1/quotes", "/api/v1/quotes", Some(format!("\"{}\"", "x".repeat(70_000))));
        let key = self.server.read_write.clone();
        let headers = [("Authorization", format!("Bearer {key}")), ("Content-Type", "text/plain".into())];
        self.raw(415, "POST", "/api/v1/quotes", "/api/v1/quotes", &headers, Some("{}".into()));
    }

    /// Creates bookings; returns the code of a pending one.
    fn bookings(&mut self) -> String {
        let new = |check_in: &str, check_out: &str, email: &str| {
            Some(
                json!({"property": "sea-view", "checkIn": check_in, "checkOut": check_out, "guestName": "Ada Lovelace",
                "guestEmail": email, "guests": 3, "notes": "late arrival"})
                .to_string(),
            )
        };
        let body = new("2026-12-20", "2026-12-27", "ada@example.com");
        let idem = [("Idempotency-Key", "order-1".to_owned())];
        let created = self.call(201, "POST", "/api/v1/bookings", "/api/v1/bookings", &idem, body.clone());
        let replay = self.call(201, "POST", "/api/v1/bookings", "/api/v1/bookings", &idem, body);
        assert_eq!(created, replay, "a replay answers with the first booking");
        let other = new("2027-02-01", "2027-02-05", "ada@example.com");
        self.call(422, "POST", "/api/v1/bookings", "/api/v1/bookings", &idem, other.clone());
        self.post(409, "/api/v1/bookings", "/api/v1/bookings", new("2026-12-24", "2026-12-26", "ada@example.com"));
        self.post(422, "/api/v1/bookings", "/api/v1/bookings", new("2027-03-01", "2027-03-05", "not-an-address"));
        self.post(201, "/api/v1/bookings", "/api/v1/bookings", other);
        self.post(400, "/api/v1/bookings", "/api/v1/bookings", Some("[1]".into()));
        let list = self.get(200, "/api/v1/bookings", "/api/v1/bookings?limit=1&status=pending,confirmed");
        assert!(list["nextCursor"].is_string(), "a first page of one has a next cursor: {list}");
        let cursor = list["nextCursor"].as_str().unwrap_or_default();
        self.get(200, "/api/v1/bookings", &format!("/api/v1/bookings?cursor={cursor}&property=sea-view&source=api"));
        self.get(
            200,
            "/api/v1/bookings",
            "/api/v1/bookings?from=2026-12-01&to=2027-01-01&updatedSince=2026-11-01T00:00:00Z",
        );
        self.get(400, "/api/v1/bookings", "/api/v1/bookings?limit=500");
        self.get(400, "/api/v1/bookings", "/api/v1/bookings?status=done");
        let code = created["code"].as_str().expect("a code").to_owned();
        self.get(200, "/api/v1/bookings/{code}", &format!("/api/v1/bookings/{code}"));
        self.get(404, "/api/v1/bookings/{code}", "/api/v1/bookings/BK-2222222");
        code
    }

    fn booking_actions(&mut self, code: &str) {
        let path = format!("/api/v1/bookings/{code}");
        let mut act = |status: u16, body: Value| {
            self.call(status, "PATCH", "/api/v1/bookings/{code}", &path, &[], Some(body.to_string()))
        };
        act(200, json!({"action": "annotate", "note": "towels"}));
        act(200, json!({"action": "authorize"}));
        act(422, json!({"action": "refund"}));
        act(422, json!({"note": "no action"}));
        let cancelled = act(200, json!({"action": "cancel", "by": "guest", "reason": "plans changed"}));
        assert_eq!(cancelled["cancelledBy"], "guest");
        act(200, json!({"action": "cancel"}));
        act(409, json!({"action": "confirm"}));
        self.call(
            404,
            "PATCH",
            "/api/v1/bookings/{code}",
            "/api/v1/bookings/BK-2222222",
            &[],
            Some(json!({"action": "confirm"}).to_string()),
        );
    }

    fn channel_booking(&mut self) {
        let path = format!("/api/v1/bookings/{CHANNEL_CODE}");
        let booking = self.get(200, "/api/v1/bookings/{code}", &path);
        assert_eq!(booking["external"]["feed"], "airbnb");
        let body = Some(json!({"action": "cancel"}).to_string());
        self.call(409, "PATCH", "/api/v1/bookings/{code}", &path, &[], body);
    }

    fn summary_and_sync(&mut self) {
        let summary = self.get(200, "/api/v1/ha/summary", "/api/v1/ha/summary");
        let sea_view = &summary["properties"].as_array().expect("properties")[2];
        assert!(sea_view["currentBooking"].is_object() && sea_view["nextArrival"].is_object(), "{sea_view}");
        self.post(200, "/api/v1/sync/ical", "/api/v1/sync/ical", None);
        self.post(200, "/api/v1/sync/ical", "/api/v1/sync/ical?property=sea-view", None);
    }

    fn auth_and_methods(&mut self) {
        self.raw(401, "GET", "/api/v1/properties", "/api/v1/properties", &[], None);
        let bad = [("Authorization", "Bearer rk_nope".to_owned())];
        self.raw(401, "POST", "/api/v1/bookings", "/api/v1/bookings", &bad, Some("{".into()));
        let read_only = [("Authorization", format!("Bearer {}", self.server.read_only))];
        self.raw(403, "POST", "/api/v1/bookings", "/api/v1/bookings", &read_only, Some("{".into()));
        let write_only = [("Authorization", format!("Bearer {}", self.server.write_only))];
        self.raw(403, "GET", "/api/v1/ha/summary", "/api/v1/ha/summary", &write_only, None);
        let reply = self.server.send("DELETE", "/api/v1/bookings", &[], None);
        assert_eq!(reply.status, 405);
        self.matches_response(
            "DELETE /api/v1/bookings",
            &json!({"$ref": "#/components/responses/MethodNotAllowed"}),
            &reply,
        );
    }
}

/// Calls the server and checks each reply against the document; bodies are
/// collected to validate against their schemas in one Python run.
struct Checker<'a> {
    doc: &'a Value,
    server: &'a Server,
    cases: Vec<(String, Value, Value)>,
}

impl Checker<'_> {
    fn get(&mut self, status: u16, template: &str, path: &str) -> Value {
        self.call(status, "GET", template, path, &[], None)
    }

    fn post(&mut self, status: u16, template: &str, path: &str, body: Option<String>) -> Value {
        self.call(status, "POST", template, path, &[], body)
    }

    /// With the read+write key and a JSON content type.
    fn call(
        &mut self,
        status: u16,
        method: &str,
        template: &str,
        path: &str,
        headers: &[(&str, String)],
        body: Option<String>,
    ) -> Value {
        let mut all = vec![("Authorization", format!("Bearer {}", self.server.read_write))];
        if body.is_some() {
            all.push(("Content-Type", "application/json".to_owned()));
        }
        all.extend(headers.iter().cloned());
        self.raw(status, method, template, path, &all, body)
    }

    /// Exactly the headers given.
    fn raw(
        &mut self,
        status: u16,
        method: &str,
        template: &str,
        path: &str,
        headers: &[(&str, String)],
        body: Option<String>,
    ) -> Value {
        let reply = self.server.send(method, path, headers, body);
        let at = format!("{method} {path} -> {}", reply.status);
        assert_eq!(reply.status, status, "{at}: {}", reply.body);
        let operation = &self.doc["paths"][template][method.to_lowercase()];
        assert!(operation.is_object(), "{method} {template} is not documented");
        let documented = &operation["responses"][status.to_string()];
        assert!(documented.is_object(), "{at}: status not documented for {method} {template}");
        self.matches_response(&at, documented, &reply);
        reply.body
    }

    fn matches_response(&mut self, at: &str, documented: &Value, reply: &Reply) {
        let documented = resolve(self.doc, documented);
        for (name, header) in documented["headers"].as_object().into_iter().flatten() {
            if resolve(self.doc, header)["required"] == json!(true) {
                assert!(reply.header(name).is_some(), "{at}: no {name} header");
            }
        }
        let content_type = reply.header("content-type").unwrap_or_default();
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let schema = &documented["content"][media]["schema"];
        assert!(schema.is_object(), "{at}: content type {media:?} not documented");
        self.cases.push((at.to_owned(), schema.clone(), reply.body.clone()));
    }
}

// ---------------------------------------------------------------- a server on a random port

const CHANNEL_CODE: &str = "BK-CHNN42";

struct Server {
    addr: SocketAddr,
    read_write: String,
    read_only: String,
    write_only: String,
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

impl Server {
    /// A server at 2026-11-22T07:39:21.123Z over the demo properties, with a
    /// confirmed guest in at Sea View, a block, and a channel booking.
    fn start(config: ServerConfig) -> Server {
        let clock = Arc::new(ManualClock::new("2026-11-22T07:39:21.123Z".parse().expect("a time")));
        let rental = Rental::new(MemoryStore::new()).with_clock(clock);
        rental.import_properties(&demo::properties()).expect("import");
        let key = |scopes: &[Scope]| rental.admin().create_key(&format!("{scopes:?}"), scopes).expect("key").secret;
        let (read_write, read_only, write_only) =
            (key(&[Scope::Read, Scope::Write]), key(&[Scope::Read]), key(&[Scope::Write]));
        seed(&rental);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("address");
        listener.set_nonblocking(true).expect("non-blocking");
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let state = AppState::new(Arc::new(rental), &config);
                rental_server::serve(listener, state, std::future::pending()).await
            })
        });
        Server { addr, read_write, read_only, write_only }
    }

    fn send(&self, method: &str, path: &str, headers: &[(&str, String)], body: Option<String>) -> Reply {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        let headers: Vec<String> = headers.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
        let headers = headers.concat();
        let body = body.unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             {headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("send");
        let mut raw = Vec::new();
        // The server may answer (413) before reading the whole body and close: keep what arrived.
        let _ = stream.read_to_end(&mut raw);
        parse_reply(&String::from_utf8_lossy(&raw))
    }
}

fn parse_reply(raw: &str) -> Reply {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no reply head: {raw:?}"));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("a status");
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned())).collect();
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {body:?}"));
    Reply { status, headers, body }
}

/// A confirmed stay at Sea View from today, a block, and a booking imported from a channel.
fn seed(rental: &Rental<MemoryStore>) {
    let d = |s: &str| s.parse().expect("a date");
    let request = rental_core::NewBooking {
        property: "sea-view".parse().unwrap(),
        check_in: d("2026-11-22"),
        check_out: d("2026-11-25"),
        guest_name: "Grace Hopper".into(),
        guest_email: "grace@example.com".into(),
        guests: 2,
        notes: None,
        source: Some(Source::parse("admin").expect("a source")),
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    };
    let code = rental.create_booking(&request, None).expect("create").booking.code;
    rental.update_booking(code.as_str(), &rental_core::Action::Confirm).expect("confirm");
    rental
        .calendars()
        .add_block("sea-view", Stay::new(d("2026-11-26"), d("2026-11-28")).expect("a stay"), "owner")
        .expect("block");
    let mut channel = demo::booking(CHANNEL_CODE, "2027-03-10", "2027-03-14");
    channel.status = rental_core::Status::Confirmed;
    channel.payment_status = rental_core::PaymentStatus::External;
    channel.source = Source::parse("airbnb").expect("a source");
    channel.guest_email = String::new();
    channel.external = Some(ExternalRef { feed: channel.source.clone(), uid: "abc@airbnb.com".into() });
    let mut tx = rental.store().write().expect("write");
    tx.put_booking(&channel).expect("put");
    tx.commit().expect("commit");
}

// ---------------------------------------------------------------- the Python validator

/// True when Python has the OpenAPI validators. When it has not, a test under
/// `./scripts/test` (which sets `RENTAL_TEST_REQUIRE_TOOLS` and installs them)
/// fails; a plain `cargo test` skips the Python half, saying so.
fn python_validator() -> bool {
    let probe =
        Command::new("python3").args(["-c", "import openapi_spec_validator, openapi_schema_validator"]).output();
    if probe.is_ok_and(|out| out.status.success()) {
        return true;
    }
    let how = "pip install -r scripts/test-requirements.txt (./scripts/test installs it)";
    assert!(
        std::env::var_os("RENTAL_TEST_REQUIRE_TOOLS").is_none_or(|v| v == "0"),
        "the Python OpenAPI validators are missing: {how}"
    );
    eprintln!("SKIPPED: the Python OpenAPI validators are missing ({how})");
    false
}

fn json_file(value: &Value) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".json").tempfile().expect("temp file");
    file.write_all(value.to_string().as_bytes()).expect("write");
    file.flush().expect("flush");
    file
}

/// Validates each `(label, schema, instance)` against the document's
/// components, with every object schema closed (`additionalProperties:
/// false`) so that a field the document does not name is an error too.
const VALIDATE: &str = r#"
import json, sys
from openapi_schema_validator import OAS31Validator

data = json.load(open(sys.argv[1]))
components = data["components"]

def close(node):
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for v in node.values():
            close(v)
    elif isinstance(node, list):
        for v in node:
            close(v)

close(components)
failures = []
for label, schema, instance in data["cases"]:
    root = dict(schema, components=components)
    validator = OAS31Validator(root, format_checker=OAS31Validator.FORMAT_CHECKER)
    for error in validator.iter_errors(instance):
        failures.append(f"{label}: {error.message} at {list(error.absolute_path)}")
print("\n".join(failures))
sys.exit(1 if failures else 0)
"#;

fn validate_cases(doc: &Value, cases: &[(String, Value, Value)]) {
    if !python_validator() {
        return;
    }
    let cases: Vec<Value> = cases.iter().map(|(label, schema, instance)| json!([label, schema, instance])).collect();
    let file = json_file(&json!({"components": doc["components"], "cases": cases}));
    let out = Command::new("python3").args(["-c", VALIDATE]).arg(file.path()).output().expect("run python3");
    assert!(
        out.status.success(),
        "payloads that do not match the document:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_booking_payment_status_lists_the_contracts_states() {
    let doc = document();
    let booking = resolve(&doc, &doc["components"]["schemas"]["Booking"]);
    let status = resolve(&doc, &booking["properties"]["paymentStatus"]);
    let mut names: Vec<String> = match status.get("enum") {
        Some(list) => list.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect(),
        // schemars writes documented variants as `oneOf` of `const`s.
        None => status["oneOf"].as_array().unwrap().iter().map(|v| v["const"].as_str().unwrap().to_owned()).collect(),
    };
    names.sort();
    let want =
        ["authorized", "expired", "external", "paid", "partially_paid", "partially_refunded", "refunded", "unpaid"];
    assert_eq!(names, want, "{status}");
}
