//! The guest's language (docs/API.md section 24): a booking's `locale` from
//! the booking page's `Accept-Language` or the API, its pages and messages in
//! English or German, dates and money written the German way, the host's
//! wording per language, and the fallbacks.

use bytes::Bytes;
use http::{Method, header};
use http_body_util::Full;
use rental_core::message::MessageKind;
use rental_core::message::template::{MessageTemplate, Wording};
use rental_core::{Error, Locale, MemoryStore};
use rental_tests::http::{NO_KEY, Reply, TestServer, booking_body};
use rental_tests::smtp::SmtpServer;
use serde_json::json;

use crate::messages::{WAIT, of_kind};

const GERMAN: &str = "de-DE,de;q=0.9,en;q=0.8";

async fn get_in(s: &TestServer<MemoryStore>, path: &str, accept: &str) -> Reply {
    let request =
        s.http.request(Method::GET, path, NO_KEY).header(header::ACCEPT_LANGUAGE, accept).body(Full::new(Bytes::new()));
    s.http.send(request.expect("a valid request")).await
}

async fn post_form_in(s: &TestServer<MemoryStore>, form: String, accept: &str) -> Reply {
    let request = s
        .http
        .request(Method::POST, "/book/sea-view", NO_KEY)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT_LANGUAGE, accept)
        .body(Full::new(Bytes::from(form)));
    s.http.send(request.expect("a valid request")).await
}

fn euro_page(s: &TestServer<MemoryStore>) {
    s.rental
        .edit_property("sea-view", |p| {
            p.booking_page.enabled = true;
            p.currency = "EUR".into();
        })
        .expect("the page is on, in euros");
}

/// What the SMTP server received once a message whose subject has `subject_part` is among it.
async fn arrived(smtp: &SmtpServer, subject_part: &str) -> Vec<rental_tests::smtp::Received> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let got = smtp.received();
        if got.iter().any(|r| r.header("Subject").contains(subject_part)) {
            return got;
        }
        assert!(std::time::Instant::now() < until, "no {subject_part:?} within {WAIT:?}: {got:#?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

async fn stay_path(s: &TestServer<MemoryStore>, code: &str) -> String {
    let url =
        s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body["stayUrl"].as_str().unwrap().to_owned();
    url[url.find("/stay/").unwrap()..].to_owned()
}

#[tokio::test]
async fn a_guest_whose_browser_asks_for_german_books_reads_and_is_mailed_in_german() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = crate::messages::server(&smtp).await;
    euro_page(&s);
    let quote = get_in(&s, "/book/sea-view?checkIn=2026-12-12&checkOut=2026-12-19&guests=2", GERMAN).await;
    let quote = quote.expect(200).text();
    assert!(quote.contains("<html lang=\"de\">"), "{quote}");
    for words in ["Wählen Sie Ihre Nächte", "Preis für 7 Nächte", "Sa., 12. Dez. 2026 bis Sa., 19. Dez. 2026, 2 Gäste"]
    {
        assert!(quote.contains(words), "{words}: {quote}");
    }
    assert!(quote.contains("Dezember 2026") && quote.contains("Buchung anfragen"), "{quote}");
    let token = crate::book::field(&quote, "token");
    let form = format!(
        "checkIn=2026-12-12&checkOut=2026-12-19&guests=2&guestName=Ada+Lovelace&guestEmail=ada%40example.com&token={token}"
    );
    let posted = post_form_in(&s, form, GERMAN).await;
    let confirmation = get_in(&s, posted.expect(303).header("location").unwrap(), "en").await.text();
    assert!(confirmation.contains("<html lang=\"de\">") && confirmation.contains("Anfrage gesendet"), "{confirmation}");

    let booking = s.all_bookings().await.into_iter().find(|b| b["source"] == "page").expect("the page's booking");
    assert_eq!(booking["locale"], "de");
    let (code, total) = (booking["code"].as_str().unwrap().to_owned(), booking["total"].as_i64().unwrap());
    assert!(total >= 100_000, "a total with thousands: {total}");
    let german_total = Locale::De.money(total, "EUR");
    assert!(german_total.ends_with(" €") && german_total.contains('.') && german_total.contains(','));
    assert!(confirmation.contains(&german_total), "{german_total} on {confirmation}");

    let page = s.http.get(&stay_path(&s, &code).await, NO_KEY).await.expect(200).text();
    assert!(page.contains("<html lang=\"de\">"), "{page}");
    for words in ["Ihr Aufenthalt in Sea View Cottage", "Sa., 12. Dez. 2026 ab 15:00 Uhr", "Ihr Türcode erscheint hier"]
    {
        assert!(page.contains(words), "{words}: {page}");
    }
    assert!(page.contains(&german_total), "{german_total} on the stay page");

    let check = arrived(&smtp, "Bestätigen Sie Ihre E-Mail-Adresse").await;
    let check = of_kind(&check, "Bestätigen Sie Ihre E-Mail-Adresse");
    assert!(check.text.as_deref().unwrap().contains("vom Sa., 12. Dez. 2026 bis Sa., 19. Dez. 2026"), "{check:?}");
    crate::messages::confirm(&s, &code).await;
    let got = arrived(&smtp, "ist bestätigt").await;
    let confirmed = of_kind(&got, "ist bestätigt");
    assert_eq!(confirmed.header("Subject"), "Ihr Aufenthalt in Sea View Cottage ist bestätigt");
    let text = confirmed.text.as_deref().unwrap();
    assert!(text.contains("vom Samstag, 12. Dezember 2026 bis Samstag, 19. Dezember 2026"), "{text}");
    assert!(text.contains(&german_total) && text.contains("Check-in ab 15:00 Uhr"), "{text}");
    let html = confirmed.html.as_deref().unwrap();
    assert!(html.contains("Hallo Ada Lovelace") && html.contains("7 Nächte, 2 Gäste"), "{html}");
}

#[tokio::test]
async fn the_api_sets_locale_a_tag_not_built_in_is_the_property_s_language_and_a_malformed_one_is_422() {
    let s = TestServer::memory().await;
    let book = |locale: serde_json::Value, check_in: &'static str, check_out: &'static str| {
        let mut body = booking_body("sea-view", check_in, check_out, 2);
        body["locale"] = locale;
        body
    };
    let de = s.post("/api/v1/bookings", &s.write_key, &book(json!("de"), "2026-12-01", "2026-12-04")).await;
    assert_eq!(de.expect(201).body["locale"], "de");
    let code = de.body["code"].as_str().unwrap().to_owned();
    let page = s.http.get(&stay_path(&s, &code).await, NO_KEY).await.text();
    assert!(page.contains("<html lang=\"de\">") && page.contains("Anfrage: wartet auf den Gastgeber"), "{page}");
    let austrian = s.post("/api/v1/bookings", &s.write_key, &book(json!("de-AT"), "2026-12-05", "2026-12-08")).await;
    assert_eq!(austrian.expect(201).body["locale"], "de");
    let french = s.post("/api/v1/bookings", &s.write_key, &book(json!("fr-CA"), "2026-12-09", "2026-12-12")).await;
    assert_eq!(french.expect(201).body["locale"], "en", "not built in: the property's language");
    let none = s.post("/api/v1/bookings", &s.write_key, &booking_body("sea-view", "2026-12-13", "2026-12-16", 2)).await;
    assert_eq!(none.expect(201).body["locale"], "en");

    let before = s.all_bookings().await.len();
    for bad in [json!("de_DE"), json!("deutsch!"), json!(""), json!("x".repeat(40))] {
        let refused = s.post("/api/v1/bookings", &s.write_key, &book(bad.clone(), "2026-12-20", "2026-12-23")).await;
        refused.problem(422, "validation_failed");
        assert_eq!(refused.error_fields(), ["locale"], "{bad}");
    }
    assert_eq!(s.all_bookings().await.len(), before, "a refused locale creates nothing");

    s.rental.edit_property("sea-view", |p| p.messages.language = Locale::De).unwrap();
    let french = s.post("/api/v1/bookings", &s.write_key, &book(json!("fr"), "2026-12-20", "2026-12-23")).await;
    assert_eq!(french.expect(201).body["locale"], "de", "a German property's fallback is German");
    let english = s.post("/api/v1/bookings", &s.write_key, &book(json!("en-GB"), "2026-12-24", "2026-12-27")).await;
    assert_eq!(english.expect(201).body["locale"], "en");
}

#[tokio::test]
async fn the_booking_page_without_a_booking_follows_accept_language_else_the_property_s_language() {
    let s = TestServer::memory().await;
    euro_page(&s);
    let english = s.http.get("/book/sea-view", NO_KEY).await.text();
    assert!(english.contains("<html lang=\"en\">") && english.contains("Pick your nights"));
    let german = get_in(&s, "/book/sea-view", "fr-FR, de;q=0.7, en;q=0.5").await.text();
    assert!(german.contains("<html lang=\"de\">") && german.contains("Wählen Sie Ihre Nächte"), "the best built in");
    assert!(german.contains("Dezember 2026") || german.contains("November 2026"), "months in German");
    let refused = get_in(&s, "/book/sea-view", "de;q=0, en").await.text();
    assert!(refused.contains("<html lang=\"en\">"), "q=0 is never");
    let unreadable = get_in(&s, "/book/sea-view?checkIn=morgen&checkOut=2026-12-20", GERMAN).await;
    assert_eq!(unreadable.status, 400);
    assert!(unreadable.text().contains("Der Anreisetag ist kein Datum."), "the refusal in German");
    let missing = get_in(&s, "/book/nowhere", GERMAN).await;
    assert_eq!(missing.status, 404);
    let missing = missing.text();
    assert!(missing.contains("<html lang=\"de\">") && missing.contains("Seite nicht gefunden"), "{missing}");

    s.rental.edit_property("sea-view", |p| p.messages.language = Locale::De).unwrap();
    let fallback = get_in(&s, "/book/sea-view", "fr, it").await.text();
    assert!(fallback.contains("<html lang=\"de\">"), "none built in: the property's language");
    let asked = get_in(&s, "/book/sea-view", "en-US").await.text();
    assert!(asked.contains("<html lang=\"en\">") && asked.contains("Pick your nights"));
}

#[tokio::test]
async fn a_host_s_german_wording_is_checked_at_save_and_sent_to_german_guests_alone() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = crate::messages::server(&smtp).await;
    let wording = |subject: &str| {
        let mut t: MessageTemplate = serde_json::from_value(json!({"subject": "Booked: {{ property_name }}"})).unwrap();
        t.locales.insert(Locale::De, Wording { subject: Some(subject.to_owned()), ..Wording::default() });
        t
    };
    let refused = s
        .rental
        .edit_property("sea-view", |p| {
            p.messages.templates.insert(MessageKind::Confirmed, wording("Gebucht: {{ haus }}"));
        })
        .unwrap_err();
    let Error::Validation(errors) = refused else { panic!("{refused:?}") };
    assert!(errors.iter().any(|e| e.field.ends_with("messages.confirmed.locales.de.subject")), "{errors:?}");
    assert!(s.rental.property("sea-view").unwrap().messages.templates.is_empty(), "nothing saved");

    s.rental
        .edit_property("sea-view", |p| {
            p.messages.templates.insert(MessageKind::Confirmed, wording("Gebucht: {{ property_name }}"));
        })
        .unwrap();
    let stored = serde_json::to_value(s.rental.property("sea-view").unwrap()).unwrap();
    assert_eq!(stored["messages"]["confirmed"]["locales"]["de"]["subject"], "Gebucht: {{ property_name }}");
    for (locale, check_in, check_out) in [("de", "2026-12-01", "2026-12-04"), ("en", "2026-12-05", "2026-12-08")] {
        let mut body = booking_body("sea-view", check_in, check_out, 2);
        body["locale"] = json!(locale);
        let code = s.post("/api/v1/bookings", &s.write_key, &body).await.expect(201).body["code"].clone();
        crate::messages::confirm(&s, code.as_str().unwrap()).await;
    }
    let got = smtp.wait_for(6, WAIT).await;
    let german = of_kind(&got, "Gebucht: Sea View Cottage");
    assert!(german.text.as_deref().unwrap().contains("ist bestätigt"), "the parts the host left out: built-in German");
    let english = of_kind(&got, "Booked: Sea View Cottage");
    assert!(english.text.as_deref().unwrap().contains("is confirmed"));
    let request = of_kind(&got, "Ihre Anfrage für Sea View Cottage ist eingegangen");
    assert!(request.text.as_deref().unwrap().starts_with("Hallo"), "the built-in German request");
}
