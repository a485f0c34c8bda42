//! The dashboard end to end in a real browser: Debian's chromium, headless,
//! driven through chromedriver (started here on a free port) with fantoccini.
//! Log in, create a key and use it, revoke it and see the API refuse it,
//! register a webhook and see a test event arrive, resend it, log out.
//! Each page is saved at desktop (1280) and phone (390) widths under
//! `target/screenshots/`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use rental_core::MemoryStore;
use rental_core::webhook::verify;
use rental_tests::feeds::{Feed, FeedServer, calendar};
use rental_tests::http::TestServer;
use rental_tests::receiver::Receiver;
use serde_json::json;

use crate::client::{PASSWORD, server};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

pub(crate) type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A chromedriver process of this test, stopped when dropped.
pub(crate) struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    /// Starts chromedriver; `None` when chromium is not installed (see `rental_tests::tools`).
    pub(crate) fn start() -> Option<Driver> {
        if !rental_tests::tools::chromium() {
            return None;
        }
        let port = rental_tests::ports::free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on port {port} within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Driver { child, port })
    }

    pub(crate) async fn browser(&self, profile: &Path) -> Client {
        self.browser_with(profile, &json!({})).await
    }

    /// A session whose chromium profile has `prefs` (`{"profile.managed_default_content_settings.javascript": 2}`
    /// turns script off).
    pub(crate) async fn browser_with(&self, profile: &Path, prefs: &serde_json::Value) -> Client {
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": CHROMIUM,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--disable-dev-shm-usage", "--window-size=1280,900",
                         format!("--user-data-dir={}", profile.display())],
                "prefs": prefs,
            }),
        );
        ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("chromedriver opens a chromium session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where screenshots go: `target/screenshots/`.
fn screenshots() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), PathBuf::from);
    let dir = target.join("screenshots");
    std::fs::create_dir_all(&dir).expect("the screenshot directory can be made");
    dir
}

/// Saves the whole page (up to 2400 px tall) at desktop and phone widths as `NAME-desktop.png`, `NAME-phone.png`.
pub(crate) async fn shot(c: &Client, name: &str) -> Result {
    for (label, width) in [("desktop", 1280), ("phone", 390)] {
        c.set_window_size(width, 900).await?;
        let height = c.execute("return document.documentElement.scrollHeight", vec![]).await?;
        // The window is taller than its viewport by the browser's own frame.
        let height = u32::try_from(height.as_u64().unwrap_or(900)).unwrap_or(900).saturating_add(120).clamp(600, 2400);
        c.set_window_size(width, height).await?;
        let png = c.screenshot().await?;
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        std::fs::write(screenshots().join(format!("{name}-{label}.png")), png)?;
    }
    c.set_window_size(1280, 900).await?;
    Ok(())
}

/// Clicks what submits a form and waits for the next page.
pub(crate) async fn click(c: &Client, css: &str) -> Result {
    let old = c.find(Locator::Css("html")).await?;
    c.find(Locator::Css(css)).await?.click().await?;
    next_page(old).await
}

/// Clicks the button labelled `label` inside the `scope` path (an `XPath`); with
/// `confirm`, checks and accepts the confirmation dialog; waits for the next page.
pub(crate) async fn click_button(c: &Client, scope: &str, label: &str, confirm: Option<&str>) -> Result {
    let old = c.find(Locator::Css("html")).await?;
    let xpath = format!("{scope}//button[normalize-space()='{label}']");
    c.find(Locator::XPath(&xpath)).await?.click().await?;
    if let Some(question) = confirm {
        let asked = c.get_alert_text().await?;
        assert!(asked.contains(question), "asked {asked:?}");
        c.accept_alert().await?;
    }
    next_page(old).await
}

/// Waits until `old` (the previous page's root) is gone.
pub(crate) async fn next_page(old: fantoccini::elements::Element) -> Result {
    let deadline = Instant::now() + Duration::from_secs(10);
    while old.tag_name().await.is_ok() {
        assert!(Instant::now() < deadline, "the page did not change within 10 s");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Ok(())
}

pub(crate) async fn path(c: &Client) -> Result<String> {
    Ok(c.current_url().await?.path().to_owned())
}

/// The text of the page's one-time message.
pub(crate) async fn flash(c: &Client) -> Result<String> {
    Ok(c.wait().at_most(Duration::from_secs(10)).for_element(Locator::Css(".flash")).await?.text().await?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_manages_keys_and_webhooks_in_a_real_browser() -> Result {
    let s = server().await;
    let code = two_stays_with_their_own_codes(&s).await?;
    let channel = FeedServer::start().await;
    channel.set(
        "/airbnb.ics",
        Feed::Calendar(calendar(&[("a1@airbnb.com", "Reserved - Jane", "2026-12-01", "2026-12-04")])),
    );
    s.rental.calendars().add_ical_feed("sea-view", "airbnb", &channel.url("/airbnb.ics"))?;
    let base = format!("http://{}", s.http.addr);
    let Some(driver) = Driver::start() else { return Ok(()) };
    let profile = tempfile::tempdir()?;
    let c = driver.browser(profile.path()).await;

    // Log in.
    c.goto(&format!("{base}/admin/api-keys")).await?;
    assert_eq!(path(&c).await?, "/admin/login", "no session: sent to the login page");
    shot(&c, "login").await?;
    c.find(Locator::Css("#password")).await?.send_keys("wrong password").await?;
    click(&c, "form[action='/admin/login'] button").await?;
    assert!(flash(&c).await?.contains("Wrong password"));
    c.find(Locator::Css("#password")).await?.send_keys(PASSWORD).await?;
    click(&c, "form[action='/admin/login'] button").await?;
    c.wait().for_element(Locator::Css("#arrivals")).await?;
    assert_eq!(path(&c).await?, "/admin");
    let arrivals = c.find(Locator::Css("#arrivals")).await?.text().await?;
    assert!(arrivals.contains(&code), "{arrivals}");
    check_in_from_the_houses(&c).await?;
    shot(&c, "today").await?;

    // Create a key, use it, revoke it.
    c.goto(&format!("{base}/admin/api-keys")).await?;
    c.find(Locator::Css("#key-name")).await?.send_keys("website").await?;
    c.find(Locator::Css("input[name=scope][value=write]")).await?.click().await?;
    click(&c, "form[action='/admin/api-keys'] button").await?;
    let key = c.wait().for_element(Locator::Css("#secret")).await?.text().await?;
    assert!(key.starts_with("rk_") && key.len() == 35, "{key:?}");
    shot(&c, "api-keys").await?;
    c.find(Locator::Css("button[data-copy=secret]")).await?.click().await?;
    let copy = c.find(Locator::Css("button[data-copy=secret]")).await?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while copy.text().await? == "Copy" {
        assert!(Instant::now() < deadline, "the Copy button did nothing");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    s.http.get("/api/v1/properties", &key).await.expect(200);
    let created = s
        .http
        .post(
            "/api/v1/bookings",
            &key,
            &rental_tests::http::booking_body("alpine-cabin", "2026-12-10", "2026-12-13", 2),
        )
        .await;
    created.expect(201);
    c.refresh().await?;
    assert!(c.find_all(Locator::Css("#secret")).await?.is_empty(), "the key is shown only once");
    let id = s.rental.admin().keys()?.into_iter().find(|k| k.name == "website").unwrap().id;
    click_button(&c, &format!("//tr[@data-id='{id}']"), "Revoke", Some("Revoke the key website?")).await?;
    assert!(flash(&c).await?.contains("Key website revoked."));
    s.http.get("/api/v1/properties", &key).await.problem(401, "unauthorized");

    // Register a webhook, send it a test event, resend that delivery.
    let receiver = Receiver::ok().await;
    c.goto(&format!("{base}/admin/webhooks")).await?;
    c.find(Locator::Css("#wh-url")).await?.send_keys(&receiver.url()).await?;
    click(&c, "form[action='/admin/webhooks'] button").await?;
    let secret = c.wait().for_element(Locator::Css("#secret")).await?.text().await?;
    assert!(secret.starts_with("whsec_"), "{secret:?}");
    click_button(&c, "//section[contains(@class,'webhook')]", "Send test event", None).await?;
    assert!(flash(&c).await?.contains("Test event sent"));
    let got = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].event(), "webhook.test");
    assert!(verify(secret.as_bytes(), &got[0].body, got[0].header("x-svc-signature").unwrap()));
    let delivery = got[0].delivery();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        c.refresh().await?;
        let row = c.find(Locator::Css(&format!("tr[data-id='{delivery}']"))).await?.text().await?;
        if row.contains("delivered") && row.contains("200") {
            break;
        }
        assert!(Instant::now() < deadline, "the delivery never showed as delivered: {row}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    shot(&c, "webhooks").await?;
    click_button(&c, &format!("//tr[@data-id='{delivery}']"), "Resend", None).await?;
    let got = receiver.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!((got[1].event(), got[1].delivery()), ("webhook.test".to_owned(), delivery.clone()));

    properties_page(&c, &base, &s, &channel).await?;

    // Log out: the dashboard is closed again.
    click_button(&c, "//header", "Log out", None).await?;
    c.wait().for_element(Locator::Css("#password")).await?;
    assert_eq!(path(&c).await?, "/admin/login");
    c.goto(&format!("{base}/admin/webhooks")).await?;
    assert_eq!(path(&c).await?, "/admin/login");
    c.close().await?;
    Ok(())
}

/// Sea View with per-stay codes, a guest confirmed for today and one for the 26th; the first code.
async fn two_stays_with_their_own_codes(s: &TestServer<MemoryStore>) -> Result<String> {
    let sea = {
        let mut edited = rental_core::demo::sea_view();
        edited.access.door_code_mode = rental_core::access::DoorCodeMode::PerStay;
        edited.access.access_before_minutes = 60;
        edited
    };
    s.rental.import_properties(&[sea])?;
    let mut codes = Vec::new();
    for (from, to) in [("2026-11-22", "2026-11-25"), ("2026-11-26", "2026-11-28")] {
        let code = s.book("sea-view", from, to, 2).await["code"].as_str().unwrap().to_owned();
        s.act(&code, &json!({"action": "confirm"})).await.expect(200);
        codes.push(code);
    }
    Ok(codes.swap_remove(0))
}

/// The Today page's house row of Sea View: awaiting check-in with a stale feed; its button checks in.
async fn check_in_from_the_houses(c: &Client) -> Result {
    let house = "//tr[@data-slug='sea-view']";
    let row = c.find(Locator::XPath(house)).await?.text().await?;
    assert!(row.contains("Awaiting check-in") && row.contains("airbnb stale"), "{row}");
    click_button(c, house, "Check in", None).await?;
    let state = c.find(Locator::XPath(house)).await?.attr("data-state").await?;
    assert_eq!(state.as_deref(), Some("checked_in"));
    Ok(())
}

/// Properties: door code, Wi-Fi, feeds; import the channel calendars now; add a feed.
async fn properties_page(c: &Client, base: &str, s: &TestServer<MemoryStore>, channel: &FeedServer) -> Result {
    c.goto(&format!("{base}/admin/properties")).await?;
    let card = c.find(Locator::Css("section[data-slug='sea-view']")).await?.text().await?;
    assert!(card.contains("airbnb") && card.contains(&channel.url("/airbnb.ics")), "{card}");
    click(c, "form[action='/admin/properties/sea-view/sync'] button").await?;
    assert!(flash(c).await?.contains("Pulled 1 feed: 1 created"));
    let pulled = c.find(Locator::Css("section[data-slug='sea-view'] td.last-pull")).await?.text().await?;
    assert!(pulled.contains("ok") && pulled.contains("1 created"), "{pulled}");
    shot(c, "properties").await?;
    c.find(Locator::Css("#feed-name-sea-view")).await?.send_keys("vrbo").await?;
    c.find(Locator::Css("#feed-url-sea-view")).await?.send_keys("https://www.vrbo.com/icalendar/42.ics").await?;
    click(c, "form[action='/admin/properties/sea-view/feeds'] button").await?;
    assert!(flash(c).await?.contains("Feed added"));
    let feeds: Vec<String> =
        s.rental.property("sea-view")?.feeds.ical_feeds.iter().map(|f| f.name.as_str().to_owned()).collect();
    assert_eq!(feeds, ["airbnb", "vrbo"]);
    Ok(())
}
