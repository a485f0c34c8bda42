//! Every channel feed fixture through the whole import (`Rental::apply_pull`):
//! the nights each ends up blocking and the bookings it creates, as
//! rental-core/tests/fixtures/ical/README.md states them.

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::NaiveDate;
use chrono_tz::Tz;
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_core::store::{ReadTx, Store};
use rental_core::worker::Fetched;
use rental_core::{ManualClock, MemoryStore, Rental, demo};
use rental_tests::{at, d};

/// One fixture: the property's zone, the instant of the pull (before the feed's first
/// night, so nothing is in the past), the nights blocked and the bookings created.
struct Case {
    file: &'static str,
    zone: Tz,
    pulled_at: &'static str,
    nights: usize,
    bookings: usize,
}

const UTC: Tz = chrono_tz::UTC;
const PARIS: Tz = chrono_tz::Europe::Paris;
const LISBON: Tz = chrono_tz::Europe::Lisbon;

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { file: "airbnb-legacy-0.8.8-lf-folded.ics", zone: UTC, pulled_at: "2022-09-01T00:00:00Z", nights: 305, bookings: 8 },
    Case { file: "airbnb-hosting-1.0-crlf.ics", zone: UTC, pulled_at: "2026-08-01T00:00:00Z", nights: 56, bookings: 4 },
    Case { file: "airbnb-leading-blank-line-back-to-back.ics", zone: UTC, pulled_at: "2025-10-01T00:00:00Z", nights: 244, bookings: 25 },
    // Six listings in one file, summaries prefixed with the listing id: all blocks here.
    Case { file: "airbnb-merged-6-listings-mixed-eol.ics", zone: UTC, pulled_at: "2026-08-01T00:00:00Z", nights: 229, bookings: 0 },
    Case { file: "airbnb-blank-lines-inverted-range.ics", zone: UTC, pulled_at: "2025-01-01T00:00:00Z", nights: 54, bookings: 0 },
    Case { file: "booking-com-crlf-organizer.ics", zone: UTC, pulled_at: "2026-08-01T00:00:00Z", nights: 12, bookings: 0 },
    Case { file: "booking-com-year-spanning-closure.ics", zone: UTC, pulled_at: "2025-11-01T00:00:00Z", nights: 189, bookings: 0 },
    Case { file: "abritel-vrbo-fr-accents.ics", zone: PARIS, pulled_at: "2019-12-01T00:00:00Z", nights: 76, bookings: 5 },
    Case { file: "agoda-ycs-language-param.ics", zone: UTC, pulled_at: "2025-11-01T00:00:00Z", nights: 2, bookings: 1 },
    Case { file: "homegrown-pms-malformed-datetime.ics", zone: UTC, pulled_at: "2025-06-01T00:00:00Z", nights: 0, bookings: 0 },
    Case { file: "icloud-vtimezone-last-mixed-timed-allday.ics", zone: PARIS, pulled_at: "2026-01-01T00:00:00Z", nights: 480, bookings: 0 },
    // "Booked" is a reservation by docs/API.md section 8 (Agoda's wording).
    Case { file: "ownerrez-vtimezone-tzid-datetime-crlf.ics", zone: PARIS, pulled_at: "2022-05-01T00:00:00Z", nights: 289, bookings: 1 },
    Case { file: "morningcroissant-empty-calendar-crlf.ics", zone: UTC, pulled_at: "2026-01-01T00:00:00Z", nights: 0, bookings: 0 },
    Case { file: "synology-date-without-value-duration.ics", zone: UTC, pulled_at: "2024-02-01T00:00:00Z", nights: 7, bookings: 0 },
    Case { file: "synthetic-vrbo-reserved-blocked.ics", zone: UTC, pulled_at: "2026-09-01T00:00:00Z", nights: 19, bookings: 4 },
    Case { file: "synthetic-google-calendar-vtimezone-timed.ics", zone: LISBON, pulled_at: "2026-11-01T00:00:00Z", nights: 11, bookings: 0 },
    // The check-in and check-out markers take no nights: 6, not 7.
    Case { file: "synthetic-smoobu-checkin-checkout-triplets.ics", zone: UTC, pulled_at: "2026-10-01T00:00:00Z", nights: 6, bookings: 0 },
    // "Booked" and "Booked (no UID)": the second is not the bare word, so a block.
    Case { file: "synthetic-pms-bom-crlf-duration-no-uid.ics", zone: UTC, pulled_at: "2026-11-01T00:00:00Z", nights: 12, bookings: 1 },
    Case { file: "synthetic-latin1-non-utf8.ics", zone: UTC, pulled_at: "2026-04-01T00:00:00Z", nights: 5, bookings: 0 },
    // 6,000 events over 50 years; those starting within the 3-year horizon (366 of them) are imported.
    Case { file: "synthetic-airbnb-huge-feed.ics", zone: UTC, pulled_at: "2020-01-01T00:00:00Z", nights: 549, bookings: 330 },
    // A 0-byte body is a calendar with no events (Booking.com's empty calendar).
    Case { file: "synthetic-booking-com-empty-body.ics", zone: UTC, pulled_at: "2026-01-01T00:00:00Z", nights: 0, bookings: 0 },
];

fn fixture(file: &str) -> Vec<u8> {
    let path = format!("{}/../rental-core/tests/fixtures/ical/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every night of sea-view held by anything, from `from` on.
fn held_nights<S: Store>(rental: &Rental<S>, from: NaiveDate) -> BTreeSet<NaiveDate> {
    let entries = rental.store().read().and_then(|tx| tx.calendar("sea-view", from, NaiveDate::MAX)).unwrap();
    entries.iter().flat_map(|e| e.stay.dates()).collect()
}

#[test]
fn every_fixture_blocks_the_nights_its_readme_states() {
    let mut failures = Vec::new();
    for case in CASES {
        let clock = Arc::new(ManualClock::new(at(case.pulled_at)));
        let rental = Rental::new(MemoryStore::new()).with_clock(clock);
        let mut property = demo::properties().remove(0);
        property.timezone = case.zone;
        property.feeds.ical_feeds = vec![IcalFeed {
            name: Source::parse("channel").unwrap(),
            url: "https://channel.example/feed.ics".into(),
            reservation_patterns: vec![],
        }];
        rental.import_properties(&[property]).unwrap();
        let pull = rental.worker().feed_pulls(Some("sea-view")).unwrap().remove(0);
        let body = Fetched::Body { body: fixture(case.file), etag: None, last_modified: None };
        let result = rental.worker().apply_pull(&pull, body).unwrap();

        let nights = held_nights(&rental, d("2000-01-01")).len();
        let got = (result.ok, nights, result.created);
        if got != (true, case.nights, case.bookings) {
            failures.push(format!(
                "{}: ok/nights/bookings {got:?}, want {:?} ({result:?})",
                case.file,
                (true, case.nights, case.bookings)
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn pulling_the_same_fixture_again_changes_nothing() {
    let clock = Arc::new(ManualClock::new(at("2026-08-01T00:00:00Z")));
    let rental = Rental::new(MemoryStore::new()).with_clock(clock);
    let mut property = demo::properties().remove(0);
    property.feeds.ical_feeds = vec![IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: "https://channel.example/feed.ics".into(),
        reservation_patterns: vec![],
    }];
    rental.import_properties(&[property]).unwrap();
    let pull = rental.worker().feed_pulls(None).unwrap().remove(0);
    let body =
        || Fetched::Body { body: fixture("airbnb-merged-6-listings-mixed-eol.ics"), etag: None, last_modified: None };
    rental.worker().apply_pull(&pull, body()).unwrap();
    let events = rental.admin().events_after(0, usize::MAX).unwrap().len();
    let nights = held_nights(&rental, d("2000-01-01"));

    // Each pull is planned anew: one planned before the last was applied would be dropped as stale.
    let again = rental.worker().apply_pull(&rental.worker().feed_pulls(None).unwrap().remove(0), body()).unwrap();
    assert_eq!((again.ok, again.events, again.created, again.updated, again.cancelled), (true, 176, 0, 0, 0));
    assert_eq!(rental.admin().events_after(0, usize::MAX).unwrap().len(), events, "no new events");
    assert_eq!(held_nights(&rental, d("2000-01-01")), nights);
}

#[test]
fn a_propertys_feed_states_are_its_own_even_beside_slugs_that_share_a_prefix() {
    fn check<S: Store>(rental: &Rental<S>) {
        let mut properties = Vec::new();
        for slug in ["sea-view", "sea-view-2", "sea-view0", "sea"] {
            let mut p = demo::properties().remove(0);
            p.slug = rental_core::Slug::parse(slug).unwrap();
            p.feeds.ical_feeds = ["airbnb", "vrbo"]
                .map(|name| IcalFeed {
                    name: Source::parse(name).unwrap(),
                    url: format!("https://channel.example/{slug}/{name}.ics"),
                    reservation_patterns: vec![],
                })
                .to_vec();
            properties.push(p);
        }
        rental.import_properties(&properties).unwrap();
        for pull in rental.worker().feed_pulls(None).unwrap() {
            rental.worker().apply_pull(&pull, Fetched::Failed("offline".into())).unwrap();
        }
        let of = |slug: &str| {
            let states = rental
                .store()
                .read()
                .and_then(|tx| {
                    rental_core::ReadRecords::list_all::<rental_core::pull::FeedState>(&tx, &format!("{slug}/"))
                })
                .unwrap();
            states.iter().map(|s| format!("{}/{}", s.property, s.feed)).collect::<Vec<_>>()
        };
        assert_eq!(of("sea-view"), ["sea-view/airbnb", "sea-view/vrbo"]);
        assert_eq!(of("sea"), ["sea/airbnb", "sea/vrbo"]);
        assert_eq!(of("sea-view0"), ["sea-view0/airbnb", "sea-view0/vrbo"]);
        assert_eq!(rental.worker().feed_states().unwrap().len(), 8);
    }
    let dir = tempfile::tempdir().unwrap();
    check(&Rental::new(rental_tests::open_redb(dir.path())));
    check(&Rental::new(MemoryStore::new()));
}
