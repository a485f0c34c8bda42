//! Two `rental serve` processes on one PostgreSQL database (docs/API.md
//! section 17): every guarantee holds across them. The database is a
//! throwaway cluster (`rental_tests::postgres`); the servers are the real binary.

mod common;

use std::collections::BTreeMap;
use std::thread;
use std::time::{Duration, Instant};

use chrono::{Days, NaiveDate};

use common::{Sandbox, Server, day, get, post, post_once};
use rental_core::ids::Source;
use rental_core::keys::Scope;
use rental_core::property::IcalFeed;
use rental_core::store::PgStore;
use rental_core::webhook::Subscription;
use rental_core::{BookingQuery, Rental, Status, demo};
use rental_tests::feeds::{Feed, FeedServer, calendar};
use rental_tests::postgres::PgCluster;
use rental_tests::receiver::Receiver;
use rental_tests::tools;
use serde_json::{Value, json};

/// A database with the demo properties and a read+write key, and a sandbox to run the binary in.
struct Shared {
    sandbox: Sandbox,
    url: String,
    key: String,
}

impl Shared {
    fn new() -> Self {
        let url = PgCluster::shared().database();
        let rental = Rental::new(PgStore::open(&url).unwrap());
        rental.import_properties(&demo::properties()).unwrap();
        let key = rental.admin().create_key("test", &[Scope::Read, Scope::Write]).unwrap().secret;
        Shared { sandbox: Sandbox { dir: tempfile::tempdir().unwrap() }, url, key }
    }

    /// Adds a webhook for `events` at `url`.
    fn webhook(&self, url: &str, events: &str) {
        let rental = Rental::new(PgStore::open(&self.url).unwrap());
        rental.admin().add_webhook(url, Subscription::parse(events).unwrap(), None).unwrap();
    }

    /// sea-view pulls `url` as its `airbnb` feed.
    fn feed(&self, url: &str) {
        let rental = Rental::new(PgStore::open(&self.url).unwrap());
        let mut property = rental.property("sea-view").unwrap();
        property.feeds.ical_feeds = vec![IcalFeed {
            name: Source::parse("airbnb").unwrap(),
            url: url.to_owned(),
            reservation_patterns: vec![],
        }];
        rental.import_properties(&[property]).unwrap();
    }

    /// The confirmed bookings imported from sea-view's `airbnb` feed.
    fn imported(&self) -> usize {
        let rental = Rental::new(PgStore::open(&self.url).unwrap());
        let query = BookingQuery { source: Some(Source::parse("airbnb").unwrap()), limit: 100, ..Default::default() };
        rental.bookings(&query).unwrap().data.iter().filter(|b| b.status == Status::Confirmed).count()
    }

    fn serve(&self) -> Server {
        self.serve_with(&[])
    }

    /// `rental serve` on the shared database, with these `RENTAL_*` variables too.
    fn serve_with(&self, more: &[(&str, &str)]) -> Server {
        let mut env = vec![
            ("RENTAL_DATABASE_URL", self.url.as_str()),
            ("RENTAL_RATE_LIMIT", "0"),
            ("RENTAL_ALLOW_PRIVATE_TARGETS", "true"),
        ];
        env.extend_from_slice(more);
        self.sandbox.serve_with(&env)
    }

    /// `rental ARGS` on the shared database.
    fn run(&self, args: &[&str]) -> common::Run {
        self.sandbox.run_with(args, &[("RENTAL_DATABASE_URL", self.url.as_str())])
    }
}

/// A request for `nights` nights at `property`, `from` days from today.
fn stay(property: &str, from: u64, nights: u64) -> Value {
    json!({"property": property, "checkIn": day(from).to_string(), "checkOut": day(from + nights).to_string(),
           "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2})
}

#[test]
fn forty_overlapping_creations_split_across_two_servers_make_exactly_one_201() {
    if !tools::postgres() {
        return;
    }
    let shared = Shared::new();
    let servers = [shared.serve(), shared.serve()];
    let clients: Vec<_> = (0..40u64)
        .map(|i| {
            let (addr, key) = (servers[(i % 2) as usize].addr, shared.key.clone());
            thread::spawn(move || post(addr, "/api/v1/bookings", &key, &stay("sea-view", 40 + i % 3, 3)).0)
        })
        .collect();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for client in clients {
        *statuses.entry(client.join().unwrap()).or_default() += 1;
    }
    assert_eq!(statuses, BTreeMap::from([(201, 1), (409, 39)]), "{}\n{}", servers[0].log(), servers[1].log());
}

/// How long a server's read cache may take to hear of another server's commit:
/// the NOTIFY sent at commit reaches its listener in milliseconds.
const HEARD_WITHIN: Duration = Duration::from_millis(250);

#[test]
fn a_booking_made_on_one_server_is_visible_on_the_other_at_once() {
    if !tools::postgres() {
        return;
    }
    let shared = Shared::new();
    let (a, b) = (shared.serve(), shared.serve());
    let path = format!("/api/v1/properties/sea-view/availability?from={}&to={}", day(50), day(51));
    assert_eq!(get(b.addr, &path, &shared.key).1["nights"][0]["status"], "available", "B has read its cache");
    let (status, booking) = post(a.addr, "/api/v1/bookings", &shared.key, &stay("sea-view", 50, 3));
    assert_eq!(status, 201, "{booking}");
    let created = Instant::now();
    let code = booking["code"].as_str().unwrap();
    let (status, seen) = get(b.addr, &format!("/api/v1/bookings/{code}"), &shared.key);
    assert_eq!((status, &seen["code"]), (200, &booking["code"]), "read from the database: at once");
    while get(b.addr, &path, &shared.key).1["nights"][0]["status"] != "held" {
        assert!(created.elapsed() < HEARD_WITHIN, "B's availability still shows the night free");
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_key_revoked_with_the_cli_while_both_servers_run_is_refused_by_both_within_two_seconds() {
    if !tools::postgres() {
        return;
    }
    let shared = Shared::new();
    let servers = [shared.serve(), shared.serve()];
    let key = shared.run(&["keys", "create", "--name", "partner", "--scope", "read"]).ok().stdout.trim().to_owned();
    for server in &servers {
        assert_eq!(get(server.addr, "/api/v1/properties", &key).0, 200, "known and remembered");
    }
    shared.run(&["keys", "revoke", "partner"]).ok();
    let revoked = Instant::now();
    for server in &servers {
        while get(server.addr, "/api/v1/properties", &key).0 != 401 {
            assert!(revoked.elapsed() < Duration::from_secs(2), "{} still accepts the key", server.url());
            thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Creates `count` bookings spread over the three demo properties, half through each
/// server, 8 clients at a time; returns the codes acknowledged (201).
fn book_many(servers: &[&Server], key: &str, count: u64) -> Vec<String> {
    let clients: Vec<_> = (0..8u64)
        .map(|client| {
            let addrs: Vec<_> = servers.iter().map(|s| s.addr).collect();
            let key = key.to_owned();
            thread::spawn(move || {
                let mut codes = Vec::new();
                for i in (client..count).step_by(8) {
                    let property = ["sea-view", "alpine-cabin", "harbour-loft"][(i % 3) as usize];
                    let body = stay(property, 10 + 4 * (i / 3), 4);
                    let (status, booking) =
                        post(addrs[(i % addrs.len() as u64) as usize], "/api/v1/bookings", &key, &body);
                    if status == 201 {
                        codes.push(booking["code"].as_str().unwrap().to_owned());
                    }
                }
                codes
            })
        })
        .collect();
    clients.into_iter().flat_map(|c| c.join().unwrap()).collect()
}

#[test]
fn five_hundred_bookings_through_two_servers_deliver_every_event_once() {
    if !tools::postgres() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(Receiver::ok());
    let shared = Shared::new();
    shared.webhook(&receiver.url(), "booking.created");
    let (a, b) = (shared.serve(), shared.serve());
    let codes = book_many(&[&a, &b], &shared.key, 500);
    assert_eq!(codes.len(), 500, "{}\n{}", a.log(), b.log());
    let arrived = runtime.block_on(receiver.wait_for(500, Duration::from_secs(60)));
    runtime.block_on(receiver.assert_no_more_than(500, Duration::from_secs(2)));
    let mut ids: Vec<String> = arrived.iter().map(rental_tests::receiver::Received::delivery).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 500, "each delivery id once");
    let mut delivered: Vec<String> =
        arrived.iter().map(|r| r.json()["data"]["code"].as_str().unwrap().to_owned()).collect();
    delivered.sort();
    let mut codes = codes;
    codes.sort();
    assert_eq!(delivered, codes, "every booking's event");
}

/// Per-webhook order across servers: each booking created on one server and
/// confirmed on the other at once, many times under load; the receiver gets
/// every booking's `booking.created` before its `booking.confirmed`.
#[test]
fn bookings_created_on_one_server_and_confirmed_on_the_other_arrive_created_first() {
    if !tools::postgres() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(Receiver::ok());
    let shared = Shared::new();
    shared.webhook(&receiver.url(), "booking.created,booking.confirmed");
    let (a, b) = (shared.serve(), shared.serve());
    let count = 300u64;
    let clients: Vec<_> = (0..6u64)
        .map(|client| {
            let (a, b, key) = (a.addr, b.addr, shared.key.clone());
            thread::spawn(move || {
                for i in (client..count).step_by(6) {
                    let property = ["sea-view", "alpine-cabin", "harbour-loft"][(i % 3) as usize];
                    let (made, booking) = post(a, "/api/v1/bookings", &key, &stay(property, 10 + 4 * (i / 3), 4));
                    assert_eq!(made, 201, "{booking}");
                    let path = format!("/api/v1/bookings/{}", booking["code"].as_str().unwrap());
                    let confirmed = common::request(b, "PATCH", &path, &key, r#"{"action":"confirm"}"#);
                    assert!(confirmed.starts_with("HTTP/1.1 200"), "{confirmed}");
                }
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    let arrived = runtime.block_on(receiver.wait_for(2 * count as usize, Duration::from_secs(120)));
    let mut first_seen: BTreeMap<String, String> = BTreeMap::new();
    for r in &arrived {
        let code = r.json()["data"]["code"].as_str().unwrap().to_owned();
        first_seen.entry(code).or_insert_with(|| r.event());
    }
    let out_of_order: Vec<&String> =
        first_seen.iter().filter(|(_, event)| event.as_str() != "booking.created").map(|(code, _)| code).collect();
    assert_eq!(first_seen.len(), count as usize);
    assert!(out_of_order.is_empty(), "confirmed before created for {out_of_order:?}");
}

#[test]
fn a_server_killed_mid_load_leaves_the_other_to_deliver_everything_and_loses_no_acknowledged_booking() {
    if !tools::postgres() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(Receiver::ok());
    let shared = Shared::new();
    shared.webhook(&receiver.url(), "booking.created");
    // A short lease, so what the killed server had claimed is sent again soon.
    let survivor = shared.serve_with(&[("RENTAL_WEBHOOK_LEASE", "3s")]);
    let doomed = shared.serve_with(&[("RENTAL_WEBHOOK_LEASE", "3s")]);
    let doomed_addr = doomed.addr;
    let killer = thread::spawn(move || {
        thread::sleep(Duration::from_millis(700));
        doomed.kill();
    });
    let clients: Vec<_> = (0..4u64)
        .map(|client| {
            let (survivor, key) = (survivor.addr, shared.key.clone());
            thread::spawn(move || {
                let mut codes = Vec::new();
                for i in (client..200).step_by(4) {
                    let property = ["sea-view", "alpine-cabin", "harbour-loft"][(i % 3) as usize];
                    let body = stay(property, 10 + 4 * (i / 3), 4);
                    let addr = if i % 2 == 0 { doomed_addr } else { survivor };
                    let once = format!("stay-{i}");
                    let sent = std::panic::catch_unwind(|| post_once(addr, "/api/v1/bookings", &key, &once, &body));
                    if let Ok((201, booking)) = sent {
                        codes.push(booking["code"].as_str().unwrap().to_owned());
                    } else {
                        // The killed server refused or dropped the connection, perhaps after it
                        // committed: the same key on the survivor replays that booking or makes it.
                        let (status, booking) = post_once(survivor, "/api/v1/bookings", &key, &once, &body);
                        if status == 201 {
                            codes.push(booking["code"].as_str().unwrap().to_owned());
                        }
                    }
                }
                codes
            })
        })
        .collect();
    let mut codes: Vec<String> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    killer.join().unwrap();
    assert_eq!(codes.len(), 200, "every booking acknowledged, by one server or the other");
    for code in &codes {
        let (status, _) = get(survivor.addr, &format!("/api/v1/bookings/{code}"), &shared.key);
        assert_eq!(status, 200, "acknowledged booking {code} is gone");
    }
    // Deliveries the killed server had claimed wait out their lease, then the survivor sends them.
    let arrived = runtime.block_on(receiver.wait_for(codes.len(), Duration::from_secs(60)));
    let mut delivered: Vec<String> =
        arrived.iter().map(|r| r.json()["data"]["code"].as_str().unwrap().to_owned()).collect();
    delivered.sort();
    delivered.dedup();
    codes.sort();
    assert_eq!(delivered, codes, "every acknowledged booking's event reached the receiver");
}

/// One request to the dashboard with `cookies`, a form `body` when given; the status and the head.
fn admin(addr: std::net::SocketAddr, path: &str, cookies: &str, form: Option<&str>) -> (u16, String) {
    let (method, body) = form.map_or(("GET", ""), |body| ("POST", body));
    let response = common::round_trip(
        addr,
        &format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookies}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    let head = response.split("\r\n\r\n").next().unwrap_or_default().to_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {head}"));
    (status, head)
}

/// The value of cookie `name` that a response head sets.
fn set_cookie(head: &str, name: &str) -> String {
    let prefix = format!("set-cookie: {name}=");
    let line = head.lines().find(|l| l.to_ascii_lowercase().starts_with(&prefix)).expect("the cookie is set");
    line[prefix.len()..].split(';').next().unwrap_or_default().to_owned()
}

/// A login attempt with `password` on `addr`; the status and the head.
fn log_in(addr: std::net::SocketAddr, password: &str) -> (u16, String) {
    let token = set_cookie(&admin(addr, "/admin/login", "", None).1, "rental_login");
    let form = format!("_csrf={token}&password={password}");
    admin(addr, "/admin/login", &format!("rental_login={token}"), Some(&form))
}

#[test]
fn an_admin_logged_in_on_one_server_is_logged_in_on_the_other_and_failures_count_on_both() {
    if !tools::postgres() {
        return;
    }
    let shared = Shared::new();
    Rental::new(PgStore::open(&shared.url).unwrap()).admin().set_admin_password("correct-horse").unwrap();
    let (a, b) = (shared.serve(), shared.serve());
    let (status, head) = log_in(a.addr, "correct-horse");
    assert_eq!(status, 303, "{head}");
    let session = format!("rental_admin={}", set_cookie(&head, "rental_admin"));
    assert_eq!(admin(b.addr, "/admin", &session, None).0, 200, "B knows A's session");
    assert_eq!(admin(b.addr, "/admin", "rental_admin=forged", None).0, 303);

    for server in [&a, &b, &a, &b] {
        assert_eq!(log_in(server.addr, "wrong").0, 401);
    }
    assert_eq!(log_in(a.addr, "wrong").0, 401, "the fifth failure, counted across both servers");
    assert_eq!(log_in(b.addr, "correct-horse").0, 429, "B makes the client wait too");
}

/// How long the channel takes to answer a pull, so that two pulls that overlapped would show.
const CHANNEL_DELAY: Duration = Duration::from_millis(400);

/// `POST /api/v1/sync/ical?property=sea-view` on `server`: the report.
fn sync_feeds(shared: &Shared, server: &Server) -> Value {
    let (status, report) = post(server.addr, "/api/v1/sync/ical?property=sea-view", &shared.key, &json!({}));
    assert_eq!(status, 200, "{report}\n{}", server.log());
    report
}

#[test]
fn both_servers_syncing_one_feed_that_turned_empty_keep_the_guard_and_never_pull_it_at_once() {
    if !tools::postgres() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let channel = runtime.block_on(FeedServer::start());
    let shared = Shared::new();
    shared.feed(&channel.url("/airbnb.ics"));
    // Only the syncs asked for here: the schedule would add pulls of its own.
    let servers =
        [shared.serve_with(&[("RENTAL_SYNC_INTERVAL", "0")]), shared.serve_with(&[("RENTAL_SYNC_INTERVAL", "0")])];
    let nights = |from: u64, to: u64| (day(from).to_string(), day(to).to_string());
    let ((a_in, a_out), (b_in, b_out)) = (nights(30, 33), nights(40, 42));
    let stays = calendar(&[("a1", "Reserved", &a_in, &a_out), ("a2", "Reserved", &b_in, &b_out)]);
    for round in 0..3 {
        channel.set("/airbnb.ics", Feed::Slow(stays.clone(), CHANNEL_DELAY));
        assert_eq!(sync_feeds(&shared, &servers[round % 2])["created"], 2, "round {round}");
        assert_eq!(shared.imported(), 2);

        channel.set("/airbnb.ics", Feed::Slow(calendar(&[]), CHANNEL_DELAY));
        let reports: Vec<Value> = thread::scope(|scope| {
            let syncs: Vec<_> = servers.iter().map(|server| scope.spawn(|| sync_feeds(&shared, server))).collect();
            syncs.into_iter().map(|s| s.join().unwrap()).collect()
        });
        for report in &reports {
            assert_eq!(report["cancelled"], 0, "round {round}: {report}");
        }
        assert_eq!(shared.imported(), 2, "round {round}: two syncs asked for at once are not two pulls' word");

        let later = sync_feeds(&shared, &servers[(round + 1) % 2]);
        assert_eq!(later["cancelled"], 2, "round {round}: a sync asked for afterwards confirms it: {later}");
        assert_eq!(shared.imported(), 0);
    }
    let mut spans = channel.spans("/airbnb.ics");
    assert_eq!(spans.len(), 12, "four pulls a round: each sync pulled");
    spans.sort();
    for pair in spans.windows(2) {
        assert!(pair[1].0 >= pair[0].1, "two pulls of the feed overlapped: {pair:?}");
    }
}

/// `GET` then `POST /book/sea-view` on `addr` for `check_in..check_out`, as a guest's browser would; the post's status.
fn page_post(addr: std::net::SocketAddr, check_in: NaiveDate, check_out: NaiveDate) -> u16 {
    let page = common::round_trip(
        addr,
        &format!(
            "GET /book/sea-view?checkIn={check_in}&checkOut={check_out}&guests=2 HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        ),
    );
    let at = page.find(r#"name="token" value=""#).unwrap_or_else(|| panic!("a request form: {page}"));
    let token = &page[at + r#"name="token" value=""#.len()..];
    let token = &token[..token.find('"').unwrap()];
    let form = format!(
        "checkIn={check_in}&checkOut={check_out}&guests=2&guestName=Page+Guest&guestEmail=guest%40example.com&reference=&token={token}"
    );
    let response = common::round_trip(
        addr,
        &format!(
            "POST /book/sea-view HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{form}",
            form.len()
        ),
    );
    response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {response}"))
}

#[test]
fn the_booking_pages_five_posts_are_counted_across_both_servers() {
    if !tools::postgres() {
        return;
    }
    let shared = Shared::new();
    Rental::new(PgStore::open(&shared.url).unwrap())
        .edit_property("sea-view", |p| p.booking_page.enabled = true)
        .unwrap();
    let (a, b) = (shared.serve(), shared.serve());
    for (i, server) in [&a, &a, &a, &b, &b].into_iter().enumerate() {
        let from = day(40 + 3 * i as u64);
        assert_eq!(page_post(server.addr, from, from + Days::new(2)), 303, "post {i}: {}", server.log());
    }
    let from = day(70);
    assert_eq!(page_post(a.addr, from, from + Days::new(2)), 429, "the sixth in ten minutes, though A saw three");
    assert_eq!(page_post(b.addr, from, from + Days::new(2)), 429, "and on B too");
}
