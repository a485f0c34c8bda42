//! The component structure of a feed: which `VCALENDAR`s it holds, their events, time zones and
//! `X-WR-TIMEZONE`. A body without one complete `VCALENDAR` is refused here.

use std::borrow::Cow;
use std::collections::HashMap;

use super::FeedError;
use super::content::{Property, name_of, parse_text};
use super::lines::{Folded, logical_lines};
use super::recur;
use super::value::{Stamp, parse_offset, parse_stamp};
use super::zone::{CustomZone, Observance, named_zone};

/// How deep components may nest (real feeds: VCALENDAR > VEVENT > VALARM).
/// Deeper is refused, which also keeps matching an `END` line cheap.
const MAX_DEPTH: usize = 32;

/// How many STANDARD/DAYLIGHT parts of one VTIMEZONE are kept (the full
/// history of Europe/Paris has about 20); each DATE-TIME in that zone looks at all.
const MAX_OBSERVANCES: usize = 256;

/// The event properties the parser reads; the others are dropped on sight.
const EVENT_PROPERTIES: &[&str] = &[
    "DTSTART",
    "DTEND",
    "DURATION",
    "UID",
    "SUMMARY",
    "STATUS",
    "SEQUENCE",
    "DTSTAMP",
    "RRULE",
    "RDATE",
    "EXDATE",
    "RECURRENCE-ID",
];

/// The component names the reader acts on, so the open-component stack
/// mostly holds borrowed names.
const KNOWN_COMPONENTS: &[&str] = &["VCALENDAR", "VEVENT", "VTIMEZONE", "STANDARD", "DAYLIGHT", "VALARM"];

/// What one body holds, all its `VCALENDAR`s together.
#[derive(Debug, Default)]
pub(crate) struct Body<'a> {
    /// Every `VEVENT`, each with the `X-WR-TIMEZONE` of its calendar.
    pub events: Vec<RawEvent<'a>>,
    /// `VTIMEZONE`s by `TZID`, from every calendar of the body.
    pub zones: HashMap<String, CustomZone>,
    /// `VEVENT`s cut off by the end of their calendar.
    pub unterminated: usize,
}

/// One `VEVENT` as read: the properties the parser uses, in file order.
#[derive(Debug, Default)]
pub(crate) struct RawEvent<'a> {
    pub props: Vec<Property<'a>>,
    /// The `X-WR-TIMEZONE` of the calendar it came in, for floating times.
    pub floating: Option<String>,
}

impl<'a> RawEvent<'a> {
    /// The first property called `name`.
    pub fn get(&self, name: &str) -> Option<&Property<'a>> {
        self.props.iter().find(|p| p.name == name)
    }

    /// Every property called `name`.
    pub fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Property<'a>> + 's {
        self.props.iter().filter(move |p| p.name == name)
    }
}

/// Where the reader is in the component tree.
#[derive(Debug, Default)]
struct Reader<'a> {
    body: Body<'a>,
    stack: Vec<Cow<'static, str>>,
    calendars: usize,
    too_deep: bool,
    floating: Option<String>,
    event: Option<RawEvent<'a>>,
    zone: Option<(String, CustomZone)>,
    observance: Option<Vec<Property<'a>>>,
}

/// Reads the component structure of `body`.
pub(crate) fn read_body(body: &[u8]) -> Result<Body<'_>, FeedError> {
    let content = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if content.iter().all(u8::is_ascii_whitespace) {
        return Err(FeedError::Empty);
    }
    let mut reader = Reader::default();
    for line in logical_lines(body) {
        reader.line(line);
        if reader.too_deep {
            return Err(FeedError::NotACalendar(format!("components nested deeper than {MAX_DEPTH}")));
        }
    }
    if !reader.stack.is_empty() {
        return Err(FeedError::NotACalendar("the body ends before END:VCALENDAR (truncated?)".to_owned()));
    }
    if reader.calendars == 0 {
        return Err(FeedError::NotACalendar("no BEGIN:VCALENDAR ... END:VCALENDAR in the body".to_owned()));
    }
    Ok(reader.body)
}

impl<'a> Reader<'a> {
    /// Reads one logical line; lines the current component does not use are
    /// skipped on their name alone, without unfolding or decoding them.
    fn line(&mut self, folded: Folded<'a>) {
        let text;
        let name = if let Some(name) = folded.name() {
            name
        } else {
            text = folded.text();
            name_of(&text)
        };
        let top = self.stack.last().map(|top| &**top);
        let wanted = match &*name {
            "BEGIN" | "END" => true,
            "X-WR-TIMEZONE" => top == Some("VCALENDAR"),
            "TZID" | "X-LIC-LOCATION" => top == Some("VTIMEZONE"),
            "DTSTART" | "RDATE" | "RRULE" | "TZOFFSETFROM" | "TZOFFSETTO"
                if top == Some("STANDARD") || top == Some("DAYLIGHT") =>
            {
                true
            }
            other => top == Some("VEVENT") && EVENT_PROPERTIES.contains(&other),
        };
        if !wanted {
            return;
        }
        let Some(prop) = parse_text(folded.text()) else { return };
        let top = self.stack.last().map(|top| &**top);
        match &*prop.name {
            "BEGIN" => self.begin(component_name(&prop.value)),
            "END" => self.end(&component_name(&prop.value)),
            _ if top == Some("VEVENT") => {
                if let Some(event) = self.event.as_mut() {
                    event.props.push(prop);
                }
            }
            "X-WR-TIMEZONE" => self.floating = Some(prop.value.into_owned()),
            "TZID" | "X-LIC-LOCATION" => self.zone_property(&prop),
            _ => {
                if let Some(observance) = self.observance.as_mut() {
                    observance.push(prop);
                }
            }
        }
    }

    fn begin(&mut self, component: Cow<'static, str>) {
        if component == "VEVENT" && self.stack.last().is_some_and(|top| top == "VEVENT") {
            // The previous event lost its END:VEVENT; it is not guessed at.
            self.stack.pop();
            if self.event.take().is_some() {
                self.body.unterminated += 1;
            }
        }
        let top = self.stack.last().map(|top| &**top);
        match (top, &*component) {
            (None, "VCALENDAR") => self.floating = None,
            (None, _) => return,
            (Some("VCALENDAR"), "VEVENT") => {
                // Room for the usual DTSTART, DTEND, DTSTAMP, UID, SUMMARY, STATUS, SEQUENCE.
                self.event = Some(RawEvent { props: Vec::with_capacity(8), floating: self.floating.clone() });
            }
            (Some("VCALENDAR"), "VTIMEZONE") => self.zone = Some((String::new(), CustomZone::default())),
            (Some("VTIMEZONE"), "STANDARD" | "DAYLIGHT") => self.observance = Some(Vec::new()),
            _ => {}
        }
        self.too_deep = self.stack.len() >= MAX_DEPTH;
        self.stack.push(component);
    }

    /// Closes `component` and whatever was left open inside it.
    fn end(&mut self, component: &str) {
        let Some(depth) = self.stack.iter().rposition(|open| open == component) else { return };
        while self.stack.len() > depth {
            let Some(closing) = self.stack.pop() else { break };
            let cut_off = self.stack.len() > depth;
            self.close(&closing, cut_off);
        }
    }

    fn close(&mut self, component: &str, cut_off: bool) {
        match component {
            "VEVENT" => {
                if let Some(event) = self.event.take() {
                    if cut_off { self.body.unterminated += 1 } else { self.body.events.push(event) }
                }
            }
            "STANDARD" | "DAYLIGHT" => {
                if let (Some(props), Some((_, zone))) = (self.observance.take(), self.zone.as_mut())
                    && zone.observances.len() < MAX_OBSERVANCES
                {
                    zone.observances.extend(observance(&props));
                }
            }
            "VTIMEZONE" => {
                if let Some((tzid, zone)) = self.zone.take().filter(|(tzid, _)| !tzid.is_empty()) {
                    self.body.zones.insert(tzid, zone);
                }
            }
            "VCALENDAR" if self.stack.is_empty() && !cut_off => self.calendars += 1,
            _ => {}
        }
    }

    fn zone_property(&mut self, prop: &Property<'_>) {
        let Some((tzid, zone)) = self.zone.as_mut() else { return };
        if prop.name == "TZID" {
            prop.value.trim_matches('"').trim().clone_into(tzid);
        } else {
            zone.location = named_zone(&prop.value);
        }
    }
}

/// The upper-cased name of a component, borrowed from a static list for the known ones.
fn component_name(value: &str) -> Cow<'static, str> {
    let value = value.trim();
    match KNOWN_COMPONENTS.iter().find(|known| known.eq_ignore_ascii_case(value)) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(value.to_ascii_uppercase()),
    }
}

/// A `STANDARD`/`DAYLIGHT` part; `None` without a readable `DTSTART` and `TZOFFSETTO`.
fn observance(props: &[Property<'_>]) -> Option<Observance> {
    let get = |name: &str| props.iter().find(|p| p.name == name);
    let start = parse_stamp(&get("DTSTART")?.value, false)?.wall();
    let offset_to = parse_offset(&get("TZOFFSETTO")?.value)?;
    let offset_from = get("TZOFFSETFROM").and_then(|p| parse_offset(&p.value)).unwrap_or(offset_to);
    let mut onsets = vec![start];
    for rdate in props.iter().filter(|p| p.name == "RDATE") {
        onsets.extend(rdate.value.split(',').filter_map(|v| parse_stamp(v, false)).map(Stamp::wall));
    }
    onsets.sort_unstable();
    onsets.dedup();
    let rule = get("RRULE").and_then(|p| recur::parse_rule(&p.value).ok()).map(|rule| {
        let until = rule.until.as_deref().and_then(|u| parse_stamp(u, false)).map(Stamp::wall);
        (rule, until)
    });
    Some(Observance { dtstart: start, onsets, rule, offset_from, offset_to })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(body: &str) -> FeedError {
        read_body(body.as_bytes()).expect_err("not a calendar")
    }

    #[test]
    fn empty_and_blank_bodies_are_empty() {
        assert!(matches!(read_body(b""), Err(FeedError::Empty)));
        assert_eq!(error(" \r\n\t\n"), FeedError::Empty);
        assert_eq!(error("\u{feff}"), FeedError::Empty);
        assert_eq!(error("\u{feff}\r\n"), FeedError::Empty);
    }

    #[test]
    fn an_html_page_is_not_a_calendar() {
        assert!(matches!(error("<!DOCTYPE html><html><body>Sign in</body></html>"), FeedError::NotACalendar(_)));
    }

    #[test]
    fn a_truncated_body_is_not_a_calendar() {
        let body = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20260101\r\nEND:VEVENT\r\nBEGIN:VEV";
        assert!(matches!(error(body), FeedError::NotACalendar(reason) if reason.contains("END:VCALENDAR")));
    }

    #[test]
    fn a_second_calendar_cut_short_fails_the_body() {
        let body = "BEGIN:VCALENDAR\nEND:VCALENDAR\nBEGIN:VCALENDAR\nBEGIN:VEVENT\n";
        assert!(matches!(error(body), FeedError::NotACalendar(_)));
    }

    #[test]
    fn absurd_nesting_is_refused() {
        let body = format!("BEGIN:VCALENDAR\n{}", "BEGIN:X\n".repeat(100_000));
        assert!(matches!(error(&body), FeedError::NotACalendar(reason) if reason.contains("nested")));
    }

    #[test]
    fn concatenated_calendars_all_count() {
        let one = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nEND:VEVENT\nEND:VCALENDAR\n";
        let text = format!("{one}{}", one.replace("UID:a", "UID:b"));
        let body = read_body(text.as_bytes()).expect("a body");
        assert_eq!(body.events.len(), 2);
    }

    #[test]
    fn lowercase_component_names_are_read() {
        let body = read_body(b"begin:vcalendar\nbegin:vevent\nuid:x\nend:vevent\nend:vcalendar").expect("a body");
        assert_eq!(body.events[0].get("UID").map(|p| &*p.value), Some("x"));
    }

    #[test]
    fn alarm_properties_stay_out_of_their_event() {
        let body = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nBEGIN:VALARM\nSUMMARY:alarm\nEND:VALARM\nSUMMARY:stay\n\
                    END:VEVENT\nEND:VCALENDAR\n";
        let body = read_body(body.as_bytes()).expect("a body");
        let summaries: Vec<&str> = body.events[0].all("SUMMARY").map(|p| &*p.value).collect();
        assert_eq!(summaries, ["stay"]);
    }

    #[test]
    fn an_event_cut_off_by_the_end_of_its_calendar_is_counted() {
        let body = read_body(b"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nEND:VCALENDAR\n").expect("a body");
        assert_eq!((body.events.len(), body.unterminated), (0, 1));
    }

    #[test]
    fn an_event_missing_its_end_is_counted_and_the_next_one_read() {
        let body = b"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nBEGIN:VEVENT\nUID:b\nEND:VEVENT\nEND:VCALENDAR\n";
        let body = read_body(body).expect("a body");
        assert_eq!(body.unterminated, 1);
        assert_eq!(body.events.len(), 1);
        assert_eq!(body.events[0].get("UID").map(|p| &*p.value), Some("b"));
    }

    #[test]
    fn x_wr_timezone_goes_with_the_events_of_its_calendar() {
        let body = "BEGIN:VCALENDAR\nX-WR-TIMEZONE:Europe/Lisbon\nBEGIN:VEVENT\nEND:VEVENT\nEND:VCALENDAR\n\
                    BEGIN:VCALENDAR\nBEGIN:VEVENT\nEND:VEVENT\nEND:VCALENDAR\n";
        let body = read_body(body.as_bytes()).expect("a body");
        assert_eq!(body.events[0].floating.as_deref(), Some("Europe/Lisbon"));
        assert_eq!(body.events[1].floating, None);
    }
}
