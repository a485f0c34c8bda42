//! What a guest or host reads in messages (issue 44) through a real SMTP
//! server: who a new request replies to, plurals, the reminder's day, the
//! clock of the property, the wording of a lapsed request, and the host told
//! before a request lapses.

use rental_core::MemoryStore;
use rental_tests::http::TestServer;
use rental_tests::smtp::SmtpServer;

use crate::messages::{WAIT, of_kind, server};

/// A pending request of `guests` for `check_in..check_out` at sea-view; its code.
async fn requested(s: &TestServer<MemoryStore>, check_in: &str, check_out: &str, guests: u32) -> String {
    s.book("sea-view", check_in, check_out, guests).await["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_hosts_new_request_replies_to_the_guest() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    requested(&s, "2026-12-20", "2026-12-23", 2).await;
    let got = smtp.wait_for(2, WAIT).await;
    let host = of_kind(&got, "New request");
    assert_eq!(host.header("Reply-To"), "Ada Lovelace <ada@example.com>", "the host answers the guest");
    let guest = of_kind(&got, "We received your request");
    assert_eq!(guest.header("Reply-To"), "Sea View <stay@example.com>", "the guest answers the property");
}

#[tokio::test]
async fn one_night_and_one_guest_are_written_in_the_singular() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    s.rental.edit_property("sea-view", |p| p.stay_rules.min_nights = 1).unwrap();
    let code = requested(&s, "2026-12-20", "2026-12-21", 1).await;
    let got = smtp.wait_for(2, WAIT).await;
    for received in [of_kind(&got, "We received your request"), of_kind(&got, "New request")] {
        for part in [received.text.as_deref().unwrap(), received.html.as_deref().unwrap()] {
            assert!(part.contains("1 night, 1 guest,"), "{part}");
            assert!(!part.contains("1 nights") && !part.contains("1 guests"), "{part}");
        }
    }
    requested(&s, "2026-12-22", "2026-12-25", 2).await;
    let got = smtp.wait_for(4, WAIT).await;
    assert!(got.iter().any(|r| r.text.as_deref().unwrap().contains("3 nights, 2 guests,")), "plurals stay plural");
    assert!(!code.is_empty());
}

#[tokio::test]
async fn the_check_out_reminder_names_the_day() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let code = requested(&s, "2026-12-20", "2026-12-23", 2).await;
    crate::messages::confirm(&s, &code).await;
    smtp.wait_for(3, WAIT).await;
    crate::messages::quiet(&s).await;
    s.set_now("2026-12-22T19:00:00Z");
    let got = smtp.wait_for(5, WAIT).await;
    let reminder = of_kind(&got, "Check-out on");
    assert_eq!(reminder.header("Subject"), "Check-out on Wednesday 23 December 2026 by 11:00");
    assert!(!reminder.header("Subject").contains("tomorrow"));
}

#[tokio::test]
async fn one_clock_per_property_on_the_page_and_in_the_e_mails_with_the_zone_named() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    for (zone, check_in, zone_words) in [
        (chrono_tz::Europe::Athens, "16:00", "Athens time"),
        (chrono_tz::America::New_York, "4:00 PM", "New York time"),
    ] {
        s.rental
            .edit_property("sea-view", |p| {
                p.timezone = zone;
                p.stay_rules.check_in_time = rental_core::ClockTime::parse("16:00").unwrap();
                p.booking_page.enabled = true;
            })
            .unwrap();
        let page = s.http.get("/book/sea-view", rental_tests::http::NO_KEY).await.text();
        assert!(page.contains(&format!("Check-in from {check_in}")), "{zone}: {page}");
        let before = smtp.received().len();
        let code = requested(&s, "2026-12-20", "2026-12-23", 2).await;
        crate::messages::confirm(&s, &code).await;
        crate::messages::quiet(&s).await;
        s.set_now("2026-12-19T12:00:00Z");
        let got = smtp.wait_for(before + 4, WAIT).await;
        let confirmed = got[before..].iter().find(|r| r.header("Subject").contains("is confirmed")).unwrap();
        assert!(confirmed.text.as_deref().unwrap().contains(&format!("Check-in is from {check_in}")), "{zone}");
        let arrival = got[before..].iter().find(|r| r.header("Subject").contains("door code")).unwrap();
        let text = arrival.text.as_deref().unwrap();
        assert!(text.contains(zone_words) && text.contains(&format!("check-in is from {check_in}")), "{text}");
        s.act(&code, &serde_json::json!({"action": "cancel"})).await.expect(200);
        crate::messages::quiet(&s).await;
        s.set_now("2026-11-22T07:39:21.123Z");
    }
}

#[tokio::test]
async fn the_host_is_told_two_hours_before_an_unanswered_request_lapses() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    let waiting = requested(&s, "2026-12-20", "2026-12-23", 2).await;
    let answered = requested(&s, "2027-01-10", "2027-01-13", 2).await;
    smtp.wait_for(4, WAIT).await;
    crate::messages::confirm(&s, &answered).await;
    smtp.wait_for(5, WAIT).await;
    crate::messages::quiet(&s).await;

    // checkoutTtl is 24 hours: 22 hours on, the request left unanswered has two to go.
    s.clock.advance(chrono::TimeDelta::hours(22));
    let got = smtp.wait_for(6, WAIT).await;
    crate::messages::quiet(&s).await;
    let expiring = of_kind(&got, "lapses in two hours");
    assert_eq!(expiring.rcpt_tos, ["host@example.com"]);
    assert!(expiring.header("Subject").contains(&waiting), "{}", expiring.header("Subject"));
    assert_eq!(expiring.header("Reply-To"), "Ada Lovelace <ada@example.com>", "the host answers the guest");
    assert!(expiring.text.as_deref().unwrap().contains("Confirm or decline it"));
    let told = got.iter().filter(|r| r.header("Subject").contains("lapses in two hours")).count();
    assert_eq!(told, 1, "the confirmed request is not announced");
    let answered_messages = crate::messages::messages(&s, &answered).await;
    let cancelled = answered_messages.iter().find(|m| m["kind"] == "host_request_expiring").unwrap();
    assert_eq!(cancelled["status"], "cancelled");
}
