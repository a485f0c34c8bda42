//! What a PostgreSQL write transaction already knows: the records it read
//! or wrote, so reading them again costs no round trip, and its writes not yet sent.
//!
//! A write holds the advisory write lock (or, for some properties, their
//! locks: `scope.rs`), so what it holds changes only through it: what it
//! read of that, updated by what it wrote, stays exact until it ends.

use std::collections::HashMap;

use chrono::NaiveDate;

use crate::bookings::booking::Booking;
use crate::bookings::calendar::CalendarEntry;
use crate::bookings::event::Event;
use crate::properties::property::Property;
use crate::store::IdempotencyRecord;

/// The records one write transaction knows, and its unsent writes.
#[derive(Debug, Default)]
pub(super) struct Local {
    /// Properties by slug; `None` when known to be absent.
    pub properties: HashMap<String, Option<Property>>,
    /// Bookings by code; `None` when known to be absent.
    pub bookings: HashMap<String, Option<Booking>>,
    /// Per property, every calendar row sharing a night with a known span.
    pub calendars: HashMap<String, KnownCalendar>,
    /// Writes made and not yet sent.
    pub pending: Pending,
}

/// The calendar rows of one property that share a night with `from..to`, by check-in then holder.
#[derive(Debug)]
pub(super) struct KnownCalendar {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub entries: Vec<CalendarEntry>,
}

/// Writes not yet sent: each record at most once, in the order written.
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// Bookings, and whether each is new (a taken code must then conflict).
    pub bookings: Vec<(Booking, bool)>,
    /// Calendar rows to write.
    pub entries: Vec<PendingEntry>,
    /// Calendar rows to remove, by holder.
    pub removed: Vec<String>,
    /// Outbox events, in the order appended.
    pub events: Vec<Event>,
    /// Idempotency records to insert.
    pub idempotency: Vec<IdempotencyRecord>,
}

/// A calendar row to write: the entry, its property, and its `guarded` column.
#[derive(Debug)]
pub(super) struct PendingEntry {
    pub property: String,
    pub entry: CalendarEntry,
    pub guarded: Option<&'static str>,
}

impl Pending {
    /// True when nothing waits to be sent.
    pub fn is_empty(&self) -> bool {
        self.bookings.is_empty()
            && self.entries.is_empty()
            && self.removed.is_empty()
            && self.events.is_empty()
            && self.idempotency.is_empty()
    }

    /// True when a write of the booking or calendar row `key` is waiting: writing it
    /// again first sends what waits, so the database sees every write in order.
    pub fn holds(&self, key: &str) -> bool {
        self.bookings.iter().any(|(b, _)| b.code.as_str() == key)
            || self.entries.iter().any(|e| e.entry.holder == key)
            || self.removed.iter().any(|h| h == key)
    }
}

impl Local {
    /// The calendar of `slug` over `from..to` when it is known.
    pub fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> Option<Vec<CalendarEntry>> {
        let known = self.calendars.get(slug).filter(|k| k.from <= from && to <= k.to)?;
        let sharing = known.entries.iter().filter(|e| e.stay.check_in() < to && e.stay.check_out() > from);
        Some(sharing.cloned().collect())
    }

    /// Remembers the calendar of `slug` over `from..to`, as read.
    pub fn know_calendar(&mut self, slug: &str, from: NaiveDate, to: NaiveDate, entries: Vec<CalendarEntry>) {
        let wider = self.calendars.get(slug).is_some_and(|k| k.from <= from && to <= k.to);
        if !wider {
            self.calendars.insert(slug.to_owned(), KnownCalendar { from, to, entries });
        }
    }

    /// Follows a write of `holder`'s row: gone from every known calendar, then
    /// in `slug`'s if it shares a night with its span.
    pub fn write_entry(&mut self, slug: &str, holder: &str, entry: Option<&CalendarEntry>) {
        for known in self.calendars.values_mut() {
            known.entries.retain(|e| e.holder != holder);
        }
        let (Some(entry), Some(known)) = (entry, self.calendars.get_mut(slug)) else { return };
        if entry.stay.check_in() < known.to && entry.stay.check_out() > known.from {
            let key = |e: &CalendarEntry| (e.stay.check_in(), e.holder.clone());
            let at = known.entries.partition_point(|e| key(e) < key(entry));
            known.entries.insert(at, entry.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::stay::Stay;
    use crate::bookings::calendar::EntryKind;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2027, 3, d).unwrap()
    }

    fn entry(holder: &str, from: u32, to: u32) -> CalendarEntry {
        CalendarEntry {
            holder: holder.into(),
            stay: Stay::new(day(from), day(to)).unwrap(),
            kind: EntryKind::Held,
            guest_name: "Ada".into(),
            guests: 2,
        }
    }

    fn holders(entries: &[CalendarEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.holder.as_str()).collect()
    }

    #[test]
    fn a_known_calendar_answers_inside_its_span_only() {
        let mut local = Local::default();
        local.know_calendar("sea", day(5), day(20), vec![entry("A", 4, 6), entry("B", 10, 12)]);
        assert_eq!(holders(&local.calendar("sea", day(5), day(11)).unwrap()), ["A", "B"]);
        assert_eq!(holders(&local.calendar("sea", day(6), day(10)).unwrap()), Vec::<&str>::new());
        assert!(local.calendar("sea", day(4), day(11)).is_none());
        assert!(local.calendar("lake", day(5), day(11)).is_none());
    }

    #[test]
    fn writes_keep_known_calendars_exact() {
        let mut local = Local::default();
        local.know_calendar("sea", day(1), day(20), vec![entry("B", 10, 12)]);
        local.know_calendar("lake", day(1), day(20), vec![entry("C", 3, 4)]);
        local.write_entry("sea", "A", Some(&entry("A", 10, 11)));
        local.write_entry("sea", "D", Some(&entry("D", 25, 27)));
        assert_eq!(holders(&local.calendar("sea", day(1), day(20)).unwrap()), ["A", "B"]);
        // C moves from the lake to the sea; B is removed.
        local.write_entry("sea", "C", Some(&entry("C", 2, 3)));
        local.write_entry("sea", "B", None);
        assert_eq!(holders(&local.calendar("sea", day(1), day(20)).unwrap()), ["C", "A"]);
        assert!(local.calendar("lake", day(1), day(20)).unwrap().is_empty());
    }
}
