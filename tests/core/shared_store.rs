//! Several engines on one PostgreSQL database, as several `rental serve`
//! processes run (docs/API.md section 17): each has its own store, pool and
//! read cache, and every guarantee holds across them.

use std::sync::{Arc, Barrier, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use chrono::Days;
use rental_core::availability::NightStatus;
use rental_core::keys::Scope;
use rental_core::stay_state::StayState;
use rental_core::store::{PgStore, ReadTx, StoreResult, WriteTx};
use rental_core::webhook::Subscription;
use rental_core::{Action, Booking, Error, ReadRecords, Rental, Slug, Source, Store, StoreError, WriteRecords};
use rental_tests::postgres::PgCluster;
use rental_tests::tools;
use rental_tests::{d, fixed_clock, new_booking, rental_with_demo};

/// `n` engines with read caches on one new database, the demo properties loaded through the first.
fn engines(n: usize) -> (String, Vec<Arc<Rental<PgStore>>>) {
    let url = PgCluster::shared().database();
    let clock = fixed_clock();
    let first = rental_with_demo(PgStore::open(&url).unwrap(), clock.clone());
    let mut all = vec![Arc::new(first.with_read_cache().unwrap())];
    for _ in 1..n {
        let other = Rental::new(PgStore::open(&url).unwrap()).with_clock(clock.clone());
        all.push(Arc::new(other.with_read_cache().unwrap()));
    }
    (url, all)
}

/// Waits up to `limit` for `check` to hold; returns how long it took.
fn within(limit: Duration, mut check: impl FnMut() -> bool) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return Some(start.elapsed());
        }
        thread::sleep(Duration::from_millis(10));
    }
    None
}

#[test]
fn forty_overlapping_creations_split_across_two_engines_make_exactly_one_booking() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let barrier = Arc::new(Barrier::new(40));
    let handles: Vec<_> = (0..40u64)
        .map(|i| {
            let (rental, barrier) = (Arc::clone(&engines[(i % 2) as usize]), Arc::clone(&barrier));
            thread::spawn(move || {
                let check_in = d("2027-01-04") + Days::new(i % 3);
                let request = rental_core::NewBooking {
                    check_in,
                    check_out: check_in + Days::new(3),
                    guest_name: format!("Guest {i}"),
                    ..new_booking("sea-view", "2027-01-01", "2027-01-02", 2)
                };
                barrier.wait();
                rental.create_booking(&request, None)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let won = results.iter().filter(|r| r.is_ok()).count();
    let refused = results.iter().filter(|r| matches!(r, Err(Error::DatesUnavailable { .. }))).count();
    assert_eq!((won, refused), (1, 39), "{results:?}");
}

#[test]
fn forty_creations_split_across_two_engines_for_a_promo_code_s_last_use_make_one_booking() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let mut p = rental_core::demo::sea_view();
    let mut code = rental_core::property::PromoCode::new("LAST", 1_500);
    code.max_uses = Some(1);
    p.pricing.rules = rental_core::property::PriceRules::default().promo(code);
    engines[0].import_properties(&[p]).unwrap();
    let barrier = Arc::new(Barrier::new(40));
    let handles: Vec<_> = (0..40u64)
        .map(|i| {
            let (rental, barrier) = (Arc::clone(&engines[(i % 2) as usize]), Arc::clone(&barrier));
            thread::spawn(move || {
                let check_in = d("2027-01-04") + Days::new(4 * i); // each its own nights
                let request = rental_core::NewBooking {
                    check_in,
                    check_out: check_in + Days::new(3),
                    promo_code: Some("LAST".into()),
                    locale: None,
                    ..new_booking("sea-view", "2027-01-01", "2027-01-02", 2)
                };
                barrier.wait();
                rental.create_booking(&request, None)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let won = results.iter().filter(|r| r.is_ok()).count();
    let used_up = results.iter().filter(|r| matches!(r, Err(Error::PromoCode { .. }))).count();
    assert_eq!((won, used_up), (1, 39), "{results:?}");
}

#[test]
fn a_booking_made_through_one_engine_shows_in_the_others_availability() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let from = d("2026-12-20");
    let night = |r: &Rental<PgStore>| r.availability("sea-view", Some(from), Some(from + Days::new(1))).unwrap();
    assert_eq!(night(&engines[1]).nights[0].status, NightStatus::Available, "the cache is loaded first");
    engines[0].create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-23", 2), None).unwrap();
    let took = within(Duration::from_secs(2), || night(&engines[1]).nights[0].status == NightStatus::Held);
    assert!(took.is_some(), "the other engine's cache never saw the booking");
    assert_eq!(engines[1].summary().unwrap(), engines[0].summary().unwrap());
}

#[test]
fn a_check_in_made_through_one_engine_shows_in_the_others_summary() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let code = engines[0].create_booking(&new_booking("sea-view", "2026-11-22", "2026-11-25", 2), None).unwrap();
    let code = code.booking.code;
    engines[0].update_booking(code.as_str(), &Action::Confirm).unwrap();
    let state = |r: &Rental<PgStore>| {
        let summary = r.summary().unwrap();
        summary.properties.into_iter().find(|p| p.slug.as_str() == "sea-view").unwrap().stay_state
    };
    let awaiting = within(Duration::from_secs(2), || state(&engines[1]) == StayState::AwaitingCheckIn);
    assert!(awaiting.is_some(), "the other engine's summary never saw the confirmed stay");
    engines[0].update_booking(code.as_str(), &Action::CheckIn).unwrap();
    let took = within(Duration::from_secs(2), || state(&engines[1]) == StayState::CheckedIn);
    assert!(took.is_some(), "the other engine's summary never saw the check-in");
}

#[test]
fn a_key_revoked_through_one_engine_is_refused_by_the_other_within_two_seconds() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let secret = engines[0].admin().create_key("ci", &[Scope::Read]).unwrap().secret;
    assert!(engines[1].admin().authenticate(&secret).unwrap().is_some());
    assert!(engines[1].worker().authenticate_from_memory(&secret).is_some(), "remembered for a minute");
    let key = engines[0].admin().authenticate(&secret).unwrap().unwrap();
    engines[0].admin().revoke_key(&key.id).unwrap();
    let refused = within(Duration::from_secs(2), || {
        engines[1].worker().authenticate_from_memory(&secret).is_none()
            && engines[1].admin().authenticate(&secret).unwrap().is_none()
    });
    assert!(refused.is_some(), "still accepted 2 s after the revocation");
}

#[test]
fn fanning_out_from_two_engines_at_once_makes_one_delivery_per_event() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    engines[0].admin().add_webhook("https://a.example/hook", Subscription::parse("*").unwrap(), None).unwrap();
    for week in 0..20u64 {
        let check_in = d("2027-01-04") + Days::new(7 * week);
        let request = rental_core::NewBooking {
            check_in,
            check_out: check_in + Days::new(2),
            ..new_booking("sea-view", "2027-01-01", "2027-01-02", 2)
        };
        engines[(week % 2) as usize].create_booking(&request, None).unwrap();
    }
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = engines
        .iter()
        .map(|rental| {
            let (rental, barrier) = (Arc::clone(rental), Arc::clone(&barrier));
            thread::spawn(move || {
                barrier.wait();
                let mut taken = 0;
                while let n @ 1.. = rental.worker().fan_out(3).unwrap() {
                    taken += n;
                }
                taken
            })
        })
        .collect();
    let taken: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(taken, 20, "each event fanned out by one engine");
    let mut seqs: Vec<u64> =
        engines[0].worker().due_deliveries(100).unwrap().iter().map(|d| d.delivery.event_seq).collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), 20);
    assert_eq!(engines[1].worker().due_deliveries(100).unwrap().len(), 20, "one delivery per event");
}

fn direct(code: &str, check_in: &str, check_out: &str) -> Booking {
    rental_core::demo::booking(code, check_in, check_out)
}

#[test]
fn the_database_refuses_overlapping_direct_stays_that_skipped_the_check_but_records_channel_ones() {
    if !tools::postgres() {
        return;
    }
    let store = PgStore::open(&PgCluster::shared().database()).unwrap();
    let mut tx = store.write().unwrap();
    let err = tx.put_booking(&direct("BK-ZZZZZZ", "2027-03-01", "2027-03-05")).and_then(|()| tx.commit());
    assert!(matches!(err, Err(StoreError::Backend(_))), "the calendar's rows name a property that exists: {err:?}");
    let mut tx = store.write().unwrap();
    tx.put_property(&rental_core::demo::sea_view()).unwrap();
    tx.put_booking(&direct("BK-AAAAAA", "2027-03-01", "2027-03-05")).unwrap();
    tx.commit().unwrap();

    // The write is sent with the transaction's next statement at the latest: here, the commit.
    let mut tx = store.write().unwrap();
    let err = tx
        .put_booking(&direct("BK-BBBBBB", "2027-03-04", "2027-03-06"))
        .and_then(|()| tx.commit())
        .expect_err("overlaps");
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");

    let mut channel = direct("BK-CCCCCC", "2027-03-02", "2027-03-04");
    channel.external =
        Some(rental_core::booking::ExternalRef { feed: Source::parse("airbnb").unwrap(), uid: "x@airbnb".into() });
    let mut tx = store.write().unwrap();
    tx.put_booking(&channel).unwrap();
    tx.commit().unwrap();

    let block = |id: &str, from: &str, to: &str, feed: Option<&str>| rental_core::calendar::Block {
        id: id.into(),
        property: Slug::parse("sea-view").unwrap(),
        stay: rental_core::Stay::new(d(from), d(to)).unwrap(),
        note: String::new(),
        feed: feed.map(|f| Source::parse(f).unwrap()),
        uid: None,
        created_at: rental_tests::at(rental_tests::NOW),
    };
    let mut tx = store.write().unwrap();
    assert!(matches!(tx.put_block(&block("blk_1", "2027-03-04", "2027-03-08", None)), Err(StoreError::Conflict(_))));
    drop(tx);
    let mut tx = store.write().unwrap();
    tx.put_block(&block("blk_2", "2027-03-05", "2027-03-08", None)).unwrap();
    tx.put_block(&block("blk_3", "2027-03-06", "2027-03-09", None)).unwrap();
    tx.put_block(&block("blk_4", "2027-03-01", "2027-03-09", Some("vrbo"))).unwrap();
    tx.commit().unwrap();
    let entries = store.read().unwrap().calendar("sea-view", d("2027-03-01"), d("2027-03-10")).unwrap();
    let holders: Vec<&str> = entries.iter().map(|e| e.holder.as_str()).collect();
    assert_eq!(holders, ["BK-AAAAAA", "blk_4", "BK-CCCCCC", "blk_2", "blk_3"]);
}

#[test]
fn a_database_left_at_schema_version_2_keeps_its_calendar_and_its_net_after_the_upgrade() {
    if !tools::postgres() {
        return;
    }
    let url = PgCluster::shared().empty_database();
    assert_eq!(PgStore::connect(&url).unwrap().migrate_to(2).unwrap(), [1, 2]);
    let mut old = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let doc = serde_json::to_string(&rental_core::demo::sea_view()).unwrap();
    old.execute("INSERT INTO properties (slug, doc) VALUES ('sea-view', $1::text::jsonb)", &[&doc]).unwrap();
    old.batch_execute(
        "INSERT INTO calendar (holder, property, check_in, check_out, kind, guests, guest_name, guarded) VALUES
           ('BK-AAAAAA', 'sea-view', '2027-03-01', '2027-03-05', 1, 2, 'Ada', 'booking'),
           ('blk_1', 'sea-view', '2027-04-01', '2027-04-05', 2, 0, '', 'block'),
           ('blk_2', 'sea-view', '2027-04-03', '2027-04-08', 2, 0, '', 'block')",
    )
    .unwrap();

    let store = PgStore::open(&url).unwrap();
    let entries = store.read().unwrap().calendar("sea-view", d("2027-03-01"), d("2027-05-01")).unwrap();
    let holders: Vec<&str> = entries.iter().map(|e| e.holder.as_str()).collect();
    assert_eq!(holders, ["BK-AAAAAA", "blk_1", "blk_2"]);
    let mut tx = store.write().unwrap();
    let err = tx.put_booking(&direct("BK-BBBBBB", "2027-03-04", "2027-03-06")).and_then(|()| tx.commit());
    assert!(matches!(err, Err(StoreError::Conflict(_))), "the net holds over the upgraded rows: {err:?}");
    let mut tx = store.write().unwrap();
    tx.put_booking(&direct("BK-CCCCCC", "2027-03-05", "2027-03-07")).unwrap();
    tx.commit().unwrap();
}

/// A database left at schema 6 (a table per kind) has its keys, webhooks,
/// feed states and admin records moved into `records` by the upgrade, where
/// the engine finds each; the old tables are gone.
#[test]
fn a_database_left_at_schema_version_6_keeps_its_keys_webhooks_feeds_and_admin_records_after_the_upgrade() {
    if !tools::postgres() {
        return;
    }
    // What the engine made on another store, written as schema 6 kept it.
    let made = rental_with_demo(rental_core::MemoryStore::new(), fixed_clock());
    let new = made.admin().create_key("website", &[Scope::Read]).unwrap();
    let webhook =
        made.admin().add_webhook("https://example.com/hook", Subscription::parse("*").unwrap(), None).unwrap();
    made.admin().set_admin_password("correct horse battery").unwrap();
    let kind = rental_core::store::KINDS.iter().find(|k| k.name == "admin_password").unwrap();
    let phc_doc = made.store().read().unwrap().record(kind, "admin").unwrap().unwrap().doc;
    let phc = serde_json::from_slice::<serde_json::Value>(&phc_doc).unwrap()["phc"].as_str().unwrap().to_owned();
    let now = made.now();
    made.worker().start_admin_session("session-hash", "csrf", chrono::TimeDelta::hours(1), now).unwrap();
    for _ in 0..6 {
        made.worker().login_failed("10.0.0.9", now).unwrap();
    }

    let url = PgCluster::shared().empty_database();
    assert_eq!(PgStore::connect(&url).unwrap().migrate_to(6).unwrap(), [1, 2, 3, 4, 5, 6]);
    let mut old = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let key_doc = serde_json::to_string(&new.key).unwrap();
    let hash = rental_core::keys::hash_secret(&new.secret);
    old.execute(
        "INSERT INTO api_keys (id, hash, doc) VALUES ($1, $2, $3::text::json)",
        &[&new.key.id, &hash, &key_doc],
    )
    .unwrap();
    let hook_doc = serde_json::to_string(&webhook).unwrap();
    old.execute("INSERT INTO webhooks (id, doc) VALUES ($1, $2::text::json)", &[&webhook.id, &hook_doc]).unwrap();
    let feed = rental_core::pull::FeedState::new(Slug::parse("sea-view").unwrap(), Source::parse("airbnb").unwrap());
    let feed_doc = serde_json::to_string(&feed).unwrap();
    old.execute("INSERT INTO feeds (property, feed, doc) VALUES ('sea-view', 'airbnb', $1::text::json)", &[&feed_doc])
        .unwrap();
    old.execute("INSERT INTO meta (key, value) VALUES ('admin_password', $1)", &[&phc]).unwrap();
    let session = rental_core::admin_session::AdminSession { csrf: "csrf".into(), last_seen: now, flash: None };
    let session = serde_json::to_string(&session).unwrap();
    old.execute(
        "INSERT INTO admin_sessions (key, last_seen, doc) VALUES ('session-hash', $1, $2::text::json)",
        &[&now, &session],
    )
    .unwrap();
    let wait = made.worker().login_wait("10.0.0.9", now).unwrap().expect("locked out");
    let failures = (0..6).fold(None, |f, _| Some(rental_core::admin_session::LoginFailures::and_one(f, now)));
    let failures = serde_json::to_string(&failures.unwrap()).unwrap();
    old.execute(
        "INSERT INTO login_failures (client, last, doc) VALUES ('10.0.0.9', $1, $2::text::json)",
        &[&now, &failures],
    )
    .unwrap();

    let upgraded = Rental::new(PgStore::open(&url).unwrap()).with_clock(fixed_clock());
    assert_eq!(upgraded.admin().keys().unwrap(), std::slice::from_ref(&new.key));
    assert_eq!(upgraded.admin().authenticate(&new.secret).unwrap().map(|k| k.id), Some(new.key.id.clone()));
    assert_eq!(upgraded.admin().webhooks().unwrap(), [webhook]);
    assert_eq!(upgraded.worker().feed_states().unwrap(), [feed]);
    assert!(upgraded.worker().verify_admin_password("correct horse battery").unwrap());
    let idle = chrono::TimeDelta::hours(1);
    assert_eq!(
        upgraded.worker().admin_session("session-hash", idle, now).unwrap().map(|s| s.csrf),
        Some("csrf".into())
    );
    assert_eq!(upgraded.worker().login_wait("10.0.0.9", now).unwrap(), Some(wait));
    // The sessions' time came along as the index: an idle one is swept.
    upgraded.worker().start_admin_session("other", "csrf", idle, now + idle + idle).unwrap();
    assert_eq!(upgraded.worker().admin_session("session-hash", idle * 10, now).unwrap(), None);
    let gone = old
        .query("SELECT count(*) FROM pg_tables WHERE tablename IN ('api_keys', 'webhooks', 'feeds', 'admin_sessions', 'login_failures')", &[])
        .unwrap();
    assert_eq!(gone[0].get::<_, i64>(0), 0);
}

#[test]
fn migrations_started_by_many_processes_at_once_apply_once() {
    if !tools::postgres() {
        return;
    }
    let cluster = PgCluster::shared();
    let url = cluster.empty_database();
    let barrier = Arc::new(Barrier::new(6));
    let handles: Vec<_> = (0..6)
        .map(|_| {
            let (url, barrier) = (url.clone(), Arc::clone(&barrier));
            thread::spawn(move || {
                barrier.wait();
                PgStore::connect(&url).and_then(|s| s.migrate())
            })
        })
        .collect();
    let applied: Vec<Vec<i32>> = handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect();
    assert_eq!(applied.iter().filter(|a| !a.is_empty()).count(), 1, "{applied:?}");
    assert!(PgStore::connect(&url).unwrap().migrate().unwrap().is_empty(), "nothing left to do");
}

#[test]
fn a_write_on_a_lost_connection_is_done_again_on_a_new_one() {
    if !tools::postgres() {
        return;
    }
    let cluster = PgCluster::shared();
    let url = cluster.database();
    let rental = rental_with_demo(PgStore::open(&url).unwrap(), fixed_clock());
    rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-22", 2), None).unwrap();
    let name = url.rsplit('/').next().unwrap();
    cluster.admin(&format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"));
    let made = rental.create_booking(&new_booking("sea-view", "2026-12-23", "2026-12-25", 2), None);
    assert!(made.is_ok(), "{made:?}");
    assert_eq!(rental.bookings(&rental_core::BookingQuery { limit: 10, ..Default::default() }).unwrap().data.len(), 2);
}

#[test]
fn a_database_that_is_down_is_unavailable_and_the_write_is_not_half_done() {
    if !tools::postgres() {
        return;
    }
    let cluster = PgCluster::start_durable();
    let url = cluster.database();
    let rental = rental_with_demo(PgStore::open(&url).unwrap(), fixed_clock());
    cluster.stop();
    let err = rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-22", 2), None).unwrap_err();
    assert!(matches!(err, Error::Store(StoreError::Unavailable(_))), "{err:?}");
    assert_eq!(err.code(), "unavailable");
    cluster.restart();
    let page = rental.bookings(&rental_core::BookingQuery { limit: 10, ..Default::default() }).unwrap();
    assert!(page.data.is_empty(), "nothing of the failed creation");
    assert!(rental_tests::all_events(&rental).is_empty());
    rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-22", 2), None).unwrap();
}

#[test]
fn two_engines_pulling_one_feed_that_turned_empty_keep_the_empty_feed_guard() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let mut property = engines[0].property("sea-view").unwrap();
    property.feeds.ical_feeds = vec![rental_core::property::IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: "https://www.airbnb.example/calendar.ics".into(),
        reservation_patterns: vec![],
    }];
    engines[0].import_properties(&[property]).unwrap();
    let body = |events: &[(&str, &str, &str, &str)]| rental_core::worker::Fetched::Body {
        body: rental_tests::feeds::calendar(events).into_bytes(),
        etag: None,
        last_modified: None,
    };
    let stays = [("a1", "Reserved", "2026-12-01", "2026-12-04"), ("a2", "Reserved", "2026-12-10", "2026-12-12")];
    let pull = engines[0].worker().feed_pulls(Some("sea-view")).unwrap().remove(0);
    assert_eq!(engines[0].worker().apply_pull(&pull, body(&stays)).unwrap().created, 2);
    let confirmed = |r: &Rental<PgStore>| {
        let query = rental_core::BookingQuery {
            source: Some(Source::parse("airbnb").unwrap()),
            limit: 10,
            ..Default::default()
        };
        r.bookings(&query).unwrap().data.iter().filter(|b| b.status == rental_core::Status::Confirmed).count()
    };
    assert_eq!(confirmed(&engines[1]), 2);

    // Both servers plan their scheduled pull at once; the feed comes back empty to both.
    let (first, second) = (
        engines[0].worker().feed_pulls(None).unwrap().remove(0),
        engines[1].worker().feed_pulls(None).unwrap().remove(0),
    );
    let guarded = engines[0].worker().apply_pull(&first, body(&[])).unwrap();
    assert!(!guarded.ok && guarded.cancelled == 0, "the first empty pull is not believed: {guarded:?}");
    let dropped = engines[1].worker().apply_pull(&second, body(&[])).unwrap();
    assert!(
        !dropped.ok && dropped.cancelled == 0,
        "the second, planned before the first was applied, is dropped: {dropped:?}"
    );
    assert_eq!(confirmed(&engines[0]), 2, "the guard held");

    // The next pull, planned after both, is believed.
    let next = engines[1].worker().feed_pulls(None).unwrap().remove(0);
    assert_eq!(engines[1].worker().apply_pull(&next, body(&[])).unwrap().cancelled, 2);
}

#[test]
fn an_admin_session_and_failed_logins_are_known_to_every_engine() {
    if !tools::postgres() {
        return;
    }
    let (_, engines) = engines(2);
    let (a, b) = (&engines[0], &engines[1]);
    let idle = chrono::TimeDelta::hours(12);
    a.worker().start_admin_session("key", "csrf", idle, a.now()).unwrap();
    b.worker().set_admin_flash("key", &rental_core::admin_session::Flash::done("Saved.")).unwrap();
    let seen = a.worker().admin_session("key", idle, a.now()).unwrap().expect("the session, through the other engine");
    assert_eq!((seen.csrf.as_str(), seen.flash.map(|f| f.message)), ("csrf", Some("Saved.".to_owned())));
    assert_eq!(b.worker().admin_session("key", idle, b.now()).unwrap().unwrap().flash, None, "taken once, on either");
    b.worker().end_admin_session("key").unwrap();
    assert!(a.worker().admin_session("key", idle, a.now()).unwrap().is_none());

    for engine in [a, b, a, b, a] {
        engine.worker().login_failed("10.0.0.9", engine.now()).unwrap();
    }
    assert!(b.worker().login_wait("10.0.0.9", b.now()).unwrap().is_some(), "five failures split over two engines");
}

/// Runs `work` on a thread of its own; its result arrives on the receiver when it ends.
fn started<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
    let (done, result) = mpsc::channel();
    thread::spawn(move || done.send(work()));
    result
}

/// How long a write that must wait is watched, still waiting, before what holds it ends.
const STILL_WAITING: Duration = Duration::from_millis(300);

/// Two stores (as two processes) on a new database holding the demo properties.
fn two_stores() -> (Arc<PgStore>, Arc<PgStore>) {
    let url = PgCluster::shared().database();
    let first = PgStore::open(&url).unwrap();
    let mut tx = first.write().unwrap();
    for property in rental_core::demo::properties() {
        tx.put_property(&property).unwrap();
    }
    tx.commit().unwrap();
    (Arc::new(first), Arc::new(PgStore::open(&url).unwrap()))
}

#[test]
fn a_version_bumped_without_an_announcement_is_seen_by_the_poll_while_others_are_announced() {
    if !tools::postgres() {
        return;
    }
    let url = PgCluster::shared().database();
    let (writer, listener) = (Arc::new(PgStore::open(&url).unwrap()), PgStore::open(&url).unwrap());
    let marks = listener.change_marks().expect("PostgreSQL keeps change marks");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let announcing = {
        let (writer, stop) = (Arc::clone(&writer), Arc::clone(&stop));
        thread::spawn(move || {
            let mut property = rental_core::demo::properties().remove(0);
            while !stop.load(std::sync::atomic::Ordering::Acquire) {
                property.name.push('.');
                let mut tx = writer.write().unwrap();
                tx.put_property(&property).unwrap();
                tx.commit().unwrap();
                thread::sleep(Duration::from_millis(20));
            }
        })
    };
    thread::sleep(Duration::from_millis(200));
    // As a process that crashed between its commit and its announcement leaves it.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client.batch_execute("INSERT INTO changes (topic, version) VALUES ('lost', 7)").unwrap();
    let seen = within(Duration::from_secs(2), || marks.version("lost") == Some(7));
    stop.store(true, std::sync::atomic::Ordering::Release);
    announcing.join().unwrap();
    assert!(seen.is_some(), "the listener, hearing other announcements, never read the table");
}

/// Opens a write for `properties` (all when `None`), reads the first
/// property's record, and commits. A PostgreSQL write begins, and takes its
/// locks, with its first statement.
fn write_reading(store: &PgStore, properties: Option<&[&str]>) -> StoreResult<()> {
    let tx = match properties {
        Some(properties) => store.write_for(properties)?,
        None => store.write()?,
    };
    tx.property(properties.map_or("sea-view", |p| p[0]))?;
    tx.commit()
}

#[test]
fn a_write_for_one_property_waits_only_for_writes_that_hold_it() {
    if !tools::postgres() {
        return;
    }
    let (first, other) = two_stores();
    let held = first.write_for(&["sea-view"]).unwrap();
    held.property("sea-view").unwrap();

    let store = Arc::clone(&other);
    let beside = started(move || write_reading(&store, Some(&["alpine-cabin"])));
    beside.recv_timeout(Duration::from_secs(10)).expect("another property's write is not held up").unwrap();

    let store = Arc::clone(&other);
    let same = started(move || write_reading(&store, Some(&["harbour-loft", "sea-view"])));
    let store = Arc::clone(&other);
    let everything = started(move || write_reading(&store, None));
    thread::sleep(STILL_WAITING);
    assert!(same.try_recv().is_err(), "a write for the same property waits");
    assert!(everything.try_recv().is_err(), "a write of everything waits");
    held.commit().unwrap();
    same.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
    everything.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
}

#[test]
fn a_write_for_one_property_that_reaches_past_it_waits_for_what_it_reaches() {
    if !tools::postgres() {
        return;
    }
    let (first, other) = two_stores();
    let mut tx = first.write().unwrap();
    tx.put_booking(&direct("BK-AAAAAA", "2027-03-01", "2027-03-05")).unwrap();
    tx.commit().unwrap();
    let held = first.write_for(&["sea-view"]).unwrap();
    held.property("sea-view").unwrap();

    // A booking of the held property, read from a write for another one.
    let store = Arc::clone(&other);
    let booking = started(move || {
        let tx = store.write_for(&["alpine-cabin"])?;
        let booking = tx.booking("BK-AAAAAA")?;
        tx.commit().map(|()| booking)
    });
    // The keys, which are no property's: every other write must end first.
    let store = Arc::clone(&other);
    let keys = started(move || {
        let tx = store.write_for(&["harbour-loft"])?;
        let keys = tx.list_all::<rental_core::keys::ApiKey>("")?;
        tx.commit().map(|()| keys)
    });
    thread::sleep(STILL_WAITING);
    assert!(booking.try_recv().is_err(), "reading another property's booking waits for its lock");
    assert!(keys.try_recv().is_err(), "reading the keys waits for every other write");
    held.commit().unwrap();
    let booking = booking.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
    assert_eq!(booking.map(|b| b.code.to_string()).as_deref(), Some("BK-AAAAAA"));
    assert!(keys.recv_timeout(Duration::from_secs(10)).unwrap().unwrap().is_empty());
}

#[test]
fn the_fan_out_reads_events_of_writes_side_by_side_only_once_both_are_settled_and_in_number_order() {
    if !tools::postgres() {
        return;
    }
    let (first, other) = two_stores();
    let at = rental_tests::at(rental_tests::NOW);
    let sea_view = direct("BK-AAAAAA", "2027-03-01", "2027-03-05");
    let mut alpine = direct("BK-BBBBBB", "2027-03-01", "2027-03-05");
    alpine.property = Slug::parse("alpine-cabin").unwrap();

    let mut held = first.write_for(&["sea-view"]).unwrap();
    held.insert_booking(&sea_view).unwrap();
    held.append_events(&[rental_core::Event::created(&sea_view, at)]).unwrap();
    // A read sends what waits: the event has its number now, its commit still to come.
    assert!(held.booking("BK-NOTHERE").unwrap().is_none());

    let mut beside = other.write_for(&["alpine-cabin"]).unwrap();
    beside.insert_booking(&alpine).unwrap();
    beside.append_events(&[rental_core::Event::created(&alpine, at)]).unwrap();
    beside.commit().unwrap();
    let committed = other.read().unwrap().events_after(0, 10).unwrap();
    assert_eq!(committed.len(), 1, "the later number is committed first");

    let store = Arc::clone(&other);
    let fan_out = started(move || -> StoreResult<Vec<String>> {
        let tx = store.write()?;
        let events = tx.unfanned_events(10)?;
        tx.commit()?;
        Ok(events.iter().map(|e| e.event.data["code"].as_str().unwrap().to_owned()).collect())
    });
    thread::sleep(STILL_WAITING);
    assert!(fan_out.try_recv().is_err(), "the fan-out waits for the write still open");
    held.commit().unwrap();
    let codes = fan_out.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
    assert_eq!(codes, ["BK-AAAAAA", "BK-BBBBBB"], "both, in number order");
}

/// A count kept as a record, of one property's or of none.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Tally<const PER_PROPERTY: bool> {
    key: String,
    n: u32,
}

impl<const PER_PROPERTY: bool> rental_core::Record for Tally<PER_PROPERTY> {
    const KIND: rental_core::RecordKind = rental_core::RecordKind {
        name: if PER_PROPERTY { "test_tally" } else { "test_global_tally" },
        per_property: PER_PROPERTY,
    };
    fn key(&self) -> String {
        self.key.clone()
    }
}

/// Adds one to the tally under `key` in a write for `properties`: a read,
/// then a write of what it read. A write that reaches past its properties
/// may deadlock with another doing the same; as `Rental` does, it is done again.
fn count_once<const P: bool>(store: &PgStore, properties: &[&str], key: &str) {
    let count = || -> StoreResult<()> {
        let mut tx = store.write_for(properties)?;
        let mut tally = tx.get::<Tally<P>>(key)?.unwrap_or(Tally { key: key.into(), n: 0 });
        tally.n += 1;
        thread::sleep(Duration::from_millis(2));
        tx.put(&tally)?;
        tx.commit()
    };
    for _ in 0..50 {
        match count() {
            Err(e) if e.is_transient() => thread::sleep(Duration::from_millis(5)),
            done => return done.unwrap(),
        }
    }
    panic!("50 tries conflicted");
}

#[test]
fn records_counted_up_by_writes_for_properties_in_two_processes_lose_no_count() {
    if !tools::postgres() {
        return;
    }
    let (first, other) = two_stores();
    let handles: Vec<_> = (0..24)
        .map(|i| {
            let store = Arc::clone(if i % 2 == 0 { &first } else { &other });
            thread::spawn(move || {
                // Writes for other properties run beside each other; each reaches a record.
                let mine = ["sea-view", "alpine-cabin", "harbour-loft"][i % 3];
                count_once::<true>(&store, &[mine], "sea-view/visits");
                // Two such writes each holding a property and waiting for
                // every other write deadlock, which costs a second: a few.
                if i < 3 {
                    count_once::<false>(&store, &[mine], "visits");
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let read = first.read().unwrap();
    assert_eq!(read.get::<Tally<true>>("sea-view/visits").unwrap().map(|t| t.n), Some(24));
    assert_eq!(read.get::<Tally<false>>("visits").unwrap().map(|t| t.n), Some(3));
}
