//! What a guest trips over on the booking page (issue 44), in chromium: dates
//! typed but not re-quoted, a guest count lost on the calendar, refusals that
//! used up the limit, error pages refused inside an embed, and a quote
//! off-screen on a phone.

use fantoccini::{Client, Locator};
use rental_core::MemoryStore;
use rental_server::admin::AdminConfig;
use rental_server::book::throttle::PostLimit;
use rental_tests::http::TestServer;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::book_browser::{book_server, request, text, until};
use crate::browser::{Driver, Result, click};
use crate::client::{PASSWORD, config};

/// Sets `#id`'s value as a guest typing it would, firing `input` and `change`.
async fn type_into(c: &Client, id: &str, value: &str) -> Result {
    c.execute(
        "var el = document.getElementById(arguments[0]); el.focus(); el.value = arguments[1];
         el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![json!(id), json!(value)],
    )
    .await?;
    Ok(())
}

/// A host's site embedding `slug`'s page of `rental`, with a long footer below the frame.
async fn long_site(rental: &str, slug: &str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Our cottage</title></head>\
         <body style=\"margin:0\"><h1>Our cottage</h1><div data-rental-property=\"{slug}\"></div>\
         <footer style=\"height:3000px\">About us</footer>\
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

/// Picks the stay from `check_in` to `check_out` on the calendar shown, and waits for its quote.
async fn pick(c: &Client, check_in: &str, check_out: &str) -> Result {
    c.find(Locator::Css(&format!("a[data-date='{check_in}']"))).await?.click().await?;
    until(c, "return document.querySelector('#hint').textContent.includes('Now pick')", "the check-in").await?;
    c.find(Locator::Css(&format!("a[data-date='{check_out}']"))).await?.click().await?;
    until(c, "return !!document.querySelector('#quote-title')", "the quote").await
}

/// Opens the site on `port` and enters its frame once the page shows in it.
async fn enter_frame(c: &Client, port: u16) -> Result {
    c.goto(&format!("http://127.0.0.1:{port}/")).await?;
    until(c, "var f = document.querySelector('iframe'); return !!f && f.style.height !== '640px'", "the frame").await?;
    c.find(Locator::Css("iframe")).await?.enter_frame().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dates_typed_but_not_requoted_are_quoted_before_the_request_is_sent() -> Result {
    let s = book_server("https://cottages.example").await;
    let base = format!("http://{}", s.http.addr);
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    c.goto(&format!("{base}/book/sea-view?checkIn=2027-01-04&checkOut=2027-01-08&guests=2")).await?;
    assert_eq!(text(&c, "#quote-title").await?, "Price for 4 nights");
    type_into(&c, "checkOut", "2027-01-11").await?;
    c.find(Locator::Css("#guestName")).await?.send_keys("Dee Tes").await?;
    c.find(Locator::Css("#guestEmail")).await?.send_keys("dee@example.com").await?;
    c.find(Locator::Css("#request button[type=submit]")).await?.click().await?;
    until(&c, "return !!document.querySelector('#requoted')", "the new quote").await?;
    assert_eq!(text(&c, "#quote-title").await?, "Price for 7 nights", "the dates shown are quoted");
    assert!(s.all_bookings().await.is_empty(), "nothing was booked for dates the guest no longer sees");
    let kept = c.execute("return document.querySelector('#guestName').value", vec![]).await?;
    assert_eq!(kept, json!("Dee Tes"), "what the guest typed is kept");
    click(&c, "#request button[type=submit]").await?;
    let code = text(&c, "#code").await?;
    let booking = s.rental.booking(&code)?;
    assert_eq!(
        (booking.check_in().to_string(), booking.check_out().to_string()),
        ("2027-01-04".into(), "2027-01-11".into())
    );
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guest_count_chosen_before_picking_days_is_kept() -> Result {
    let s = book_server("https://cottages.example").await;
    let base = format!("http://{}", s.http.addr);
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    c.goto(&format!("{base}/book/sea-view?month=2027-01")).await?;
    c.find(Locator::Css("#guests")).await?.select_by_value("4").await?;
    pick(&c, "2027-01-04", "2027-01-08").await?;
    assert!(c.current_url().await?.as_str().contains("guests=4"), "the address keeps 4 guests");
    let stay = text(&c, "#quote p.muted").await?;
    assert!(stay.ends_with("4 guests"), "{stay}");
    assert!(c.source().await?.contains("Extra guests"), "the extra-guest fee is charged");
    c.close().await?;
    Ok(())
}

/// A server whose page allows `site` to frame it, taking `posts` requests per address.
async fn limited_server(site: &str, posts: usize) -> TestServer<MemoryStore> {
    let mut config = config(AdminConfig::default());
    config.book.posts = PostLimit { posts, window: chrono::TimeDelta::minutes(10) };
    let s = TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(PASSWORD).unwrap();
    s.rental
        .edit_property("sea-view", |p| {
            p.booking_page.enabled = true;
            p.booking_page.embed_origins = vec![site.to_owned()];
        })
        .unwrap();
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_do_not_count_toward_the_limit_and_the_limit_page_keeps_the_input_inside_the_frame() -> Result {
    let s = limited_server("http://127.0.0.1", 1).await;
    let base = format!("http://{}", s.http.addr);
    let port = long_site(&base, "sea-view").await;
    s.rental.edit_property("sea-view", |p| p.booking_page.embed_origins = vec![format!("http://127.0.0.1:{port}")])?;
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    enter_frame(&c, port).await?;
    pick(&c, "2026-12-07", "2026-12-10").await?;
    // A name of spaces: refused for its field, and not counted.
    c.find(Locator::Css("#guestName")).await?.send_keys("   ").await?;
    c.find(Locator::Css("#guestEmail")).await?.send_keys("sp@example.com").await?;
    click(&c, "#request button[type=submit]").await?;
    assert!(c.find(Locator::Css("#guestName-err")).await.is_ok(), "refused for the name");
    c.find(Locator::Css("#guestName")).await?.clear().await?;
    c.find(Locator::Css("#guestEmail")).await?.clear().await?;
    let first = request(&c, "Ann First").await?;
    assert_eq!(s.rental.booking(&first)?.source.as_str(), "page", "the one request allowed was sent");

    // The next request is over the limit: the page says so inside the frame, with the input kept.
    enter_frame(&c, port).await?;
    pick(&c, "2026-12-14", "2026-12-17").await?;
    c.find(Locator::Css("#guestName")).await?.send_keys("Bo Second").await?;
    c.find(Locator::Css("#guestEmail")).await?.send_keys("bo@example.com").await?;
    c.find(Locator::Css("#notes")).await?.send_keys("Late arrival").await?;
    click(&c, "#request button[type=submit]").await?;
    assert_eq!(text(&c, "h1").await?, "Too many requests", "the 429 page shows in the frame");
    let kept = c
        .execute(
            "return [document.querySelector('#guestName').value, document.querySelector('#guestEmail').value, document.querySelector('#notes').value]",
            vec![],
        )
        .await?;
    assert_eq!(kept, json!(["Bo Second", "bo@example.com", "Late arrival"]));
    let back = c.find(Locator::Css("a#back")).await?.attr("href").await?.unwrap_or_default();
    assert!(back.contains("checkIn=2026-12-14") && back.contains("checkOut=2026-12-17"), "{back}");
    c.enter_parent_frame().await?;

    // After the window, the kept form sends the request.
    s.set_now("2026-11-22T07:59:22Z");
    c.find(Locator::Css("iframe")).await?.enter_frame().await?;
    click(&c, "#request button[type=submit]").await?;
    let second = text(&c, "#code").await?;
    assert_eq!(s.rental.booking(&second)?.guest_name, "Bo Second");
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_page_says_so_inside_the_frame() -> Result {
    let s = book_server("http://127.0.0.1").await;
    let base = format!("http://{}", s.http.addr);
    let port = long_site(&base, "no-such-house").await;
    s.rental.edit_property("sea-view", |p| p.booking_page.embed_origins = vec![format!("http://127.0.0.1:{port}")])?;
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    c.goto(&format!("http://127.0.0.1:{port}/")).await?;
    c.find(Locator::Css("iframe")).await?.enter_frame().await?;
    assert_eq!(text(&c, "h1").await?, "Page not found", "not the browser's refusal");
    c.enter_parent_frame().await?;
    // A confirmation address that is not one, under the property framed, in a second frame.
    let forged = format!("{base}/book/sea-view/requested/forged?embed=http%3A%2F%2F127.0.0.1%3A{port}");
    c.execute(
        "var f = document.createElement('iframe'); f.id = 'second'; f.src = arguments[0]; document.body.prepend(f);",
        vec![json!(forged)],
    )
    .await?;
    c.find(Locator::Css("iframe#second")).await?.enter_frame().await?;
    assert_eq!(text(&c, "h1").await?, "Page not found");
    c.close().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_quote_comes_into_view_after_the_second_pick_and_the_confirmation_after_a_request() -> Result {
    let s = book_server("http://127.0.0.1").await;
    let base = format!("http://{}", s.http.addr);
    let port = long_site(&base, "sea-view").await;
    s.rental.edit_property("sea-view", |p| p.booking_page.embed_origins = vec![format!("http://127.0.0.1:{port}")])?;
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;
    c.set_window_size(390, 844).await?;

    // The page itself: focus and the view move to the quote.
    c.goto(&format!("{base}/book/sea-view?month=2027-01")).await?;
    pick(&c, "2027-01-04", "2027-01-08").await?;
    until(
        &c,
        "var t = document.querySelector('#quote-title'), r = t.getBoundingClientRect();
         return document.activeElement === t && r.top >= 0 && r.bottom <= window.innerHeight",
        "focus on the quote, in view",
    )
    .await?;

    // In a frame: the site scrolls to the quote, then to the confirmation.
    enter_frame(&c, port).await?;
    pick(&c, "2026-12-07", "2026-12-10").await?;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let top = c.execute("return document.querySelector('#quote-title').getBoundingClientRect().top", vec![]).await?;
    c.enter_parent_frame().await?;
    until(
        &c,
        &format!(
            "var y = document.querySelector('iframe').getBoundingClientRect().top + {top};
             return y >= 0 && y < window.innerHeight"
        ),
        "the quote in the site's window",
    )
    .await?;
    c.find(Locator::Css("iframe")).await?.enter_frame().await?;
    request(&c, "Pho Ne").await?;
    c.enter_parent_frame().await?;
    until(
        &c,
        "var r = document.querySelector('iframe').getBoundingClientRect(); return r.top > -1 && r.top < window.innerHeight",
        "the confirmation's top in the site's window",
    )
    .await?;
    c.close().await?;
    Ok(())
}
