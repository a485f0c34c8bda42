//! The booking page is not a weapon (issue 46, 5): a request from the page
//! holds its nights for 30 minutes until its guest opens the link mailed to
//! them, a property holds at most five such requests, and that first e-mail
//! carries nothing the guest typed. Through a real SMTP server.

use http::Method;
use rental_core::MemoryStore;
use rental_server::ServerConfig;
use rental_server::book::BookConfig;
use rental_server::book::throttle::PostLimit;
use rental_tests::http::{NO_KEY, TestServer};
use rental_tests::smtp::SmtpServer;

use crate::book::{field, post, token};
use crate::messages::{WAIT, mail_config, messages, of_kind, settings};

/// What an attacker types into the page's form.
const WORDS: &str = "Security+alert%3A+verify+your+card+at+http%3A%2F%2Fevil.example";

async fn server(smtp: &SmtpServer) -> TestServer<MemoryStore> {
    let posts = PostLimit { posts: 50, ..PostLimit::default() };
    let config = ServerConfig {
        mail: mail_config(smtp),
        book: BookConfig { posts, ..BookConfig::default() },
        ..ServerConfig::default()
    };
    let s = TestServer::with_settings(MemoryStore::new(), settings(), &config).await;
    s.rental.edit_property("sea-view", |p| p.booking_page.enabled = true).expect("the page is turned on");
    s
}

/// Posts the page's form for a stay with the attacker's words as name and
/// note, to `email`; the new booking's code and its confirmation's address.
async fn request(s: &TestServer<MemoryStore>, check_in: &str, check_out: &str, email: &str) -> (String, String) {
    let token = token(s, check_in, check_out).await;
    let body = format!(
        "checkIn={check_in}&checkOut={check_out}&guests=2&guestName={WORDS}&guestEmail={email}&notes={WORDS}&token={token}"
    );
    let reply = post(s, body).await;
    reply.expect(303);
    let location = reply.header("location").expect("the confirmation").to_owned();
    let code = location.trim_start_matches("/book/sea-view/requested/").split('.').next().unwrap().to_owned();
    (code, location)
}

async fn status(s: &TestServer<MemoryStore>, code: &str) -> serde_json::Value {
    let reply = s.get(&format!("/api/v1/bookings/{code}"), &s.key).await;
    reply.expect(200);
    reply.body
}

#[tokio::test]
async fn the_first_mail_to_a_page_guest_is_a_link_without_their_words_and_the_request_waits_for_it() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let (code, _) = request(&s, "2026-12-20", "2026-12-23", "victim%40example.com").await;
    let got = smtp.wait_for(1, WAIT).await;
    let check = of_kind(&got, "Confirm your e-mail");
    assert_eq!(check.header("To"), "victim@example.com", "no name the guest typed beside the address");
    for part in [check.raw.as_str(), check.text.as_deref().unwrap(), check.html.as_deref().unwrap()] {
        assert!(!part.contains("Security") && !part.contains("evil"), "no guest-supplied text: {part}");
    }
    assert!(messages(&s, &code).await.is_empty(), "no request_received nor host_request before the check");
    let text = check.text.as_deref().unwrap();
    let link = text.lines().find(|l| l.starts_with("https://rental.example/book/sea-view/verify/")).expect("a link");
    let path = link.trim_start_matches("https://rental.example");

    let shown = s.http.get(path, NO_KEY).await;
    shown.expect(200);
    assert!(shown.text().contains("Confirm my e-mail"), "a button, not a link a mail scanner could follow");
    assert_eq!(status(&s, &code).await["status"], "pending");
    assert!(status(&s, &code).await.get("guestEmailVerifiedAt").is_none(), "opening the page verifies nothing");

    let verified =
        s.http.send_bytes(Method::POST, path, NO_KEY, "application/x-www-form-urlencoded", String::new()).await;
    verified.expect(200);
    assert!(verified.text().contains("went to the host"), "{}", verified.text());
    assert!(status(&s, &code).await["guestEmailVerifiedAt"].is_string());
    let got = smtp.wait_for(3, WAIT).await;
    of_kind(&got, "We received your request");
    of_kind(&got, "New request");

    s.set_now("2026-11-22T09:00:00Z");
    s.rental.worker().expire_due().unwrap();
    assert_eq!(status(&s, &code).await["status"], "pending", "a verified request holds its nights");
    let forged = path.replace(&code, "BK-AAAAAA");
    s.http.get(&forged, NO_KEY).await.expect(404);
}

#[tokio::test]
async fn an_unverified_page_request_frees_its_nights_after_thirty_minutes() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let (code, confirmation) = request(&s, "2026-12-20", "2026-12-23", "someone%40example.com").await;
    let page = s.http.get(&confirmation, NO_KEY).await;
    assert!(page.text().contains("within 30 minutes"), "the guest is told: {}", page.text());
    // Made at the test clock's 07:39:21; the server's expiry job runs too.
    s.set_now("2026-11-22T08:09:00Z");
    s.rental.worker().expire_due().unwrap();
    assert_eq!(status(&s, &code).await["status"], "pending", "held for 30 minutes");
    s.set_now("2026-11-22T08:10:00Z");
    s.rental.worker().expire_due().unwrap();
    let booking = status(&s, &code).await;
    assert_eq!(booking["status"], "cancelled");
    assert_eq!(booking["cancelReason"], "guest e-mail not verified");
    let nights = s.get("/api/v1/properties/sea-view/availability?from=2026-12-20&to=2026-12-23", &s.key).await;
    assert!(nights.body["nights"].as_array().unwrap().iter().all(|n| n["status"] == "available"), "{}", nights.body);
}

#[tokio::test]
async fn a_property_holds_at_most_five_unverified_page_requests() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let stays = [("2027-01-04", "2027-01-06"), ("2027-01-08", "2027-01-10"), ("2027-01-12", "2027-01-14")];
    let more = [("2027-01-16", "2027-01-18"), ("2027-01-20", "2027-01-22")];
    for (check_in, check_out) in stays.iter().chain(&more) {
        request(&s, check_in, check_out, "x%40example.com").await;
    }
    let token = token(&s, "2027-02-01", "2027-02-03").await;
    let body = format!(
        "checkIn=2027-02-01&checkOut=2027-02-03&guests=2&guestName=A&guestEmail=y%40example.com&notes=&token={token}"
    );
    let refused = post(&s, body).await;
    refused.expect(422);
    assert!(refused.text().contains("too many requests waiting"), "{}", refused.text());
    assert_eq!(s.all_bookings().await.iter().filter(|b| b["source"] == "page").count(), 5, "the sixth holds nothing");
    assert!(!field(&refused.text(), "token").is_empty(), "the form comes back");
}
