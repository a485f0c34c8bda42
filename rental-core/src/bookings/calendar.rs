//! What holds a property's nights: active bookings and blocks, reduced to the
//! compact entries that availability, quotes and the summary read.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::ids::{Slug, Source};
use crate::basics::short_text::ShortText;
use crate::basics::stay::Stay;
use crate::bookings::booking::{Booking, Status};

/// One stay or block on a property's calendar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalendarEntry {
    /// The booking code or block id.
    pub holder: ShortText,
    /// The nights held.
    pub stay: Stay,
    /// What holds them.
    pub kind: EntryKind,
    /// The guest's name; empty for blocks.
    pub guest_name: ShortText,
    /// Number of guests; 0 for blocks.
    pub guests: u32,
}

/// What holds a calendar entry's nights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// A pending booking.
    Held,
    /// A confirmed booking.
    Booked,
    /// A block: nights closed without a booking.
    Blocked,
}

impl CalendarEntry {
    /// The entry of an active booking; `None` for a cancelled one, which holds nothing.
    pub fn of_booking(b: &Booking) -> Option<Self> {
        let kind = match b.status {
            Status::Pending => EntryKind::Held,
            Status::Confirmed => EntryKind::Booked,
            Status::Cancelled => return None,
        };
        Some(CalendarEntry {
            holder: b.code.as_str().into(),
            stay: b.stay,
            kind,
            guest_name: b.guest_name.as_str().into(),
            guests: b.guests,
        })
    }

    /// The entry of a block.
    pub fn of_block(b: &Block) -> Self {
        CalendarEntry {
            holder: b.id.as_str().into(),
            stay: b.stay,
            kind: EntryKind::Blocked,
            guest_name: ShortText::default(),
            guests: 0,
        }
    }
}

/// The nights of `stay` that some entry already holds, in order, each once.
pub fn taken_nights(entries: &[CalendarEntry], stay: Stay) -> Vec<NaiveDate> {
    let mut taken: Vec<NaiveDate> = entries
        .iter()
        .filter(|e| e.stay.overlaps(stay.check_in(), stay.check_out()))
        .flat_map(|e| e.stay.dates().filter(|d| stay.contains(*d)))
        .collect();
    taken.sort_unstable();
    taken.dedup();
    taken
}

/// Nights closed without a booking: a manual block, or a channel's block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Block {
    /// `blk_` + 12 characters.
    pub id: String,
    /// The property's slug.
    pub property: Slug,
    /// The nights closed.
    #[serde(flatten)]
    pub stay: Stay,
    /// Why, for the host.
    pub note: String,
    /// `None` for a manual block; the feed's name for an imported one.
    pub feed: Option<Source>,
    /// The feed event's `UID`, for an imported block.
    pub uid: Option<String>,
    /// When it was made.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
}

impl Block {
    /// The API's view of the block (docs/API.md section 14): `source` is
    /// `manual` or the feed's name, and an empty note is `null`.
    pub fn public(&self) -> BlockView<'_> {
        BlockView {
            id: &self.id,
            property: self.property.as_str(),
            start_date: self.stay.check_in(),
            end_date: self.stay.check_out(),
            note: Some(self.note.as_str()).filter(|n| !n.is_empty()),
            source: self.feed.as_ref().map_or("manual", Source::as_str),
            created_at: self.created_at,
        }
    }
}

/// A block as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "Block"))]
#[serde(rename_all = "camelCase")]
pub struct BlockView<'a> {
    /// `blk_` and 12 characters.
    pub id: &'a str,
    /// The property's slug.
    pub property: &'a str,
    /// The first night closed.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub start_date: NaiveDate,
    /// The day after the last night closed.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub end_date: NaiveDate,
    /// Why, if the host said.
    pub note: Option<&'a str>,
    /// `manual`, or the name of the feed it came from.
    pub source: &'a str,
    /// When it was made.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub created_at: DateTime<Utc>,
}

/// A request for a manual block: `endDate` exclusive, `note` optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewBlock {
    /// The first night to close, `YYYY-MM-DD`.
    #[serde(deserialize_with = "crate::basics::date_json::deserialize")]
    pub start_date: NaiveDate,
    /// The day after the last night to close (1 to 366 nights).
    #[serde(deserialize_with = "crate::basics::date_json::deserialize")]
    pub end_date: NaiveDate,
    /// Why, for the host: at most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 500)))]
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn entry(a: &str, b: &str) -> CalendarEntry {
        let stay = Stay::new(d(a), d(b)).unwrap();
        CalendarEntry { holder: a.into(), stay, kind: EntryKind::Booked, guest_name: ShortText::default(), guests: 1 }
    }

    #[test]
    fn taken_nights_are_the_shared_nights_in_order_once() {
        let entries =
            [entry("2026-12-24", "2026-12-26"), entry("2026-12-25", "2026-12-28"), entry("2026-12-01", "2026-12-20")];
        let stay = Stay::new(d("2026-12-20"), d("2026-12-27")).unwrap();
        assert_eq!(taken_nights(&entries, stay), [d("2026-12-24"), d("2026-12-25"), d("2026-12-26")]);
    }

    #[test]
    fn back_to_back_stays_take_nothing_from_each_other() {
        let entries = [entry("2026-12-10", "2026-12-20"), entry("2026-12-27", "2026-12-30")];
        let stay = Stay::new(d("2026-12-20"), d("2026-12-27")).unwrap();
        assert!(taken_nights(&entries, stay).is_empty());
    }
}
