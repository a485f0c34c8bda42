//! The booking page in chromium: a guest picks nights by mouse and by
//! keyboard, sees the quote update in place, requests and lands on the
//! confirmation; the same with script off; a second local origin embeds the
//! page with embed.js (it resizes, and hears `rental:requested` only when
//! allowed; a site not allowed cannot frame it); the host turns the page on in
//! the dashboard. axe-core checks the page, the quote view and the confirmation.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use rental_core::MemoryStore;
use rental_tests::http::TestServer;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::browser::{Driver, Result, click, shot};
use crate::client::{PASSWORD, server};

/// axe-core, installed by `scripts/test` (`npm install --prefix target/test-npm`);
/// `None` when it is not there (see `rental_tests::tools`).
pub(crate) fn axe_source() -> Option<String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), PathBuf::from);
    let file = target.join("test-npm/node_modules/axe-core/axe.min.js");
    let source = std::fs::read_to_string(&file).ok();
    if source.is_none() {
        rental_tests::tools::missing(
            &format!("axe-core ({})", file.display()),
            "npm install --prefix target/test-npm axe-core",
        );
    }
    source
}

/// Runs axe-core on the current page: no serious or critical violation.
pub(crate) async fn accessible(c: &Client, axe: &str, what: &str) -> Result {
    c.execute(axe, vec![]).await?;
    let found = c
        .execute_async(
            "var done = arguments[arguments.length - 1];
             axe.run(document, {resultTypes: ['violations']}).then(function (r) {
               done(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })
                 .map(function (v) { return v.id + ': ' + v.nodes.map(function (n) { return n.target.join(' '); }).join(', '); }));
             }, function (e) { done(['axe failed: ' + e]); });",
            vec![],
        )
        .await?;
    let found: Vec<String> = serde_json::from_value(found)?;
    assert!(found.is_empty(), "{what}: axe-core finds serious or critical violations: {found:#?}");
    Ok(())
}

/// Waits until `script` returns true.
pub(crate) async fn until(c: &Client, script: &str, what: &str) -> Result {
    let deadline = Instant::now() + Duration::from_secs(10);
    while c.execute(script, vec![]).await? != json!(true) {
        assert!(Instant::now() < deadline, "waited 10 s for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Ok(())
}

pub(crate) async fn text(c: &Client, css: &str) -> Result<String> {
    Ok(c.wait().at_most(Duration::from_secs(10)).for_element(Locator::Css(css)).await?.text().await?)
}

/// A server with Sea View's page on, framable by `site`.
pub(crate) async fn book_server(site: &str) -> TestServer<MemoryStore> {
    let s = server().await;
    s.rental
        .edit_property("sea-view", |p| {
            p.booking_page.enabled = true;
            p.booking_page.embed_origins = vec![site.to_owned()];
        })
        .unwrap();
    s
}

/// A second origin: a host's own site that embeds the page of `rental` with embed.js
/// and notes each `rental:requested` it hears.
pub(crate) async fn site(rental: &str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Our cottage</title></head><body>\
         <h1>Our cottage</h1><div data-rental-property=\"sea-view\"></div>\
         <script>window.heard=[];window.addEventListener('message',function(e){{\
         if(e.data&&e.data.type==='rental:requested'){{window.heard.push(e.data.code);}}}});</script>\
         <script src=\"{rental}/book/embed.js\"></script></body></html>"
    );
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let html = html.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    html.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(html.as_bytes()).await;
            });
        }
    });
    port
}

/// Fills the request form and sends it; waits for the confirmation and returns its code.
pub(crate) async fn request(c: &Client, name: &str) -> Result<String> {
    c.find(Locator::Css("#guestName")).await?.send_keys(name).await?;
    c.find(Locator::Css("#guestEmail")).await?.send_keys("guest@example.com").await?;
    click(c, "#request button[type=submit]").await?;
    let code = text(c, "#code").await?;
    // The frame's own address, when the page is framed.
    let at = c.execute("return location.pathname", vec![]).await?.as_str().unwrap_or_default().to_owned();
    assert!(at.starts_with("/book/") && at.contains("/requested/"), "on the confirmation: {at}");
    Ok(code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_books_by_mouse_by_keyboard_and_without_script_and_a_site_embeds_the_page() -> Result {
    let s = server().await;
    let base = format!("http://{}", s.http.addr);
    let port = site(&base).await;
    let allowed = format!("http://127.0.0.1:{port}");
    s.rental
        .edit_property("sea-view", |p| {
            p.booking_page.enabled = true;
            p.booking_page.embed_origins = vec![allowed.clone()];
        })
        .unwrap();
    let Some(axe) = axe_source() else { return Ok(()) };
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    // By mouse: the quote comes in place, without loading another page.
    c.goto(&format!("{base}/book/sea-view")).await?;
    accessible(&c, &axe, "the page").await?;
    shot(&c, "book").await?;
    c.execute("window.stayed = true", vec![]).await?;
    c.find(Locator::Css("a[data-date='2026-12-20']")).await?.click().await?;
    until(&c, "return !!document.querySelector('#hint') && document.querySelector('#hint').textContent.includes('Now pick your check-out')", "the check-in").await?;
    c.find(Locator::Css("a[data-date='2026-12-23']")).await?.click().await?;
    assert_eq!(text(&c, "#quote-title").await?, "Price for 3 nights");
    assert_eq!(c.execute("return window.stayed === true", vec![]).await?, json!(true), "updated in place");
    assert!(c.current_url().await?.as_str().contains("checkOut=2026-12-23"), "the address follows");
    c.find(Locator::Css("#guests")).await?.select_by_value("4").await?;
    until(&c, "return document.querySelector('#total').textContent === '$705.60'", "the quote for 4 guests").await?;
    accessible(&c, &axe, "the quote view").await?;
    shot(&c, "book-quote").await?;
    let code = request(&c, "Mo Use").await?;
    accessible(&c, &axe, "the confirmation").await?;
    shot(&c, "book-requested").await?;
    let booking = s.rental.booking(&code)?;
    assert_eq!((booking.source.as_str(), booking.guests), ("page", 4));

    // By keyboard: Enter on a day, Tab to the next day that can end the stay, Enter; type and send.
    c.goto(&format!("{base}/book/sea-view?month=2027-01")).await?;
    c.find(Locator::Css("a[data-date='2027-01-10']")).await?.send_keys(&Key::Enter.to_string()).await?;
    until(&c, "return document.activeElement.getAttribute('data-date') === '2027-01-10' && !!document.querySelector('#hint') && document.querySelector('#hint').textContent.includes('Now pick')", "focus kept on the day").await?;
    c.active_element().await?.send_keys(&Key::Tab.to_string()).await?;
    let next = c.active_element().await?.attr("data-date").await?;
    assert_eq!(next.as_deref(), Some("2027-01-12"), "one night is too short: Tab skips the 11th");
    c.active_element().await?.send_keys(&Key::Enter.to_string()).await?;
    assert_eq!(text(&c, "#quote-title").await?, "Price for 2 nights");
    c.find(Locator::Css("#guestName")).await?.send_keys("Kay Board").await?;
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css("#guestEmail")).await?.send_keys(&format!("kay@example.com{}", Key::Enter)).await?;
    crate::browser::next_page(old).await?;
    assert!(!text(&c, "#code").await?.is_empty());

    // Framed by the allowed site: it resizes, and the site hears of the request.
    c.goto(&format!("{allowed}/")).await?;
    until(
        &c,
        "var f = document.querySelector('iframe'); return !!f && f.style.height !== '640px'",
        "the frame to resize",
    )
    .await?;
    let frame = c.find(Locator::Css("iframe")).await?;
    frame.enter_frame().await?;
    c.find(Locator::Css("a[data-date='2026-12-01']")).await?.click().await?;
    until(
        &c,
        "return !!document.querySelector('#hint') && document.querySelector('#hint').textContent.includes('Now pick')",
        "the check-in in the frame",
    )
    .await?;
    c.find(Locator::Css("a[data-date='2026-12-04']")).await?.click().await?;
    text(&c, "#quote-title").await?;
    let framed = request(&c, "Fran Med").await?;
    c.enter_parent_frame().await?;
    until(&c, &format!("return window.heard.length === 1 && window.heard[0] === '{framed}'"), "rental:requested")
        .await?;

    // A site that is not allowed cannot frame it: the frame never grows to the page.
    c.goto(&format!("http://localhost:{port}/")).await?;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let height = c.execute("return document.querySelector('iframe').style.height", vec![]).await?;
    assert_eq!(height, json!("640px"), "the page did not load in the frame");
    let blocked = c.find(Locator::Css("iframe")).await?;
    blocked.enter_frame().await?;
    assert!(c.find_all(Locator::Css("#book")).await.map_or(true, |found| found.is_empty()));
    c.enter_parent_frame().await?;
    assert_eq!(c.execute("return window.heard.length", vec![]).await?, json!(0));
    c.close().await?;

    // Without script: plain links and forms do it all.
    let profile = tempfile::tempdir()?;
    let c =
        driver.browser_with(profile.path(), &json!({"profile.managed_default_content_settings.javascript": 2})).await;
    c.goto(&format!("{base}/book/sea-view?month=2027-03")).await?;
    click(&c, "a[data-date='2027-03-08']").await?;
    assert!(c.current_url().await?.as_str().contains("checkIn=2027-03-08"));
    click(&c, "a[data-date='2027-03-11']").await?;
    assert_eq!(text(&c, "#quote-title").await?, "Price for 3 nights");
    let code = request(&c, "No Script").await?;
    assert_eq!(s.rental.booking(&code)?.source.as_str(), "page");
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_turns_the_page_on_and_sees_the_link_and_snippet_in_the_dashboard() -> Result {
    let s = book_server("https://cottages.example").await;
    let base = format!("http://{}", s.http.addr);
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    c.goto(&format!("{base}/admin/login")).await?;
    c.find(Locator::Css("#password")).await?.send_keys(PASSWORD).await?;
    click(&c, "form[action='/admin/login'] button").await?;
    c.goto(&format!("{base}/admin/properties/harbour-loft/edit")).await?;
    c.find(Locator::Css("input[name=bookingPage]")).await?.click().await?;
    c.find(Locator::Css("#embedOrigins")).await?.send_keys("https://loft.example/page").await?;
    click(&c, "#edit button[type=submit]").await?;
    let refused = text(&c, "[data-field='bookingPage.embedOrigins']").await?;
    assert!(refused.contains("not an origin"), "{refused}");
    assert!(!s.rental.property("harbour-loft")?.booking_page.enabled, "nothing saved");
    c.find(Locator::Css("#embedOrigins")).await?.clear().await?;
    c.find(Locator::Css("#embedOrigins")).await?.send_keys("https://loft.example").await?;
    click(&c, "#edit button[type=submit]").await?;
    let page = s.rental.property("harbour-loft")?.booking_page;
    assert!(page.enabled && page.embed_origins == ["https://loft.example"], "{page:?}");
    assert_eq!(text(&c, "#booking-link").await?, format!("{base}/book/harbour-loft"));
    let snippet = text(&c, "#embed-snippet").await?;
    assert!(
        snippet.contains("data-rental-property=\"harbour-loft\"") && snippet.contains(&format!("{base}/book/embed.js"))
    );
    // A request from the page waits among the host's requests.
    c.goto(&format!("{base}/book/harbour-loft?checkIn=2026-12-02&checkOut=2026-12-04&guests=2")).await?;
    let code = request(&c, "<b>Loft</b> Guest").await?;
    c.goto(&format!("{base}/admin")).await?;
    let html = c.source().await?;
    assert!(html.contains(&code) && html.contains("&lt;b&gt;Loft&lt;/b&gt; Guest"), "the request shows, escaped");
    c.close().await?;
    Ok(())
}
