//! Host operations in chromium: change a booking's dates from its page and
//! see the calendar move; block nights on the calendar and see the API say
//! `blocked`; find a guest by part of their name.

use fantoccini::{Client, Locator};
use serde_json::json;

use crate::browser::{Driver, Result, click, flash, path, shot};
use crate::client::{PASSWORD, server};

async fn log_in(c: &Client, base: &str) -> Result {
    c.goto(&format!("{base}/admin/login")).await?;
    c.find(Locator::Css("#password")).await?.send_keys(PASSWORD).await?;
    click(c, "form[action='/admin/login'] button").await
}

/// The grid columns (`start/end`) of the bar of booking `code` on the calendar.
async fn bar_columns(c: &Client, code: &str) -> Result<String> {
    let bar = c.find(Locator::Css(&format!("#calendar a.stay[data-code='{code}']"))).await?;
    Ok(bar.attr("style").await?.unwrap_or_default())
}

async fn fill(c: &Client, css: &str, value: &str) -> Result {
    let field = c.find(Locator::Css(css)).await?;
    // Date inputs take keys in the browser's locale order; set the value directly.
    c.execute("arguments[0].value = arguments[1];", vec![serde_json::to_value(&field)?, json!(value)]).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_moves_a_stay_blocks_nights_and_finds_a_guest_in_a_real_browser() -> Result {
    let s = server().await;
    let booked = s.book("sea-view", "2026-11-28", "2026-12-01", 2).await;
    let code = booked["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let mut body = rental_tests::http::booking_body("alpine-cabin", "2026-12-02", "2026-12-06", 2);
    body["guestName"] = json!("Grace Brewster Hopper");
    body["guestEmail"] = json!("grace@navy.example");
    let grace = s.http.post("/api/v1/bookings", &s.write_key, &body).await.body["code"].as_str().unwrap().to_owned();
    let base = format!("http://{}", s.http.addr);
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    log_in(&c, &base).await?;

    // The calendar: both stays as bars, today marked.
    c.goto(&format!("{base}/admin/calendar?from=2026-11-22&nights=30")).await?;
    assert_eq!(bar_columns(&c, &code).await?, "grid-column:8/11", "nights 11-28 to 11-30");
    assert!(c.find(Locator::Css("#calendar .cal-head .today[data-date='2026-11-22']")).await.is_ok());
    shot(&c, "calendar").await?;

    // Change the booking's dates from its page, previewing the new price first.
    c.find(Locator::Css(&format!("#calendar a.stay[data-code='{code}']"))).await?.click().await?;
    c.wait().for_element(Locator::Css("#change")).await?;
    assert_eq!(path(&c).await?, format!("/admin/bookings/{code}"));
    fill(&c, "#change-in", "2026-12-03").await?;
    fill(&c, "#change-out", "2026-12-07").await?;
    click(&c, "#change form[method=get] button").await?;
    let new_total = c.wait().for_element(Locator::Css("#new-total")).await?.text().await?;
    let quote = json!({"property": "sea-view", "checkIn": "2026-12-03", "checkOut": "2026-12-07", "guests": 2});
    let cents = s.http.post("/api/v1/quotes", &s.read_key, &quote).await.body["total"].as_i64().unwrap();
    assert_eq!(new_total, format!("${}.{:02}", cents / 100, cents % 100), "the preview is the quote");
    assert_eq!(
        s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body["checkIn"],
        "2026-11-28",
        "a preview writes nothing"
    );
    shot(&c, "booking").await?;
    click(&c, &format!("form[action='/admin/booking/{code}/change'] button")).await?;
    assert!(flash(&c).await?.contains("2026-12-03 → 2026-12-07"));
    let after = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await;
    assert_eq!((&after.body["checkIn"], &after.body["total"]), (&json!("2026-12-03"), &json!(cents)));
    c.goto(&format!("{base}/admin/calendar?from=2026-11-22&nights=30")).await?;
    assert_eq!(bar_columns(&c, &code).await?, "grid-column:13/17", "the bar moved to 12-03..12-06");

    // Block nights on the calendar; the API says they are blocked.
    c.find(Locator::Css("#block-property option[value='harbour-loft']")).await?.click().await?;
    fill(&c, "#block-start", "2026-12-10").await?;
    fill(&c, "#block-end", "2026-12-12").await?;
    c.find(Locator::Css("#block-note")).await?.send_keys("painting <b>walls</b>").await?;
    click(&c, "form[action='/admin/blocks'] button").await?;
    assert!(flash(&c).await?.contains("Blocked harbour-loft from 2026-12-10 to 2026-12-12"));
    assert_eq!(path(&c).await?, "/admin/calendar");
    let bar = c.find(Locator::Css("#calendar .cal-row[data-slug='harbour-loft'] .stay.block")).await?;
    assert_eq!(bar.text().await?, "painting <b>walls</b>", "the note is text, not markup");
    let nights = s.get("/api/v1/properties/harbour-loft/availability?from=2026-12-09&to=2026-12-13", &s.read_key).await;
    let statuses: Vec<&str> =
        nights.body["nights"].as_array().unwrap().iter().map(|n| n["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["available", "blocked", "blocked", "available"]);
    shot(&c, "calendar").await?;

    // Remove it again from the list under the calendar.
    let id = s.rental.calendars().blocks("harbour-loft", None, None)?[0].id.clone();
    crate::browser::click_button(&c, &format!("//tr[@data-block='{id}']"), "Remove", Some("Reopen 2026-12-10")).await?;
    assert!(flash(&c).await?.contains("Reopened"));
    assert!(s.rental.calendars().blocks("harbour-loft", None, None)?.is_empty());

    // Search bookings by a part of a guest's name, in any case.
    c.goto(&format!("{base}/admin/bookings")).await?;
    c.find(Locator::Css("#q")).await?.send_keys("brewster").await?;
    click(&c, "#search form button").await?;
    let rows = c.find_all(Locator::Css("#results tbody tr")).await?;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].attr("data-code").await?.as_deref(), Some(grace.as_str()));
    shot(&c, "bookings").await?;
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_edits_a_seasonal_rate_and_the_api_quotes_it() -> Result {
    let s = server().await;
    let base = format!("http://{}", s.http.addr);
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    log_in(&c, &base).await?;
    c.goto(&format!("{base}/admin/properties")).await?;
    click(&c, "section[data-slug='sea-view'] a.edit").await?;
    assert_eq!(path(&c).await?, "/admin/properties/sea-view/edit");

    // A fault the library finds is shown beside its field, and nothing is saved.
    let guests = c.find(Locator::Css("#maxGuests")).await?;
    guests.clear().await?;
    guests.send_keys("0").await?;
    click(&c, "#edit button[type=submit]").await?;
    let fault = c.find(Locator::Css(".field-error[data-field='maxGuests']")).await?.text().await?;
    assert!(fault.contains("must be 1 to 100"), "{fault}");
    assert_eq!(s.rental.property("sea-view")?.pricing.max_guests, 4, "nothing saved");

    // Add a winter season in the empty row and change the existing summer rate.
    let guests = c.find(Locator::Css("#maxGuests")).await?;
    guests.clear().await?;
    guests.send_keys("4").await?;
    c.find(Locator::Css("#season-1-name")).await?.send_keys("Winter").await?;
    fill(&c, "#season-1-start", "2026-12-01").await?;
    fill(&c, "#season-1-end", "2026-12-31").await?;
    c.find(Locator::Css("#season-1-rate")).await?.send_keys("300").await?;
    let summer = c.find(Locator::Css("#season-0-rate")).await?;
    summer.clear().await?;
    summer.send_keys("240.50").await?;
    click(&c, "#edit button[type=submit]").await?;
    assert!(flash(&c).await?.contains("Sea View Cottage saved."));
    shot(&c, "property").await?;

    let quote = json!({"property": "sea-view", "checkIn": "2026-12-14", "checkOut": "2026-12-16", "guests": 2});
    let quoted = s.http.post("/api/v1/quotes", &s.read_key, &quote).await;
    assert_eq!(
        quoted.body["nightly"],
        json!([{"date": "2026-12-14", "base": 30000, "price": 30000}, {"date": "2026-12-15", "base": 30000, "price": 30000}])
    );
    let seasons = s.rental.property("sea-view")?.pricing.seasonal_rates;
    assert_eq!(
        seasons.iter().map(|x| (x.name.as_str(), x.nightly_rate)).collect::<Vec<_>>(),
        [("Summer", 24050), ("Winter", 30000)]
    );

    // Reorder (winter first), then remove the summer season.
    let order = c.find(Locator::Css("#season-1-order")).await?;
    order.clear().await?;
    order.send_keys("0").await?;
    click(&c, "#edit button[type=submit]").await?;
    let names: Vec<String> =
        s.rental.property("sea-view")?.pricing.seasonal_rates.into_iter().map(|x| x.name).collect();
    assert_eq!(names, ["Winter", "Summer"]);
    c.find(Locator::Css("#season-1-remove")).await?.click().await?;
    click(&c, "#edit button[type=submit]").await?;
    let names: Vec<String> =
        s.rental.property("sea-view")?.pricing.seasonal_rates.into_iter().map(|x| x.name).collect();
    assert_eq!(names, ["Winter"]);
    c.close().await?;
    Ok(())
}
