//! docs/API.md section 15 over HTTP: check-in and check-out, per-stay door
//! codes, turnover and feed freshness in the summary, `GET /api/v1/sync/status`,
//! and the scheduled transitions, each once across a restart.

use std::sync::Arc;
use std::time::Duration;

use rental_core::access::DoorCodeMode;
use rental_core::event::OutboxEvent;
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_core::store::ReadTx;
use rental_core::{ManualClock, Property, Store, demo};
use rental_server::ServerConfig;
use rental_tests::http::TestServer;
use rental_tests::{NOW, at, open_redb, rental_with_demo};
use serde_json::{Value, json};

fn of<'a>(summary: &'a Value, slug: &str) -> &'a Value {
    summary["properties"].as_array().unwrap().iter().find(|p| p["slug"] == slug).unwrap()
}

/// The events of booking `code` in the outbox, as `(name, at, by)`.
fn stay_events<S: Store>(s: &TestServer<S>, code: &str) -> Vec<(String, Value, Value)> {
    let events: Vec<OutboxEvent> = s.rental.store().read().unwrap().events_after(0, 10_000).unwrap();
    events
        .into_iter()
        .filter(|e| e.event.data["code"] == code && e.event.event.as_str() != "booking.created")
        .filter(|e| !e.event.event.as_str().starts_with("booking."))
        .map(|e| (e.event.event.as_str().to_owned(), e.event.data["at"].clone(), e.event.data["by"].clone()))
        .collect()
}

async fn confirmed<S: Store + 'static>(s: &TestServer<S>, property: &str, from: &str, to: &str) -> String {
    let code = s.book(property, from, to, 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    code
}

/// Sea View (Lisbon, UTC+0 in November, 15:00 to 11:00) with per-stay codes
/// of 6 digits, valid from 30 minutes before check-in to 15 after check-out.
fn per_stay_sea_view() -> Property {
    let mut edited = demo::sea_view();
    edited.access.door_code_mode = DoorCodeMode::PerStay;
    edited.access.access_before_minutes = 30;
    edited.access.access_after_minutes = 15;
    edited
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_early_arrival_and_departure_move_the_summary_through_its_states() {
    let s = TestServer::memory().await; // 07:39 in Lisbon on 2026-11-22
    let code = confirmed(&s, "sea-view", "2026-11-22", "2026-11-25").await;
    let sea = s.summary().await;
    assert_eq!(of(&sea, "sea-view")["stayState"], "awaiting_check_in");
    assert_eq!(of(&sea, "sea-view")["nextTransitionAt"], "2026-11-22T15:00:00.000Z");

    s.act(&code, &json!({"action": "check_out"})).await.problem(409, "invalid_transition");
    let reply = s.act(&code, &json!({"action": "check_in"})).await;
    reply.expect(200);
    assert_eq!((&reply.body["checkedInAt"], &reply.body["checkedInBy"]), (&json!(NOW), &json!("action")));
    s.act(&code, &json!({"action": "check_in"})).await.expect(200);
    let summary = s.summary().await;
    let sea = of(&summary, "sea-view");
    assert_eq!(
        (&sea["stayState"], &sea["nextTransitionAt"]),
        (&json!("checked_in"), &json!("2026-11-25T11:00:00.000Z"))
    );
    assert_eq!(summary["totals"]["checkedIn"], 1);

    s.set_now("2026-11-23T09:00:00Z");
    let reply = s.act(&code, &json!({"action": "check_out"})).await;
    reply.expect(200);
    assert_eq!(reply.body["checkedOutBy"], "action");
    s.act(&code, &json!({"action": "check_out"})).await.expect(200);
    let summary = s.summary().await;
    let sea = of(&summary, "sea-view");
    assert_eq!(
        (&sea["stayState"], &sea["nextTransitionAt"]),
        (&json!("checked_out"), &json!("2026-11-24T00:00:00.000Z"))
    );
    assert_eq!(sea["turnover"]["cleaningFrom"], "2026-11-23T09:00:00.000Z");
    assert_eq!(summary["totals"]["checkedIn"], 0);
    s.set_now("2026-11-24T00:00:00Z");
    assert_eq!(of(&s.summary().await, "sea-view")["stayState"], "vacant");

    let events = stay_events(&s, &code);
    assert_eq!(
        events,
        [
            ("stay.checked_in".to_owned(), json!(NOW), json!("action")),
            ("stay.checked_out".to_owned(), json!("2026-11-23T09:00:00.000Z"), json!("action")),
        ],
        "each transition once, repeats emit nothing"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_in_is_refused_for_requests_and_before_the_arrival_day() {
    let s = TestServer::memory().await;
    let pending = s.book("sea-view", "2026-11-22", "2026-11-25", 2).await;
    s.act(pending["code"].as_str().unwrap(), &json!({"action": "check_in"})).await.problem(409, "invalid_transition");
    let later = confirmed(&s, "sea-view", "2026-12-20", "2026-12-23").await;
    s.act(&later, &json!({"action": "check_in"})).await.problem(409, "invalid_transition");
    s.act(&later, &json!({"action": "check_in", "by": "lock"})).await.problem(422, "validation_failed");
    assert!(stay_events(&s, &later).is_empty(), "refusals emit nothing");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_per_stay_code_is_issued_on_confirmation_and_revoked_on_cancellation() {
    let s = TestServer::memory().await;
    s.rental.import_properties(&[per_stay_sea_view()]).unwrap();
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let reply = s.act(&code, &json!({"action": "confirm"})).await;
    reply.expect(200);
    let access = reply.body["access"].clone();
    let digits = access["code"].as_str().unwrap().to_owned();
    assert!(digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit()), "{access}");
    assert_eq!(
        (&access["validFrom"], &access["validUntil"], &access["booking"]),
        (&json!("2026-12-20T14:30:00.000Z"), &json!("2026-12-23T11:15:00.000Z"), &json!(code))
    );
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body["access"], access);
    let sea = s.summary().await;
    assert_eq!(of(&sea, "sea-view")["access"], access, "the next code to become valid");
    assert_eq!(of(&sea, "sea-view")["doorCode"], "4821", "none valid now: the static code");

    // Never in the public calendar or the property bodies.
    let ics = s.get("/api/v1/calendar/sea-view.ics", "").await.text();
    let property = s.get("/api/v1/properties/sea-view", &s.read_key).await.text();
    let list = s.get("/api/v1/properties", &s.read_key).await.text();
    for text in [&ics, &property, &list] {
        assert!(!text.contains(&digits), "the code leaked: {text}");
    }

    s.set_now("2026-12-20T14:30:00Z");
    assert_eq!(of(&s.summary().await, "sea-view")["doorCode"], digits, "valid now");
    let reply = s.act(&code, &json!({"action": "cancel", "by": "guest"})).await;
    reply.expect(200);
    assert_eq!(reply.body["access"], Value::Null);
    let updates: Vec<Value> = s
        .rental
        .store()
        .read()
        .unwrap()
        .events_after(0, 1000)
        .unwrap()
        .into_iter()
        .filter(|e| e.event.event.as_str() == "access.updated")
        .map(|e| e.event.data["access"].clone())
        .collect();
    assert_eq!(updates, [access, Value::Null], "issued, then revoked");
    s.stop().await;
}

/// A server with a per-stay sea-view stay of 22 to 25 November, checked in on
/// the 22nd, and the clock on the morning of the 23rd; the stay's code.
async fn checked_in_until_the_morning_after() -> (TestServer<rental_core::MemoryStore>, String) {
    let s = TestServer::memory().await;
    s.rental.import_properties(&[per_stay_sea_view()]).unwrap();
    let code = confirmed(&s, "sea-view", "2026-11-22", "2026-11-25").await;
    s.set_now("2026-11-22T16:00:00Z");
    s.act(&code, &json!({"action": "check_in"})).await.expect(200);
    s.set_now("2026-11-23T08:00:00Z");
    (s, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_early_check_out_ends_the_code_fifteen_minutes_later() {
    let (s, code) = checked_in_until_the_morning_after().await;
    let reply = s.act(&code, &json!({"action": "check_out"})).await;
    reply.expect(200);
    assert_eq!(reply.body["access"]["validUntil"], "2026-11-23T08:15:00.000Z");
    let names: Vec<String> = stay_events(&s, &code).into_iter().map(|(n, _, _)| n).collect();
    assert_eq!(names, ["access.updated", "stay.checked_in", "stay.checked_out", "access.updated"]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checked_out_stay_refuses_a_change_and_keeps_its_code_window() {
    let (s, code) = checked_in_until_the_morning_after().await;
    let before = s.act(&code, &json!({"action": "check_out"})).await.body.clone();
    let changes = [
        json!({"action": "change", "checkOut": "2026-11-27"}),
        json!({"action": "change", "checkOut": "2026-11-25"}),
        json!({"action": "change", "guests": 1}),
    ];
    for change in changes {
        s.act(&code, &change).await.problem(409, "invalid_transition");
    }
    let after = s.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body.clone();
    assert_eq!(after, before, "nothing changed");
    assert_eq!(after["access"]["validUntil"], "2026-11-23T08:15:00.000Z");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_status_shows_every_feed_and_a_never_pulled_one_is_stale() {
    let s = TestServer::memory().await;
    let mut sea = demo::sea_view();
    sea.feeds.ical_feeds = vec![IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: "https://example.com/a.ics".into(),
        reservation_patterns: vec![],
    }];
    s.rental.import_properties(&[sea]).unwrap();
    s.get("/api/v1/sync/status", &s.write_key).await.problem(403, "insufficient_scope");
    let reply = s.get("/api/v1/sync/status", &s.read_key).await;
    reply.expect(200);
    assert_eq!(
        reply.body,
        json!({"feeds": [{"property": "sea-view", "name": "airbnb", "ok": false, "lastAttemptAt": null,
                          "lastSuccessAt": null, "stale": true, "error": null, "events": 0}]})
    );
    let summary = s.summary().await;
    assert_eq!(summary["totals"]["staleFeeds"], 1);
    assert_eq!(
        of(&summary, "sea-view")["feeds"],
        json!([{"name": "airbnb", "ok": false, "lastAttemptAt": null, "lastSuccessAt": null, "stale": true}])
    );
    s.stop().await;
}

/// Polls `check` every 100 ms for up to `seconds`.
async fn eventually(seconds: u64, mut check: impl AsyncFnMut() -> bool) -> bool {
    for _ in 0..seconds * 10 {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schedule_checks_in_and_out_once_each_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::redb_in(dir.path()).await;
    let code = confirmed(&s, "sea-view", "2026-11-22", "2026-11-24").await;
    let path = format!("/api/v1/bookings/{code}");
    s.set_now("2026-11-22T15:00:30Z");
    let checked_in = eventually(20, async || s.get(&path, &s.read_key).await.body["checkedInBy"] == "schedule").await;
    assert!(checked_in, "checked in within 20 s of its time");
    let booking = s.get(&path, &s.read_key).await.body;
    assert_eq!(booking["checkedInAt"], "2026-11-22T15:00:00.000Z");
    s.stop().await;

    // Down over the departure: the check-out is applied at start, once.
    for _ in 0..2 {
        let clock = Arc::new(ManualClock::new(at("2026-11-24T12:00:00Z")));
        let rental = Arc::new(rental_with_demo(open_redb(dir.path()), Arc::clone(&clock)).with_read_cache().unwrap());
        let s = TestServer::serve(rental, clock, &ServerConfig::default()).await;
        let out = eventually(5, async || s.get(&path, &s.read_key).await.body["checkedOutBy"] == "schedule").await;
        assert!(out, "the check-out missed while down is applied at start");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(
            stay_events(&s, &code),
            [
                ("stay.checked_in".to_owned(), json!("2026-11-22T15:00:00.000Z"), json!("schedule")),
                ("stay.checked_out".to_owned(), json!("2026-11-24T11:00:00.000Z"), json!("schedule")),
            ]
        );
        s.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_stay_moved_to_new_dates_keeps_its_code_and_its_window_follows() {
    use rental_server::feed_pulls::FeedPullConfig;
    use rental_server::outbound::OutboundConfig;
    use rental_tests::feeds::{Feed, FeedServer, calendar};

    let feed_pulls = FeedPullConfig {
        outbound: OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() },
        ..FeedPullConfig::default()
    };
    let s = TestServer::with_config(&ServerConfig { feed_pulls, ..ServerConfig::default() }).await;
    let channel = FeedServer::start().await;
    let mut sea = per_stay_sea_view();
    sea.feeds.ical_feeds = vec![IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: channel.url("/a.ics"),
        reservation_patterns: vec![],
    }];
    s.rental.import_properties(&[sea]).unwrap();
    let sync = async |first: &str, last: &str| {
        channel.set("/a.ics", Feed::Calendar(calendar(&[("j1@airbnb.com", "Reserved - Jane", first, last)])));
        s.post("/api/v1/sync/ical", &s.write_key, &json!({})).await.expect(200);
        let list = s.get("/api/v1/bookings?source=airbnb", &s.read_key).await;
        list.body["data"][0].clone()
    };
    let before = sync("2026-12-01", "2026-12-04").await;
    let after = sync("2026-12-02", "2026-12-05").await;
    assert_eq!(before["code"], after["code"]);
    assert_eq!(after["access"]["code"], before["access"]["code"], "the code is kept");
    assert_eq!(
        (&after["access"]["validFrom"], &after["access"]["validUntil"]),
        (&json!("2026-12-02T14:30:00.000Z"), &json!("2026-12-05T11:15:00.000Z")),
        "the window follows the new dates"
    );
    let code = after["code"].as_str().unwrap();
    let moved: Vec<Value> = s
        .rental
        .store()
        .read()
        .unwrap()
        .events_after(0, 1000)
        .unwrap()
        .into_iter()
        .filter(|e| e.event.event.as_str() == "access.updated" && e.event.data["code"] == code)
        .map(|e| e.event.data["access"]["validFrom"].clone())
        .collect();
    assert_eq!(moved, [json!("2026-12-01T14:30:00.000Z"), json!("2026-12-02T14:30:00.000Z")], "issued, then moved");
    s.stop().await;
}
