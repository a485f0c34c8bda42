//! The dashboard's guest messages over HTTP (docs/API.md section 21): a
//! booking's messages with a resend button, the property editor's wording
//! (refused faults named on their field), its preview, and a test message.

use rental_core::message::MessageKind;
use rental_tests::http::booking_body;

use crate::client::{Client, SEA_VIEW_FORM, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bookings_messages_are_listed_and_one_is_sent_again_from_its_page() {
    let s = server().await;
    let code = s
        .http
        .post("/api/v1/bookings", &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-23", 2))
        .await
        .body["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = Client::logged_in(&s.http).await;
    let page = client.get(&format!("/admin/bookings/{code}")).await;
    page.expect(200);
    let html = page.text();
    assert!(html.contains("id=\"messages\"") && html.contains("request_received"), "the messages card");
    let card = &html[html.find("id=\"messages\"").unwrap()..];
    assert!(card.contains("Lisbon time"), "the messages' times on the property's clock, its zone named");
    client.post(&format!("/admin/booking/{code}/resend"), &[("kind", "request_received")]).await.expect(303);
    let list = s.get(&format!("/api/v1/bookings/{code}/messages"), &s.key).await.body;
    let kinds: Vec<&str> = list["data"].as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["request_received", "request_received"], "a second record");
    client.post(&format!("/admin/booking/{code}/resend"), &[("kind", "check_in_instructions")]).await.expect(303);
    let after = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(after.contains("for confirmed stays only"), "the refusal is shown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_saves_wording_refuses_an_unknown_variable_on_its_field_and_previews_it() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let edit = client.get("/admin/properties/sea-view/edit").await;
    edit.expect(200);
    let html = edit.text();
    assert!(html.contains("id=\"message-preview\"") && html.contains("id=\"preview-subject\""), "a preview");
    let p = s.rental.property("sea-view").unwrap();
    let mut fields = vec![
        ("name".to_owned(), p.name.clone()),
        ("nightlyRate".to_owned(), "150.00".to_owned()),
        ("cleaningFee".to_owned(), "60.00".to_owned()),
        ("extraGuestFee".to_owned(), "20.00".to_owned()),
        ("weekendRate".to_owned(), "180.00".to_owned()),
        ("taxRate".to_owned(), "12.00".to_owned()),
        ("weeklyDiscount".to_owned(), "10.00".to_owned()),
        ("monthlyDiscount".to_owned(), "20.00".to_owned()),
        ("baseGuests".to_owned(), "2".to_owned()),
        ("maxGuests".to_owned(), "4".to_owned()),
        ("minNights".to_owned(), "2".to_owned()),
        ("maxNights".to_owned(), "28".to_owned()),
        ("checkInTime".to_owned(), "15:00".to_owned()),
        ("checkOutTime".to_owned(), "11:00".to_owned()),
        ("active".to_owned(), "yes".to_owned()),
        ("messagesForm".to_owned(), "yes".to_owned()),
        ("contactEmail".to_owned(), "host@sea-view.example".to_owned()),
        ("checkInMessage".to_owned(), "24h".to_owned()),
        ("checkOutMessage".to_owned(), "16h".to_owned()),
        ("arrivalNotes".to_owned(), "The key box is left of the door.".to_owned()),
        ("m-check_in_instructions-subject".to_owned(), "Door {{ door_cod }}".to_owned()),
    ];
    for kind in MessageKind::ALL {
        fields.push((format!("m-{kind}-enabled"), "yes".to_owned()));
    }
    let refused = client.post("/admin/properties/sea-view/edit", &as_refs(&fields)).await;
    refused.expect(422);
    assert!(refused.text().contains("data-field=\"messages.check_in_instructions.subject\""), "named on its field");
    assert!(refused.text().contains("door_cod"));
    assert_eq!(s.rental.property("sea-view").unwrap().messages.check_in_lead.to_string(), "48h", "nothing saved");
    fields.retain(|(k, _)| k != "m-check_in_instructions-subject");
    fields.push(("m-check_in_instructions-subject".to_owned(), "Your code for {{ property_name }}".to_owned()));
    client.post("/admin/properties/sea-view/edit", &as_refs(&fields)).await.expect(303);
    let saved = s.rental.property("sea-view").unwrap();
    assert_eq!(
        (saved.messages.check_in_lead.to_string(), saved.messages.contact_email.as_str()),
        ("24h".to_owned(), "host@sea-view.example")
    );
    let preview = client.get("/admin/properties/sea-view/edit?preview=check_in_instructions").await.text();
    assert!(preview.contains("Your code for Sea View Cottage"), "the preview uses the saved wording");
    assert!(preview.contains("The key box is left of the door."));
    // No mail server in this test: the test message says so.
    client
        .post("/admin/properties/sea-view/test-message", &[("kind", "confirmed"), ("to", "me@example.com")])
        .await
        .expect(303);
    let after = client.get("/admin/properties/sea-view/edit").await.text();
    assert!(after.contains("no mail server is set"), "the flash explains");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_saves_a_kinds_german_wording_refuses_a_fault_on_its_field_and_a_form_without_it_keeps_it() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let edit = client.get("/admin/properties/sea-view/edit").await.text();
    assert!(edit.contains("name=\"m-confirmed-de-subject\""), "each kind has a German wording to fill in");
    let mut fields: Vec<(String, String)> =
        SEA_VIEW_FORM.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    for (k, v) in [("messagesForm", "yes"), ("checkInMessage", "48h"), ("checkOutMessage", "16h")] {
        fields.push((k.to_owned(), v.to_owned()));
    }
    for kind in MessageKind::ALL {
        fields.push((format!("m-{kind}-enabled"), "yes".to_owned()));
        fields.push((format!("m-{kind}-de-form"), "yes".to_owned()));
    }
    let with = |subject: &str| {
        let mut f = fields.clone();
        f.push(("m-confirmed-de-subject".to_owned(), subject.to_owned()));
        f
    };
    let refused = client.post("/admin/properties/sea-view/edit", &as_refs(&with("Hallo {{ gast }}"))).await;
    refused.expect(422);
    assert!(refused.text().contains("data-field=\"messages.confirmed.locales.de.subject\""), "named on its field");
    assert!(s.rental.property("sea-view").unwrap().messages.templates.is_empty(), "nothing saved");
    let german = "Willkommen {{ guest_name }}";
    client.post("/admin/properties/sea-view/edit", &as_refs(&with(german))).await.expect(303);
    let wording = |p: &rental_core::Property| {
        p.messages.templates.get(&MessageKind::Confirmed).and_then(|t| t.locales.get(&rental_core::Locale::De)).cloned()
    };
    let saved = wording(&s.rental.property("sea-view").unwrap()).expect("the German wording is saved");
    assert_eq!(saved.subject.as_deref(), Some(german));
    assert!(client.get("/admin/properties/sea-view/edit").await.text().contains(german), "shown again");
    // A form without the German fields (posted by hand) keeps the German wording.
    let by_hand: Vec<(String, String)> = fields.iter().filter(|(k, _)| !k.ends_with("-de-form")).cloned().collect();
    client.post("/admin/properties/sea-view/edit", &as_refs(&by_hand)).await.expect(303);
    assert_eq!(wording(&s.rental.property("sea-view").unwrap()), Some(saved), "kept");
    // Emptied on the form: the built-in German wording again.
    client.post("/admin/properties/sea-view/edit", &as_refs(&fields)).await.expect(303);
    assert_eq!(wording(&s.rental.property("sea-view").unwrap()), None);
}

fn as_refs(f: &[(String, String)]) -> Vec<(&str, &str)> {
    f.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_night_and_one_guest_are_written_in_the_singular_in_the_admin() {
    let s = server().await;
    s.rental.edit_property("sea-view", |p| p.stay_rules.min_nights = 1).unwrap();
    let one = s.http.post("/api/v1/bookings", &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-21", 1)).await;
    let code = one.body["code"].as_str().unwrap().to_owned();
    s.http.post("/api/v1/bookings", &s.key, &booking_body("sea-view", "2026-12-22", "2026-12-25", 2)).await.expect(201);
    let client = Client::logged_in(&s.http).await;
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains("1 night") && !page.contains("1 nights"), "{page}");
    let list = client.get("/admin/bookings").await.text();
    assert!(list.contains("1 night · 1 guest") && list.contains("3 nights · 2 guests"), "{list}");
    let home = client.get("/admin").await.text();
    assert!(!home.contains("1 nights"), "{home}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_message_is_made_up_and_marked_test() {
    use std::time::Duration;

    use rental_server::mail::compose::parse_mailbox;
    use rental_server::mail::{MailConfig, Sender, Smtp};
    use rental_tests::smtp::SmtpServer;

    let Some(smtp) = SmtpServer::start() else { return };
    let mut config = crate::client::config(rental_server::admin::AdminConfig::default());
    config.mail = MailConfig {
        smtp: Some(Smtp::new(&smtp.url(), Some(&smtp.ca_pem()), Duration::from_secs(10)).unwrap()),
        sender: Some(Sender { from: parse_mailbox("Sea View <stay@example.com>").unwrap(), base_url: None }),
        poll: Duration::from_millis(50),
        ..MailConfig::default()
    };
    let s = rental_tests::http::TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(crate::client::PASSWORD).unwrap();
    s.rental.edit_property("sea-view", |p| p.access.arrival_notes = "The key is under the blue pot.".into()).unwrap();
    let mut body = booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
    body["guestName"] = "Real Guest".into();
    let real = s.http.post("/api/v1/bookings", &s.key, &body).await.body["code"].as_str().unwrap().to_owned();
    s.act(&real, &serde_json::json!({"action": "confirm"})).await.expect(200);
    let before = smtp.wait_for(2, Duration::from_secs(20)).await.len();
    let client = Client::logged_in(&s.http).await;
    client
        .post(
            "/admin/properties/sea-view/test-message",
            &[("kind", "check_in_instructions"), ("to", "someone@example.com")],
        )
        .await
        .expect(303);
    let got = smtp.wait_for(before + 1, Duration::from_secs(20)).await;
    let test = got.iter().find(|r| r.rcpt_tos == ["someone@example.com"]).expect("the test message");
    assert!(test.header("Subject").starts_with("[Test] "), "{}", test.header("Subject"));
    let door = s.rental.booking(&real).unwrap().visit.access.map(|a| a.code).unwrap_or_default();
    for part in [test.text.as_deref().unwrap(), test.html.as_deref().unwrap()] {
        assert!(!part.contains("4821") && (door.is_empty() || !part.contains(&door)), "no live door code: {part}");
        assert!(!part.contains("Real Guest") && !part.contains(&real), "no real guest: {part}");
        assert!(!part.contains("blue pot"), "no private arrival notes: {part}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_server_that_refuses_is_a_warning_on_the_dashboard_until_a_message_goes_through() {
    use std::time::{Duration, Instant};

    use rental_server::mail::compose::parse_mailbox;
    use rental_server::mail::{MailConfig, Sender, Smtp};
    use rental_tests::smtp::SmtpServer;

    let Some(mut smtp) = SmtpServer::start() else { return };
    smtp.stop();
    let mut config = crate::client::config(rental_server::admin::AdminConfig::default());
    config.mail = MailConfig {
        smtp: Some(Smtp::new(&smtp.url(), Some(&smtp.ca_pem()), Duration::from_secs(5)).unwrap()),
        sender: Some(Sender { from: parse_mailbox("Sea View <stay@example.com>").unwrap(), base_url: None }),
        retries: vec![Duration::from_millis(300); 5],
        poll: Duration::from_millis(50),
        ..MailConfig::default()
    };
    let s = rental_tests::http::TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(crate::client::PASSWORD).unwrap();
    let client = Client::logged_in(&s.http).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !client.get("/admin").await.text().contains("id=\"mail-trouble\"") {
        assert!(Instant::now() < deadline, "no warning on the dashboard");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    s.http.get("/readyz", rental_tests::http::NO_KEY).await.expect(200);

    smtp.restart();
    s.http.post("/api/v1/bookings", &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-23", 2)).await.expect(201);
    smtp.wait_for(1, Duration::from_secs(20)).await;
    while client.get("/admin").await.text().contains("id=\"mail-trouble\"") {
        assert!(Instant::now() < deadline + Duration::from_secs(20), "the warning stays after a send");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pending_list_says_when_each_request_lapses_on_its_propertys_clock() {
    let s = server().await;
    let made = s.http.post("/api/v1/bookings", &s.key, &booking_body("sea-view", "2026-12-20", "2026-12-23", 2)).await;
    let code = made.body["code"].as_str().unwrap().to_owned();
    let client = Client::logged_in(&s.http).await;
    let home = client.get("/admin").await.text();
    let line = format!("{code} lapses unless confirmed by Mon 23 Nov 2026, 07:39 Lisbon time");
    assert!(home.contains(&line), "{home}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_messages_go_ten_an_hour_per_property_and_each_is_listed_in_the_editor() {
    use std::time::Duration;

    use rental_server::mail::compose::parse_mailbox;
    use rental_server::mail::{MailConfig, Sender, Smtp};
    use rental_tests::smtp::SmtpServer;

    let Some(smtp) = SmtpServer::start() else { return };
    let mut config = crate::client::config(rental_server::admin::AdminConfig::default());
    config.mail = MailConfig {
        smtp: Some(Smtp::new(&smtp.url(), Some(&smtp.ca_pem()), Duration::from_secs(10)).unwrap()),
        sender: Some(Sender { from: parse_mailbox("Sea View <stay@example.com>").unwrap(), base_url: None }),
        poll: Duration::from_millis(50),
        ..MailConfig::default()
    };
    let s = rental_tests::http::TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(crate::client::PASSWORD).unwrap();
    let client = Client::logged_in(&s.http).await;
    let send = |to: &'static str| {
        let client = &client;
        async move {
            client
                .post("/admin/properties/sea-view/test-message", &[("kind", "confirmed"), ("to", to)])
                .await
                .expect(303);
            client.get("/admin/properties/sea-view/edit").await.text()
        }
    };
    for _ in 0..10 {
        let page = send("host@example.com").await;
        assert!(page.contains("A test confirmed message went to host@example.com."), "{page}");
    }
    smtp.wait_for(10, Duration::from_secs(20)).await;
    // The eleventh within the hour is refused in words, and nothing goes out.
    let page = send("other@example.com").await;
    assert!(page.contains("At most 10 test messages an hour are sent for a property: the next can go at"), "{page}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(smtp.received_count(), 10, "the eleventh was not sent");
    assert!(!smtp.received().iter().any(|r| r.rcpt_tos == ["other@example.com"]));
    // Each one sent is listed in the editor, with where it went and how it went.
    let rows = page.matches("<tr data-test-message=").count();
    assert_eq!(rows, 10, "{page}");
    assert!(page.contains("<td>host@example.com</td><td>sent</td>"), "{page}");
    let recorded = s.rental.test_messages().recent("sea-view", chrono::Duration::hours(1)).unwrap();
    assert_eq!(recorded.len(), 10);
    // Another property has its own allowance; an hour later this one has its again.
    client
        .post("/admin/properties/harbour-loft/test-message", &[("kind", "confirmed"), ("to", "loft@example.com")])
        .await
        .expect(303);
    smtp.wait_for(11, Duration::from_secs(20)).await;
    s.clock.advance(chrono::TimeDelta::minutes(61));
    let page = send("later@example.com").await;
    assert!(page.contains("A test confirmed message went to later@example.com."), "{page}");
}
