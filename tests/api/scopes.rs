//! Scopes hold for every answer (docs/API.md section 2): every endpoint of the
//! route table, walked with no key, a read key, a write key and a read+write
//! key, with the example bodies of the OpenAPI document the server serves.
//! A key without `read` never receives a guest's details, a note or a door code.

use std::collections::HashMap;

use http::Method;
use rental_core::access::DoorCodeMode;
use rental_core::message::MessageKind;
use rental_core::message::template::MessageTemplate;
use rental_core::{Property, demo};
use rental_server::routes;
use rental_tests::http::{NO_KEY, Reply, TestServer};
use serde_json::{Value, json};

/// The private things of the stays already in the store, each unlike anything else in any answer.
const GUEST_NAME: &str = "Quintessa Marker-Vale";
const GUEST_EMAIL: &str = "quintessa.marker@example.org";
const NOTE: &str = "marker: gate code is under the mat";
const DOOR_CODE: &str = "7093";
const WIFI: &str = "Marker-Wifi-SSID";

/// Sea View with its own door code per stay, a static code and Wi-Fi name of
/// the test's own, and a host's subject line that names the door code.
fn per_stay_sea_view() -> Property {
    let subject = MessageTemplate {
        subject: Some("Door code {{ door_code }}".into()),
        text: None,
        html: None,
        enabled: true,
        locales: std::collections::BTreeMap::default(),
    };
    let mut edited = demo::sea_view();
    edited.access.door_code_mode = DoorCodeMode::PerStay;
    edited.access.door_code = DOOR_CODE.into();
    edited.access.wifi_ssid = WIFI.into();
    edited.messages.templates.insert(MessageKind::CheckInInstructions, subject);
    edited
}

/// The store the walk starts from, and what must not reach a key without `read`.
struct World {
    confirmed: String,
    pending: String,
    /// Pending and unpaid throughout: what the checkout endpoints take (the walk cancels `pending`).
    unpaid: String,
    /// Paid through the provider: what a goodwill refund takes (set by a walk with one).
    paid: String,
    secrets: Vec<String>,
}

/// A confirmed stay arriving today (so it has a door code) and a pending one, both with a guest's details.
async fn world(s: &TestServer<rental_core::MemoryStore>) -> World {
    s.rental.import_properties(&[per_stay_sea_view()]).unwrap();
    let create = |check_in: &str, check_out: &str| {
        json!({"property": "sea-view", "checkIn": check_in, "checkOut": check_out, "guests": 2,
               "guestName": GUEST_NAME, "guestEmail": GUEST_EMAIL, "notes": NOTE})
    };
    let confirmed = s.post("/api/v1/bookings", &s.key, &create("2026-11-22", "2026-11-25")).await.body["code"].clone();
    let confirmed = confirmed.as_str().unwrap().to_owned();
    let reply = s.act(&confirmed, &json!({"action": "confirm"})).await;
    let stay_code = reply.body["access"]["code"].as_str().expect("a per-stay code").to_owned();
    let pending = s.post("/api/v1/bookings", &s.key, &create("2026-12-10", "2026-12-14")).await.body["code"].clone();
    let pending = pending.as_str().unwrap().to_owned();
    let unpaid = s.post("/api/v1/bookings", &s.key, &create("2027-01-20", "2027-01-23")).await.body["code"].clone();
    let unpaid = unpaid.as_str().unwrap().to_owned();
    // Door codes are checked as JSON strings: six digits alone could turn up in a timestamp.
    let secrets = [
        GUEST_NAME,
        GUEST_EMAIL,
        NOTE,
        WIFI,
        &format!("\"{DOOR_CODE}\""),
        &format!("\"{stay_code}\""),
        &format!("Door code {stay_code}"),
    ]
    .map(str::to_owned)
    .to_vec();
    World { confirmed, pending, unpaid, paid: String::new(), secrets }
}

/// A request paid through the provider (a card held at checkout, captured on confirm) with a
/// security deposit due at once; its code.
async fn paid(s: &TestServer<rental_core::MemoryStore>, stripe: &rental_tests::localstripe::LocalStripe) -> String {
    let mut property = s.rental.property("sea-view").unwrap();
    property.payments.security_deposit = Some(rental_core::property::SecurityDeposit::new(10_000).days(365, 2));
    s.rental.import_properties(&[property]).unwrap();
    let body = json!({"property": "sea-view", "checkIn": "2027-02-10", "checkOut": "2027-02-13", "guests": 2,
                      "guestName": GUEST_NAME, "guestEmail": GUEST_EMAIL});
    let code = s.post("/api/v1/bookings", &s.key, &body).await.body["code"].as_str().unwrap().to_owned();
    let started = s.post(&format!("/api/v1/bookings/{code}/checkout"), &s.key, &json!({})).await;
    let secret = started.body["setupClientSecret"].as_str().unwrap();
    stripe.save_card(secret, rental_tests::localstripe::cards::OK).await.expect(200);
    s.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &s.key, &json!({})).await.expect(200);
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    code
}

/// One request of the walk: method, path and body (`Null` for none).
type Call = (Method, String, Value);

/// The request body example of each operation of the served OpenAPI
/// document, by method and path template.
async fn examples(s: &TestServer<rental_core::MemoryStore>) -> HashMap<(String, String), Value> {
    let doc = s.get("/api/openapi.json", NO_KEY).await.body.clone();
    let mut all = HashMap::new();
    for (template, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("a path item") {
            let media = &op["requestBody"]["content"]["application/json"];
            let first_named = media["examples"].as_object().and_then(|e| e.values().next()).map(|e| e["value"].clone());
            let example = if media["example"].is_null() { first_named } else { Some(media["example"].clone()) };
            if let Some(example) = example {
                all.insert((method.to_uppercase(), template.clone()), example);
            }
        }
    }
    all
}

/// Every request the walk sends for the operation `method template`: the
/// document's example body unless the walk needs one of its own.
fn calls(method: &str, template: &str, example: &Value, w: &World, block: &str) -> Vec<Call> {
    let path = template.replace("{slug}", "sea-view").replace("{id}", block);
    let method: Method = method.parse().unwrap();
    let on = |code: &str| path.replace("{code}", code);
    let body = match (method.as_str(), template) {
        ("POST", "/api/v1/quotes") => {
            json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27"})
        }
        ("POST", "/api/v1/bookings") => {
            json!({"property": "sea-view", "checkIn": "2027-01-10", "checkOut": "2027-01-13",
                                               "guests": 1, "guestName": "Walker", "guestEmail": "walker@example.net"})
        }
        ("POST", "/api/v1/properties/{slug}/blocks") => json!({"startDate": "2027-02-01", "endDate": "2027-02-02"}),
        ("PATCH", _) => return patches(&on(&w.confirmed), &on(&w.pending)),
        // Paying is for a pending, unpaid booking (section 23).
        (_, t) if t.contains("/checkout") => return vec![(method, on(&w.unpaid), json!({}))],
        // A refund is of money paid.
        (_, t) if t.ends_with("/refunds") => return vec![(method, on(&w.paid), json!({"amount": 1}))],
        (_, t) if t.ends_with("/deposit") => return vec![(method, on(&w.paid), json!({"action": "release"}))],
        _ => example.clone(),
    };
    vec![(method, on(&w.confirmed), body)]
}

/// Every action, on a stay where it succeeds or is a no-op, and where it is refused.
fn patches(confirmed: &str, pending: &str) -> Vec<Call> {
    let patch = |path: &str, body: Value| (Method::PATCH, path.to_owned(), body);
    vec![
        patch(confirmed, json!({"action": "confirm"})),
        patch(confirmed, json!({"action": "change", "checkOut": "2026-11-25"})),
        patch(confirmed, json!({"action": "annotate", "note": "walked"})),
        patch(confirmed, json!({"action": "check_in"})),
        patch(confirmed, json!({"action": "authorize"})),
        patch(confirmed, json!({"action": "change", "checkOut": "2026-12-11"})),
        patch(pending, json!({"action": "authorize"})),
        patch(pending, json!({"action": "cancel", "by": "guest", "reason": "walked"})),
        patch(pending, json!({"action": "confirm"})),
    ]
}

async fn send(s: &TestServer<rental_core::MemoryStore>, key: &str, (method, path, body): &Call) -> Reply {
    if body.is_null() {
        let request = s.request(method.clone(), path, key).body(http_body_util::Full::default()).unwrap();
        return s.send(request).await;
    }
    s.send_json(method.clone(), path, key, body).await
}

/// A fresh manual block for the `DELETE` of this round.
async fn new_block(s: &TestServer<rental_core::MemoryStore>) -> String {
    let body = json!({"startDate": "2027-03-01", "endDate": "2027-03-02"});
    let reply = s.post("/api/v1/properties/sea-view/blocks", &s.key, &body).await;
    reply.expect(201);
    reply.body["id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_to_a_key_without_read_holds_a_guest_s_details_or_a_door_code() {
    // With a payment provider (localstripe), so that the checkout endpoints answer too.
    let Some(stripe) = rental_tests::localstripe::LocalStripe::start() else { return };
    let provider = std::sync::Arc::new(rental_server::payments::Stripe::new(stripe.config()).unwrap());
    let config = rental_server::ServerConfig { payments: Some(provider.clone()), ..Default::default() };
    let s = TestServer::with_config(&config).await;
    let mut w = world(&s).await;
    w.paid = paid(&s, &stripe).await;
    // Its deposit, due at once, is held by the payments pass.
    rental_server::payments::installments::charge_due(&s.rental, provider.as_ref()).await;
    let keys = [("no key", NO_KEY), ("write", s.write_key.as_str()), ("read", &s.read_key), ("read+write", &s.key)];
    let examples = examples(&s).await;
    for (scopes, key) in keys {
        let block = new_block(&s).await;
        for route in routes::all() {
            let (method, template) = (route.method().as_str(), route.path());
            let example = examples.get(&(method.to_owned(), template.to_owned())).cloned().unwrap_or(Value::Null);
            let mut succeeded = false;
            for call in calls(method, template, &example, &w, &block) {
                let reply = send(&s, key, &call).await;
                let what = format!("{} {} {} with {scopes}", call.0, call.1, call.2);
                let text = reply.text();
                // Without a payment provider, a checkout's answer past the scope check is this refusal.
                succeeded |= reply.status < 300 || reply.body["code"] == "payments_not_configured";
                if !scopes.starts_with("read") {
                    for secret in &w.secrets {
                        assert!(!text.contains(secret.as_str()), "{what} gave away {secret}: {text}");
                    }
                }
                if scopes == "write" && call.0 == Method::PATCH && reply.status < 300 {
                    assert_eq!((reply.status, reply.bytes.len()), (204, 0), "{what}: {text}");
                }
            }
            // The walk reaches every write operation's answer, not only its refusals.
            if scopes == "write" && route.scope() == Some(rental_core::keys::Scope::Write) {
                assert!(succeeded, "{method} {template} never succeeded for a write key");
            }
        }
    }
    // The secrets are there to be found: a reader sees them.
    let read = s.get(&format!("/api/v1/bookings/{}", w.confirmed), &s.read_key).await;
    for secret in &w.secrets[..3] {
        assert!(read.text().contains(secret.as_str()), "a reader sees {secret}: {}", read.text());
    }
    assert!(read.body["access"]["code"].is_string(), "{}", read.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_key_changes_a_booking_with_204_and_creates_one_seeing_only_what_it_sent() {
    let s = TestServer::memory().await;
    let w = world(&s).await;
    let path = format!("/api/v1/bookings/{}", w.confirmed);
    let reply = s.patch(&path, &s.write_key, &json!({"action": "annotate", "note": "from a write key"})).await;
    assert_eq!((reply.status, reply.bytes.len()), (204, 0), "{}", reply.text());
    let notes = s.get(&path, &s.read_key).await.body["notes"].clone();
    assert_eq!(notes.as_array().unwrap().last().unwrap()["text"], "from a write key", "the change was made");
    s.patch(&path, &s.write_key, &json!({"action": "authorize"})).await.problem(409, "invalid_transition");

    let sent = json!({"property": "sea-view", "checkIn": "2027-01-10", "checkOut": "2027-01-13", "guests": 1,
                      "guestName": "Walker", "guestEmail": "walker@example.net", "notes": "my own note"});
    let created = s.post("/api/v1/bookings", &s.write_key, &sent).await;
    created.expect(201);
    assert_eq!((&created.body["guestName"], &created.body["access"]), (&json!("Walker"), &Value::Null));
    assert!(created.header("location").is_some_and(|l| l.ends_with(created.body["code"].as_str().unwrap())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_key_sends_a_message_again_without_seeing_its_recipient_or_subject() {
    let s = TestServer::memory().await;
    let w = world(&s).await;
    let path = format!("/api/v1/bookings/{}/messages", w.confirmed);
    let body = json!({"kind": "check_in_instructions"});
    let written = s.post(&path, &s.write_key, &body).await;
    written.expect(202);
    let mut fields: Vec<_> = written.body.as_object().unwrap().keys().cloned().collect();
    fields.sort();
    assert_eq!(fields, ["dueAt", "id", "kind", "status"], "{}", written.text());
    assert_eq!(
        (&written.body["kind"], &written.body["status"]),
        (&json!("check_in_instructions"), &json!("scheduled"))
    );
    // A key with both scopes still sees the whole record, the host's subject rendered.
    let read = s.post(&path, &s.key, &body).await;
    read.expect(202);
    assert_eq!(read.body["to"], GUEST_EMAIL, "{}", read.text());
    assert!(read.body["subject"].as_str().unwrap().starts_with("Door code "), "{}", read.text());
}
