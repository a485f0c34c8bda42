//! The guest's stay page over HTTP (docs/API.md section 24): its link in the
//! booking body, the page without a key, its headers, the one 404 of every
//! wrong link, and rotation, also across two servers on one PostgreSQL database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rental_core::Store;
use rental_core::store::PgStore;
use rental_server::ServerConfig;
use rental_server::book::BookConfig;
use rental_tests::http::{NO_KEY, Reply, TestServer};
use rental_tests::postgres::PgCluster;
use rental_tests::smtp::SmtpServer;

use crate::messages::WAIT;
use rental_tests::{fixed_clock, rental_with_demo};
use serde_json::{Value, json};

/// The path of an absolute stay URL.
fn path_of(url: &str) -> String {
    let start = url.find("/stay/").unwrap_or_else(|| panic!("not a stay URL: {url}"));
    url[start..].to_owned()
}

/// A booking's stay page path, read from the API as a `read` key sees it.
async fn stay_path<S: Store + 'static>(s: &TestServer<S>, code: &str) -> String {
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await;
    path_of(booking.expect(200).body["stayUrl"].as_str().expect("a read key sees stayUrl"))
}

async fn rotate<S: Store + 'static>(s: &TestServer<S>, code: &str, key: &str) -> Reply {
    s.http.post(&format!("/api/v1/bookings/{code}/stay-link"), key, &json!({"action": "rotate"})).await
}

/// The parts of a 404 that must not differ between wrong links.
fn answer(reply: &Reply) -> (u16, String, Option<String>, Option<String>) {
    let header = |name: &str| reply.header(name).map(str::to_owned);
    (reply.status, reply.text(), header("content-type"), header("cache-control"))
}

#[tokio::test]
async fn a_read_key_gets_an_absolute_stay_url_that_opens_the_page_without_a_key() {
    let s = TestServer::memory().await;
    let created = s
        .http
        .post("/api/v1/bookings", &s.key, &rental_tests::http::booking_body("sea-view", "2026-12-20", "2026-12-23", 2))
        .await;
    let body = created.expect(201).body.clone();
    let code = body["code"].as_str().unwrap();
    let url = body["stayUrl"].as_str().expect("the creator with read sees it");
    assert!(url.starts_with(&format!("http://{}/stay/{code}.", s.http.addr)), "absolute: {url}");
    let listed = s.http.get("/api/v1/bookings", &s.read_key).await.body;
    assert_eq!(listed["data"][0]["stayUrl"], url, "the list carries it too");
    let written = s
        .http
        .post(
            "/api/v1/bookings",
            &s.write_key,
            &rental_tests::http::booking_body("sea-view", "2027-01-10", "2027-01-13", 2),
        )
        .await;
    assert!(written.expect(201).body.get("stayUrl").is_none(), "a write-only key never reads a link");

    let page = s.http.get(&path_of(url), NO_KEY).await;
    page.expect(200);
    for (header, value) in [
        ("cache-control", "no-store"),
        ("referrer-policy", "no-referrer"),
        ("x-robots-tag", "noindex, nofollow"),
        ("content-type", "text/html; charset=utf-8"),
    ] {
        assert_eq!(page.header(header), Some(value), "{header}");
    }
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.starts_with("default-src 'none'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!csp.contains("script-src"), "no script on the page: {csp}");
    let html = page.text();
    for text in ["Sea View Cottage", code, "Sun 20 Dec 2026 from 15:00", "Wed 23 Dec 2026 by 11:00", "Ada Lovelace"] {
        assert!(html.contains(text), "{text}");
    }
    assert!(!html.contains("<script"), "no script");
}

#[tokio::test]
async fn every_wrong_link_gets_the_same_404_in_the_same_time() {
    let s = TestServer::memory().await;
    let mine = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let other = s.book("sea-view", "2027-01-10", "2027-01-13", 2).await["code"].as_str().unwrap().to_owned();
    let good = stay_path(&s, &mine).await;
    let signature = good.rsplit_once('.').unwrap().1.to_owned();
    assert_eq!(signature.len(), 32, "128 bits");
    let flipped = format!("{}{}", if signature.starts_with('0') { '1' } else { '0' }, &signature[1..]);
    let wrong = [
        format!("/stay/{mine}.{flipped}"),
        format!("/stay/{mine}.{}", &signature[..31]),
        format!("/stay/{mine}.{}", &signature[..8]),
        format!("/stay/{mine}.{signature}0"),
        format!("/stay/{mine}."),
        format!("/stay/{mine}"),
        format!("/stay/{other}.{signature}"),
        format!("/stay/BK-ZZZZZZ.{signature}"),
        "/stay/".to_owned(),
        format!("/stay/{mine}.{signature}/more"),
    ];
    let first = answer(&s.http.get(&wrong[0], NO_KEY).await);
    assert_eq!(first.0, 404);
    assert!(!first.1.contains(&mine) && !first.1.contains(&other), "a 404 names no booking");
    for path in &wrong {
        assert_eq!(answer(&s.http.get(path, NO_KEY).await), first, "{path}");
    }
    s.http.get(&good, NO_KEY).await.expect(200);

    // The same time: a wrong signature of a real booking and a code that does not
    // exist do the same work (one store read, one MAC, a constant-time compare).
    let median = |path: String| {
        let s = &s;
        async move {
            let mut times = Vec::new();
            for _ in 0..150 {
                let started = Instant::now();
                s.http.get(&path, NO_KEY).await.expect(404);
                times.push(started.elapsed());
            }
            times.sort();
            times[times.len() / 2]
        }
    };
    let (real, unknown) =
        (median(format!("/stay/{mine}.{flipped}")).await, median(format!("/stay/BK-ZZZZZZ.{flipped}")).await);
    let (slow, fast) = if real > unknown { (real, unknown) } else { (unknown, real) };
    assert!(slow < fast * 2 + Duration::from_micros(300), "real code {real:?}, unknown code {unknown:?}");
}

#[tokio::test]
async fn a_rotated_link_is_dead_at_once_and_the_new_one_opens() {
    let s = TestServer::memory().await;
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let old = stay_path(&s, &code).await;
    s.http.get(&old, NO_KEY).await.expect(200);
    rotate(&s, &code, &s.read_key).await.problem(403, "insufficient_scope");
    rotate(&s, &code, &s.write_key).await.expect(204);
    s.http.get(&old, NO_KEY).await.expect(404);
    let rotated = rotate(&s, &code, &s.key).await;
    let new = path_of(rotated.expect(200).body["stayUrl"].as_str().unwrap());
    assert_ne!(new, old);
    s.http.get(&new, NO_KEY).await.expect(200);
    assert_eq!(stay_path(&s, &code).await, new, "the booking body carries the new link");
    for bad in [json!({}), json!({"action": "renew"}), json!({"action": "rotate", "extra": 1})] {
        rotate_with(&s, &code, &bad).await.problem(422, "validation_failed");
    }
    s.http.get(&new, NO_KEY).await.expect(200);
    rotate(&s, "BK-ZZZZZZ", &s.key).await.problem(404, "not_found");
}

async fn rotate_with<S: Store + 'static>(s: &TestServer<S>, code: &str, body: &Value) -> Reply {
    s.http.post(&format!("/api/v1/bookings/{code}/stay-link"), &s.key, body).await
}

#[test]
fn a_link_rotated_on_one_server_is_dead_on_another_sharing_the_database() {
    // The database is made before the runtime starts (its client blocks).
    let url = PgCluster::shared().database();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(rotation_across_servers(&url));
}

async fn rotation_across_servers(url: &str) {
    // Servers sharing a database share the page secret, as `rental serve` keeps it.
    let config = ServerConfig {
        book: BookConfig { secret: b"shared page secret".to_vec(), ..BookConfig::default() },
        ..ServerConfig::default()
    };
    let serve = |url: &str| {
        let store = PgStore::open(url).expect("the store opens");
        let clock = fixed_clock();
        let rental = Arc::new(rental_with_demo(store, Arc::clone(&clock)).with_read_cache().expect("the cache loads"));
        TestServer::serve(rental, clock, &config)
    };
    let (a, b) = (serve(url).await, serve(url).await);
    let code = a.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let old = stay_path(&a, &code).await;
    b.http.get(&old, NO_KEY).await.expect(200);
    rotate(&a, &code, &a.key).await.expect(200);
    b.http.get(&old, NO_KEY).await.expect(404);
    let new = stay_path(&a, &code).await;
    b.http.get(&new, NO_KEY).await.expect(200);
}

#[tokio::test]
async fn guest_messages_carry_the_stay_link_and_after_a_rotation_only_the_new_one() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = crate::messages::server(&smtp).await;
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let old = stay_path(&s, &code).await;
    let got = smtp.wait_for(2, WAIT).await;
    let request = crate::messages::of_kind(&got, "We received your request");
    let link = format!("https://rental.example{old}");
    assert!(request.text.as_deref().unwrap().contains(&link), "the text names the link");
    // The HTML escapes every value, `/` included; a browser reads the entities back.
    let html = request.html.as_deref().unwrap().replace("&#x2f;", "/");
    assert!(html.contains(&format!("href=\"{link}\"")), "the HTML links it: {html}");
    let host = crate::messages::of_kind(&got, "New request");
    assert!(!host.raw.contains("/stay/"), "the host's message is not the guest's page");

    rotate(&s, &code, &s.key).await.expect(200);
    let new = stay_path(&s, &code).await;
    crate::messages::confirm(&s, &code).await;
    let got = smtp.wait_for(3, WAIT).await;
    let confirmed = crate::messages::of_kind(&got, "is confirmed");
    let text = confirmed.text.as_deref().unwrap();
    assert!(text.contains(&format!("https://rental.example{new}")) && !text.contains(&old), "{text}");
}

#[tokio::test]
async fn the_booking_page_confirmation_leads_to_the_stay_page() {
    let s = TestServer::memory().await;
    s.rental.edit_property("sea-view", |p| p.booking_page.enabled = true).unwrap();
    let quote = s.http.get("/book/sea-view?checkIn=2026-12-20&checkOut=2026-12-23&guests=2", NO_KEY).await.text();
    let token = quote.split("name=\"token\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let form = format!(
        "checkIn=2026-12-20&checkOut=2026-12-23&guests=2&guestName=Ada&guestEmail=ada%40example.com&token={token}"
    );
    let posted = s
        .http
        .send_bytes(http::Method::POST, "/book/sea-view", NO_KEY, "application/x-www-form-urlencoded", form)
        .await;
    let confirmation = s.http.get(posted.expect(303).header("location").unwrap(), NO_KEY).await.text();
    let link = confirmation.split("id=\"stay-link\" href=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let code = s.all_bookings().await[0]["code"].as_str().unwrap().to_owned();
    assert_eq!(link, stay_path(&s, &code).await, "the booking's own link");
    let page = s.http.get(&link, NO_KEY).await;
    assert!(page.expect(200).text().contains(&code));
}
