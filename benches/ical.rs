//! iCal feed parsing: a generated 2,000-event Airbnb-style feed (target: well under 10 ms in a
//! release build) and the 6,000-event, 1.8 MB `synthetic-airbnb-huge-feed.ics` fixture.
//!
//! Run: `cargo bench -p rental-benches --bench ical`. `cargo test --benches` runs each once.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use chrono::{Days, NaiveDate};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rental_core::Tz;
use rental_core::ical::parse_feed;

/// A feed shaped like Airbnb's current export (CRLF, folded DESCRIPTION, DTSTAMP, blocks
/// and reservations alternating) with `count` events.
fn airbnb_feed(count: usize) -> Vec<u8> {
    let mut out = String::from(
        "BEGIN:VCALENDAR\r\nPRODID;X-RICAL-TZSOURCE=TZINFO:-//Airbnb Inc//Hosting Calendar 1.0//EN\r\n\
         CALSCALE:GREGORIAN\r\nVERSION:2.0\r\n",
    );
    let first = NaiveDate::from_ymd_opt(2026, 1, 1).expect("a date");
    for i in 0..count {
        let start = first + Days::new(3 * i as u64);
        let end = start + Days::new(1 + (i % 2) as u64);
        let (s, e) = (start.format("%Y%m%d"), end.format("%Y%m%d"));
        if i % 10 == 9 {
            let _ = write!(
                out,
                "BEGIN:VEVENT\r\nDTSTAMP:20261122T101500Z\r\nDTSTART;VALUE=DATE:{s}\r\nDTEND;VALUE=DATE:{e}\r\n\
                 SUMMARY:Airbnb (Not available)\r\nUID:7f662ec65913-{i:032x}@airbnb.com\r\nEND:VEVENT\r\n"
            );
        } else {
            let _ = write!(
                out,
                "BEGIN:VEVENT\r\nDTSTAMP:20261122T101500Z\r\nDTSTART;VALUE=DATE:{s}\r\nDTEND;VALUE=DATE:{e}\r\n\
                 SUMMARY:Reserved\r\nUID:1418fb94e984-{i:032x}@airbnb.com\r\nDESCRIPTION:Reservation URL: https://\r\n \
                 www.airbnb.com/hosting/reservations/details/HMFAKE{i:04}\\nPhone Number (Last 4 Di\r\n \
                 gits): 0001\r\nEND:VEVENT\r\n"
            );
        }
    }
    out.push_str("END:VCALENDAR\r\n");
    out.into_bytes()
}

fn huge_fixture() -> Vec<u8> {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../rental-core/tests/fixtures/ical/synthetic-airbnb-huge-feed.ics");
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(c: &mut Criterion) {
    let generated = airbnb_feed(2_000);
    let huge = huge_fixture();
    let read = |body: &[u8]| parse_feed(black_box(body), Tz::Europe__Paris).expect("a feed");
    assert_eq!(read(&generated).events.len(), 2_000);
    assert_eq!(read(&huge).events.len(), 6_000);

    let mut g = c.benchmark_group("ical_parse");
    g.throughput(Throughput::Bytes(generated.len() as u64));
    g.bench_function("airbnb_2000_events", |b| b.iter(|| read(&generated)));
    g.throughput(Throughput::Bytes(huge.len() as u64));
    g.bench_function("huge_fixture_6000_events", |b| b.iter(|| read(&huge)));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = parse
}
criterion_main!(benches);
