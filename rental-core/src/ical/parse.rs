//! `parse_feed`: a feed body read into the nights its events take, by the interpretation rules of
//! the fixtures README (duplicates, cancellations, recurrences, DATE and DATE-TIME ends).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use chrono::{Days, NaiveDateTime};
use chrono_tz::Tz;

use super::component::read_body;
use super::event::{End, Event, Timed, read_event};
use super::recur::{self, FEED_BUDGET};
use super::value::{Stamp, parse_stamp};
use super::zone::{CustomZone, Zones};
use super::{Feed, FeedError, FeedEvent};

/// The most warnings one feed reports; the rest are counted in a last one.
const MAX_WARNINGS: usize = 100;

/// Reads a feed body as the nights it takes, in the property's time zone `zone`.
///
/// Cancelled events are left out, events whose dates cannot be read are
/// counted in [`Feed::invalid`], and recurrences are expanded. Each event's
/// `uid` is unique in the feed and stable across pulls.
///
/// # Errors
///
/// [`FeedError::Empty`] for a body with nothing in it, and
/// [`FeedError::NotACalendar`] for one without a complete `VCALENDAR`.
///
/// # Example
///
/// ```
/// use rental_core::ical::parse_feed;
///
/// let body = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a@x\r\nSUMMARY:Reserved\r\n\
///              DTSTART;VALUE=DATE:20261010\r\nDTEND;VALUE=DATE:20261013\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
/// let feed = parse_feed(body, chrono_tz::Europe::Paris)?;
/// assert_eq!(feed.events[0].start.to_string(), "2026-10-10");
/// assert_eq!(feed.events[0].end.to_string(), "2026-10-13");
/// # Ok::<(), rental_core::ical::FeedError>(())
/// ```
pub fn parse_feed(body: &[u8], zone: Tz) -> Result<Feed, FeedError> {
    let body = read_body(body)?;
    let mut reader = FeedReader::new(zone, body.zones);
    reader.feed.invalid = body.unterminated;
    let mut masters = Vec::new();
    let mut overrides = Vec::new();
    for raw in &body.events {
        match read_event(raw) {
            Some(event) if event.recurrence_id.is_some() => overrides.push(event),
            Some(event) => masters.push(event),
            None => reader.feed.invalid += 1,
        }
    }
    let mut overrides = latest_overrides(overrides);
    for (base, event) in latest_copies(masters) {
        let own = event.uid.as_ref().and_then(|uid| overrides.remove(uid)).unwrap_or_default();
        reader.master(&base, &event, own);
    }
    for event in overrides.into_values().flatten() {
        reader.lone_override(&event);
    }
    Ok(reader.finish())
}

/// Rule 7: per key, the copies with the highest (SEQUENCE, DTSTAMP), in file
/// order, each with its base key: the key itself, then `key#2`, `key#3`, ...
fn latest_copies(events: Vec<Event>) -> Vec<(String, Event)> {
    let mut groups: Vec<Vec<Event>> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for event in events {
        if let Some(&at) = by_key.get(event.key()) {
            groups[at].push(event);
        } else {
            by_key.insert(event.key().to_owned(), groups.len());
            groups.push(vec![event]);
        }
    }
    let mut out = Vec::new();
    for group in groups {
        let Some(best) = group.iter().map(Event::version).max() else { continue };
        let winners = group.into_iter().filter(|event| event.version() == best);
        for (n, event) in winners.enumerate() {
            let base = if n == 0 { event.key().to_owned() } else { format!("{}#{}", event.key(), n + 1) };
            out.push((base, event));
        }
    }
    out
}

/// `RECURRENCE-ID` events by UID, the latest copy per occurrence (rule 7 again).
fn latest_overrides(events: Vec<Event>) -> HashMap<String, Vec<Event>> {
    let mut out: HashMap<String, Vec<Event>> = HashMap::new();
    for event in events {
        let copies = out.entry(event.key().to_owned()).or_default();
        match copies.iter_mut().find(|copy| copy.recurrence_id == event.recurrence_id) {
            Some(copy) if copy.version() < event.version() => *copy = event,
            Some(_) => {}
            None => copies.push(event),
        }
    }
    out
}

/// One occurrence to turn into nights.
struct Occurrence<'a> {
    key: String,
    event: &'a Event,
    start: Timed,
    end: End,
}

/// Collects the feed's events, warnings and counts as they are read.
struct FeedReader {
    property: Tz,
    custom: HashMap<String, CustomZone>,
    zones: HashMap<Option<String>, Rc<Zones>>,
    feed: Feed,
    dropped_warnings: usize,
    budget: u32,
}

impl FeedReader {
    fn new(property: Tz, custom: HashMap<String, CustomZone>) -> FeedReader {
        FeedReader {
            property,
            custom,
            zones: HashMap::new(),
            feed: Feed::default(),
            dropped_warnings: 0,
            budget: FEED_BUDGET,
        }
    }

    fn warn(&mut self, warning: String) {
        if self.feed.warnings.len() < MAX_WARNINGS {
            self.feed.warnings.push(warning);
        } else {
            self.dropped_warnings += 1;
        }
    }

    /// The zones for events of a calendar with this `X-WR-TIMEZONE`.
    fn zones(&mut self, floating: Option<&String>) -> Rc<Zones> {
        let (property, custom) = (self.property, &self.custom);
        let zones = self
            .zones
            .entry(floating.cloned())
            .or_insert_with(|| Rc::new(Zones::new(property, floating.map(String::as_str), custom.clone())));
        Rc::clone(zones)
    }

    /// A master event, its occurrences expanded and `overrides` applied.
    fn master(&mut self, base: &str, event: &Event, overrides: Vec<Event>) {
        if event.cancelled {
            return;
        }
        if !event.recurs() {
            self.occurrence(&Occurrence {
                key: base.to_owned(),
                event,
                start: event.start.clone(),
                end: event.end.clone(),
            });
            return;
        }
        let zones = self.zones(event.floating.as_ref());
        let mut overrides: Vec<Option<Event>> = overrides.into_iter().map(Some).collect();
        for start in self.starts(base, event, &zones) {
            let key = format!("{base}/{}", start.stamp.date());
            let replaced = overrides.iter_mut().find(|o| {
                o.as_ref().and_then(|o| o.recurrence_id.as_ref()).is_some_and(|id| same_moment(&zones, id, &start))
            });
            match replaced.and_then(Option::take) {
                Some(over) if over.cancelled => {}
                Some(over) => {
                    self.occurrence(&Occurrence {
                        key,
                        event: &over,
                        start: over.start.clone(),
                        end: over.end.clone(),
                    });
                }
                None => {
                    let end = shifted_end(event, &start);
                    self.occurrence(&Occurrence { key, event, start, end });
                }
            }
        }
        for over in overrides.into_iter().flatten() {
            self.lone_override(&over);
        }
    }

    /// A `RECURRENCE-ID` event whose occurrence is not in the feed: it stands alone.
    fn lone_override(&mut self, event: &Event) {
        let Some(id) = &event.recurrence_id else { return };
        if !event.cancelled {
            let key = format!("{}/{}", event.key(), id.stamp.date());
            self.occurrence(&Occurrence { key, event, start: event.start.clone(), end: event.end.clone() });
        }
    }

    /// Every occurrence start of a recurring `event`: RRULE and RDATE, less EXDATE.
    fn starts(&mut self, base: &str, event: &Event, zones: &Zones) -> Vec<Timed> {
        let mut walls = vec![event.start.stamp.wall()];
        match &event.rule {
            Some(Ok(rule)) => {
                if !rule.ignored.is_empty() {
                    self.warn(format!("event {base}: RRULE parts {} are not applied", rule.ignored.join(", ")));
                }
                let until = until(zones, event, rule.until.as_deref());
                let before = self.budget;
                walls = recur::expand(rule, event.start.stamp.wall(), until, &mut self.budget);
                if self.budget == 0 && before > 0 {
                    self.warn(format!("event {base}: recurrence expansion stopped early (feed too large)"));
                }
            }
            Some(Err(why)) => self.warn(format!("event {base}: RRULE not understood ({why}); first occurrence only")),
            None => {}
        }
        let mut starts: Vec<Timed> = walls
            .into_iter()
            .map(|at| Timed { stamp: event.start.stamp.with_wall(at), tzid: event.start.tzid.clone() })
            .collect();
        starts.extend(event.rdates.iter().take(recur::MAX_OCCURRENCES).cloned());
        let mut seen = HashSet::new();
        starts.retain(|start| {
            let excluded = event.exdates.iter().any(|ex| same_moment(zones, ex, start));
            !excluded && seen.insert(zones.instant(start.stamp, start.tzid.as_deref()))
        });
        starts
    }

    /// One occurrence, read into nights (rules 2 to 4) and added to the feed.
    fn occurrence(&mut self, occurrence: &Occurrence<'_>) {
        let Occurrence { key, event, start, end } = occurrence;
        let zones = self.zones(event.floating.as_ref());
        let (first, known) = zones.night(start.stamp, start.tzid.as_deref());
        let mut unknown_zone = !known;
        let mut note = None;
        let checkout = match end {
            End::At(end) => {
                let (day, known) = zones.night(end.stamp, end.tzid.as_deref());
                unknown_zone |= !known;
                Some(day)
            }
            End::For(duration) => match start.stamp {
                Stamp::Date(day) => day.checked_add_signed(chrono::Duration::days(duration.num_days())),
                Stamp::DateTime { .. } => {
                    let at = zones.instant(start.stamp, start.tzid.as_deref()).checked_add_signed(*duration);
                    at.map(|at| zones.night(Stamp::DateTime { at, utc: true }, None).0)
                }
            },
            End::Unreadable(raw) => {
                note = Some(format!("DURATION {raw:?} not understood; blocking the first night only"));
                None
            }
            End::Absent => None,
        };
        let Some(next) = first.checked_add_days(Days::new(1)) else {
            self.feed.invalid += 1;
            return;
        };
        let last = match checkout {
            Some(day) if day > first => day,
            Some(day) => {
                let all_day = matches!(start.stamp, Stamp::Date(_));
                if all_day || day < first {
                    note = Some(format!("ends {day}, not after its start {first}; blocking the first night only"));
                }
                next
            }
            None => next,
        };
        if unknown_zone {
            self.warn(format!("event {key}: unknown TZID, read in the property's time zone"));
        }
        if let Some(note) = note {
            self.warn(format!("event {key}: {note}"));
        }
        self.feed.events.push(FeedEvent { uid: key.clone(), summary: event.summary.clone(), start: first, end: last });
    }

    /// Makes every key unique, orders the events, and closes the warnings.
    fn finish(mut self) -> Feed {
        let mut seen: HashSet<String> = HashSet::with_capacity(self.feed.events.len());
        for event in &mut self.feed.events {
            if !seen.insert(event.uid.clone()) {
                let base = event.uid.clone();
                // At most `seen.len()` keys are taken, so one of these is free.
                let unique = (2..=seen.len() + 2).map(|n| format!("{base}#{n}")).find(|key| !seen.contains(key));
                event.uid = unique.unwrap_or(base);
                seen.insert(event.uid.clone());
            }
        }
        self.feed.events.sort_by(|a, b| (a.start, a.end, &a.uid).cmp(&(b.start, b.end, &b.uid)));
        if self.dropped_warnings > 0 {
            self.feed.warnings.push(format!("... and {} more warnings", self.dropped_warnings));
        }
        self.feed
    }
}

/// `UNTIL` as a wall-clock time of the event's start zone.
fn until(zones: &Zones, event: &Event, raw: Option<&str>) -> Option<NaiveDateTime> {
    let until = parse_stamp(raw?, false)?;
    Some(match until {
        Stamp::Date(date) => date.and_hms_opt(23, 59, 59)?,
        Stamp::DateTime { at, utc: true } => zones.wall_in(at, event.start.tzid.as_deref()),
        Stamp::DateTime { at, utc: false } => at,
    })
}

/// Whether `id` (an EXDATE or RECURRENCE-ID) names the occurrence starting at `start`.
fn same_moment(zones: &Zones, id: &Timed, start: &Timed) -> bool {
    match (id.stamp, start.stamp) {
        (Stamp::Date(day), other) | (other, Stamp::Date(day)) => other.date() == day,
        _ => zones.instant(id.stamp, id.tzid.as_deref()) == zones.instant(start.stamp, start.tzid.as_deref()),
    }
}

/// The end of an occurrence: the master's end moved by as much as its start.
fn shifted_end(event: &Event, start: &Timed) -> End {
    match &event.end {
        End::At(end) => {
            let moved = start.stamp.wall() - event.start.stamp.wall();
            let at = end.stamp.wall().checked_add_signed(moved).unwrap_or(end.stamp.wall());
            End::At(Timed { stamp: end.stamp.with_wall(at), tzid: end.tzid.clone() })
        }
        other => other.clone(),
    }
}
