//! The iCalendar format: reading a channel's feed (what Airbnb, Vrbo,
//! Booking.com and friends publish), and writing our calendar export.
//!
//! Reading is forgiving about transport (line endings, folding, encodings)
//! and strict about meaning: a body that is not a complete `VCALENDAR` is an
//! error, so a damaged download never cancels anything.
//!
//! [`parse_feed`] reads a body into the nights its events take in the
//! property's time zone; docs/DESIGN.md ("Reading channel feeds") describes
//! the pipeline and the rules it follows; [`export::calendar`] writes ours.

mod component;
mod content;
mod event;
pub mod export;
mod lines;
mod parse;
mod recur;
mod value;
mod windows_zones;
mod zone;

use chrono::NaiveDate;

pub use parse::parse_feed;

/// One calendar event of a feed, reduced to what an importer needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEvent {
    /// A key unique within the feed and stable across pulls: the `UID`, made
    /// unique for recurrences and duplicates, or derived from the event when
    /// it has none.
    pub uid: String,
    /// The `SUMMARY`, unescaped and trimmed; empty when absent.
    pub summary: String,
    /// The first night, in the property's time zone.
    pub start: NaiveDate,
    /// The day after the last night (the checkout day); always after `start`.
    pub end: NaiveDate,
}

/// What a feed body says, once read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Feed {
    /// The events that take nights, cancelled ones left out.
    pub events: Vec<FeedEvent>,
    /// Events that could not be read (for example an unparseable date); they
    /// are skipped, the rest of the feed still counts.
    pub invalid: usize,
    /// Things a host may want to know, such as an inverted date range.
    pub warnings: Vec<String>,
}

/// Why a body is not a calendar. The feed keeps its previous state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedError {
    /// A 0-byte body (Booking.com's way of saying "no events").
    #[error("the feed answered with an empty body")]
    Empty,
    /// Anything that is not a complete `VCALENDAR`: HTML, a truncated download.
    #[error("not an iCalendar file: {0}")]
    NotACalendar(String),
}
