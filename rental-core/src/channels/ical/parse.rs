//! `parse_feed`: a feed body read into the nights its events take, by the interpretation rules of
//! the fixtures README (duplicates, cancellations, recurrences, DATE and DATE-TIME ends).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use chrono::{Days, NaiveDate, NaiveDateTime};
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
    let mut masters = Vec::with_capacity(body.events.len());
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
        reader.master(base, &event, own);
    }
    for event in overrides.into_values().flatten() {
        reader.lone_override(&event);
    }
    Ok(reader.finish())
}

/// Rule 7: per key, the copies with the highest (SEQUENCE, DTSTAMP), in file
/// order, each with its base key: the key itself, then `key#2`, `key#3`, ...
/// Tied copies that are identical (a feed that repeats an event) are one stay.
fn latest_copies(events: Vec<Event>) -> Vec<(String, Event)> {
    // One hash per event: each key gets a slot holding its best version.
    let mut slot_of: HashMap<&str, usize> = HashMap::with_capacity(events.len());
    let mut best: Vec<(i64, Option<NaiveDateTime>)> = Vec::new();
    let slots: Vec<usize> = events
        .iter()
        .map(|event| {
            let slot = *slot_of.entry(event.key()).or_insert_with(|| {
                best.push(event.version());
                best.len() - 1
            });
            best[slot] = best[slot].max(event.version());
            slot
        })
        .collect();
    drop(slot_of);
    let mut seen: HashSet<&Event> = HashSet::with_capacity(events.len());
    let keep: Vec<bool> =
        events.iter().zip(&slots).map(|(event, &slot)| event.version() == best[slot] && seen.insert(event)).collect();
    drop(seen);
    let mut numbered = vec![0_usize; best.len()];
    let mut out = Vec::with_capacity(best.len());
    for ((event, slot), keep) in events.into_iter().zip(slots).zip(keep) {
        if !keep {
            continue;
        }
        numbered[slot] += 1;
        let base = match numbered[slot] {
            1 => event.key().to_owned(),
            n => format!("{}#{n}", event.key()),
        };
        out.push((base, event));
    }
    out
}

/// `RECURRENCE-ID` events by UID, the latest copy per occurrence (rule 7 again).
fn latest_overrides(events: Vec<Event>) -> HashMap<String, Vec<Event>> {
    let mut out: HashMap<String, Vec<Event>> = HashMap::new();
    let mut at: HashMap<(String, Option<Timed>), usize> = HashMap::new();
    for event in events {
        let copies = out.entry(event.key().to_owned()).or_default();
        match at.entry((event.key().to_owned(), event.recurrence_id.clone())) {
            Entry::Occupied(slot) => {
                let copy = &mut copies[*slot.get()];
                if copy.version() < event.version() {
                    *copy = event;
                }
            }
            Entry::Vacant(slot) => {
                slot.insert(copies.len());
                copies.push(event);
            }
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
    custom: Rc<HashMap<String, CustomZone>>,
    /// Zones for events of calendars without `X-WR-TIMEZONE`.
    plain_zones: Option<Rc<Zones>>,
    /// Zones by the `X-WR-TIMEZONE` of the events' calendar.
    zones: HashMap<String, Rc<Zones>>,
    feed: Feed,
    dropped_warnings: usize,
    budget: u32,
}

impl FeedReader {
    fn new(property: Tz, custom: HashMap<String, CustomZone>) -> FeedReader {
        FeedReader {
            property,
            custom: Rc::new(custom),
            plain_zones: None,
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
        let make = || Rc::new(Zones::new(property, floating.map(String::as_str), Rc::clone(custom)));
        let zones = match floating {
            None => self.plain_zones.get_or_insert_with(make),
            Some(name) => match self.zones.get(name.as_str()) {
                Some(zones) => zones,
                None => self.zones.entry(name.clone()).or_insert_with(make),
            },
        };
        Rc::clone(zones)
    }

    /// A master event, its occurrences expanded and `overrides` applied (a
    /// RECURRENCE-ID naming the start of a single event replaces it too).
    fn master(&mut self, mut base: String, event: &Event, overrides: Vec<Event>) {
        if event.cancelled {
            return;
        }
        let zones = self.zones(event.floating.as_ref());
        let mut by_id: HashMap<Moment, usize> = HashMap::new();
        for (at, over) in overrides.iter().enumerate() {
            if let Some(id) = &over.recurrence_id {
                by_id.entry(Moment::of(&zones, id)).or_insert(at);
            }
        }
        let mut overrides: Vec<Option<Event>> = overrides.into_iter().map(Some).collect();
        let recurs = event.recurs();
        let starts = if recurs { self.starts(&base, event, &zones) } else { vec![event.start.clone()] };
        for start in starts {
            // A single event has one start, so its key can take the base.
            let key = if recurs { format!("{base}/{}", start.stamp.date()) } else { std::mem::take(&mut base) };
            let at = Moment::lookups(&zones, &start).into_iter().flatten().find_map(|m| by_id.get(&m).copied());
            match at.and_then(|at| overrides[at].take()) {
                Some(over) if over.cancelled => {}
                Some(over) => {
                    self.occurrence(Occurrence { key, event: &over, start: over.start.clone(), end: over.end.clone() });
                }
                None => {
                    let end = shifted_end(event, &start);
                    self.occurrence(Occurrence { key, event, start, end });
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
            self.occurrence(Occurrence { key, event, start: event.start.clone(), end: event.end.clone() });
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
        let excluded: HashSet<Moment> = event.exdates.iter().flat_map(|ex| Moment::all(zones, ex)).collect();
        let mut seen = HashSet::new();
        starts.retain(|start| {
            let excluded = Moment::lookups(zones, start).into_iter().flatten().any(|m| excluded.contains(&m));
            !excluded && seen.insert(zones.instant(start.stamp, start.tzid.as_deref()))
        });
        starts
    }

    /// One occurrence, read into nights (rules 2 to 4) and added to the feed.
    fn occurrence(&mut self, occurrence: Occurrence<'_>) {
        let Occurrence { key, event, start, end } = occurrence;
        let zones = self.zones(event.floating.as_ref());
        let (first, known) = zones.night(start.stamp, start.tzid.as_deref());
        let end = &end;
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
        self.feed.events.push(FeedEvent { uid: key, summary: event.summary.clone(), start: first, end: last });
    }

    /// Makes every key unique, orders the events, and closes the warnings.
    fn finish(mut self) -> Feed {
        // Sorted first, so the `#n` a colliding key gets depends on the feed, not on map order.
        self.feed
            .events
            .sort_by(|a, b| (a.start, a.end, &a.uid, &a.summary).cmp(&(b.start, b.end, &b.uid, &b.summary)));
        let distinct: HashSet<&str> = self.feed.events.iter().map(|e| e.uid.as_str()).collect();
        if distinct.len() < self.feed.events.len() {
            drop(distinct);
            self.make_keys_unique();
        }
        if self.dropped_warnings > 0 {
            self.feed.warnings.push(format!("... and {} more warnings", self.dropped_warnings));
        }
        self.feed
    }

    /// Adds `#2`, `#3`, ... to the keys that are already taken.
    fn make_keys_unique(&mut self) {
        let mut seen: HashSet<String> = HashSet::with_capacity(self.feed.events.len());
        let mut next_suffix: HashMap<String, usize> = HashMap::new();
        for event in &mut self.feed.events {
            if !seen.insert(event.uid.clone()) {
                let base = std::mem::take(&mut event.uid);
                let n = next_suffix.entry(base.clone()).or_insert(2);
                // Each try uses up a suffix, and at most `seen.len()` keys are taken.
                while seen.contains(&format!("{base}#{n}")) {
                    *n += 1;
                }
                event.uid = format!("{base}#{n}");
                *n += 1;
                seen.insert(event.uid.clone());
            }
        }
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

/// What an EXDATE or RECURRENCE-ID is matched on: a DATE names a day (and
/// matches any occurrence starting that day), a DATE-TIME an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Moment {
    Day(NaiveDate),
    Instant(NaiveDateTime),
}

impl Moment {
    /// The moment an EXDATE or RECURRENCE-ID value names.
    fn of(zones: &Zones, id: &Timed) -> Moment {
        match id.stamp {
            Stamp::Date(day) => Moment::Day(day),
            Stamp::DateTime { .. } => Moment::Instant(zones.instant(id.stamp, id.tzid.as_deref())),
        }
    }

    /// The moments an EXDATE value excludes: also its day, for all-day occurrences.
    fn all(zones: &Zones, id: &Timed) -> [Moment; 2] {
        [Moment::of(zones, id), Moment::Day(id.stamp.date())]
    }

    /// The moments an occurrence starting at `start` answers to.
    fn lookups(zones: &Zones, start: &Timed) -> [Option<Moment>; 2] {
        match start.stamp {
            Stamp::Date(day) => [Some(Moment::Day(day)), None],
            Stamp::DateTime { .. } => [
                Some(Moment::Instant(zones.instant(start.stamp, start.tzid.as_deref()))),
                Some(Moment::Day(start.stamp.date())),
            ],
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Days, NaiveDate};

    /// A calendar around `events`, each a list of content lines, CRLF-terminated.
    fn calendar(events: &[&[&str]]) -> Vec<u8> {
        let mut out = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
        for event in events {
            out.push_str("BEGIN:VEVENT\r\n");
            for line in *event {
                out.push_str(line);
                out.push_str("\r\n");
            }
            out.push_str("END:VEVENT\r\n");
        }
        out.push_str("END:VCALENDAR\r\n");
        out.into_bytes()
    }

    fn read(events: &[&[&str]], zone: Tz) -> Feed {
        parse_feed(&calendar(events), zone).expect("a calendar")
    }

    /// `uid start..end` per event.
    fn lines(feed: &Feed) -> Vec<String> {
        feed.events.iter().map(|e| format!("{} {}..{}", e.uid, e.start, e.end)).collect()
    }

    #[test]
    fn html_and_truncated_bodies_are_refused() {
        let html = b"<!DOCTYPE html>\n<html><head><title>Airbnb</title></head><body>Log in</body></html>";
        assert!(matches!(parse_feed(html, Tz::UTC), Err(FeedError::NotACalendar(_))));
        let full = calendar(&[&["UID:a", "DTSTART;VALUE=DATE:20260101"]]);
        let cut = &full[..full.len() - 10];
        assert!(matches!(parse_feed(cut, Tz::UTC), Err(FeedError::NotACalendar(_))));
        assert_eq!(parse_feed(b"", Tz::UTC), Err(FeedError::Empty));
        assert_eq!(parse_feed(b"  \r\n", Tz::UTC), Err(FeedError::Empty));
    }

    #[test]
    fn lowercase_names_and_mixed_case_values_are_read() {
        let body = b"begin:vcalendar\nbegin:vevent\nuid:a\ndtstart;value=date:20260101\ndtend;Value=Date:20260103\n\
                     summary:Reserved\nend:vevent\nend:vcalendar\n";
        let feed = parse_feed(body, Tz::UTC).expect("a calendar");
        assert_eq!(lines(&feed), ["a 2026-01-01..2026-01-03"]);
        assert_eq!(feed.events[0].summary, "Reserved");
    }

    #[test]
    fn cancelled_events_are_left_out_and_transp_is_ignored() {
        let feed = read(
            &[
                &["UID:a", "DTSTART;VALUE=DATE:20260101", "STATUS:CANCELLED"],
                &["UID:b", "DTSTART;VALUE=DATE:20260105", "TRANSP:TRANSPARENT"],
            ],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["b 2026-01-05..2026-01-06"]);
    }

    #[test]
    fn quoted_and_windows_tzids() {
        let feed = read(
            &[
                &[
                    "UID:a",
                    r#"DTSTART;TZID="Europe/Paris":20260110T003000"#,
                    "DTEND;TZID=\"Europe/Paris\":20260112T100000",
                ],
                &[
                    "UID:b",
                    "DTSTART;TZID=W. Europe Standard Time:20260120T003000",
                    "DTEND;TZID=W. Europe Standard Time:20260121T100000",
                ],
            ],
            Tz::Europe__London,
        );
        // 00:30 in Paris or Berlin is still the previous evening in London.
        assert_eq!(lines(&feed), ["a 2026-01-09..2026-01-12", "b 2026-01-19..2026-01-21"]);
    }

    #[test]
    fn an_unknown_tzid_is_read_in_the_property_zone_with_a_warning() {
        let feed = read(
            &[&["UID:a", "DTSTART;TZID=Atlantis:20260110T160000", "DTEND;TZID=Atlantis:20260112T100000"]],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["a 2026-01-10..2026-01-12"]);
        assert_eq!(feed.warnings.len(), 1, "{:?}", feed.warnings);
    }

    #[test]
    fn a_vtimezone_with_an_unknown_name_is_evaluated() {
        let body = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Customized Time Zone\r\nBEGIN:STANDARD\r\n\
                    DTSTART:16010101T030000\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nTZOFFSETFROM:+0200\r\n\
                    TZOFFSETTO:+0100\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\n\
                    RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n\
                    END:DAYLIGHT\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:a\r\n\
                    DTSTART;TZID=Customized Time Zone:20260710T013000\r\n\
                    DTEND;TZID=Customized Time Zone:20260712T013000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let feed = parse_feed(body.as_bytes(), Tz::UTC).expect("a calendar");
        // +02:00 in July: 01:30 local is 23:30 UTC the day before.
        assert_eq!(lines(&feed), ["a 2026-07-09..2026-07-11"]);
        assert_eq!(feed.warnings, Vec::<String>::new());
    }

    #[test]
    fn timed_events_take_their_local_dates_and_at_least_one_night() {
        let feed = read(
            &[
                &["UID:a", "DTSTART:20261130T100000Z", "DTEND:20261130T110000Z"],
                &["UID:b", "DTSTART:20261201T150000Z", "DTEND;VALUE=DATE:20261203"],
                &["UID:c", "DTSTART:20261210T150000Z"],
            ],
            Tz::Europe__Lisbon,
        );
        assert_eq!(lines(&feed), ["a 2026-11-30..2026-12-01", "b 2026-12-01..2026-12-03", "c 2026-12-10..2026-12-11"]);
        assert_eq!(feed.warnings, Vec::<String>::new());
    }

    #[test]
    fn a_dst_gap_start_still_falls_on_its_day() {
        let feed = read(&[&["UID:a", "DTSTART;TZID=Europe/Paris:20260329T023000", "DURATION:PT1H"]], Tz::Europe__Paris);
        assert_eq!(lines(&feed), ["a 2026-03-29..2026-03-30"]);
    }

    #[test]
    fn durations_on_dates_and_date_times() {
        let feed = read(
            &[
                &["UID:a", "DTSTART;VALUE=DATE:20261201", "DURATION:P3D"],
                &["UID:b", "DTSTART;VALUE=DATE:20261210", "DURATION:P1W"],
                &["UID:c", "DTSTART:20261228T150000Z", "DURATION:P2DT20H"],
                &["UID:d", "DTSTART;VALUE=DATE:20270101", "DURATION:soon"],
            ],
            Tz::UTC,
        );
        assert_eq!(
            lines(&feed),
            [
                "a 2026-12-01..2026-12-04",
                "b 2026-12-10..2026-12-17",
                "c 2026-12-28..2026-12-31",
                "d 2027-01-01..2027-01-02"
            ]
        );
        assert_eq!(feed.warnings.len(), 1, "the unreadable DURATION is reported: {:?}", feed.warnings);
    }

    #[test]
    fn zero_length_and_inverted_date_ranges_block_the_first_night() {
        let feed = read(
            &[
                &["UID:a", "DTSTART;VALUE=DATE:20260601", "DTEND;VALUE=DATE:20260601"],
                &["UID:b", "DTSTART;VALUE=DATE:20260610", "DTEND;VALUE=DATE:20260201"],
            ],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["a 2026-06-01..2026-06-02", "b 2026-06-10..2026-06-11"]);
        assert_eq!(feed.warnings.len(), 2);
    }

    #[test]
    fn rrule_occurrences_have_their_own_keys_and_lengths() {
        let feed = read(
            &[&["UID:r", "DTSTART;VALUE=DATE:20261214", "DTEND;VALUE=DATE:20261216", "RRULE:FREQ=WEEKLY;COUNT=3"]],
            Tz::UTC,
        );
        assert_eq!(
            lines(&feed),
            [
                "r/2026-12-14 2026-12-14..2026-12-16",
                "r/2026-12-21 2026-12-21..2026-12-23",
                "r/2026-12-28 2026-12-28..2026-12-30"
            ]
        );
    }

    #[test]
    fn rrule_until_and_monthly_ordinals() {
        let feed =
            read(&[&["UID:m", "DTSTART;VALUE=DATE:20260105", "RRULE:FREQ=MONTHLY;BYDAY=1MO;UNTIL=20260401"]], Tz::UTC);
        assert_eq!(
            lines(&feed),
            [
                "m/2026-01-05 2026-01-05..2026-01-06",
                "m/2026-02-02 2026-02-02..2026-02-03",
                "m/2026-03-02 2026-03-02..2026-03-03"
            ]
        );
    }

    #[test]
    fn exdate_and_rdate_edit_the_set() {
        let feed = read(
            &[&[
                "UID:x",
                "DTSTART;TZID=Europe/Paris:20260601T160000",
                "DTEND;TZID=Europe/Paris:20260602T100000",
                "RRULE:FREQ=DAILY;COUNT=3",
                "EXDATE;TZID=Europe/Paris:20260602T160000",
                "RDATE;TZID=Europe/Paris:20260610T160000",
            ]],
            Tz::Europe__Paris,
        );
        assert_eq!(
            lines(&feed),
            [
                "x/2026-06-01 2026-06-01..2026-06-02",
                "x/2026-06-03 2026-06-03..2026-06-04",
                "x/2026-06-10 2026-06-10..2026-06-11"
            ]
        );
    }

    #[test]
    fn a_recurrence_id_event_replaces_its_occurrence() {
        let feed = read(
            &[
                &["UID:w", "DTSTART;VALUE=DATE:20260105", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:Cleaning"],
                &[
                    "UID:w",
                    "RECURRENCE-ID;VALUE=DATE:20260112",
                    "DTSTART;VALUE=DATE:20260114",
                    "DTEND;VALUE=DATE:20260116",
                    "SUMMARY:Moved",
                ],
                &["UID:w", "RECURRENCE-ID;VALUE=DATE:20260119", "DTSTART;VALUE=DATE:20260119", "STATUS:CANCELLED"],
            ],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["w/2026-01-05 2026-01-05..2026-01-06", "w/2026-01-12 2026-01-14..2026-01-16"]);
        assert_eq!(feed.events[1].summary, "Moved");
    }

    #[test]
    fn a_recurrence_id_on_a_single_event_replaces_it() {
        let feed = read(
            &[
                &["UID:one", "DTSTART;VALUE=DATE:20260105", "DTEND;VALUE=DATE:20260107"],
                &[
                    "UID:one",
                    "RECURRENCE-ID;VALUE=DATE:20260105",
                    "DTSTART;VALUE=DATE:20260105",
                    "DTEND;VALUE=DATE:20260109",
                ],
            ],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["one 2026-01-05..2026-01-09"]);
    }

    #[test]
    fn duplicates_keep_the_highest_sequence_then_the_latest_dtstamp() {
        let feed = read(
            &[
                &[
                    "UID:s",
                    "SEQUENCE:2",
                    "DTSTAMP:20260101T000000Z",
                    "DTSTART;VALUE=DATE:20260301",
                    "DTEND;VALUE=DATE:20260305",
                ],
                &[
                    "UID:s",
                    "SEQUENCE:1",
                    "DTSTAMP:20260201T000000Z",
                    "DTSTART;VALUE=DATE:20260310",
                    "DTEND;VALUE=DATE:20260315",
                ],
                &["UID:t", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:20260401", "DTEND;VALUE=DATE:20260403"],
                &["UID:t", "DTSTAMP:20260102T000000Z", "DTSTART;VALUE=DATE:20260410", "DTEND;VALUE=DATE:20260412"],
                &["UID:c", "SEQUENCE:3", "DTSTART;VALUE=DATE:20260501", "STATUS:CANCELLED"],
                &["UID:c", "SEQUENCE:2", "DTSTART;VALUE=DATE:20260501"],
            ],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["s 2026-03-01..2026-03-05", "t 2026-04-10..2026-04-12"]);
    }

    #[test]
    fn full_ties_keep_every_copy_under_numbered_keys() {
        let feed = read(
            &[
                &["UID:d", "DTSTART;VALUE=DATE:20260301", "DTEND;VALUE=DATE:20260303"],
                &["UID:d", "DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260312"],
                &["UID:d", "DTSTART;VALUE=DATE:20260320", "DTEND;VALUE=DATE:20260322"],
            ],
            Tz::UTC,
        );
        assert_eq!(
            lines(&feed),
            ["d 2026-03-01..2026-03-03", "d#2 2026-03-10..2026-03-12", "d#3 2026-03-20..2026-03-22"]
        );
    }

    #[test]
    fn a_repeated_event_is_one_stay_with_or_without_uid() {
        let same: &[&str] = &["DTSTART;VALUE=DATE:20260301", "DTEND;VALUE=DATE:20260303", "SUMMARY:Blocked"];
        let feed = read(&[same, same], Tz::UTC);
        let keys: Vec<&str> = feed.events.iter().map(|e| e.uid.as_str()).collect();
        assert_eq!(keys.len(), 1, "{keys:?}");
        assert!(keys[0].starts_with("nouid-"));
        let with_uid: &[&str] = &["UID:r@airbnb.com", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:20260301"];
        let feed = read(&[with_uid, with_uid, with_uid], Tz::UTC);
        assert_eq!(lines(&feed), ["r@airbnb.com 2026-03-01..2026-03-02"]);
    }

    #[test]
    fn tied_copies_that_differ_keep_each_and_an_identical_one_adds_nothing() {
        let a: &[&str] = &["UID:d", "DTSTART;VALUE=DATE:20260301", "DTEND;VALUE=DATE:20260303"];
        let b: &[&str] = &["UID:d", "DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260312"];
        let feed = read(&[a, b, a, b], Tz::UTC);
        assert_eq!(lines(&feed), ["d 2026-03-01..2026-03-03", "d#2 2026-03-10..2026-03-12"]);
    }

    #[test]
    fn unreadable_events_are_counted_and_the_rest_still_counts() {
        let feed = read(
            &[&["UID:bad", "DTSTART:2026-03-01"], &["UID:good", "DTSTART;VALUE=DATE:20260301"], &["UID:nostart"]],
            Tz::UTC,
        );
        assert_eq!(lines(&feed), ["good 2026-03-01..2026-03-02"]);
        assert_eq!(feed.invalid, 2);
    }

    #[test]
    fn escaped_text_in_summaries() {
        let feed = read(&[&["UID:a", "DTSTART;VALUE=DATE:20260301", r"SUMMARY:Smith\, J.\; 2 adults\nlate"]], Tz::UTC);
        assert_eq!(feed.events[0].summary, "Smith, J.; 2 adults\nlate");
    }

    #[test]
    fn floating_times_follow_x_wr_timezone() {
        let body = "BEGIN:VCALENDAR\nX-WR-TIMEZONE:America/New_York\nBEGIN:VEVENT\nUID:a\n\
                    DTSTART:20260301T220000\nDTEND:20260303T100000\nEND:VEVENT\nEND:VCALENDAR\n";
        let feed = parse_feed(body.as_bytes(), Tz::Europe__Paris).expect("a calendar");
        assert_eq!(lines(&feed), ["a 2026-03-02..2026-03-03"]);
    }

    #[test]
    fn an_open_ended_daily_rule_is_bounded() {
        let feed = read(&[&["UID:f", "DTSTART;VALUE=DATE:20260101", "RRULE:FREQ=DAILY"]], Tz::UTC);
        assert_eq!(feed.events.len(), recur::MAX_OCCURRENCES);
    }

    #[test]
    fn thousands_of_exdates_and_overrides_are_matched_by_lookup() {
        let exdates: Vec<String> = (0..500)
            .map(|n| {
                format!("{}", (NaiveDate::from_ymd_opt(2026, 1, 1).expect("d") + Days::new(2 * n)).format("%Y%m%d"))
            })
            .collect();
        let exdate = format!("EXDATE;VALUE=DATE:{}", exdates.join(","));
        let mut events: Vec<Vec<String>> = vec![vec![
            "UID:h".into(),
            "DTSTART;VALUE=DATE:20260101".into(),
            "RRULE:FREQ=DAILY;COUNT=1000".into(),
            exdate,
        ]];
        for n in 0..500 {
            let day = (NaiveDate::from_ymd_opt(2026, 1, 2).expect("d") + Days::new(2 * n)).format("%Y%m%d").to_string();
            events.push(vec![
                "UID:h".into(),
                format!("RECURRENCE-ID;VALUE=DATE:{day}"),
                format!("DTSTART;VALUE=DATE:{day}"),
                "SUMMARY:Moved".into(),
            ]);
        }
        let refs: Vec<Vec<&str>> = events.iter().map(|e| e.iter().map(String::as_str).collect()).collect();
        let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
        let feed = read(&slices, Tz::UTC);
        assert_eq!(feed.events.len(), 500, "every other day excluded, the others overridden");
        assert!(feed.events.iter().all(|e| e.summary == "Moved"));
    }

    #[test]
    fn many_copies_of_one_uid_get_distinct_keys_quickly_and_identical_ones_are_one() {
        let first = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        let days: Vec<String> =
            (0..20_000).map(|n| format!("DTSTART;VALUE=DATE:{}", (first + Days::new(n)).format("%Y%m%d"))).collect();
        let events: Vec<[&str; 2]> = days.iter().map(|day| ["UID:h", day.as_str()]).collect();
        let slices: Vec<&[&str]> = events.iter().map(<[&str; 2]>::as_slice).collect();
        let feed = read(&slices, Tz::UTC);
        let keys: HashSet<&str> = feed.events.iter().map(|e| e.uid.as_str()).collect();
        assert_eq!(keys.len(), 20_000);
        let same: &[&str] = &["DTSTART;VALUE=DATE:20260301", "SUMMARY:Blocked"];
        assert_eq!(read(&vec![same; 20_000], Tz::UTC).events.len(), 1);
    }

    #[test]
    fn many_copies_of_one_override_keep_the_latest() {
        let mut events: Vec<Vec<String>> =
            vec![vec!["UID:o".into(), "DTSTART;VALUE=DATE:20260105".into(), "RRULE:FREQ=WEEKLY;COUNT=2".into()]];
        for n in 0..20_000 {
            events.push(vec![
                "UID:o".into(),
                "RECURRENCE-ID;VALUE=DATE:20260112".into(),
                format!("SEQUENCE:{n}"),
                "DTSTART;VALUE=DATE:20260113".into(),
                format!("SUMMARY:v{n}"),
            ]);
        }
        let refs: Vec<Vec<&str>> = events.iter().map(|e| e.iter().map(String::as_str).collect()).collect();
        let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
        let feed = read(&slices, Tz::UTC);
        assert_eq!(lines(&feed), ["o/2026-01-05 2026-01-05..2026-01-06", "o/2026-01-12 2026-01-13..2026-01-14"]);
        assert_eq!(feed.events[1].summary, "v19999");
    }
}
