//! Every channel-feed fixture of `tests/fixtures/ical/`, read with `parse_feed` and checked
//! against the expected interpretation its README row states (values typed in from the README).

use std::collections::BTreeSet;

use chrono::NaiveDate;
use chrono_tz::Tz;
use rental_core::ical::{Feed, FeedError, parse_feed};

fn body(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/ical/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

fn feed_in(name: &str, zone: Tz) -> Feed {
    parse_feed(&body(name), zone).unwrap_or_else(|e| panic!("{name} should parse: {e}"))
}

fn feed(name: &str) -> Feed {
    feed_in(name, Tz::UTC)
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Each event as `start..end` (end = checkout), in the order `parse_feed` returns (by start).
fn ranges(feed: &Feed) -> Vec<String> {
    feed.events.iter().map(|e| format!("{}..{}", e.start, e.end)).collect()
}

/// The events whose summary is `summary`, as ranges.
fn ranges_of(feed: &Feed, summary: &str) -> Vec<String> {
    feed.events.iter().filter(|e| e.summary == summary).map(|e| format!("{}..{}", e.start, e.end)).collect()
}

/// Every night some event blocks.
fn nights(feed: &Feed) -> BTreeSet<NaiveDate> {
    feed.events.iter().flat_map(|e| e.start.iter_days().take_while(move |d| *d < e.end)).collect()
}

/// The blocked nights merged into maximal `start..end` ranges.
fn union(feed: &Feed) -> Vec<String> {
    let mut out: Vec<(NaiveDate, NaiveDate)> = Vec::new();
    for night in nights(feed) {
        match out.last_mut() {
            Some((_, end)) if *end == night => *end = night.succ_opt().expect("a next day"),
            _ => out.push((night, night.succ_opt().expect("a next day"))),
        }
    }
    out.iter().map(|(s, e)| format!("{s}..{e}")).collect()
}

fn uids_are_unique(feed: &Feed) {
    let uids: BTreeSet<&str> = feed.events.iter().map(|e| e.uid.as_str()).collect();
    assert_eq!(uids.len(), feed.events.len(), "uids must be unique");
    assert!(feed.events.iter().all(|e| e.end > e.start), "every event ends after it starts");
}

#[test]
fn airbnb_legacy_lf_folded() {
    let feed = feed("airbnb-legacy-0.8.8-lf-folded.ics");
    uids_are_unique(&feed);
    assert_eq!(feed.events.len(), 21);
    assert_eq!(
        ranges_of(&feed, "Reserved"),
        [
            "2022-09-16..2022-09-26",
            "2022-09-27..2022-10-04",
            "2022-10-08..2022-10-12",
            "2022-10-17..2022-10-21",
            "2022-10-22..2022-11-22",
            "2022-12-08..2022-12-15",
            "2022-12-30..2023-01-02",
            "2023-02-14..2023-02-23",
        ]
    );
    assert_eq!(feed.events.len() - ranges_of(&feed, "Reserved").len(), 13, "13 blocks");
    assert_eq!(nights(&feed).len(), 305);
    assert_eq!(
        union(&feed),
        [
            "2022-09-16..2022-10-13",
            "2022-10-14..2022-11-23",
            "2022-12-07..2022-12-16",
            "2022-12-22..2023-01-23",
            "2023-02-13..2023-02-24",
            "2023-03-26..2023-09-28",
        ]
    );
    assert!(ranges(&feed).contains(&"2023-03-26..2023-09-28".to_owned()), "the 186-night block is one event");
    assert_eq!((feed.invalid, feed.warnings.len()), (0, 0));
}

#[test]
fn airbnb_hosting_crlf() {
    let feed = feed("airbnb-hosting-1.0-crlf.ics");
    uids_are_unique(&feed);
    assert_eq!(
        ranges_of(&feed, "Reserved"),
        ["2026-08-24..2026-09-02", "2026-09-02..2026-09-08", "2026-09-21..2026-09-30", "2027-07-18..2027-07-22",]
    );
    assert_eq!(
        ranges_of(&feed, "Airbnb (Not available)"),
        ["2026-08-20..2026-08-24", "2026-09-14..2026-09-21", "2026-12-30..2027-01-02", "2027-08-09..2027-08-23",]
    );
    assert_eq!(feed.events.len(), 8);
    assert_eq!(nights(&feed).len(), 56);
}

#[test]
fn airbnb_leading_blank_line_back_to_back() {
    let feed = feed("airbnb-leading-blank-line-back-to-back.ics");
    uids_are_unique(&feed);
    assert_eq!(feed.events.len(), 28);
    assert_eq!(ranges_of(&feed, "Reserved").len(), 25);
    assert_eq!(ranges_of(&feed, "Airbnb (Not available)").len(), 3);
    assert_eq!(nights(&feed).len(), 244);
    assert_eq!(
        union(&feed),
        [
            "2025-10-20..2025-11-04",
            "2025-11-08..2025-11-11",
            "2025-11-14..2025-11-17",
            "2025-11-21..2025-11-23",
            "2025-11-25..2025-11-27",
            "2025-11-28..2025-11-30",
            "2025-12-06..2025-12-07",
            "2025-12-24..2025-12-26",
            "2025-12-27..2025-12-28",
            "2025-12-30..2025-12-31",
            "2026-01-01..2026-01-04",
            "2026-02-07..2026-02-08",
            "2026-02-13..2026-02-15",
            "2026-03-14..2026-03-15",
            "2026-04-01..2026-10-23",
        ]
    );
}

#[test]
fn airbnb_merged_six_listings_mixed_eol() {
    let feed = feed("airbnb-merged-6-listings-mixed-eol.ics");
    uids_are_unique(&feed);
    assert_eq!(feed.events.len(), 176);
    assert_eq!(feed.events.iter().filter(|e| e.summary.ends_with(" Reserved")).count(), 173);
    assert_eq!(feed.events.iter().filter(|e| e.summary.ends_with(" Airbnb (Not available)")).count(), 3);
    let listings = [
        ("1355078859895588226", 46, 142),
        ("1194501603461940563", 28, 88),
        ("1166699194313702494", 35, 107),
        ("1169542988343878536", 19, 48),
        ("1193566712390606838", 14, 51),
        ("1169549533139105227", 34, 102),
    ];
    for (prefix, events, night_count) in listings {
        let listing = Feed {
            events: feed.events.iter().filter(|e| e.uid.starts_with(prefix)).cloned().collect(),
            ..Feed::default()
        };
        assert!(listing.events.iter().all(|e| e.summary.starts_with(prefix)), "{prefix}: summary prefix");
        assert_eq!((listing.events.len(), nights(&listing).len()), (events, night_count), "listing {prefix}");
    }
    let all = nights(&feed);
    assert_eq!(all.len(), 229);
    assert_eq!(all.first().copied(), Some(day("2026-08-17")));
    assert_eq!(feed.events.iter().map(|e| e.end).max(), Some(day("2027-08-05")));
}

#[test]
fn airbnb_blank_lines_inverted_range() {
    let feed = feed("airbnb-blank-lines-inverted-range.ics");
    uids_are_unique(&feed);
    assert_eq!(ranges(&feed), ["2025-02-26..2025-02-27", "2025-04-03..2025-05-25", "2025-06-01..2025-06-02"]);
    assert_eq!(nights(&feed).len(), 1 + 52 + 1);
    assert_eq!(feed.warnings.len(), 1, "the inverted event is reported: {:?}", feed.warnings);
    assert!(feed.warnings[0].contains("2025-06-01"), "{:?}", feed.warnings);
}

#[test]
fn booking_com_crlf_organizer() {
    let feed = feed("booking-com-crlf-organizer.ics");
    uids_are_unique(&feed);
    assert_eq!(ranges(&feed), ["2026-09-08..2026-09-13", "2027-07-31..2027-08-07"]);
    assert_eq!(nights(&feed).len(), 12);
    assert!(feed.events.iter().all(|e| e.uid.ends_with("@booking.com") && e.summary == "CLOSED - Not available"));
}

#[test]
fn booking_com_year_spanning_closure() {
    let feed = feed("booking-com-year-spanning-closure.ics");
    assert_eq!(ranges(&feed), ["2025-11-16..2025-11-25", "2026-11-08..2027-05-07"]);
    assert_eq!(nights(&feed).len(), 9 + 180);
}

#[test]
fn abritel_vrbo_french_accents() {
    let feed = feed("abritel-vrbo-fr-accents.ics");
    uids_are_unique(&feed);
    let reserved: Vec<String> = feed
        .events
        .iter()
        .filter(|e| e.summary.starts_with("Réservée"))
        .map(|e| format!("{}..{}", e.start, e.end))
        .collect();
    assert_eq!(
        reserved,
        [
            "2019-12-24..2019-12-29",
            "2020-01-01..2020-01-24",
            "2020-03-09..2020-03-16",
            "2020-05-15..2020-05-19",
            "2020-10-13..2020-10-24",
        ]
    );
    assert_eq!(ranges_of(&feed, "Réservée"), ["2020-10-13..2020-10-24"]);
    assert_eq!(ranges_of(&feed, "Provisoire - Eve"), ["2020-11-15..2020-12-06"]);
    assert_eq!(ranges_of(&feed, "Indisponible"), ["2020-02-29..2020-03-05"]);
    assert_eq!(feed.events.len(), 7);
    assert_eq!(nights(&feed).len(), 76);
}

#[test]
fn agoda_language_parameter() {
    let feed = feed("agoda-ycs-language-param.ics");
    assert_eq!(ranges(&feed), ["2025-11-20..2025-11-22"]);
    assert_eq!(feed.events[0].summary, "BOOKED", "the leading space of \" BOOKED\" is trimmed");
}

#[test]
fn homegrown_pms_malformed_datetime() {
    let feed = feed("homegrown-pms-malformed-datetime.ics");
    assert_eq!(feed.events, []);
    assert_eq!(feed.invalid, 2);
}

#[test]
fn icloud_vtimezone_last_mixed_timed_allday() {
    let feed = feed_in("icloud-vtimezone-last-mixed-timed-allday.ics", Tz::Europe__Paris);
    uids_are_unique(&feed);
    assert_eq!(feed.events.len(), 24);
    let timed: Vec<String> = feed
        .events
        .iter()
        .filter(|e| e.summary == "Nouvel évènement")
        .map(|e| format!("{}..{}", e.start, e.end))
        .collect();
    assert_eq!(timed, ["2026-12-10..2026-12-11", "2026-12-10..2026-12-11"], "09:00-10:00 is one night");
    assert_eq!(nights(&feed).len(), 480);
    assert_eq!(
        union(&feed),
        [
            "2026-01-17..2026-02-07",
            "2026-02-14..2026-02-28",
            "2026-03-07..2026-03-14",
            "2026-06-23..2026-07-02",
            "2026-07-03..2026-07-09",
            "2026-07-11..2026-07-18",
            "2026-07-23..2026-07-28",
            "2026-08-01..2026-08-08",
            "2026-08-12..2026-08-18",
            "2026-08-25..2026-08-30",
            "2026-09-12..2027-01-02",
            "2027-01-16..2027-01-30",
            "2027-02-06..2027-02-13",
            "2027-02-20..2027-03-06",
            "2027-05-01..2028-01-02",
        ]
    );
    assert_eq!(feed.warnings, Vec::<String>::new());
}

#[test]
fn ownerrez_tzid_datetime_across_years() {
    let feed = feed_in("ownerrez-vtimezone-tzid-datetime-crlf.ics", Tz::Europe__Paris);
    assert_eq!(ranges(&feed), ["2022-05-10..2023-02-23"]);
    assert_eq!(nights(&feed).len(), 289);
    assert_eq!(feed.events[0].summary, "Booked");
}

#[test]
fn morningcroissant_empty_calendar_is_valid() {
    let feed = feed("morningcroissant-empty-calendar-crlf.ics");
    assert_eq!(feed, Feed::default(), "a complete calendar without events means no bookings");
}

#[test]
fn synology_date_without_value_and_pt1w_duration() {
    let feed = feed("synology-date-without-value-duration.ics");
    assert_eq!(ranges(&feed), ["2024-02-15..2024-02-22"]);
}

#[test]
fn synthetic_vrbo_reserved_blocked() {
    let feed = feed("synthetic-vrbo-reserved-blocked.ics");
    uids_are_unique(&feed);
    let reserved: Vec<String> = feed
        .events
        .iter()
        .filter(|e| e.summary.starts_with("Reserved"))
        .map(|e| format!("{}..{}", e.start, e.end))
        .collect();
    assert_eq!(
        reserved,
        ["2026-10-02..2026-10-06", "2026-10-06..2026-10-09", "2026-12-28..2027-01-03", "2027-02-10..2027-02-15",]
    );
    assert_eq!(ranges_of(&feed, "Blocked"), ["2026-10-20..2026-10-21"]);
    assert_eq!(nights(&feed).len(), 19);
}

#[test]
fn synthetic_google_calendar_vtimezone_timed() {
    let feed = feed_in("synthetic-google-calendar-vtimezone-timed.ics", Tz::Europe__Lisbon);
    uids_are_unique(&feed);
    assert_eq!(
        ranges(&feed),
        [
            "2026-11-05..2026-11-08",
            "2026-11-10..2026-11-13",
            "2026-11-20..2026-11-22",
            "2026-11-30..2026-12-01",
            "2026-12-14..2026-12-15",
            "2026-12-21..2026-12-22",
        ]
    );
    assert_eq!(nights(&feed).len(), 11);
    assert!(!nights(&feed).contains(&day("2026-11-25")), "the cancelled event blocks nothing");
    let recurring: Vec<&str> =
        feed.events.iter().filter(|e| e.summary == "Deep clean (closed)").map(|e| e.uid.as_str()).collect();
    assert_eq!(
        recurring,
        ["m1n2b3v4c5x6z7l8k9j0h1g2f3@google.com/2026-12-14", "m1n2b3v4c5x6z7l8k9j0h1g2f3@google.com/2026-12-21",]
    );
}

#[test]
fn synthetic_smoobu_triplets_keep_every_event_for_the_importer_to_classify() {
    let feed = feed("synthetic-smoobu-checkin-checkout-triplets.ics");
    uids_are_unique(&feed);
    assert_eq!(feed.events.len(), 6, "the parser returns the markers; classifying them is the importer's job");
    let stays = Feed {
        events: feed
            .events
            .iter()
            .filter(|e| !e.summary.starts_with("Check-in") && !e.summary.starts_with("Check-out"))
            .cloned()
            .collect(),
        ..Feed::default()
    };
    assert_eq!(ranges(&stays), ["2026-10-12..2026-10-15", "2026-10-15..2026-10-18"]);
    assert_eq!(nights(&stays).len(), 6);
    assert_eq!(ranges_of(&feed, "Check-out: Second Guest"), ["2026-10-18..2026-10-19"]);
}

#[test]
fn synthetic_pms_bom_crlf_duration_no_uid() {
    let feed = feed("synthetic-pms-bom-crlf-duration-no-uid.ics");
    uids_are_unique(&feed);
    assert_eq!(
        ranges(&feed),
        [
            "2026-12-01..2026-12-04",
            "2026-12-10..2026-12-12",
            "2026-12-20..2026-12-21",
            "2026-12-22..2026-12-25",
            "2026-12-28..2026-12-31",
        ]
    );
    assert_eq!(nights(&feed).len(), 12);
    let no_uid = &feed.events[1];
    assert!(no_uid.uid.starts_with("nouid-"), "{}", no_uid.uid);
    let again = parse_feed(&body("synthetic-pms-bom-crlf-duration-no-uid.ics"), Tz::UTC).expect("parses");
    assert_eq!(again.events[1].uid, no_uid.uid, "the synthesized key is stable across pulls");
    assert_eq!(
        feed.events[3].summary,
        "Réservation confirmée – séjour de Noël – chambre « Olivier » – arrivée tardive"
    );
}

#[test]
fn synthetic_latin1_non_utf8() {
    let feed = feed("synthetic-latin1-non-utf8.ics");
    assert_eq!(ranges(&feed), ["2026-04-10..2026-04-13", "2026-04-20..2026-04-22"]);
    assert_eq!(nights(&feed).len(), 5);
    assert!(feed.events[0].summary.starts_with("Réservé"), "{}", feed.events[0].summary);
    assert!(feed.events[1].summary.starts_with("Fermé"), "{}", feed.events[1].summary);
}

#[test]
fn synthetic_airbnb_huge_feed() {
    let feed = feed("synthetic-airbnb-huge-feed.ics");
    uids_are_unique(&feed);
    assert_eq!(feed.events.len(), 6_000);
    assert_eq!(nights(&feed).len(), 9_000);
    let first = day("2020-01-01");
    for (i, event) in feed.events.iter().enumerate() {
        let start = first + chrono::Days::new(3 * i as u64);
        let length = if i % 2 == 0 { 1 } else { 2 };
        let summary = if i % 10 == 9 { "Airbnb (Not available)" } else { "Reserved" };
        assert_eq!(
            (event.start, event.end, event.summary.as_str()),
            (start, start + chrono::Days::new(length), summary)
        );
    }
    assert_eq!(ranges(&feed).last().map(String::as_str), Some("2069-04-10..2069-04-12"));
}

#[test]
fn synthetic_booking_com_empty_body() {
    assert_eq!(parse_feed(&body("synthetic-booking-com-empty-body.ics"), Tz::UTC), Err(FeedError::Empty));
}
