//! The guest's stay page in chromium (docs/API.md section 24): at phone and
//! desktop widths, the check-in form by keyboard (refused, then sent), the two
//! cancellation steps, and all of it with script off; axe-core checks the
//! page, the form with its faults and the review step; screenshots of each.
//! Paying with localstripe's fake Stripe.js: success, declines, 3-D Secure.

use std::sync::Arc;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use rental_core::property::{CheckInField, CheckInForm, FieldRule, StayPageSettings};
use rental_core::{MemoryStore, Status};
use rental_server::ServerConfig;
use rental_server::payments::Stripe;
use rental_tests::http::TestServer;
use rental_tests::localstripe::{LocalStripe, cards};
use serde_json::json;

use crate::book_browser::{accessible, axe_source, text};
use crate::browser::{Driver, Result, click, next_page, shot};
use crate::client::server;

/// A confirmed stay at Sea View, whose page asks a phone (required) and names
/// (optional); its absolute page address.
async fn stay(s: &TestServer<MemoryStore>, check_in: &str, check_out: &str) -> String {
    let code = s.book("sea-view", check_in, check_out, 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let body = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body.clone();
    body["stayUrl"].as_str().unwrap().to_owned()
}

fn with_page(s: &TestServer<MemoryStore>) {
    let form = CheckInForm::default()
        .with(CheckInField::Phone, FieldRule::Required)
        .with(CheckInField::GuestNames, FieldRule::Optional);
    let page = StayPageSettings::default()
        .guide("Bins go out on Tuesdays.\n\nThe beach: https://example.com/beach")
        .address("1 Sea Road\nLisbon")
        .check_in_form(form);
    s.rental.edit_property("sea-view", |p| p.access.stay_page = page.clone()).unwrap();
}

/// The page fits a phone's width: nothing scrolls sideways.
async fn fits(c: &Client, what: &str) -> Result {
    c.set_window_size(390, 900).await?;
    let wide = c.execute("return document.documentElement.scrollWidth <= window.innerWidth", vec![]).await?;
    assert_eq!(wide, json!(true), "{what} scrolls sideways on a phone");
    c.set_window_size(1280, 900).await?;
    Ok(())
}

/// Types `keys` into the focused element.
async fn type_keys(c: &Client, keys: &str) -> Result {
    c.active_element().await?.send_keys(keys).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_checks_in_by_keyboard_and_cancels_on_the_stay_page_with_and_without_script() -> Result {
    let s = server().await;
    with_page(&s);
    let url = stay(&s, "2026-12-20", "2026-12-23").await;
    let Some(axe) = axe_source() else { return Ok(()) };
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    c.goto(&url).await?;
    accessible(&c, &axe, "the stay page").await?;
    fits(&c, "the stay page").await?;
    let weight = c.execute("return document.documentElement.outerHTML.length", vec![]).await?;
    assert!(weight.as_u64().unwrap() < 60_000, "under 60 KB: {weight}");
    shot(&c, "stay").await?;

    // By keyboard: focus the phone field, type a wrong number and Enter; the faults come back with it.
    c.find(Locator::Css("#phone")).await?.click().await?;
    let old = c.find(Locator::Css("html")).await?;
    type_keys(&c, &format!("12{}", Key::Enter)).await?;
    next_page(old).await?;
    assert!(text(&c, "#phone-err").await?.contains("must be a phone number"));
    assert_eq!(c.find(Locator::Css("#phone")).await?.prop("value").await?.as_deref(), Some("12"), "kept");
    accessible(&c, &axe, "the form with its faults").await?;
    shot(&c, "stay-check-in-faults").await?;
    c.find(Locator::Css("#phone")).await?.clear().await?;
    c.find(Locator::Css("#phone")).await?.click().await?;
    type_keys(&c, "+351 912 345 678").await?;
    type_keys(&c, &Key::Tab.to_string()).await?;
    let focused = c.active_element().await?.attr("id").await?;
    assert_eq!(focused.as_deref(), Some("arrivalTime"), "Tab goes to the next field");
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css("#online-check-in button[type=submit]")).await?.send_keys(&Key::Enter.to_string()).await?;
    next_page(old).await?;
    assert!(text(&c, "#check-in-done").await?.contains("Thank you"));

    // Cancelling: the refund first, on a step of its own, then the button.
    click(&c, "#cancel a").await?;
    assert!(text(&c, "#refund").await?.contains("gives back"));
    accessible(&c, &axe, "the cancellation's review step").await?;
    fits(&c, "the review step").await?;
    shot(&c, "stay-cancel").await?;
    click(&c, "form button[type=submit]").await?;
    assert_eq!(text(&c, "#status").await?, "Cancelled");
    c.close().await?;

    // Without script: the same form and steps, plain HTML.
    let url = stay(&s, "2027-01-10", "2027-01-13").await;
    let code = url.rsplit('/').next().unwrap().split('.').next().unwrap().to_owned();
    let profile = tempfile::tempdir()?;
    let c =
        driver.browser_with(profile.path(), &json!({"profile.managed_default_content_settings.javascript": 2})).await;
    c.goto(&url).await?;
    c.find(Locator::Css("#phone")).await?.send_keys("+44 20 7946 0000").await?;
    c.find(Locator::Css("#guestNames")).await?.send_keys("Ada\nCharles").await?;
    click(&c, "#online-check-in button[type=submit]").await?;
    assert!(text(&c, "#check-in-done").await?.contains("Thank you"));
    let given = s.rental.check_ins().get(&code)?.expect("recorded");
    assert_eq!(given.answers.guest_names.as_deref(), Some("Ada\nCharles"));
    click(&c, "#cancel a").await?;
    click(&c, "form button[type=submit]").await?;
    assert_eq!(s.rental.booking(&code)?.status, Status::Cancelled);
    c.close().await?;
    Ok(())
}

/// A server paying through `stripe`, and a request at Sea View there; its code and stay page address.
async fn paying(stripe: &LocalStripe, check_in: &str, check_out: &str) -> (TestServer<MemoryStore>, String, String) {
    let provider = Arc::new(Stripe::new(stripe.config()).unwrap());
    let s = TestServer::with_config(&ServerConfig { payments: Some(provider), ..ServerConfig::default() }).await;
    let (code, url) = request(&s, check_in, check_out).await;
    (s, code, url)
}

/// A request at Sea View; its code and stay page address.
async fn request(s: &TestServer<MemoryStore>, check_in: &str, check_out: &str) -> (String, String) {
    let code = s.book("sea-view", check_in, check_out, 2).await["code"].as_str().unwrap().to_owned();
    let body = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body.clone();
    (code, body["stayUrl"].as_str().unwrap().to_owned())
}

/// Types `number` (and a valid expiry, CVC and postcode) into the provider's card form.
async fn fill_card(c: &Client, number: &str) -> Result {
    let field = c.wait().at_most(Duration::from_secs(10)).for_element(Locator::Css("#card input[placeholder=number]"));
    field.await?.send_keys(number).await?;
    for (field, value) in [("exp_month", "12"), ("exp_year", "30"), ("cvc", "123"), ("postal_code", "10001")] {
        c.find(Locator::Css(&format!("#card input[placeholder={field}]"))).await?.send_keys(value).await?;
    }
    Ok(())
}

/// Answers the provider's 3-D Secure window (localstripe's stand-in for the bank's) with `button`.
async fn bank_says(c: &Client, button: &str) -> Result {
    let xpath = format!("//button[normalize-space()='{button}']");
    c.wait().at_most(Duration::from_secs(10)).for_element(Locator::XPath(&xpath)).await?.click().await?;
    Ok(())
}

async fn payment_status(s: &TestServer<MemoryStore>, code: &str) -> String {
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body.clone();
    booking["paymentStatus"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_pays_what_is_due_with_the_providers_card_form_on_the_stay_page() -> Result {
    let Some(stripe) = LocalStripe::start() else { return Ok(()) };
    let (s, code, url) = paying(&stripe, "2026-12-20", "2026-12-23").await;
    let Some(axe) = axe_source() else { return Ok(()) };
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    c.goto(&url).await?;
    accessible(&c, &axe, "the stay page with its pay button").await?;
    click(&c, "#pay-start button").await?;
    // The provider's card form (localstripe's stand-in for Stripe.js), then the page's own button.
    fill_card(&c, cards::OK).await?;
    accessible(&c, &axe, "the card form").await?;
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css("#pay")).await?.click().await?;
    next_page(old).await?;
    assert_eq!(text(&c, "#status").await?, "Request: waiting for the host", "back on the stay page");
    assert_eq!(payment_status(&s, &code).await, "authorized", "the first installment is held");
    assert!(c.find_all(Locator::Css("#pay-start")).await?.is_empty(), "nothing more to pay now");
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_card_on_the_stay_page_says_why_and_takes_nothing() -> Result {
    let Some(stripe) = LocalStripe::start() else { return Ok(()) };
    let (s, code, url) = paying(&stripe, "2026-12-20", "2026-12-23").await;
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    c.goto(&url).await?;
    click(&c, "#pay-start button").await?;
    // Declined when saved: the form says so and stays, ready for another card.
    fill_card(&c, cards::DECLINED).await?;
    c.find(Locator::Css("#pay")).await?.click().await?;
    let refused = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::XPath("//p[@id='card-error' and contains(normalize-space(), 'declined')]"));
    refused.await?;
    assert_eq!(c.find(Locator::Css("#pay")).await?.prop("disabled").await?.as_deref(), Some("false"), "again");
    assert_eq!(payment_status(&s, &code).await, "unpaid");

    // Saved, then declined when charged: a page that says the payment was not made.
    for field in ["number", "exp_month", "exp_year", "cvc", "postal_code"] {
        c.find(Locator::Css(&format!("#card input[placeholder={field}]"))).await?.clear().await?;
    }
    fill_card(&c, cards::CHARGE_DECLINED).await?;
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css("#pay")).await?.click().await?;
    next_page(old).await?;
    assert!(text(&c, "#pay-message").await?.starts_with("The payment was not made: "), "says why");
    assert_eq!(payment_status(&s, &code).await, "unpaid");
    let first = s.rental.payments(&code)?.into_iter().find(|r| r.number == 1).unwrap();
    assert_eq!(first.status, rental_core::payments::PaymentState::Failed, "{first:?}");
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guests_bank_asks_for_3_d_secure_on_the_stay_page_and_the_answer_decides() -> Result {
    let Some(stripe) = LocalStripe::start() else { return Ok(()) };
    let (s, code, url) = paying(&stripe, "2026-12-20", "2026-12-23").await;
    let Some(axe) = axe_source() else { return Ok(()) };
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    // The bank asks when the card is saved, and again for the payment: completed both times.
    c.goto(&url).await?;
    click(&c, "#pay-start button").await?;
    fill_card(&c, cards::THREE_D_SECURE).await?;
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css("#pay")).await?.click().await?;
    bank_says(&c, "Complete authentication").await?;
    next_page(old).await?;
    assert!(text(&c, "#pay-confirm").await?.contains("Your bank asks you to confirm"));
    let old = c.find(Locator::Css("html")).await?;
    bank_says(&c, "Complete authentication").await?;
    next_page(old).await?;
    assert_eq!(text(&c, "#status").await?, "Request: waiting for the host", "back on the stay page");
    accessible(&c, &axe, "the stay page after 3-D Secure").await?;
    assert_eq!(payment_status(&s, &code).await, "authorized", "held after the bank's yes");

    // Another request whose guest fails the bank's check for the payment: not made, nothing held.
    let (other, url) = request(&s, "2027-01-10", "2027-01-13").await;
    c.goto(&url).await?;
    click(&c, "#pay-start button").await?;
    fill_card(&c, cards::THREE_D_SECURE).await?;
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css("#pay")).await?.click().await?;
    bank_says(&c, "Complete authentication").await?;
    next_page(old).await?;
    let old = c.find(Locator::Css("html")).await?;
    bank_says(&c, "Fail authentication").await?;
    next_page(old).await?;
    assert!(text(&c, "#pay-message").await?.contains("failed authentication"), "the bank's no");
    assert_eq!(payment_status(&s, &other).await, "unpaid");
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_german_stay_page_is_german_from_its_html_lang_and_accessible() -> Result {
    let s = server().await;
    with_page(&s);
    let mut body = rental_tests::http::booking_body("sea-view", "2026-12-12", "2026-12-15", 2);
    body["locale"] = json!("de-DE");
    let code = s.http.post("/api/v1/bookings", &s.key, &body).await.body["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let url =
        s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["stayUrl"].as_str().unwrap().to_owned();
    let Some(axe) = axe_source() else { return Ok(()) };
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    c.goto(&url).await?;
    let lang = c.execute("return document.documentElement.lang", vec![]).await?;
    assert_eq!(lang, json!("de"), "<html lang=\"de\">");
    assert_eq!(text(&c, "#status").await?, "Bestätigt");
    assert!(text(&c, "#check-in").await?.starts_with("Sa., 12. Dez. 2026 ab 15:00 Uhr"));
    assert!(text(&c, "#online-check-in h2").await?.contains("Online-Check-in"));
    assert!(text(&c, "label[for=guestNames]").await?.ends_with("(optional)"));
    accessible(&c, &axe, "the German stay page").await?;
    fits(&c, "the German stay page").await?;
    shot(&c, "stay-de").await?;

    c.find(Locator::Css("#phone")).await?.click().await?;
    let old = c.find(Locator::Css("html")).await?;
    type_keys(&c, &format!("12{}", Key::Enter)).await?;
    next_page(old).await?;
    assert_eq!(text(&c, "#online-check-in .alert").await?, "Bitte prüfen Sie die markierten Felder.");
    accessible(&c, &axe, "the German form with its faults").await?;

    click(&c, "#cancel a").await?;
    assert!(text(&c, "h1").await?.starts_with("Ihren Aufenthalt in Sea View Cottage stornieren"));
    assert!(text(&c, "#refund").await?.contains("erstatten die Stornobedingungen"));
    accessible(&c, &axe, "the German cancellation step").await?;
    c.close().await?;
    Ok(())
}
