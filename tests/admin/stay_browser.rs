//! The guest's stay page in chromium (docs/API.md section 24): at phone and
//! desktop widths, the check-in form by keyboard (refused, then sent), the two
//! cancellation steps, and all of it with script off; axe-core checks the
//! page, the form with its faults and the review step; screenshots of each.

use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use rental_core::property::{CheckInField, CheckInForm, FieldRule, StayPageSettings};
use rental_core::{MemoryStore, Status};
use rental_tests::http::TestServer;
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
