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

#[tokio::test]
async fn the_guide_is_paragraphs_and_links_only_and_the_address_shows_once_confirmed() {
    let s = TestServer::memory().await;
    s.rental
        .edit_property("sea-view", |p| {
            p.access.stay_page.guide = "Bins go out on <b>Tuesdays</b>.\n\nBeach map: https://maps.example/beach?x=1&y=2.\n<script>alert(1)</script> javascript:alert(2)".into();
            p.access.stay_page.address = "1 Rua do Mar\n1100-001 Lisboa".into();
        })
        .unwrap();
    let mut body = rental_tests::http::booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
    body["guestName"] = "<img src=x onerror=alert(3)>".into();
    let code = s.post("/api/v1/bookings", &s.key, &body).await.body["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("<p>Bins go out on &lt;b&gt;Tuesdays&lt;/b&gt;.</p>"), "{page}");
    assert!(page.contains("<a href=\"https://maps.example/beach?x=1&amp;y=2\" rel=\"noopener noreferrer nofollow\">"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; javascript:alert(2)"));
    assert!(page.contains("&lt;img src=x onerror=alert(3)&gt;") && !page.contains("<img"), "the guest's name is text");
    assert!(!page.contains("Rua do Mar"), "no address before the stay is confirmed");
    assert!(page.len() < 60_000, "{} bytes", page.len());

    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("<div id=\"address\"><p>1 Rua do Mar<br>1100-001 Lisboa</p></div>"), "{page}");
    let public = s.http.get("/api/v1/properties/sea-view", &s.key).await.text();
    assert!(!public.contains("Rua do Mar") && !public.contains("Tuesdays"), "both stay private");
}

#[tokio::test]
async fn a_cancelled_stay_s_page_is_gone_once_its_retention_after_departure_passed() {
    let s = TestServer::memory().await;
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    s.act(&code, &json!({"action": "cancel", "by": "host"})).await.expect(200);
    assert!(s.http.get(&path, NO_KEY).await.expect(200).text().contains("Cancelled"));
    s.set_now("2027-01-21T23:00:00Z"); // 29 days and 23 hours after the departure day began
    s.http.get(&path, NO_KEY).await.expect(200);
    s.set_now("2027-01-22T00:01:00Z");
    s.http.get(&path, NO_KEY).await.expect(404);
}

#[tokio::test]
async fn guide_and_address_are_refused_with_control_characters_or_too_long() {
    let s = TestServer::memory().await;
    let mut p = serde_json::to_value(s.rental.property("sea-view").unwrap()).unwrap();
    p["guide"] = "x".repeat(20_001).into();
    p["address"] = "1 Rua\u{1b}[31m".into();
    let refused = s.rental.import_properties(&[serde_json::from_value(p).unwrap()]);
    let Err(rental_core::Error::Validation(errors)) = refused else { panic!("{refused:?}") };
    let fields: Vec<(&str, &str)> = errors.iter().map(|e| (e.field.as_str(), e.code)).collect();
    assert_eq!(fields, [("[0].guide", "invalid"), ("[0].address", "control_character")]);
}

/// Sets a booking's payment status as a payment integration would (HTTP cannot yet).
pub(crate) fn set_payment<S: Store>(s: &TestServer<S>, code: &str, status: rental_core::PaymentStatus) {
    use rental_core::store::{ReadTx, WriteTx};
    let mut tx = s.rental.store().write().unwrap();
    let mut b = tx.booking(code).unwrap().unwrap();
    b.payment_status = status;
    tx.put_booking(&b).unwrap();
    tx.commit().unwrap();
}

/// The access section of a stay page.
async fn access_section<S: Store + 'static>(s: &TestServer<S>, path: &str) -> String {
    let page = s.http.get(path, NO_KEY).await.text();
    page.split("id=\"access\"").nth(1).map(|a| a.split("</section>").next().unwrap().to_owned()).unwrap_or_default()
}

#[tokio::test]
async fn the_door_code_appears_at_its_reveal_time_and_goes_when_the_window_closes() {
    let s = TestServer::memory().await; // 07:39 in Lisbon on 2026-11-22
    s.rental
        .edit_property("sea-view", |p| {
            p.stay_rules.check_in_time = rental_core::ClockTime::parse("07:45").unwrap();
            p.access.access_reveal_hours = 0;
            p.access.wifi_password = "sea-breeze-42".into();
            p.access.arrival_notes = "Key box <left> of the door.".into();
        })
        .unwrap();
    let code = s.book("sea-view", "2026-11-22", "2026-11-24", 2).await["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    let pending = access_section(&s, &path).await;
    assert!(pending.contains("once the host confirms") && !pending.contains("4821"), "{pending}");
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);

    let early = access_section(&s, &path).await;
    assert!(early.contains("Your door code appears on 22 November at 07:45 (Lisbon time)."), "{early}");
    assert!(!early.contains("4821") && !early.contains("sea-breeze") && !early.contains("Key box"), "{early}");
    s.set_now("2026-11-22T07:44:59Z");
    assert!(!access_section(&s, &path).await.contains("4821"), "a second before");
    s.set_now("2026-11-22T07:45:00Z");
    let open = access_section(&s, &path).await;
    for text in [
        "<dd class=\"code\" id=\"door-code\">4821</dd>",
        "SeaView-Guest",
        "sea-breeze-42",
        "Key box &lt;left&gt; of the door.",
    ] {
        assert!(open.contains(text), "{text} in {open}");
    }
    s.set_now("2026-11-24T10:59:59Z");
    assert!(access_section(&s, &path).await.contains("4821"), "a second before check-out");
    s.set_now("2026-11-24T11:00:00Z");
    let ended = access_section(&s, &path).await;
    assert!(ended.contains("Your stay has ended") && !ended.contains("4821"), "{ended}");
}

#[tokio::test]
async fn the_door_code_waits_for_payment_when_the_property_requires_it() {
    let s = TestServer::memory().await;
    s.rental.edit_property("sea-view", |p| p.access.access_requires_payment = Some(true)).unwrap();
    let code = s.book("sea-view", "2026-11-23", "2026-11-25", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let path = stay_path(&s, &code).await;
    set_payment(&s, &code, rental_core::PaymentStatus::Unpaid);
    let unpaid = access_section(&s, &path).await;
    assert!(unpaid.contains("once everything due is paid") && !unpaid.contains("4821"), "{unpaid}");
    set_payment(&s, &code, rental_core::PaymentStatus::Paid);
    assert!(access_section(&s, &path).await.contains("4821"), "paid");
    s.rental.edit_property("sea-view", |p| p.access.access_requires_payment = Some(false)).unwrap();
    set_payment(&s, &code, rental_core::PaymentStatus::Unpaid);
    assert!(access_section(&s, &path).await.contains("4821"), "not required");
}

#[tokio::test]
async fn check_in_instructions_go_out_when_the_page_shows_the_code_and_not_before() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = crate::messages::server(&smtp).await;
    s.rental
        .edit_property("sea-view", |p| {
            p.access.access_requires_payment = Some(true);
            p.access.access_reveal_hours = 2;
        })
        .unwrap();
    let code = s.book("sea-view", "2026-11-25", "2026-11-27", 2).await["code"].as_str().unwrap().to_owned();
    crate::messages::confirm(&s, &code).await;
    set_payment(&s, &code, rental_core::PaymentStatus::Unpaid);
    let instructions =
        crate::messages::wait_message(&s, &code, "check_in_instructions", |m| m["status"] == "scheduled").await;
    assert_eq!(instructions["dueAt"], "2026-11-25T13:00:00.000Z", "not before the reveal time (2 h before 15:00)");
    crate::messages::quiet(&s).await;
    s.set_now("2026-11-25T13:00:00Z");
    let held =
        crate::messages::wait_message(&s, &code, "check_in_instructions", |m| m["dueAt"] != "2026-11-25T13:00:00.000Z")
            .await;
    assert_eq!(
        (held["status"].as_str(), held["dueAt"].as_str()),
        (Some("scheduled"), Some("2026-11-25T13:05:00.000Z")),
        "unpaid: waits"
    );
    assert!(smtp.received().iter().all(|r| !r.raw.contains("4821")), "no code went out");
    set_payment(&s, &code, rental_core::PaymentStatus::Paid);
    s.set_now("2026-11-25T13:05:00Z");
    crate::messages::wait_message(&s, &code, "check_in_instructions", |m| m["status"] == "sent").await;
    assert!(smtp.received().iter().any(|r| r.raw.contains("4821")), "the code went out once paid");
}

/// Sea View refunding everything 30 days ahead and half 7 days ahead.
fn with_policy<S: Store>(s: &TestServer<S>) {
    s.rental
        .edit_property("sea-view", |p| {
            p.payments.cancellation_policy =
                rental_core::property::CancellationPolicy::checkpoints(&[(30, 10_000), (7, 5_000)]);
        })
        .unwrap();
}

fn token_of(page: &str) -> String {
    page.split("name=\"token\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_owned()
}

async fn post_cancel<S: Store + 'static>(s: &TestServer<S>, path: &str, token: &str) -> Reply {
    let form = format!("token={token}");
    s.http
        .send_bytes(http::Method::POST, &format!("{path}/cancel"), NO_KEY, "application/x-www-form-urlencoded", form)
        .await
}

#[tokio::test]
async fn a_guest_cancels_in_two_steps_and_sees_the_refund_first() {
    let s = TestServer::memory().await; // 2026-11-22: 28 days before the 20th
    with_policy(&s);
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let total = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["total"].as_i64().unwrap();
    let path = stay_path(&s, &code).await;
    assert!(total > 0);
    // Nothing was paid (no provider here): the policy's share is worded, and no refund is promised.
    let nothing = "gives back 50% of the total; nothing has been paid here, so nothing is refunded";
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains(nothing), "{page}");
    let review = s.http.get(&format!("{path}/cancel"), NO_KEY).await;
    let review = review.expect(200).text();
    assert!(review.contains(nothing) && review.contains("Yes, cancel my booking"));
    assert_eq!(
        s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["status"],
        "confirmed",
        "a look changes nothing"
    );

    let done = post_cancel(&s, &path, &token_of(&review)).await;
    assert_eq!((done.status, done.header("location")), (303, Some(path.as_str())));
    let b = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body;
    assert_eq!((b["status"].as_str(), b["cancelledBy"].as_str()), (Some("cancelled"), Some("guest")));
    assert!(s.http.get(&path, NO_KEY).await.text().contains("This booking is cancelled."));
    assert_eq!(s.http.get(&format!("{path}/cancel"), NO_KEY).await.status, 303, "nothing left to cancel");
}

#[tokio::test]
async fn a_forged_cancel_form_changes_nothing_and_the_eleventh_post_in_an_hour_is_429() {
    let s = TestServer::memory().await;
    with_policy(&s);
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = stay_path(&s, &code).await;
    let review = s.http.get(&format!("{path}/cancel"), NO_KEY).await.text();
    assert!(review.contains("still a request"), "a request may always be withdrawn: {review}");
    let token = token_of(&review);
    let (issued, rest) = token.split_once('.').unwrap();
    let forged = format!("{}.{rest}", issued.parse::<i64>().unwrap() + 1);
    for _ in 0..10 {
        post_cancel(&s, &path, &forged).await.expect(200);
    }
    assert_eq!(s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["status"], "pending");
    let limited = post_cancel(&s, &path, &token).await;
    limited.expect(429);
    assert!(limited.header("retry-after").is_some());
    assert!(limited.text().contains("Yes, cancel my booking"), "the form is kept");
    assert_eq!(s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["status"], "pending");
    s.set_now("2026-11-22T08:40:00Z");
    let lapsed = post_cancel(&s, &path, &token).await;
    assert_eq!((lapsed.status, lapsed.header("location")), (303, Some(path.as_str())), "an hour later, within 2 h");
}

#[tokio::test]
async fn a_confirmed_stay_the_policy_gives_nothing_for_is_not_offered_cancellation() {
    let s = TestServer::memory().await;
    s.rental
        .edit_property("sea-view", |p| {
            p.payments.cancellation_policy = rental_core::property::CancellationPolicy::checkpoints(&[(60, 10_000)]);
        })
        .unwrap();
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let path = stay_path(&s, &code).await;
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains("gives nothing back now") && !page.contains("/cancel\""), "{page}");
    assert_eq!(s.http.get(&format!("{path}/cancel"), NO_KEY).await.status, 303);
}

/// A confirmed stay of `check_in..check_out` whose first installment (`deposit`
/// basis points of the total) was paid through the provider; its code and total.
async fn deposit_paid<S: Store + 'static>(s: &TestServer<S>, check_in: &str, check_out: &str) -> (String, i64) {
    let code = s.book("sea-view", check_in, check_out, 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    s.rental
        .change_payments(&code, |change| {
            let first = change.records.iter_mut().find(|r| r.number == 1).expect("the deposit installment");
            (first.status, first.provider_ref) =
                (rental_core::payments::PaymentState::Succeeded, Some("pi_deposit".into()));
            first.at = Some(change.now);
            Ok(())
        })
        .unwrap();
    let total = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["total"].as_i64().unwrap();
    (code, total)
}

fn dollars(cents: i64) -> String {
    rental_core::format_amount(cents, "USD")
}

#[tokio::test]
async fn the_cancel_step_shows_the_refund_of_what_was_paid_and_the_cancellation_refunds_that() {
    let s = TestServer::memory().await; // 2026-11-22
    s.rental
        .edit_property("sea-view", |p| {
            p.payments.terms = rental_core::property::PaymentTerms::split(&[(6_000, None), (4_000, Some(10))], 48);
            p.payments.cancellation_policy =
                rental_core::property::CancellationPolicy::checkpoints(&[(30, 10_000), (7, 5_000)]);
        })
        .unwrap();
    // 49 days ahead, the policy gives back all: all that was paid (the 60 % deposit), not the total.
    let (far, total) = deposit_paid(&s, "2027-01-10", "2027-01-13").await;
    let paid = s.http.get(&format!("/api/v1/bookings/{far}"), &s.key).await.body["amountPaid"].as_i64().unwrap();
    assert_eq!(paid, rental_core::pricing::basis_points(total, 6_000), "the deposit was paid");
    let path = stay_path(&s, &far).await;
    let all = format!("you get back {} of the {} you paid", dollars(paid), dollars(paid));
    let page = s.http.get(&path, NO_KEY).await.text();
    assert!(page.contains(&all) && !page.contains(&format!("back {}", dollars(total))), "{page}");

    // 28 days ahead, 50 % of the total is refunded: the host keeps half the total, so of the 60 % paid, 10 % comes back.
    let (near, total) = deposit_paid(&s, "2026-12-20", "2026-12-23").await;
    let paid = s.http.get(&format!("/api/v1/bookings/{near}"), &s.key).await.body["amountPaid"].as_i64().unwrap();
    let kept = rental_core::payments::refund::kept(total, 5_000);
    let shown = paid - kept;
    let path = stay_path(&s, &near).await;
    let review = s.http.get(&format!("{path}/cancel"), NO_KEY).await.expect(200).text();
    let words = format!(
        "you get back {} of the {} you paid (the cancellation policy gives back 50% of the total)",
        dollars(shown),
        dollars(paid)
    );
    assert!(review.contains(&words), "{words}: {review}");
    post_cancel(&s, &path, &token_of(&review)).await.expect(303);
    let payments = s.get(&format!("/api/v1/bookings/{near}/payments"), &s.key).await.body;
    let refunded: i64 = payments["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "refund")
        .map(|r| r["amount"].as_i64().unwrap())
        .sum();
    assert_eq!(refunded, shown, "the cancellation refunds what its step showed");
}
