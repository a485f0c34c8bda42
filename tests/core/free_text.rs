//! Free text against every output format: random Unicode names, heavy in
//! line breaks, iCal separators, control and bidirectional characters, written
//! into the published calendar and read back by the `icalendar` crate's parser,
//! and shown in the form a terminal gets.

use chrono::{DateTime, Utc};
use icalendar::{Calendar, Component};
use proptest::prelude::*;
use rental_core::ical::export::{Busy, calendar};
use rental_core::text;

/// Characters that break formats, mixed with any character at all.
fn tricky_text() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        '\r', '\n', '\t', ';', ',', '\\', ':', '"', ' ', '\u{7f}', '\u{9b}', '\u{85}', '\u{202e}', '\u{2066}',
        '\u{200f}', '\u{2028}', 'é', '日', '👩', '\u{301}',
    ]);
    prop::collection::vec(prop_oneof![any::<char>(), tricky], 0..120).prop_map(|chars| chars.into_iter().collect())
}

/// A name as the calendar can carry it: one TEXT value, line breaks as LF, no other control but tab.
fn as_published(name: &str) -> String {
    let name = name.replace("\r\n", "\n").replace('\r', "\n");
    name.chars().filter(|c| *c == '\n' || *c == '\t' || !c.is_control()).collect()
}

fn stay() -> Busy {
    let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
    Busy {
        holder: "BK-7QX2MF".into(),
        created_at: at("2026-11-01T10:00:00Z"),
        start: "2026-12-20".parse().unwrap(),
        end: "2026-12-27".parse().unwrap(),
        reserved: true,
        changed_at: at("2026-11-02T10:00:00Z"),
    }
}

/// The value of the calendar-level property `name`, as the crate's parser reads (and unescapes) it.
fn value_of(body: &str, name: &str) -> String {
    let unfolded = icalendar::parser::unfold(body);
    let parsed = icalendar::parser::read_calendar(&unfolded).expect("the calendar parses");
    let property = parsed.properties.iter().find(|p| p.name.as_str() == name);
    property.unwrap_or_else(|| panic!("{name} in {body}")).val.as_str().to_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_name_is_one_escaped_value_in_the_calendar_and_reads_back(name in tricky_text()) {
        let body = calendar("sea-view", &name, &[stay()]).body;
        for line in body.split_terminator("\r\n") {
            prop_assert!(line.len() <= 75, "{} octets: {line:?}", line.len());
            prop_assert!(!line.contains(['\r', '\n']), "a bare line break: {line:?}");
        }
        let read: Calendar = body.parse().map_err(|e| TestCaseError::fail(format!("{e}: {body}")))?;
        prop_assert_eq!(read.components.len(), 1, "one event, none injected: {}", body);
        let event = read.components[0].as_event().expect("a VEVENT");
        prop_assert_eq!(event.get_summary(), Some("Reserved"));
        let published = as_published(&name);
        prop_assert_eq!(read.property_value("X-WR-CALNAME"), Some(published.as_str()));
        prop_assert_eq!(value_of(&body, "NAME"), published.clone());
        prop_assert_eq!(value_of(&body, "X-WR-CALNAME"), published.clone());
        if text::check("name", &name).is_ok() {
            prop_assert_eq!(published, name, "a valid name reads back as it is");
        }
    }

    #[test]
    fn any_text_shown_to_a_terminal_holds_no_control_or_bidi_character(name in tricky_text()) {
        let shown = text::visible(&name);
        prop_assert!(!shown.chars().any(|c| c.is_control() || text::is_refused(c)), "{shown:?}");
        if !name.chars().any(|c| c.is_control() || text::is_refused(c)) {
            prop_assert_eq!(shown.as_ref(), name.as_str());
        }
    }

    #[test]
    fn a_name_is_refused_exactly_when_it_holds_a_refused_character(name in tricky_text()) {
        let refused = name.chars().any(text::is_refused);
        prop_assert_eq!(text::check("guestName", &name).is_err(), refused);
    }
}
