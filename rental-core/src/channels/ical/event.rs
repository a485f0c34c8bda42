//! One `VEVENT` read into typed values: its key, summary, status, version (SEQUENCE, DTSTAMP),
//! start, end (DTEND, DURATION or none), and recurrence (RRULE, RDATE, EXDATE, RECURRENCE-ID).

use chrono::{Duration, NaiveDateTime};
use sha2::{Digest, Sha256};

use super::component::RawEvent;
use super::content::{Property, unescape_text};
use super::recur::{self, Rule};
use super::value::{Stamp, parse_duration, parse_stamp};

/// A DATE or DATE-TIME with the `TZID` it was given in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Timed {
    pub stamp: Stamp,
    pub tzid: Option<String>,
}

/// How an event says where it ends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum End {
    /// `DTEND`.
    At(Timed),
    /// `DURATION`.
    For(Duration),
    /// A `DURATION` that cannot be read: one night, with a warning.
    Unreadable(String),
    /// Neither: one night (RFC 5545 §3.6.1).
    Absent,
}

/// A `VEVENT` whose dates could be read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Event {
    /// The `UID`, if it has one.
    pub uid: Option<String>,
    /// A stable key for an event without `UID`, from its dates and summary
    /// (empty when it has a `UID`).
    pub derived_key: String,
    pub summary: String,
    pub cancelled: bool,
    pub sequence: i64,
    /// `DTSTAMP` as written (UTC by RFC 5545); absent sorts first.
    pub dtstamp: Option<NaiveDateTime>,
    pub start: Timed,
    pub end: End,
    /// `RRULE`, or why it could not be used (boxed: most events have none).
    pub rule: Option<Result<Box<Rule>, String>>,
    pub rdates: Vec<Timed>,
    pub exdates: Vec<Timed>,
    pub recurrence_id: Option<Timed>,
    /// The `X-WR-TIMEZONE` of its calendar.
    pub floating: Option<String>,
}

impl Event {
    /// Whether the event stands for a set of occurrences.
    pub fn recurs(&self) -> bool {
        self.rule.is_some() || !self.rdates.is_empty()
    }

    /// The key rule 7 groups copies by.
    pub fn key(&self) -> &str {
        self.uid.as_deref().unwrap_or(&self.derived_key)
    }

    /// What rule 7 orders copies by: `SEQUENCE`, then `DTSTAMP`.
    pub fn version(&self) -> (i64, Option<NaiveDateTime>) {
        (self.sequence, self.dtstamp)
    }
}

/// Reads `raw`; `None` when its dates cannot be read (the event is invalid).
pub(crate) fn read_event(raw: &RawEvent<'_>) -> Option<Event> {
    let start = timed(raw.get("DTSTART")?)?;
    let end = match (raw.get("DTEND"), raw.get("DURATION")) {
        (Some(dtend), _) => End::At(timed(dtend)?),
        (None, Some(duration)) => {
            parse_duration(&duration.value).map_or_else(|| End::Unreadable(duration.value.to_string()), End::For)
        }
        (None, None) => End::Absent,
    };
    let recurrence_id = match raw.get("RECURRENCE-ID") {
        Some(prop) => Some(timed(prop)?),
        None => None,
    };
    let summary = raw.get("SUMMARY").map(|p| unescape_text(&p.value)).unwrap_or_default();
    let uid = raw.get("UID").map(|p| unescape_text(&p.value)).filter(|uid| !uid.is_empty());
    Some(Event {
        derived_key: if uid.is_none() { derived_key(raw, &summary) } else { String::new() },
        uid,
        summary,
        cancelled: raw.get("STATUS").is_some_and(|p| p.value.eq_ignore_ascii_case("CANCELLED")),
        sequence: raw.get("SEQUENCE").and_then(|p| p.value.parse().ok()).unwrap_or(0),
        dtstamp: raw.get("DTSTAMP").and_then(|p| parse_stamp(&p.value, false)).map(Stamp::wall),
        start,
        end,
        rule: raw.get("RRULE").map(|p| recur::parse_rule(&p.value).map(Box::new)),
        rdates: raw.all("RDATE").flat_map(list).collect(),
        exdates: raw.all("EXDATE").flat_map(list).collect(),
        recurrence_id,
        floating: raw.floating.clone(),
    })
}

/// A single DATE or DATE-TIME property.
fn timed(prop: &Property<'_>) -> Option<Timed> {
    let is_date = prop.param("VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE"));
    let stamp = parse_stamp(&prop.value, is_date)?;
    Some(Timed { stamp, tzid: prop.param("TZID").map(str::to_owned) })
}

/// The values of an `RDATE`/`EXDATE` list; for a PERIOD (`start/end`), its start.
fn list(prop: &Property<'_>) -> Vec<Timed> {
    let is_date = prop.param("VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE"));
    let tzid = prop.param("TZID").map(str::to_owned);
    prop.value
        .split(',')
        .filter_map(|value| {
            let start = value.split('/').next().unwrap_or(value);
            parse_stamp(start, is_date).map(|stamp| Timed { stamp, tzid: tzid.clone() })
        })
        .collect()
}

/// `nouid-` and 16 hex digits of SHA-256 over the raw start, end and summary.
fn derived_key(raw: &RawEvent<'_>, summary: &str) -> String {
    let value = |name| raw.get(name).map_or("", |p: &Property<'_>| &*p.value);
    let text = format!("{}|{}{}|{summary}", value("DTSTART"), value("DTEND"), value("DURATION"));
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    format!("nouid-{}", &hash[..16])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channels::ical::content::parse_line;

    fn raw<'a>(lines: &[&'a str]) -> RawEvent<'a> {
        RawEvent { props: lines.iter().filter_map(|l| parse_line(l)).collect(), floating: None }
    }

    #[test]
    fn an_unreadable_start_makes_the_event_invalid() {
        assert!(read_event(&raw(&["UID:a", "DTSTART:2025-06-21T000000Z"])).is_none());
        assert!(read_event(&raw(&["UID:a"])).is_none());
        assert!(read_event(&raw(&["DTSTART:20250621", "DTEND:junk"])).is_none());
    }

    #[test]
    fn end_forms() {
        let end = |lines: &[&str]| read_event(&raw(lines)).expect("an event").end;
        assert_eq!(end(&["DTSTART:20250621", "DURATION:P3D"]), End::For(Duration::days(3)));
        assert_eq!(end(&["DTSTART:20250621", "DURATION:3 days"]), End::Unreadable("3 days".to_owned()));
        assert_eq!(end(&["DTSTART:20250621"]), End::Absent);
    }

    #[test]
    fn summary_and_uid_are_unescaped_and_trimmed() {
        let event = read_event(&raw(&["SUMMARY;LANGUAGE=en-us: BOOKED\\, paid ", "UID: x ", "DTSTART:20250621"]))
            .expect("an event");
        assert_eq!((event.summary.as_str(), event.uid.as_deref()), ("BOOKED, paid", Some("x")));
    }

    #[test]
    fn a_missing_uid_gets_a_stable_derived_key() {
        let lines = ["DTSTART;VALUE=DATE:20261210", "DTEND;VALUE=DATE:20261212", "SUMMARY:Booked"];
        let a = read_event(&raw(&lines)).expect("an event");
        let b = read_event(&raw(&lines)).expect("an event");
        assert!(a.uid.is_none());
        assert_eq!(a.key(), b.key());
        assert!(a.key().starts_with("nouid-") && a.key().len() == 22, "{}", a.key());
        let other = read_event(&raw(&["DTSTART;VALUE=DATE:20261211", "DTEND;VALUE=DATE:20261212", "SUMMARY:Booked"]));
        assert_ne!(other.expect("an event").key(), a.key());
    }

    #[test]
    fn status_sequence_and_lists() {
        let event = read_event(&raw(&[
            "DTSTART:20250621",
            "status:cancelled",
            "SEQUENCE:3",
            "EXDATE;VALUE=DATE:20250628,20250705",
            "RDATE;VALUE=PERIOD:20250801T100000Z/PT1H",
        ]))
        .expect("an event");
        assert!(event.cancelled);
        assert_eq!(event.sequence, 3);
        assert_eq!(event.exdates.len(), 2);
        assert_eq!(event.rdates.len(), 1);
        assert!(event.recurs());
    }
}
