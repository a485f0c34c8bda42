//! Property tests of `parse_feed`: it never panics (arbitrary bytes, mutated fixtures), what it
//! returns always holds its invariants, and a generated calendar reads back to exactly its ranges.

use std::collections::BTreeSet;

use chrono::{Days, NaiveDate};
use chrono_tz::Tz;
use proptest::prelude::*;
use rental_core::ical::{Feed, parse_feed};

/// Every fixture but the 1.8 MB one (too slow to mutate hundreds of times in a debug build).
fn fixtures() -> Vec<Vec<u8>> {
    let dir = format!("{}/tests/fixtures/ical", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{dir}: {e}")) {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let is_ics = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("ics"));
        if is_ics && !name.contains("huge") {
            out.push(std::fs::read(&path).expect("a fixture"));
        }
    }
    assert!(out.len() >= 19, "fixtures missing from {dir}");
    out
}

const ZONES: [Tz; 4] = [Tz::UTC, Tz::Europe__Paris, Tz::Pacific__Auckland, Tz::America__Los_Angeles];

/// What any successful read promises: unique keys, every event at least one night long.
fn check_invariants(feed: &Feed) -> Result<(), TestCaseError> {
    let keys: BTreeSet<&str> = feed.events.iter().map(|e| e.uid.as_str()).collect();
    prop_assert_eq!(keys.len(), feed.events.len(), "keys are unique");
    for event in &feed.events {
        prop_assert!(event.end > event.start, "{:?} ends after it starts", event);
        prop_assert_eq!(event.summary.trim(), event.summary.as_str());
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let snippets = prop::sample::select(vec![
        b"\r\n".to_vec(),
        b"\r".to_vec(),
        b"\n ".to_vec(),
        b"BEGIN:VEVENT\r\n".to_vec(),
        b"END:VEVENT\n".to_vec(),
        b"END:VCALENDAR\n".to_vec(),
        b"RRULE:FREQ=DAILY;BYDAY=-1SU\n".to_vec(),
        b";TZID=\"W. Europe Standard Time\"".to_vec(),
        b"\xff\xfe\xc3".to_vec(),
        b"RECURRENCE-ID:20260101\n".to_vec(),
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Flip(at, byte)),
        (any::<usize>(), prop_oneof![snippets, prop::collection::vec(any::<u8>(), 1..16)])
            .prop_map(|(at, bytes)| Mutation::Insert(at, bytes)),
        (any::<usize>(), 1usize..64).prop_map(|(at, n)| Mutation::Remove(at, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(body: &mut Vec<u8>, mutation: &Mutation) {
    let len = body.len().max(1);
    match mutation {
        Mutation::Flip(at, byte) => {
            if let Some(b) = body.get_mut(at % len) {
                *b ^= byte | 1;
            }
        }
        Mutation::Insert(at, bytes) => {
            let at = at % (body.len() + 1);
            body.splice(at..at, bytes.iter().copied());
        }
        Mutation::Remove(at, n) => {
            let at = at % len;
            let end = (at + n).min(body.len());
            if at < end {
                body.drain(at..end);
            }
        }
        Mutation::Truncate(at) => body.truncate(at % len),
    }
}

/// A calendar of `ranges` written the way real exporters vary: line endings,
/// folding, name case, DATE or DATE-TIME, DTEND or DURATION.
fn render(ranges: &[(NaiveDate, NaiveDate)], style: &Style) -> Vec<u8> {
    let eol = ["\r\n", "\n", "\r"][style.eol];
    let mut lines = vec!["BEGIN:VCALENDAR".to_owned(), "VERSION:2.0".to_owned(), "PRODID:-//proptest//EN".to_owned()];
    for (i, (start, end)) in ranges.iter().enumerate() {
        lines.push("BEGIN:VEVENT".to_owned());
        lines.push(format!("UID:{i}-generated@example.com"));
        let timed = style.timed.get(i).copied().unwrap_or(false);
        if timed {
            lines.push(format!("DTSTART;TZID=Europe/Paris:{}T160000", start.format("%Y%m%d")));
            lines.push(format!("DTEND;TZID=\"Europe/Paris\":{}T100000", end.format("%Y%m%d")));
        } else {
            lines.push(format!("DTSTART;VALUE=DATE:{}", start.format("%Y%m%d")));
            if style.duration {
                lines.push(format!("DURATION:P{}D", (*end - *start).num_days()));
            } else {
                lines.push(format!("DTEND;VALUE=DATE:{}", end.format("%Y%m%d")));
            }
        }
        lines.push(format!("SUMMARY:Reserved \\, guest {i} with a long enough summary to need folding"));
        lines.push("END:VEVENT".to_owned());
    }
    lines.push("END:VCALENDAR".to_owned());
    let mut out = String::new();
    for line in lines {
        let line = if style.lowercase { lowercase_name(&line) } else { line };
        let chars: Vec<char> = line.chars().collect();
        for (n, chunk) in chars.chunks(style.fold_width).enumerate() {
            if n > 0 {
                out.push_str(eol);
                out.push(if style.tab_fold { '\t' } else { ' ' });
            }
            out.extend(chunk);
        }
        out.push_str(eol);
    }
    out.into_bytes()
}

/// The line with its property name (and parameter names) in lower case, values untouched.
fn lowercase_name(line: &str) -> String {
    let cut = line.find(':').unwrap_or(line.len());
    let (head, value) = line.split_at(cut);
    let head: Vec<String> = head
        .split(';')
        .map(|part| match part.split_once('=') {
            Some((name, value)) => format!("{}={value}", name.to_lowercase()),
            None => part.to_lowercase(),
        })
        .collect();
    let value =
        if head.first().is_some_and(|n| n == "begin" || n == "end") { value.to_lowercase() } else { value.to_owned() };
    format!("{}{value}", head.join(";"))
}

#[derive(Debug, Clone)]
struct Style {
    eol: usize,
    fold_width: usize,
    tab_fold: bool,
    lowercase: bool,
    duration: bool,
    timed: Vec<bool>,
}

fn style() -> impl Strategy<Value = Style> {
    (0usize..3, 8usize..80, any::<bool>(), any::<bool>(), any::<bool>(), prop::collection::vec(any::<bool>(), 0..20))
        .prop_map(|(eol, fold_width, tab_fold, lowercase, duration, timed)| Style {
            eol,
            fold_width,
            tab_fold,
            lowercase,
            duration,
            timed,
        })
}

/// Non-overlapping ranges from (gap, length) pairs, starting in 2026.
fn ranges() -> impl Strategy<Value = Vec<(NaiveDate, NaiveDate)>> {
    prop::collection::vec((0u64..40, 1u64..30), 0..20).prop_map(|steps| {
        let mut at = NaiveDate::from_ymd_opt(2026, 1, 1).expect("a date");
        let mut out = Vec::new();
        for (gap, length) in steps {
            let start = at + Days::new(gap);
            let end = start + Days::new(length);
            out.push((start, end));
            at = end;
        }
        out
    })
}

proptest! {
    // Failures are reported with their minimal input; no regression file next to the sources.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..2048), zone in 0usize..4) {
        if let Ok(feed) = parse_feed(&body, ZONES[zone]) {
            check_invariants(&feed)?;
        }
    }

    #[test]
    fn calendar_shaped_noise_never_panics(
        lines in prop::collection::vec(prop::sample::select(vec![
            "BEGIN:VCALENDAR", "END:VCALENDAR", "BEGIN:VEVENT", "END:VEVENT", "BEGIN:VTIMEZONE", "END:VTIMEZONE",
            "BEGIN:STANDARD", "END:STANDARD", "TZID:X", "TZOFFSETTO:+0100", "DTSTART:19700101T000000",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "UID:a", "DTSTART;VALUE=DATE:20260101", "DTSTART;TZID=X:20260101T020000",
            "DTEND:20251231T000000Z", "DURATION:-P3D", "RRULE:FREQ=MONTHLY;BYMONTHDAY=31,-31;BYDAY=5FR", "EXDATE:20260101",
            "RECURRENCE-ID;VALUE=DATE:20260101", "STATUS:CANCELLED", "SEQUENCE:99999999999999999999", " folded", "RDATE:99991231",
        ]), 0..60),
        zone in 0usize..4,
    ) {
        let body = lines.join("\r\n");
        if let Ok(feed) = parse_feed(body.as_bytes(), ZONES[zone]) {
            check_invariants(&feed)?;
        }
    }

    #[test]
    fn mutated_fixtures_never_panic(which in any::<prop::sample::Index>(), mutations in prop::collection::vec(mutation(), 1..6), zone in 0usize..4) {
        let all = fixtures();
        let mut body = all[which.index(all.len())].clone();
        for m in &mutations {
            apply(&mut body, m);
        }
        let first = parse_feed(&body, ZONES[zone]);
        if let Ok(feed) = &first {
            check_invariants(feed)?;
        }
        // Keys must be stable across pulls: the same body reads the same, whatever the hash seeds.
        prop_assert_eq!(parse_feed(&body, ZONES[zone]), first);
    }

    #[test]
    fn a_generated_calendar_reads_back_to_its_ranges(ranges in ranges(), style in style()) {
        let body = render(&ranges, &style);
        let feed = parse_feed(&body, Tz::Europe__Paris).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let read: Vec<(NaiveDate, NaiveDate)> = feed.events.iter().map(|e| (e.start, e.end)).collect();
        prop_assert_eq!(read, ranges);
        prop_assert_eq!(feed.invalid, 0);
        prop_assert!(feed.warnings.is_empty(), "{:?}", feed.warnings);
        for event in &feed.events {
            prop_assert!(event.summary.starts_with("Reserved , guest"), "{}", event.summary);
        }
    }
}
