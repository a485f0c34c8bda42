//! The stay page's online check-in over HTTP (docs/API.md section 24): the
//! form without script, its refusals with what was typed kept, a form used
//! once, the link's post limit, the API's view and the `guests` scope, the
//! document number's deletion, and a channel's guest reached by e-mail.

use http::Method;
use rental_core::property::{CheckInField, CheckInForm, FieldRule};
use rental_core::store::ReadTx;
use rental_core::{MemoryStore, Scope, Store};
use rental_tests::http::{NO_KEY, Reply, TestServer};
use serde_json::{Value, json};

/// A booking's stay page path, as a `read` key sees it.
pub(crate) async fn stay_path<S: Store + 'static>(s: &TestServer<S>, code: &str) -> String {
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await;
    let url = booking.expect(200).body["stayUrl"].as_str().expect("stayUrl").to_owned();
    url[url.find("/stay/").unwrap()..].to_owned()
}

/// The form's token on a page.
pub(crate) fn token_of(page: &str) -> String {
    let after = page.split("id=\"online-check-in\"").nth(1).expect("a check-in section");
    after.split("name=\"token\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_owned()
}

fn encode(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}={}", urlencoding(v))).collect::<Vec<_>>().join("&")
}

fn urlencoding(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(crate) async fn post<S: Store + 'static>(s: &TestServer<S>, path: &str, pairs: &[(&str, &str)]) -> Reply {
    let form = encode(pairs);
    s.http
        .send_bytes(Method::POST, &format!("{path}/check-in"), NO_KEY, "application/x-www-form-urlencoded", form)
        .await
}

async fn check_in<S: Store + 'static>(s: &TestServer<S>, code: &str, key: &str) -> Value {
    let reply = s.http.get(&format!("/api/v1/bookings/{code}/check-in"), key).await;
    reply.expect(200).body.clone()
}

/// sea-view asking a phone (required), names and a document number (optional).
fn with_form(s: &TestServer<MemoryStore>) {
    let form = CheckInForm::default()
        .with(CheckInField::Phone, FieldRule::Required)
        .with(CheckInField::GuestNames, FieldRule::Optional)
        .with(CheckInField::DocumentNumber, FieldRule::Optional);
    s.rental.edit_property("sea-view", |p| p.access.stay_page.check_in_form = form.clone()).unwrap();
}

#[tokio::test]
async fn the_form_records_what_was_given_once_per_form_and_keeps_what_was_typed_when_refused() {
    let s = TestServer::memory().await;
    with_form(&s);
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    let page = s.http.get(&path, NO_KEY).await.text();
    for field in ["name=\"phone\"", "name=\"guestNames\"", "name=\"documentNumber\"", "name=\"arrivalTime\""] {
        assert!(page.contains(field), "{field}");
    }
    assert!(!page.contains("name=\"email\""), "the booking has an e-mail: not asked");
    assert!(!page.contains("<script"), "no script");
    let token = token_of(&page);
    let names = "Ada <script>alert(1)</script>\r\nCharles";

    let refused = post(&s, &path, &[("token", &token), ("guestNames", names), ("arrivalTime", "25:00")]).await;
    assert_eq!(refused.status, 422);
    let html = refused.text();
    assert!(html.contains("is required") && html.contains("must be a time, HH:MM"), "each fault named");
    assert!(
        html.contains("Ada &lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>alert"),
        "kept, escaped"
    );
    assert!(html.contains("aria-invalid=\"true\""));
    assert_eq!(check_in(&s, &code, &s.read_key).await["givenAt"], Value::Null, "nothing recorded");

    let sent = [
        ("token", token.as_str()),
        ("phone", "+351 912 345 678"),
        ("guestNames", names),
        ("documentNumber", "X1234567"),
    ];
    let done = post(&s, &path, &sent).await;
    assert_eq!(done.expect(303).header("location"), Some(format!("{path}#online-check-in").as_str()));
    let given = check_in(&s, &code, &s.read_key).await;
    assert_eq!(given["phone"], "+351 912 345 678");
    assert_eq!(given["guestNames"], "Ada <script>alert(1)</script>\nCharles");
    assert_eq!((given.get("documentNumber"), &given["documentGiven"]), (None, &json!(true)), "read alone: no document");
    let police = s.rental.admin().create_key("police", &[Scope::Read, Scope::Guests]).unwrap().secret;
    assert_eq!(check_in(&s, &code, &police).await["documentNumber"], "X1234567");
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body.clone();
    assert_eq!(booking["checkInFormAt"], given["givenAt"]);

    let again = post(&s, &path, &[("token", &token), ("phone", "+44 20 7946 0000")]).await;
    assert_eq!(again.status, 422, "a form is used once");
    assert!(again.text().contains("sent already") && again.text().contains("+44 20 7946 0000"), "kept");
    assert_eq!(check_in(&s, &code, &s.read_key).await["phone"], "+351 912 345 678", "unchanged");

    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("id=\"check-in-done\"") && page.contains("value=\"+351 912 345 678\""));
    assert!(!page.contains("X1234567"), "the document number never goes back to a page");
    let fresh = token_of(&page);
    s.clock.advance(chrono::TimeDelta::hours(2) + chrono::TimeDelta::seconds(1));
    let lapsed = post(&s, &path, &[("token", &fresh), ("phone", "+44 20 7946 0000")]).await;
    assert_eq!(lapsed.status, 422);
    assert!(lapsed.text().contains("too old") && lapsed.text().contains("+44 20 7946 0000"));
    assert_eq!(check_in(&s, &code, &s.read_key).await["phone"], "+351 912 345 678", "unchanged");
}

#[tokio::test]
async fn the_eleventh_post_on_a_link_within_an_hour_is_a_429_page_that_keeps_the_form() {
    let s = TestServer::memory().await;
    with_form(&s);
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    let token = token_of(&s.http.get(&path, NO_KEY).await.text());
    for i in 0..10 {
        assert_eq!(post(&s, &path, &[("token", &token), ("phone", "12")]).await.status, 422, "post {i}");
    }
    let limited = post(&s, &path, &[("token", &token), ("phone", "+351 912 345 678")]).await;
    assert_eq!(limited.status, 429);
    assert!(limited.header("retry-after").is_some());
    assert!(limited.text().contains("Too many attempts") && limited.text().contains("value=\"+351 912 345 678\""));
    assert_eq!(check_in(&s, &code, &s.read_key).await["givenAt"], Value::Null, "nothing recorded");
    s.clock.advance(chrono::TimeDelta::hours(1));
    let token = token_of(&s.http.get(&path, NO_KEY).await.text());
    post(&s, &path, &[("token", &token), ("phone", "+351 912 345 678")]).await.expect(303);
}

#[tokio::test]
async fn a_document_number_is_deleted_30_days_after_check_out_and_the_check_in_stays() {
    let s = TestServer::memory().await;
    with_form(&s);
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    let token = token_of(&s.http.get(&path, NO_KEY).await.text());
    post(&s, &path, &[("token", &token), ("phone", "+351 912 345 678"), ("documentNumber", "X1234567")])
        .await
        .expect(303);
    let police = s.rental.admin().create_key("police", &[Scope::Read, Scope::Guests]).unwrap().secret;
    // Check-out is 11:00 in Lisbon (UTC in winter) on 23 December.
    s.set_now("2027-01-22T10:59:59Z");
    s.rental.worker().prune().unwrap();
    assert_eq!(check_in(&s, &code, &police).await["documentNumber"], "X1234567", "a second early");
    s.set_now("2027-01-22T11:00:00Z");
    assert_eq!(s.rental.worker().prune().unwrap().documents, 1);
    let kept = check_in(&s, &code, &police).await;
    assert_eq!((kept.get("documentNumber"), &kept["documentGiven"]), (None, &json!(false)));
    assert_eq!(kept["documentDeletedAt"], "2027-01-22T11:00:00.000Z");
    assert_eq!(kept["phone"], "+351 912 345 678", "the rest stays");
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body.clone();
    assert_eq!(booking["checkInFormAt"], kept["givenAt"]);
}

#[tokio::test]
async fn the_api_answers_404_for_an_unknown_booking_and_needs_read() {
    let s = TestServer::memory().await;
    s.http.get("/api/v1/bookings/BK-ZZZZZZ/check-in", &s.read_key).await.problem(404, "not_found");
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/bookings/{code}/check-in");
    s.http.get(&path, &s.write_key).await.problem(403, "insufficient_scope");
    assert_eq!(s.http.get(&path, &s.read_key).await.expect(200).body["givenAt"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_guest_who_gives_an_email_on_the_form_gets_the_arrival_instructions() {
    use rental_core::Source;
    use rental_core::property::IcalFeed;
    use rental_server::ServerConfig;
    use rental_server::feed_pulls::FeedPullConfig;
    use rental_server::outbound::OutboundConfig;
    use rental_tests::feeds::{Feed, FeedServer, calendar};
    use rental_tests::smtp::SmtpServer;

    let Some(smtp) = SmtpServer::start() else { return };
    let feed_pulls = FeedPullConfig {
        outbound: OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() },
        ..FeedPullConfig::default()
    };
    let config = ServerConfig { mail: crate::messages::mail_config(&smtp), feed_pulls, ..ServerConfig::default() };
    let s = TestServer::with_settings(MemoryStore::new(), crate::messages::settings(), &config).await;
    let channel = FeedServer::start().await;
    let feed =
        IcalFeed { name: Source::parse("airbnb").unwrap(), url: channel.url("/a.ics"), reservation_patterns: vec![] };
    s.rental.edit_property("sea-view", |p| p.feeds.ical_feeds = vec![feed.clone()]).unwrap();
    channel
        .set("/a.ics", Feed::Calendar(calendar(&[("j1@airbnb.com", "Reserved - Jane", "2026-12-01", "2026-12-04")])));
    s.http.post("/api/v1/sync/ical", &s.write_key, &json!({})).await.expect(200);
    let listed = s.http.get("/api/v1/bookings?source=airbnb", &s.read_key).await.body.clone();
    let code = listed["data"][0]["code"].as_str().unwrap().to_owned();
    assert_eq!(listed["data"][0]["guestEmail"], "");
    let path = stay_path(&s, &code).await;

    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("name=\"email\"") && page.contains("required"), "a channel's guest is asked an e-mail");
    let token = token_of(&page);
    let missing = post(&s, &path, &[("token", &token)]).await;
    assert_eq!(missing.status, 422);
    let bad = post(&s, &path, &[("token", &token), ("email", "jane@example.com\r\nBcc: x@evil.example")]).await;
    assert_eq!(bad.status, 422, "no header injection through the address");
    let unsendable = post(&s, &path, &[("token", &token), ("email", "jane@-example.com")]).await;
    assert_eq!(unsendable.status, 422, "an address the mailer refuses");
    post(&s, &path, &[("token", &token), ("email", "jane@example.com")]).await.expect(303);
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body.clone();
    assert_eq!(booking["guestEmail"], "jane@example.com");
    let events = s.rental.store().read().unwrap().events_after(0, 1000).unwrap();
    let updated = events
        .iter()
        .rev()
        .find(|e| e.event.event.as_str() == "booking.updated" && e.event.data["code"] == code.as_str())
        .expect("booking.updated");
    assert_eq!(updated.event.data["changes"], json!(["checkInFormAt", "guestEmail"]));

    // 48 hours before the 15:00 check-in, the instructions go to the address given.
    crate::messages::quiet(&s).await;
    s.set_now("2026-11-29T15:00:00Z");
    let got = smtp.wait_for(1, crate::messages::WAIT).await;
    let arrival = crate::messages::of_kind(&got, "door code");
    assert_eq!(arrival.rcpt_tos, ["jane@example.com"]);
    assert!(arrival.text.as_deref().unwrap().contains(&path), "with the stay page's link");
}

#[tokio::test]
async fn the_door_code_waits_for_a_form_with_required_fields_and_shows_once_it_is_sent() {
    let s = TestServer::memory().await;
    with_form(&s);
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let path = stay_path(&s, &code).await;
    s.set_now("2026-12-19T12:00:00Z");
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("once you have sent the online check-in") && !page.contains("id=\"door-code\""), "{page}");
    let token = token_of(&page);
    post(&s, &path, &[("token", &token), ("phone", "+351 912 345 678")]).await.expect(303);
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("id=\"door-code\"") && !page.contains("online check-in below"), "{page}");

    // Without a required field, nothing waits for the form.
    let other = s.book("sea-view", "2027-01-10", "2027-01-13", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&other, &json!({"action": "confirm"})).await.expect(200);
    s.rental.edit_property("sea-view", |p| p.access.stay_page.check_in_form = CheckInForm::default()).unwrap();
    s.set_now("2027-01-09T12:00:00Z");
    let page = s.http.get(&stay_path(&s, &other).await, NO_KEY).await.text();
    assert!(page.contains("id=\"door-code\""), "{page}");
}
