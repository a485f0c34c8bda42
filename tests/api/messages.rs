//! Guest messages (docs/API.md section 21) end to end: a real server sends
//! them to a real SMTP server (aiosmtpd, STARTTLS and AUTH, `rental_tests::smtp`)
//! whose parse of each message is checked: recipients, headers, both parts,
//! the door code only in the instructions. Timing runs on the engine's clock.

use std::time::Duration;

use chrono::TimeDelta;
use rental_core::message::MessageKind;
use rental_core::property::Property;
use rental_core::store::{Store, WriteTx};
use rental_core::{Clock, MemoryStore, Settings, demo};
use rental_server::ServerConfig;
use rental_server::mail::compose::parse_mailbox;
use rental_server::mail::{MailConfig, MessageOutcome, Sender, Smtp};
use rental_tests::http::{NO_KEY, TestServer, booking_body};
use rental_tests::smtp::{Received, SmtpServer};
use serde_json::{Value, json};

pub(crate) const WAIT: Duration = Duration::from_secs(20);

pub(crate) fn mail_config(smtp: &SmtpServer) -> MailConfig {
    MailConfig {
        smtp: Some(Smtp::new(&smtp.url(), Some(&smtp.ca_pem()), Duration::from_secs(10)).expect("a transport")),
        sender: Some(Sender {
            from: parse_mailbox("Sea View <stay@example.com>").expect("an address"),
            base_url: Some("https://rental.example".into()),
        }),
        retries: vec![Duration::from_secs(60), Duration::from_secs(300)],
        lease: Duration::from_secs(5),
        poll: Duration::from_millis(50),
        max_in_flight: 16,
        stay_links: None,
    }
}

pub(crate) fn settings() -> Settings {
    Settings { host_email: "host@example.com".into(), ..Settings::default() }
}

pub(crate) async fn server(smtp: &SmtpServer) -> TestServer<MemoryStore> {
    let config = ServerConfig { mail: mail_config(smtp), ..ServerConfig::default() };
    TestServer::with_settings(MemoryStore::new(), settings(), &config).await
}

/// The booking's messages as the API lists them.
pub(crate) async fn messages(s: &TestServer<MemoryStore>, code: &str) -> Vec<Value> {
    let reply = s.get(&format!("/api/v1/bookings/{code}/messages"), &s.key).await;
    reply.expect(200);
    reply.body["data"].as_array().expect("data").clone()
}

/// Waits until the message of `kind` (the last one) satisfies `done`.
pub(crate) async fn wait_message(
    s: &TestServer<MemoryStore>,
    code: &str,
    kind: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let list = messages(s, code).await;
        if let Some(m) = list.iter().rev().find(|m| m["kind"] == kind)
            && done(m)
        {
            return m.clone();
        }
        assert!(std::time::Instant::now() < until, "{kind} never got there: {list:#?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until no message of the server is due and unsent: every send in
/// flight has been recorded. Call it before moving the clock, which would
/// otherwise let the leases of sends in flight lapse at once.
pub(crate) async fn quiet(s: &TestServer<MemoryStore>) {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let now = s.clock.now();
        let mut busy = Vec::new();
        for b in s.all_bookings().await {
            for m in messages(s, b["code"].as_str().unwrap()).await {
                let due = m["dueAt"].as_str().and_then(|d| d.parse::<chrono::DateTime<chrono::Utc>>().ok());
                if m["status"] == "scheduled" && due.is_some_and(|d| d <= now) {
                    busy.push(m);
                }
            }
        }
        if busy.is_empty() {
            return;
        }
        assert!(std::time::Instant::now() < until, "still due: {busy:#?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn of_kind<'a>(got: &'a [Received], subject_part: &str) -> &'a Received {
    got.iter()
        .find(|r| r.header("Subject").contains(subject_part))
        .unwrap_or_else(|| panic!("no {subject_part:?} in {got:#?}"))
}

pub(crate) async fn confirm(s: &TestServer<MemoryStore>, code: &str) {
    s.act(code, &json!({"action": "confirm"})).await.expect(200);
}

#[tokio::test]
async fn a_request_and_its_confirmation_reach_guest_and_host_with_every_header() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    let got = smtp.wait_for(2, WAIT).await;
    let guest = of_kind(&got, "We received your request");
    assert_eq!(guest.rcpt_tos, ["ada@example.com"]);
    assert!(guest.tls && guest.authenticated, "STARTTLS and AUTH were used");
    assert_eq!(guest.header("From"), "Sea View <stay@example.com>");
    assert_eq!(guest.header("Reply-To"), "Sea View <stay@example.com>", "no contactEmail: mailFrom");
    assert_eq!(guest.header("To"), "Ada Lovelace <ada@example.com>");
    assert!(!guest.header("Date").is_empty());
    let id = guest.header("Message-ID");
    assert!(id.starts_with("<msg_") && id.ends_with(&format!(".{}@example.com>", code.to_lowercase())), "{id}");
    assert_eq!(guest.content_type, "multipart/alternative");
    assert!(guest.text.as_deref().unwrap().contains(code) && guest.html.as_deref().unwrap().contains(code));
    let host = of_kind(&got, "New request");
    assert_eq!(host.rcpt_tos, ["host@example.com"]);
    assert!(host.text.as_deref().unwrap().contains("ada@example.com"));

    confirm(&s, code).await;
    let got = smtp.wait_for(3, WAIT).await;
    of_kind(&got, "is confirmed");
    let list = wait_message(&s, code, "confirmed", |m| m["status"] == "sent").await;
    assert_eq!(list["attempts"], 1);
    let all = messages(&s, code).await;
    let kinds: Vec<&str> = all.iter().map(|m| m["kind"].as_str().unwrap()).collect();
    let want = [
        "request_received",
        "host_request",
        "host_request_expiring",
        "confirmed",
        "check_in_instructions",
        "check_out_reminder",
    ];
    assert_eq!(kinds, want);
    assert_eq!(all[2]["status"], "cancelled", "the request was answered: the host needs no reminder");
    assert_eq!(
        (all[4]["status"].as_str(), all[4]["dueAt"].as_str()),
        (Some("scheduled"), Some("2026-12-18T15:00:00.000Z"))
    );
    assert_eq!(all[5]["dueAt"], "2026-12-22T19:00:00.000Z");
    assert!(smtp.received().iter().all(|r| !r.raw.contains("4821")), "no door code before the instructions");

    quiet(&s).await;

    s.set_now("2026-12-18T15:00:00Z");
    let got = smtp.wait_for(4, WAIT).await;
    let instructions = of_kind(&got, "your door code");
    for part in [instructions.text.as_deref().unwrap(), instructions.html.as_deref().unwrap()] {
        assert!(part.contains("4821") && part.contains("SeaView-Guest"), "{part}");
    }
    quiet(&s).await;
    s.set_now("2026-12-22T19:00:00Z");
    let got = smtp.wait_for(5, WAIT).await;
    let reminder = of_kind(&got, "Check-out on Wednesday 23 December 2026 by 11:00");
    assert!(!reminder.raw.contains("4821"));
    let ids: std::collections::HashSet<&str> = got.iter().map(|r| r.header("Message-ID")).collect();
    assert_eq!(ids.len(), 5, "one Message-ID per record");
}

#[tokio::test]
async fn without_a_mail_server_messages_are_skipped_and_nothing_else_fails() {
    let s = TestServer::memory().await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    let m = wait_message(&s, code, "request_received", |m| m["status"] == "skipped").await;
    assert_eq!(m["error"], "no_mail_server");
    confirm(&s, code).await;
}

/// A copy of Sea View named `slug`, changed by `edit`.
fn property(slug: &str, edit: impl FnOnce(&mut Property)) -> Property {
    let mut p = demo::sea_view();
    p.slug = rental_core::Slug::parse(slug).unwrap();
    p.name = format!("House {slug}");
    edit(&mut p);
    p
}

#[tokio::test]
async fn instructions_go_48_hours_of_wall_clock_before_the_window_in_new_york_across_the_dst_change() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    s.rental
        .import_properties(&[property("brooklyn", |p| {
            p.timezone = chrono_tz::America::New_York;
            p.access.door_code_mode = rental_core::access::DoorCodeMode::PerStay;
        })])
        .unwrap();
    let booking = s.book("brooklyn", "2027-03-15", "2027-03-17", 2).await;
    let code = booking["code"].as_str().unwrap();
    confirm(&s, code).await;
    let door =
        s.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["access"]["code"].as_str().unwrap().to_owned();
    // The window opens at 15:00 EDT on the 15th (19:00Z); the clocks moved on the 14th,
    // so 48 hours of wall clock earlier is 15:00 EST on the 13th: 20:00Z, 47 hours of UTC.
    let all = messages(&s, code).await;
    let timed: Vec<&Value> = all.iter().filter(|m| m["kind"].as_str().unwrap().starts_with("check_")).collect();
    assert_eq!(timed[0]["dueAt"], "2027-03-13T20:00:00.000Z");
    assert_eq!(timed[1]["dueAt"], "2027-03-16T23:00:00.000Z", "16 h before 11:00 EDT on the 17th: 19:00 EDT");
    smtp.wait_for(3, WAIT).await;
    quiet(&s).await;
    s.set_now("2027-03-13T19:59:59Z");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(smtp.received().len(), 3, "not a second early");
    quiet(&s).await;
    s.set_now("2027-03-13T20:00:00Z");
    let got = smtp.wait_for(4, WAIT).await;
    let instructions = &got[3];
    assert!(instructions.header("Subject").contains("door code"));
    assert!(instructions.text.as_deref().unwrap().contains(&door), "the stay's own code");
    assert!(got[..3].iter().all(|r| !r.raw.contains(&door)), "only the instructions carry it");
}

#[tokio::test]
async fn a_one_night_stays_instructions_arrive_before_its_reminder_and_late_ones_are_skipped() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    s.rental.import_properties(&[property("one-night", |p| p.stay_rules.min_nights = 1)]).unwrap();
    let first = s.book("one-night", "2026-12-20", "2026-12-21", 2).await;
    let late = s.book("one-night", "2026-12-10", "2026-12-11", 2).await;
    for b in [&first, &late] {
        confirm(&s, b["code"].as_str().unwrap()).await;
    }
    // request_received, host_request and confirmed of each.
    let before = smtp.wait_for(6, WAIT).await.len();
    // The server was down from now until the morning of the 21st: the stay's two messages are due.
    quiet(&s).await;
    s.set_now("2026-12-21T09:00:00Z");
    let code = first["code"].as_str().unwrap();
    wait_message(&s, code, "check_out_reminder", |m| m["status"] == "sent").await;
    let got_now = smtp.received();
    let timed: Vec<&str> = got_now[before..].iter().map(|r| r.header("Subject")).collect();
    assert_eq!(timed.len(), 2, "{timed:?}");
    assert!(timed[0].contains("door code") && timed[1].contains("Check-out"), "in order: {timed:?}");
    // The earlier stay ended on the 11th: neither of its messages makes sense any more.
    let late_code = late["code"].as_str().unwrap();
    let i = wait_message(&s, late_code, "check_in_instructions", |m| m["status"] == "skipped").await;
    assert_eq!(i["error"], "stay_ended");
    let r = wait_message(&s, late_code, "check_out_reminder", |m| m["status"] == "skipped").await;
    assert_eq!(r["error"], "departed");
}

#[tokio::test]
async fn a_change_re_times_and_announces_and_a_cancellation_cancels_what_is_scheduled() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    confirm(&s, code).await;
    let change = json!({"action": "change", "checkIn": "2026-12-27", "checkOut": "2026-12-30"});
    s.act(code, &change).await.expect(200);
    let got = smtp.wait_for(4, WAIT).await;
    let changed = of_kind(&got, "has changed");
    assert!(changed.text.as_deref().unwrap().contains("Sunday 27 December 2026"));
    let all = messages(&s, code).await;
    let instructions = all.iter().find(|m| m["kind"] == "check_in_instructions").unwrap();
    assert_eq!(instructions["dueAt"], "2026-12-25T15:00:00.000Z", "re-timed, not a second record");
    s.act(code, &json!({"action": "cancel", "reason": "plans changed"})).await.expect(200);
    let got = smtp.wait_for(5, WAIT).await;
    assert!(of_kind(&got, "is cancelled").text.as_deref().unwrap().contains("plans changed"));
    let all = messages(&s, code).await;
    for kind in ["check_in_instructions", "check_out_reminder"] {
        let m = all.iter().find(|m| m["kind"] == kind).unwrap();
        assert_eq!(
            (m["status"].as_str(), m["error"].as_str()),
            (Some("cancelled"), Some("booking_cancelled")),
            "{kind}"
        );
    }
    quiet(&s).await;
    s.set_now("2026-12-26T00:00:00Z");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(smtp.received().len(), 5, "nothing goes out for a cancelled stay");
}

#[tokio::test]
async fn instructions_already_sent_go_again_when_the_dates_change() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    confirm(&s, code).await;
    quiet(&s).await;
    s.set_now("2026-12-18T16:00:00Z");
    smtp.wait_for(4, WAIT).await;
    s.act(code, &json!({"action": "change", "checkIn": "2026-12-19", "checkOut": "2026-12-23"})).await.expect(200);
    wait_message(&s, code, "check_in_instructions", |m| {
        m["status"] == "sent" && m["dueAt"] != "2026-12-18T15:00:00.000Z"
    })
    .await;
    let got = smtp.wait_for(6, WAIT).await;
    let again: Vec<&Received> = got.iter().filter(|r| r.header("Subject").contains("door code")).collect();
    assert_eq!(again.len(), 2, "sent again at once: the new window is inside the lead");
    assert!(again[1].text.as_deref().unwrap().contains("Saturday 19 December 2026"));
    assert_ne!(again[0].header("Message-ID"), again[1].header("Message-ID"), "a new record");
}

#[tokio::test]
async fn a_lapsed_checkout_sends_the_cancellation_in_its_own_wording() {
    let Some(smtp) = SmtpServer::start() else { return };
    let config = ServerConfig { mail: mail_config(&smtp), ..ServerConfig::default() };
    let settings = Settings { checkout_ttl: Some(TimeDelta::seconds(2)), ..settings() };
    let s = TestServer::with_settings(MemoryStore::new(), settings, &config).await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    smtp.wait_for(2, WAIT).await;
    quiet(&s).await;
    s.clock.advance(TimeDelta::seconds(3));
    let got = smtp.wait_for(3, WAIT).await;
    let lapsed = of_kind(&got, "has lapsed");
    assert!(lapsed.text.as_deref().unwrap().contains("the host did not answer it in time"));
    assert_eq!(lapsed.rcpt_tos, [booking["guestEmail"].as_str().unwrap()]);
}

#[tokio::test]
async fn a_request_from_the_booking_page_tells_guest_and_host() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    s.rental.edit_property("sea-view", |p| p.booking_page.enabled = true).unwrap();
    let page = s.http.get("/book/sea-view?checkIn=2026-12-20&checkOut=2026-12-23&guests=2", NO_KEY).await;
    let text = page.text();
    let needle = "name=\"token\" value=\"";
    let start = text.find(needle).expect("a form token") + needle.len();
    let token = text[start..].split('"').next().unwrap();
    let form = format!(
        "checkIn=2026-12-20&checkOut=2026-12-23&guests=2&guestName=Grace+Hopper&guestEmail=grace%40example.com\
         &notes=Arriving+late&token={token}&reference="
    );
    let reply = s
        .http
        .send_bytes(http::Method::POST, "/book/sea-view", NO_KEY, "application/x-www-form-urlencoded", form)
        .await;
    reply.expect(303);
    // Once the guest opened the link of the first e-mail (issue 46, 5: the page verifies its guests).
    let check = smtp.wait_for(1, WAIT).await;
    let text = of_kind(&check, "Confirm your e-mail").text.clone().unwrap();
    let link = text.lines().find(|l| l.contains("/verify/")).expect("the link");
    let path = link.trim_start_matches("https://rental.example").to_owned();
    s.http
        .send_bytes(http::Method::POST, &path, NO_KEY, "application/x-www-form-urlencoded", String::new())
        .await
        .expect(200);
    let got = smtp.wait_for(3, WAIT).await;
    assert_eq!(of_kind(&got, "We received").rcpt_tos, ["grace@example.com"]);
    let host = of_kind(&got, "New request");
    assert!(
        host.text.as_deref().unwrap().contains("(page)") && host.text.as_deref().unwrap().contains("Arriving late")
    );
    // The page's links go to the public URL.
    assert!(of_kind(&got, "We received").text.is_some());
}

#[tokio::test]
async fn a_451_is_retried_on_the_schedule_and_a_550_fails_at_once() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    smtp.script(&["451", "550"]);
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    // request_received meets the 451 first (a booking's messages go in order), host_request the 550.
    let m = wait_message(&s, code, "request_received", |m| m["attempts"] == 1).await;
    assert_eq!(m["status"], "scheduled");
    assert!(m["error"].as_str().unwrap().contains("451"), "{m}");
    let host = wait_message(&s, code, "host_request", |m| m["status"] != "scheduled").await;
    assert_eq!(host["status"], "failed");
    assert!(host["error"].as_str().unwrap().contains("550"), "{host}");
    assert_eq!(smtp.received().len(), 0);
    quiet(&s).await;
    s.clock.advance(TimeDelta::seconds(61));
    let m = wait_message(&s, code, "request_received", |m| m["status"] == "sent").await;
    assert_eq!((m["attempts"].as_u64(), m["error"].as_str()), (Some(2), None));
    quiet(&s).await;
    s.clock.advance(TimeDelta::hours(1));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = smtp.received();
    assert_eq!(got.len(), 1, "the 550 is not retried: {got:#?}");
    assert_eq!(wait_message(&s, code, "host_request", |_| true).await["attempts"], 1);
}

#[tokio::test]
async fn a_mail_server_that_is_down_is_retried_once_it_is_back() {
    let Some(mut smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    smtp.stop();
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    let m = wait_message(&s, code, "request_received", |m| m["attempts"] == 1).await;
    assert_eq!(m["status"], "scheduled");
    assert!(!m["error"].as_str().unwrap().is_empty());
    smtp.restart();
    quiet(&s).await;
    s.clock.advance(TimeDelta::seconds(61));
    let got = smtp.wait_for(2, WAIT).await;
    assert!(got.iter().any(|r| r.rcpt_tos == ["ada@example.com"]));
}

#[tokio::test]
async fn no_input_adds_a_header_line() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    // At the edge, every such field is refused (notes take line breaks, never a separator: see the end).
    for bad in ["Eve\r\nBcc: evil@example.com", "Eve\nBcc: evil@example.com", "Eve\u{2028}Bcc: evil@example.com"] {
        let mut body = booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
        body["guestName"] = json!(bad);
        s.post("/api/v1/bookings", &s.key, &body).await.expect(422);
        if bad.contains('\u{2028}') {
            let mut body = booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
            body["notes"] = json!(bad);
            s.post("/api/v1/bookings", &s.key, &body).await.expect(422);
        }
        let named = property("evil-name", |p| p.name = bad.to_owned());
        assert!(s.rental.import_properties(&[named]).is_err(), "{bad:?}");
    }
    // Past the edge (a store written by an older version, say), the sender still makes one line of each.
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    smtp.wait_for(2, WAIT).await;
    {
        let mut b = s.rental.booking(code).unwrap();
        b.guest_name = "Eve\r\nBcc: evil@example.com\u{2028}Cc: evil2@example.com".into();
        let mut p = s.rental.property("sea-view").unwrap();
        p.name = "Sea\r\nX-Injected: yes".into();
        p.messages.templates.insert(
            MessageKind::RequestReceived,
            serde_json::from_value(json!({"subject": "Hi {{ guest_name }} at {{ property_name }}"})).unwrap(),
        );
        let mut tx = s.rental.store().write().unwrap();
        tx.put_booking(&b).unwrap();
        tx.put_property(&p).unwrap();
        tx.commit().unwrap();
    }
    // A kind that fits the pending booking (a confirmation of it would be refused).
    s.post(&format!("/api/v1/bookings/{code}/messages"), &s.key, &json!({"kind": "request_received"}))
        .await
        .expect(202);
    let got = smtp.wait_for(3, WAIT).await;
    let m = &got[2];
    assert_eq!(m.rcpt_tos, ["ada@example.com"], "no extra recipient");
    for name in ["Bcc", "Cc", "X-Injected"] {
        assert!(m.all(name).is_empty(), "{name} header added: {:?}", m.headers);
    }
    assert!(
        m.header("Subject").starts_with("Hi Eve Bcc: evil@example.com Cc: evil2@example.com at Sea X-Injected: yes"),
        "{}",
        m.header("Subject")
    );
    assert!(!m.header("To").contains(['\r', '\n']));

    // Notes take paragraphs: their line breaks stay in the host's message body, never make a header.
    let mut body = booking_body("sea-view", "2027-01-10", "2027-01-13", 2);
    body["notes"] = json!("Eve\r\nBcc: evil@example.com");
    s.post("/api/v1/bookings", &s.key, &body).await.expect(201);
    let got = smtp.wait_for(5, WAIT).await;
    for m in &got[3..] {
        assert!(!m.rcpt_tos.iter().any(|to| to.contains("evil")), "an extra recipient: {:?}", m.rcpt_tos);
        for name in ["Bcc", "Cc"] {
            assert!(m.all(name).is_empty(), "{name} header added: {:?}", m.headers);
        }
    }
}

#[tokio::test]
async fn a_resend_is_a_new_record_sent_at_once_and_refusals_name_the_kind() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    smtp.wait_for(2, WAIT).await;
    let refused =
        s.post(&format!("/api/v1/bookings/{code}/messages"), &s.key, &json!({"kind": "check_in_instructions"})).await;
    refused.expect(409);
    assert_eq!(refused.body["code"], "cannot_send");
    s.post(&format!("/api/v1/bookings/{code}/messages"), &s.key, &json!({"kind": "fax"})).await.expect(422);
    s.post(&format!("/api/v1/bookings/{code}/messages"), &s.read_key, &json!({"kind": "request_received"}))
        .await
        .expect(403);
    let reply =
        s.post(&format!("/api/v1/bookings/{code}/messages"), &s.key, &json!({"kind": "request_received"})).await;
    reply.expect(202);
    assert_eq!(
        (reply.body["status"].as_str(), reply.body["kind"].as_str()),
        (Some("scheduled"), Some("request_received"))
    );
    let got = smtp.wait_for(3, WAIT).await;
    assert_ne!(got[0].header("Message-ID"), got[2].header("Message-ID"));
    s.get("/api/v1/bookings/BK-NOSUCH/messages", &s.key).await.expect(404);
    let _ = MessageOutcome::Sent;
}

#[tokio::test]
async fn a_password_in_the_smtp_url_goes_only_over_starttls_unless_the_url_says_tls_none() {
    let Some(smtp) = SmtpServer::start() else { return };
    // The account without `?tls=required`: the password must still never go out in clear.
    let url = smtp.url().replace("?tls=required", "");
    let transport = Smtp::new(&url, Some(&smtp.ca_pem()), Duration::from_secs(10)).expect("a transport");
    let config =
        ServerConfig { mail: MailConfig { smtp: Some(transport), ..mail_config(&smtp) }, ..ServerConfig::default() };
    let s = TestServer::with_settings(MemoryStore::new(), settings(), &config).await;
    s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let got = smtp.wait_for(1, WAIT).await;
    assert!(got[0].tls && got[0].authenticated, "STARTTLS before AUTH");

    // A plain relay that offers no STARTTLS never sees the password: the message waits instead.
    let Some(plain) = SmtpServer::start_plain() else { return };
    let url = format!("smtp://user:secret@127.0.0.1:{}", plain.port);
    let transport = Smtp::new(&url, None, Duration::from_secs(10)).expect("a transport");
    let config =
        ServerConfig { mail: MailConfig { smtp: Some(transport), ..mail_config(&smtp) }, ..ServerConfig::default() };
    let s = TestServer::with_settings(MemoryStore::new(), settings(), &config).await;
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let m = wait_message(&s, &code, "request_received", |m| m["attempts"].as_u64() >= Some(1)).await;
    assert_ne!(m["status"], "sent", "{m}");
    assert_eq!(plain.received_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resend_must_fit_the_booking_s_status_and_a_booking_is_resent_at_most_five_times_a_day() {
    let s = TestServer::memory().await;
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/bookings/{code}/messages");
    let resend = |kind: &'static str| {
        let (s, path) = (&s, path.clone());
        async move { s.post(&path, &s.key, &json!({"kind": kind})).await }
    };
    for kind in ["confirmed", "cancelled", "check_out_reminder"] {
        resend(kind).await.problem(409, "cannot_send");
    }
    confirm(&s, &code).await;
    for kind in ["request_received", "host_request", "cancelled"] {
        resend(kind).await.problem(409, "cannot_send");
    }
    for _ in 0..5 {
        resend("confirmed").await.expect(202);
    }
    let sixth = resend("changed").await;
    sixth.problem(409, "cannot_send");
    assert!(sixth.body["detail"].as_str().unwrap().contains("today"), "{}", sixth.text());
    s.clock.advance(TimeDelta::hours(24));
    resend("check_in_instructions").await.expect(202);
}

/// The subject of the booking's last message of `kind`, as recorded.
async fn subject_of(s: &TestServer<MemoryStore>, code: &str, kind: &str) -> String {
    wait_message(s, code, kind, |_| true).await["subject"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_later_message_to_the_guest_waits_for_an_earlier_one_being_retried() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    smtp.script(&["451"]);
    let booking = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await;
    let code = booking["code"].as_str().unwrap();
    let first = wait_message(&s, code, "request_received", |m| m["attempts"] == 1).await;
    assert_eq!(first["status"], "scheduled", "a 451: retried in a minute");
    smtp.wait_for(1, WAIT).await; // host_request, to the host, does not wait
    // Confirmed now: its message waits for the request's, due again in a minute.
    s.act(code, &json!({"action": "confirm"})).await.expect(200);
    let confirmed = wait_message(&s, code, "confirmed", |m| m["dueAt"] == first["dueAt"]).await;
    assert_eq!((confirmed["status"].as_str(), confirmed["attempts"].as_u64()), (Some("scheduled"), Some(0)));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let to_guest = |got: &[Received]| -> Vec<String> {
        got.iter().filter(|r| r.rcpt_tos == ["ada@example.com"]).map(|r| r.header("Subject").to_owned()).collect()
    };
    assert!(to_guest(&smtp.received()).is_empty(), "nothing reached the guest before the retry");
    s.clock.advance(TimeDelta::seconds(61));
    let got = smtp.wait_for(3, WAIT).await;
    let (received, confirmed) =
        (subject_of(&s, code, "request_received").await, subject_of(&s, code, "confirmed").await);
    assert_eq!(to_guest(&got), [received, confirmed], "in the order they were recorded");
}

#[tokio::test]
async fn finished_messages_age_out_after_the_retention_and_scheduled_ones_stay() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let booking = s.book("sea-view", "2027-03-01", "2027-03-04", 2).await;
    let code = booking["code"].as_str().unwrap();
    s.act(code, &json!({"action": "confirm"})).await.expect(200);
    smtp.wait_for(3, WAIT).await; // request_received, host_request, confirmed
    quiet(&s).await;
    let kinds = |list: &[Value]| -> Vec<(String, String)> {
        list.iter()
            .map(|m| (m["kind"].as_str().unwrap().to_owned(), m["status"].as_str().unwrap().to_owned()))
            .collect()
    };
    // request_received, host_request, host_request_expiring (cancelled by the confirmation), confirmed, and two to come.
    assert_eq!(messages(&s, code).await.len(), 6, "{:?}", kinds(&messages(&s, code).await));
    s.clock.advance(TimeDelta::days(30));
    assert_eq!(s.rental.worker().prune().unwrap().messages, 0, "30 days to the millisecond: kept");
    s.clock.advance(TimeDelta::seconds(1));
    assert_eq!(s.rental.worker().prune().unwrap().messages, 4);
    let left = messages(&s, code).await;
    let scheduled = |kind: &str| (kind.to_owned(), "scheduled".to_owned());
    assert_eq!(kinds(&left), [scheduled("check_in_instructions"), scheduled("check_out_reminder")]);
    // A message recorded now comes after those left, never in a removed one's place.
    s.post(&format!("/api/v1/bookings/{code}/messages"), &s.key, &json!({"kind": "confirmed"})).await.expect(202);
    let after = messages(&s, code).await;
    assert_eq!(after.len(), 3);
    assert_eq!(after[2]["kind"], "confirmed");
    smtp.wait_for(4, WAIT).await;
}
