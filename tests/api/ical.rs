//! docs/API.md section 8 end to end: channel feeds served by a local HTTP
//! server are pulled through `POST /api/v1/sync/ical`, and our own calendar is
//! published at `GET /api/v1/calendar/{slug}.ics`.

use std::process::Command;
use std::time::Duration;

use http::{Method, header};
use http_body_util::Full;
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_core::{MemoryStore, Store};
use rental_server::ServerConfig;
use rental_server::feed_pulls::FeedPullConfig;
use rental_server::outbound::OutboundConfig;
use rental_tests::feeds::{Feed, FeedServer, calendar};
use rental_tests::http::TestServer;
use serde_json::{Value, json};

/// A server that may pull from loopback feeds and gives up on a pull after 1 s.
async fn server() -> TestServer<MemoryStore> {
    let feed_pulls = FeedPullConfig {
        outbound: OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() },
        timeout: Duration::from_secs(1),
        ..FeedPullConfig::default()
    };
    TestServer::with_config(&ServerConfig { feed_pulls, ..ServerConfig::default() }).await
}

/// Gives `slug` the feeds `(name, url)`.
fn set_feeds<S: Store>(s: &TestServer<S>, slug: &str, feeds: &[(&str, String)]) {
    let mut property = s.rental.property(slug).expect("a demo property");
    property.feeds.ical_feeds = feeds
        .iter()
        .map(|(name, url)| IcalFeed {
            name: Source::parse(name).expect("a feed name"),
            url: url.clone(),
            reservation_patterns: vec![],
        })
        .collect();
    s.rental.import_properties(&[property]).expect("the property updates");
}

async fn sync<S: Store + 'static>(s: &TestServer<S>) -> Value {
    s.post("/api/v1/sync/ical", &s.write_key, &json!({})).await.expect(200).body.clone()
}

/// The nights of `slug` from `from` to `to` that are not free, with their status.
async fn taken<S: Store + 'static>(s: &TestServer<S>, slug: &str, from: &str, to: &str) -> Vec<(String, String)> {
    let path = format!("/api/v1/properties/{slug}/availability?from={from}&to={to}");
    let reply = s.get(&path, &s.read_key).await;
    reply.expect(200);
    let nights = reply.body["nights"].as_array().or_else(|| reply.body.as_array()).cloned().unwrap_or_default();
    nights
        .iter()
        .filter(|n| n["available"] == false)
        .map(|n| {
            (n["date"].as_str().unwrap_or_default().to_owned(), n["status"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

fn nights(list: &[(String, String)]) -> Vec<&str> {
    list.iter().map(|(d, _)| d.as_str()).collect()
}

/// Bookings of `source`, as the API lists them.
async fn bookings_from<S: Store + 'static>(s: &TestServer<S>, source: &str) -> Vec<Value> {
    s.all_bookings().await.into_iter().filter(|b| b["source"] == source).collect()
}

const FIRST: &[(&str, &str, &str, &str)] = &[
    ("a@airbnb.com", "Reserved", "2026-12-01", "2026-12-04"),
    ("b@airbnb.com", "Airbnb (Not available)", "2026-12-10", "2026-12-12"),
    ("c@airbnb.com", "Reserved - Jane", "2026-12-20", "2026-12-22"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_pull_creates_and_an_edited_feed_updates_and_cancels() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/airbnb.ics", Feed::Calendar(calendar(FIRST)));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);

    let report = sync(&s).await;
    assert_eq!(
        (&report["feeds"], &report["succeeded"], &report["created"], &report["cancelled"]),
        (&json!(1), &json!(1), &json!(2), &json!(0))
    );
    let result = &report["results"][0];
    assert_eq!(
        (&result["property"], &result["feed"], &result["ok"], &result["events"], &result["error"]),
        (&json!("sea-view"), &json!("airbnb"), &json!(true), &json!(3), &Value::Null)
    );
    let imported = bookings_from(&s, "airbnb").await;
    assert_eq!(imported.len(), 2, "{imported:?}");
    for b in &imported {
        assert_eq!(
            (&b["status"], &b["paymentStatus"], &b["guestEmail"]),
            (&json!("confirmed"), &json!("external"), &json!(""))
        );
    }
    let jane = imported.iter().find(|b| b["checkIn"] == "2026-12-20").expect("Jane's stay");
    assert_eq!(jane["guestName"], "Jane");
    assert_eq!(
        nights(&taken(&s, "sea-view", "2026-11-30", "2026-12-23").await),
        ["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-10", "2026-12-11", "2026-12-20", "2026-12-21"]
    );

    // The channel moves the first stay a day later and drops Jane's.
    channel.set(
        "/airbnb.ics",
        Feed::Calendar(calendar(&[
            ("a@airbnb.com", "Reserved", "2026-12-02", "2026-12-05"),
            ("b@airbnb.com", "Airbnb (Not available)", "2026-12-10", "2026-12-12"),
        ])),
    );
    let report = sync(&s).await;
    assert_eq!(
        (&report["created"], &report["updated"], &report["cancelled"]),
        (&json!(0), &json!(1), &json!(1)),
        "{report}"
    );
    let imported = bookings_from(&s, "airbnb").await;
    let moved = imported.iter().find(|b| b["status"] == "confirmed").expect("the moved stay");
    assert_eq!((&moved["checkIn"], &moved["checkOut"]), (&json!("2026-12-02"), &json!("2026-12-05")));
    let gone = imported.iter().find(|b| b["status"] == "cancelled").expect("Jane's stay, cancelled");
    assert_eq!((&gone["checkIn"], &gone["cancelledBy"]), (&json!("2026-12-20"), &json!("channel")));
    assert_eq!(
        nights(&taken(&s, "sea-view", "2026-11-30", "2026-12-23").await),
        ["2026-12-02", "2026-12-03", "2026-12-04", "2026-12-10", "2026-12-11"]
    );

    // Quotes and direct bookings treat imported stays and blocks as taken.
    let quote = json!({"property": "sea-view", "checkIn": "2026-12-09", "checkOut": "2026-12-13", "guests": 2});
    let quoted = s.post("/api/v1/quotes", &s.read_key, &quote).await.expect(200).body.clone();
    assert_eq!(quoted["available"], false, "{quoted}");
    let request = rental_tests::http::booking_body("sea-view", "2026-12-10", "2026-12-13", 2);
    s.post("/api/v1/bookings", &s.key, &request).await.problem(409, "dates_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_the_feed_repeats_is_one_booking_with_one_created_event() {
    let (s, channel) = (server().await, FeedServer::start().await);
    let stay = ("r@airbnb.com", "Reserved", "2026-12-01", "2026-12-04");
    channel.set("/airbnb.ics", Feed::Calendar(calendar(&[stay, stay, stay])));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);
    let seq = s.rental.admin().events_after(0, 1_000_000).unwrap().len();
    let report = sync(&s).await;
    assert_eq!(report["created"], json!(1), "{report}");
    assert_eq!(bookings_from(&s, "airbnb").await.len(), 1);
    let created = s.rental.admin().events_after(0, 1_000_000).unwrap()[seq..]
        .iter()
        .filter(|e| e.event.event.as_str() == "booking.created")
        .count();
    assert_eq!(created, 1);
    assert_eq!(sync(&s).await["created"], json!(0), "a second pull finds nothing new");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_that_fails_changes_nothing_and_is_reported() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/airbnb.ics", Feed::Calendar(calendar(FIRST)));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);
    sync(&s).await;
    let before = (s.all_bookings().await, taken(&s, "sea-view", "2026-11-30", "2026-12-23").await);

    let failures = [
        (Feed::Status(500), "500"),
        (Feed::Hang(Duration::from_secs(3)), "timed out"),
        (Feed::Html, "not an iCalendar"),
        (Feed::Huge(6 * 1024 * 1024), "larger than 5 MiB"),
        (Feed::Calendar(calendar(FIRST).replace("END:VCALENDAR\r\n", "")), "not an iCalendar"),
    ];
    for (feed, error) in failures {
        channel.set("/airbnb.ics", feed.clone());
        let report = sync(&s).await;
        assert_eq!((&report["feeds"], &report["failed"], &report["cancelled"]), (&json!(1), &json!(1), &json!(0)));
        let result = &report["results"][0];
        assert_eq!(result["ok"], false, "{feed:?}");
        let message = result["error"].as_str().unwrap_or_default();
        assert!(message.contains(error), "{feed:?}: {message:?} should say {error:?}");
        let after = (s.all_bookings().await, taken(&s, "sea-view", "2026-11-30", "2026-12-23").await);
        assert_eq!(after, before, "{feed:?} changed something");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_feed_is_asked_for_conditionally_and_a_304_is_a_success() {
    let (s, channel) = (server().await, FeedServer::start().await);
    let body = calendar(FIRST);
    channel.set("/airbnb.ics", Feed::Calendar(body.clone()));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);
    sync(&s).await;
    let before = s.all_bookings().await;

    let report = sync(&s).await;
    let sent = channel.last_headers("/airbnb.ics").expect("a second request");
    assert_eq!(
        sent.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()),
        Some(rental_tests::feeds::etag_of(&body).as_str())
    );
    assert_eq!((&report["succeeded"], &report["created"], &report["updated"]), (&json!(1), &json!(0), &json!(0)));
    assert_eq!(report["results"][0]["ok"], true);
    assert_eq!(s.all_bookings().await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_calendar_is_believed_only_when_the_next_pull_says_the_same() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/booking.ics", Feed::Calendar(calendar(FIRST)));
    set_feeds(&s, "sea-view", &[("booking", channel.url("/booking.ics"))]);
    sync(&s).await;

    channel.set("/booking.ics", Feed::Calendar(calendar(&[])));
    let first = sync(&s).await;
    assert_eq!((&first["failed"], &first["cancelled"]), (&json!(1), &json!(0)), "{first}");
    assert_eq!(bookings_from(&s, "booking").await.iter().filter(|b| b["status"] == "confirmed").count(), 2);

    let second = sync(&s).await;
    assert_eq!((&second["succeeded"], &second["cancelled"]), (&json!(1), &json!(2)), "{second}");
    assert!(taken(&s, "sea-view", "2026-11-30", "2026-12-23").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_stay_over_a_direct_booking_is_kept_and_counted_as_a_conflict() {
    let (s, channel) = (server().await, FeedServer::start().await);
    let direct = s.book("sea-view", "2026-12-01", "2026-12-03", 2).await;
    channel.set("/vrbo.ics", Feed::Calendar(calendar(&[("v1", "Reserved - Sam", "2026-12-02", "2026-12-05")])));
    channel.set("/airbnb.ics", Feed::Calendar(calendar(&[("a1", "Reserved", "2027-01-10", "2027-01-12")])));
    set_feeds(&s, "sea-view", &[("vrbo", channel.url("/vrbo.ics")), ("airbnb", channel.url("/airbnb.ics"))]);

    let report = sync(&s).await;
    assert_eq!((&report["feeds"], &report["created"], &report["conflicts"]), (&json!(2), &json!(2), &json!(1)));
    let vrbo = report["results"].as_array().unwrap().iter().find(|r| r["feed"] == "vrbo").cloned().unwrap();
    assert_eq!(vrbo["conflicts"], 1);
    let code = direct["code"].as_str().unwrap();
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.expect(200).body["status"], "pending");
    assert_eq!(bookings_from(&s, "vrbo").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_of_one_property_pulls_only_its_feeds_and_emits_events() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/sea.ics", Feed::Calendar(calendar(&[("s1", "Reserved", "2026-12-01", "2026-12-03")])));
    channel.set("/alpine.ics", Feed::Calendar(calendar(&[("a1", "Reserved", "2026-12-01", "2026-12-03")])));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/sea.ics"))]);
    set_feeds(&s, "alpine-cabin", &[("airbnb", channel.url("/alpine.ics"))]);
    let seen = s.rental.admin().events_after(0, 10_000).expect("the outbox").len();

    let report = s.post("/api/v1/sync/ical?property=sea-view", &s.write_key, &json!({})).await.expect(200).body.clone();
    assert_eq!((&report["feeds"], &report["created"]), (&json!(1), &json!(1)));
    assert_eq!((channel.hits("/sea.ics"), channel.hits("/alpine.ics")), (1, 0));

    let events: Vec<Value> = s
        .rental
        .admin()
        .events_after(0, 10_000)
        .expect("the outbox")
        .into_iter()
        .skip(seen)
        .map(|e| json!(e.event))
        .collect();
    let names: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap_or_default()).collect();
    assert_eq!(names, ["booking.created", "calendar.synced"]);
    assert_eq!(events[0]["data"]["source"], "airbnb");
    assert_eq!(events[1]["data"], report, "calendar.synced carries the report");
}

/// `GET` without a key, and the headers that come back.
async fn get_calendar<S: Store + 'static>(
    s: &TestServer<S>,
    path: &str,
    etag: Option<&str>,
) -> (u16, String, Option<String>, String) {
    let mut request = s.request(Method::GET, path, "");
    request.headers_mut().map(|h| h.remove(header::AUTHORIZATION));
    if let Some(etag) = etag {
        request = request.header(header::IF_NONE_MATCH, etag);
    }
    let reply = s.send(request.body(Full::default()).unwrap()).await;
    let header = |name: &str| reply.header(name).map(str::to_owned);
    (reply.status, reply.text(), header("etag"), header("content-type").unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calendar_is_public_with_an_etag_and_no_guest_data() {
    let s = server().await;
    let booking = s.book("sea-view", "2026-12-01", "2026-12-04", 2).await;
    let (status, body, etag, content_type) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;
    assert_eq!((status, content_type.as_str()), (200, "text/calendar; charset=utf-8"));
    let etag = etag.expect("an ETag");
    assert!(body.starts_with("BEGIN:VCALENDAR\r\n") && body.ends_with("END:VCALENDAR\r\n"));
    assert!(
        body.contains("DTSTART;VALUE=DATE:20261201\r\nDTEND;VALUE=DATE:20261204\r\n")
            || body.contains("DTSTART;VALUE=DATE:20261201")
    );
    assert!(body.contains("SUMMARY:Reserved\r\n"));
    for private in ["Ada", "ada@example.com", booking["guestName"].as_str().unwrap()] {
        assert!(!body.contains(private), "{private} is in the calendar");
    }

    let (status, body, again, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", Some(&etag)).await;
    assert_eq!((status, body.as_str(), again.as_deref()), (304, "", Some(etag.as_str())));

    s.book("sea-view", "2026-12-10", "2026-12-12", 2).await;
    let (status, _, changed, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", Some(&etag)).await;
    assert_eq!(status, 200);
    assert_ne!(changed, Some(etag));

    assert_eq!(get_calendar(&s, "/api/v1/calendar/nowhere.ics", None).await.0, 404);
    assert_eq!(get_calendar(&s, "/api/v1/calendar/sea-view", None).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exclude_leaves_out_what_came_from_that_feed() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/airbnb.ics", Feed::Calendar(calendar(FIRST)));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);
    sync(&s).await;
    s.book("sea-view", "2027-01-05", "2027-01-08", 2).await;

    let count = |body: &str| body.matches("BEGIN:VEVENT").count();
    let (_, all, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;
    let (_, without, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics?exclude=airbnb", None).await;
    assert_eq!((count(&all), count(&without)), (4, 1));
    assert!(without.contains("DTSTART;VALUE=DATE:20270105"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_booking_code_or_block_id_appears_in_the_calendar_and_uids_survive_a_change() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/airbnb.ics", Feed::Calendar(calendar(FIRST)));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);
    sync(&s).await;
    let direct = s.book("sea-view", "2027-01-05", "2027-01-08", 2).await;
    s.book("sea-view", "2027-01-10", "2027-01-12", 2).await;
    let uids = |body: &str| {
        let mut uids: Vec<String> = body.lines().filter(|l| l.starts_with("UID:")).map(str::to_owned).collect();
        uids.sort();
        uids
    };
    let (_, before, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;
    let unfolded = before.replace("\r\n ", "").to_ascii_uppercase();
    let codes: Vec<String> = s.all_bookings().await.iter().map(|b| b["code"].as_str().unwrap().to_owned()).collect();
    assert_eq!(codes.len(), 4, "two imported, two direct");
    for code in &codes {
        let bare = code.rsplit('-').next().unwrap();
        assert!(!unfolded.contains(bare), "{code} is in the calendar:\n{before}");
    }
    assert!(!unfolded.contains("BLK_"), "a block id is in the calendar:\n{before}");
    assert_eq!(uids(&before).len(), 5, "{before}");

    s.clock.set(rental_tests::at("2026-11-23T09:00:00Z"));
    s.act(direct["code"].as_str().unwrap(), &json!({"action": "confirm"})).await.expect(200);
    let (_, after, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;
    assert_ne!(before, after, "the confirmed stay's DTSTAMP moved");
    assert_eq!(uids(&before), uids(&after), "the same events keep their UIDs");
}

/// Our calendar read by Python's `icalendar` package: `(summary, start, end)` per event.
fn python_reading(body: &str) -> Vec<(String, String, String)> {
    let script = r#"
import json, sys
import icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
out = []
for e in cal.walk("VEVENT"):
    out.append([str(e["SUMMARY"]), e["DTSTART"].dt.isoformat(), e["DTEND"].dt.isoformat(), str(e["UID"])])
print(json.dumps(out))
"#;
    let rows: Vec<Vec<String>> = serde_json::from_slice(&python(script, body.as_bytes())).unwrap();
    rows.into_iter().map(|r| (r[0].clone(), r[1].clone(), r[2].clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_calendar_reads_in_python_and_round_trips_through_our_import() {
    if !rental_tests::tools::python_modules("icalendar") {
        return;
    }
    let (s, channel) = (server().await, FeedServer::start().await);
    s.book("sea-view", "2026-12-01", "2026-12-04", 2).await;
    s.book("sea-view", "2026-12-04", "2026-12-06", 2).await;
    s.rental
        .calendars()
        .add_block(
            "sea-view",
            rental_core::Stay::new(rental_tests::d("2026-12-24"), rental_tests::d("2026-12-27")).unwrap(),
            "Family",
        )
        .expect("a block");
    let (_, body, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;

    let mut read = python_reading(&body);
    read.sort_by(|a, b| a.1.cmp(&b.1));
    let expected = [
        ("Reserved", "2026-12-01", "2026-12-04"),
        ("Reserved", "2026-12-04", "2026-12-06"),
        ("Not available", "2026-12-24", "2026-12-27"),
    ];
    let expected: Vec<(String, String, String)> =
        expected.iter().map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned())).collect();
    assert_eq!(read, expected);

    // Another property imports it as a channel would, and ends up with the same nights.
    channel.set("/sea-view.ics", Feed::Calendar(body));
    set_feeds(&s, "harbour-loft", &[("seaview", channel.url("/sea-view.ics"))]);
    let report =
        s.post("/api/v1/sync/ical?property=harbour-loft", &s.write_key, &json!({})).await.expect(200).body.clone();
    assert_eq!((&report["results"][0]["events"], &report["created"]), (&json!(3), &json!(2)), "{report}");
    assert_eq!(
        nights(&taken(&s, "sea-view", "2026-11-30", "2026-12-31").await),
        nights(&taken(&s, "harbour-loft", "2026-11-30", "2026-12-31").await),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_pulls_feeds_by_itself_soon_after_a_start_then_every_interval() {
    let channel = FeedServer::start().await;
    channel.set("/airbnb.ics", Feed::Calendar(calendar(FIRST)));
    let feed_pulls = FeedPullConfig {
        outbound: OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() },
        interval: Some(Duration::from_secs(30 * 60)),
        ..FeedPullConfig::default()
    };
    let store = MemoryStore::new();
    let clock = rental_tests::fixed_clock();
    let rental = rental_tests::rental_with_demo(store, clock.clone());
    let mut property = rental.property("sea-view").unwrap();
    property.feeds.ical_feeds = vec![IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: channel.url("/airbnb.ics"),
        reservation_patterns: vec![],
    }];
    rental.import_properties(&[property]).unwrap();
    let s =
        TestServer::serve(std::sync::Arc::new(rental), clock, &ServerConfig { feed_pulls, ..ServerConfig::default() })
            .await;

    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while bookings_from(&s, "airbnb").await.len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no scheduled pull within 10 s of the start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(channel.hits("/airbnb.ics"), 1, "pulled once, not again before the interval");
    let states = s.rental.worker().feed_states().unwrap();
    assert_eq!(states[0].last_result.as_ref().map(|r| r.ok), Some(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_owns_its_imports_a_block_cannot_be_deleted_nor_a_stay_changed() {
    let (s, channel) = (server().await, FeedServer::start().await);
    channel.set("/airbnb.ics", Feed::Calendar(calendar(FIRST)));
    set_feeds(&s, "sea-view", &[("airbnb", channel.url("/airbnb.ics"))]);
    sync(&s).await;

    let list = s.get("/api/v1/properties/sea-view/blocks?from=2026-12-01&to=2026-12-31", &s.read_key).await;
    let blocks = list.expect(200).body["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert_eq!((&blocks[0]["source"], &blocks[0]["startDate"]), (&json!("airbnb"), &json!("2026-12-10")));
    let path = format!("/api/v1/properties/sea-view/blocks/{}", blocks[0]["id"].as_str().unwrap());
    s.http.send_json(http::Method::DELETE, &path, &s.write_key, &json!({})).await.problem(409, "invalid_transition");
    assert_eq!(nights(&taken(&s, "sea-view", "2026-12-10", "2026-12-12").await), ["2026-12-10", "2026-12-11"]);

    let imported = bookings_from(&s, "airbnb").await;
    let code = imported[0]["code"].as_str().unwrap();
    s.act(code, &json!({"action": "change", "guests": 2})).await.problem(409, "invalid_transition");
}

/// The `NAME` and `X-WR-CALNAME` of each calendar, as Python's `icalendar` reads them.
fn python_names(bodies: &[String]) -> Vec<(String, String)> {
    let script = r#"
import json, sys
import icalendar
out = []
for body in json.load(sys.stdin):
    cal = icalendar.Calendar.from_ical(body.encode())
    out.append([str(cal["NAME"]), str(cal["X-WR-CALNAME"])])
print(json.dumps(out))
"#;
    serde_json::from_slice(&python(script, json!(bodies).to_string().as_bytes())).unwrap()
}

/// What `script` prints when run by `python3` with `input` on its standard input.
fn python(script: &str, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs (the test script installs it)");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "Python's icalendar failed: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// Property names that valid input allows: separators, quotes, tabs, long runs of
/// multi-byte characters, and a few from a seeded generator of any printable text.
fn valid_names() -> Vec<String> {
    use proptest::strategy::{Strategy, ValueTree};
    let mut names: Vec<String> = [
        r#"Sea; View, "Cottage" \ by the: sea"#,
        "Zoë's 日本の家 🏠 Ångström, a name long enough to be folded past seventy-five octets",
        "Tab\there\\n is not a line break",
        "BEGIN:VEVENT",
    ]
    .map(str::to_owned)
    .to_vec();
    let printable =
        proptest::char::any().prop_filter("printable", |c| !c.is_control() && !rental_core::text::is_refused(*c));
    let strategy = proptest::collection::vec(printable, 1..60).prop_map(|chars| chars.into_iter().collect::<String>());
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    while names.len() < 16 {
        let name = strategy.new_tree(&mut runner).unwrap().current();
        if !name.trim().is_empty() {
            names.push(name.trim().to_owned());
        }
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_property_name_reads_back_whole_in_python_and_a_line_break_in_one_is_refused() {
    if !rental_tests::tools::python_modules("icalendar") {
        return;
    }
    let s = server().await;
    let names = valid_names();
    let mut bodies = Vec::new();
    for name in &names {
        let property = {
            let mut edited = rental_core::demo::sea_view();
            edited.name = name.clone();
            edited
        };
        s.rental.import_properties(&[property]).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        let (_, body, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;
        bodies.push(body);
    }
    let read = python_names(&bodies);
    for (name, (calname, wr)) in names.iter().zip(read) {
        assert_eq!((&calname, &wr), (name, name), "NAME and X-WR-CALNAME of {name:?}");
    }
    for evil in ["Evil\r\nBEGIN:VEVENT\r\nSUMMARY:Injected", "Evil\nX", "A\u{9b}31mB", "\u{202e}Evil"] {
        let property = {
            let mut edited = rental_core::demo::sea_view();
            edited.name = evil.to_owned();
            edited
        };
        let Err(rental_core::Error::Validation(errors)) = s.rental.import_properties(&[property]) else {
            panic!("{evil:?} was accepted")
        };
        assert!(errors.iter().any(|e| e.field.ends_with("name") && e.code == "control_character"), "{errors:?}");
    }
    let (_, body, _, _) = get_calendar(&s, "/api/v1/calendar/sea-view.ics", None).await;
    assert_eq!(python_names(&[body])[0].0, names[names.len() - 1], "the last good name stands");
}
