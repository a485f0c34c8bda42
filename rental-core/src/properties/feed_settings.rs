//! A property's channel feeds: the calendars of other sites whose bookings
//! are imported as blocks (docs/API.md section 8).

use serde::{Deserialize, Serialize};

use crate::basics::ids::Source;
use crate::error::FieldError;

/// A channel calendar to import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IcalFeed {
    /// The channel's name; imported bookings get it as their source.
    pub name: Source,
    /// Where the feed is fetched from.
    pub url: String,
    /// Summaries that mean a reservation in this feed, besides the channels' own wording
    /// (`Reserved`, `Booked`...): case-insensitive, `*` matches anything, e.g. `"* (Booking.com)"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reservation_patterns: Vec<String>,
}

/// The channel calendars a property imports; private, none by default.
///
/// ```
/// use rental_core::property::{FeedSettings, IcalFeed};
///
/// let feed = IcalFeed { name: "airbnb".parse()?, url: "https://example.com/a.ics".into(), reservation_patterns: vec![] };
/// let feeds = FeedSettings::default().feed(feed);
/// assert_eq!(feeds.ical_feeds.len(), 1);
/// # Ok::<(), rental_core::IdError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FeedSettings {
    /// The feeds, each under a name of its own.
    pub ical_feeds: Vec<IcalFeed>,
}

impl FeedSettings {
    /// Adds a feed.
    #[must_use]
    pub fn feed(mut self, feed: IcalFeed) -> Self {
        self.ical_feeds.push(feed);
        self
    }

    /// The faults of these settings, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut names: Vec<&str> = self.ical_feeds.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            errors.push(FieldError::new("icalFeeds.name", "invalid", "feed names must be unique"));
        }
        if !self.ical_feeds.iter().all(|f| f.url.starts_with("http://") || f.url.starts_with("https://")) {
            errors.push(FieldError::new("icalFeeds.url", "invalid", "must be an http or https URL"));
        }
        let urls = self.ical_feeds.iter().map(|f| ("icalFeeds.url", f.url.as_str()));
        let patterns = self.ical_feeds.iter().flat_map(|f| &f.reservation_patterns);
        let texts = urls.chain(patterns.map(|p| ("icalFeeds.reservationPatterns", p.as_str())));
        errors.extend(texts.filter_map(|(field, text)| crate::basics::text::field_error(field, text)));
    }
}
