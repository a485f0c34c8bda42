//! The booking page's calendar under stay rules, in chromium (issue 41): a
//! weekday rule and a short gap greyed out or offered, each said in words,
//! and axe-core finds nothing serious.

use fantoccini::Locator;
use rental_core::property::{GapFill, PriceRules};

use crate::book_browser::{accessible, axe_source, book_server, text, until};
use crate::browser::{Driver, Result, shot};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calendar_shows_a_weekday_rule_and_a_gap_in_words() -> Result {
    let s = book_server("https://cottages.example").await;
    // Two stays with Saturday 19 December free between them, booked before the rules.
    s.book("sea-view", "2026-12-14", "2026-12-19", 2).await;
    s.book("sea-view", "2026-12-20", "2026-12-24", 2).await;
    s.rental
        .edit_property("sea-view", |p| {
            p.stay_rules.check_in_days = serde_json::from_str(r#"["sat"]"#).unwrap();
            p.pricing.rules =
                PriceRules::default().gap_fill(GapFill { max_gap_nights: 1, min_nights: 1, discount: 1_000 });
        })
        .unwrap();
    let base = format!("http://{}", s.http.addr);
    let Some(axe) = axe_source() else { return Ok(()) };
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    c.goto(&format!("{base}/book/sea-view?month=2026-12")).await?;
    accessible(&c, &axe, "the page with rules").await?;
    shot(&c, "book-rules").await?;

    let rules = text(&c, "#day-rules").await?;
    assert!(rules.contains("Check-in on Saturdays only."), "{rules}");
    assert!(rules.contains("Short gaps of up to 1 night between stays can be booked from 1 night."), "{rules}");
    // A Friday is greyed out and says why, to the eye (title) and to a screen reader.
    let friday = c.find(Locator::Css("span.day.closed[data-day='2026-12-11']")).await?;
    assert_eq!(friday.attr("title").await?.as_deref(), Some("check-in on Saturdays only"));
    let spoken =
        c.execute("return document.querySelector(\"[data-day='2026-12-11'] .sr\").textContent", vec![]).await?;
    assert_eq!(spoken.as_str(), Some(", Friday 11 December 2026, check-in on Saturdays only"));
    assert!(c.find_all(Locator::Css("a[data-date='2026-12-11']")).await?.is_empty(), "a Friday cannot be picked");
    c.find(Locator::Css("a[data-date='2026-12-12']")).await?; // a Saturday can

    // The one-night gap is offered, said to be one, and priced with its discount.
    let gap = c.find(Locator::Css("a[data-date='2026-12-19']")).await?;
    assert_eq!(gap.attr("title").await?.as_deref(), Some("a short gap: bookable from 1 night"));
    gap.click().await?;
    until(
        &c,
        "var h = document.querySelector('#hint'); return !!h && h.textContent.includes('Now pick')",
        "the check-in",
    )
    .await?;
    c.find(Locator::Css("a[data-date='2026-12-20']")).await?.click().await?;
    assert_eq!(text(&c, "#quote-title").await?, "Price for 1 night");
    let quote = text(&c, "#quote").await?;
    assert!(quote.contains("Short-gap discount"), "{quote}");
    accessible(&c, &axe, "the gap's quote").await?;
    c.close().await?;
    Ok(())
}
