//! Channel calendar import figures: one 2,000-event feed read and planned (pure), read
//! and reconciled through `Rental::apply_pull` on redb (first import and an unchanged re-pull),
//! and a sync of 200 properties with 3 feeds each against a local HTTP server.
//!
//! Run: `cargo bench -p rental-benches --bench feeds`. Targets and results:
//! docs/PERFORMANCE.md. `cargo test --benches` runs each once, on fewer properties.

use std::fmt::Write;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use chrono::{Days, NaiveDate};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rental_benches as data;
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_core::pull::{FeedState, plan};
use rental_core::worker::{FeedPull, Fetched};
use rental_core::{Property, RedbStore, Rental, Slug};
use rental_server::feed_pulls::{FeedPullConfig, FeedPuller};
use rental_server::outbound::OutboundConfig;
use rental_tests::feeds::{Feed, FeedServer};
use tempfile::TempDir;

/// True under `cargo test --benches` (criterion's test mode: each bench runs once).
fn quick() -> bool {
    let args: Vec<String> = std::env::args().collect();
    !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test")
}

/// An Airbnb-style feed of `events` one-night stays from `from` on, two a night (as in a feed
/// merged from two listings), one in ten a block: all inside the import horizon.
fn feed_body(events: usize, from: NaiveDate, tag: &str) -> String {
    let mut out = String::from("BEGIN:VCALENDAR\r\nPRODID:-//Airbnb Inc//Hosting Calendar 1.0//EN\r\nVERSION:2.0\r\n");
    for i in 0..events {
        let start = from + Days::new(i as u64 / 2);
        let end = start + Days::new(1);
        let summary = if i % 10 == 9 { "Airbnb (Not available)" } else { "Reserved" };
        let _ = write!(
            out,
            "BEGIN:VEVENT\r\nDTSTAMP:20261122T120000Z\r\nDTSTART;VALUE=DATE:{}\r\nDTEND;VALUE=DATE:{}\r\n\
             SUMMARY:{summary}\r\nUID:{tag}-{i}@airbnb.com\r\nEND:VEVENT\r\n",
            start.format("%Y%m%d"),
            end.format("%Y%m%d"),
        );
    }
    out.push_str("END:VCALENDAR\r\n");
    out
}

fn with_feeds(slug: &str, feeds: &[(&str, String)]) -> Property {
    let mut property = data::seasonal_property();
    property.slug = Slug::parse(slug).expect("a slug");
    property.feeds.ical_feeds = feeds
        .iter()
        .map(|(name, url)| IcalFeed {
            name: Source::parse(name).expect("a feed name"),
            url: url.clone(),
            reservation_patterns: vec![],
        })
        .collect();
    property
}

/// A redb engine with one property pulling one feed; the pull to apply.
fn one_feed() -> (TempDir, Rental<RedbStore>, FeedPull) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let rental = data::open_rental(dir.path());
    let property = with_feeds("feed-bench", &[("airbnb", "https://channel.example/airbnb.ics".to_owned())]);
    rental.import_properties(&[property]).expect("import");
    let pull = rental.worker().feed_pulls(None).expect("the pulls").remove(0);
    (dir, rental, pull)
}

fn fetched(body: &str) -> Fetched {
    Fetched::Body { body: body.as_bytes().to_vec(), etag: None, last_modified: None }
}

fn reconcile(c: &mut Criterion) {
    let today = rental_core::occupancy::today_in(data::seasonal_property().timezone, data::now());
    let body = feed_body(2_000, today + Days::new(1), "bench");
    let mut group = c.benchmark_group("ical_import");
    group.sample_size(10);
    let state = FeedState::new(Slug::parse("feed-bench").expect("a slug"), Source::parse("airbnb").expect("a name"));
    group.bench_function("parse_and_plan_2000_events_pure", |b| {
        b.iter(|| {
            let feed = rental_core::ical::parse_feed(body.as_bytes(), chrono_tz::UTC).expect("a calendar");
            let steps = plan(&state, feed.events, &[], today);
            assert_eq!(steps.len(), 2_000);
            black_box(steps)
        });
    });
    group.bench_function("first_import_2000_events_redb", |b| {
        b.iter_batched(
            one_feed,
            |(dir, rental, pull)| {
                let result = rental.worker().apply_pull(&pull, fetched(&body)).expect("applied");
                assert_eq!(result.created, 1_800);
                (dir, rental)
            },
            BatchSize::PerIteration,
        );
    });
    let (_dir, rental, pull) = one_feed();
    rental.worker().apply_pull(&pull, fetched(&body)).expect("the first import");
    group.bench_function("unchanged_repull_2000_events_redb", |b| {
        b.iter(|| {
            // Each pull is planned afresh, as the feed puller does: a pull planned
            // before another was applied is stale and skipped.
            let pull = rental.worker().feed_pulls(None).expect("the pulls").remove(0);
            let result = rental.worker().apply_pull(&pull, fetched(&body)).expect("applied");
            assert_eq!((result.events, result.created, result.updated), (2_000, 0, 0));
            black_box(result)
        });
    });
    group.finish();
}

/// 200 properties (fewer in test mode) with 3 feeds of 20 events each, served on loopback.
fn sync_fleet(c: &mut Criterion) {
    let properties = if quick() { 10 } else { 200 };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let channel = runtime.block_on(FeedServer::start());
    let today = rental_core::occupancy::today_in(data::seasonal_property().timezone, data::now());
    let mut fleet = Vec::new();
    for p in 0..properties {
        let slug = format!("fleet-{p:03}");
        let mut feeds = Vec::new();
        for (f, name) in ["airbnb", "vrbo", "booking"].into_iter().enumerate() {
            let path = format!("/{slug}/{name}.ics");
            let start = today + Days::new(1 + 60 * f as u64);
            channel.set(&path, Feed::Calendar(feed_body(20, start, &format!("{slug}-{name}"))));
            feeds.push((name, channel.url(&path)));
        }
        fleet.push(with_feeds(&slug, &feeds));
    }
    let config = FeedPullConfig {
        outbound: OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() },
        timeout: Duration::from_secs(20),
        ..FeedPullConfig::default()
    };
    let fresh = || {
        let dir = tempfile::tempdir().expect("a temp dir");
        let rental = Arc::new(data::open_rental(dir.path()));
        rental.import_properties(&fleet).expect("import the fleet");
        (dir, Arc::new(FeedPuller::new(rental, &config)))
    };
    let mut group = c.benchmark_group("ical_sync");
    group.sample_size(10);
    group.bench_function(format!("first_sync_{properties}x3_feeds"), |b| {
        b.iter_batched(
            fresh,
            |(dir, puller)| {
                let report = runtime.block_on(puller.sync(None, |_| {})).expect("the sync runs");
                assert_eq!((report.feeds, report.failed), (properties * 3, 0));
                (dir, puller)
            },
            BatchSize::PerIteration,
        );
    });
    let (_dir, puller) = fresh();
    runtime.block_on(puller.sync(None, |_| {})).expect("the first sync");
    group.bench_function(format!("repeat_sync_{properties}x3_feeds"), |b| {
        b.iter(|| {
            let report = runtime.block_on(puller.sync(None, |_| {})).expect("the sync runs");
            assert_eq!((report.feeds, report.failed, report.created), (properties * 3, 0, 0));
            black_box(report)
        });
    });
    group.finish();
}

criterion_group!(benches, reconcile, sync_fleet);
criterion_main!(benches);
