//! Channel calendars: the nights a property shares with Airbnb, Vrbo,
//! Booking.com and the like, both ways, through iCalendar files.
//!
//! One vocabulary, used in the code and in docs/API.md section 8:
//!
//! - **channel**: a site that lists the property (Airbnb, Vrbo...).
//! - **a channel's feed** (a *feed*): the iCal URL of the property on one
//!   channel, that we import from; one entry of the property's `icalFeeds`
//!   ([`IcalFeed`](crate::IcalFeed)), named (`airbnb`), the name being the
//!   `source` of the bookings and blocks it brings.
//! - **pull**: one import of one feed: fetched, read ([`ical::parse_feed`]),
//!   planned ([`pull::plan`]) and applied in one store transaction; it ends in
//!   a [`pull::PullResult`]. A feed is pulled by one process at a time, under
//!   a [`lease`](crate::lease) kept in its [`pull::FeedState`].
//! - **sync**: a round of pulls, asked for (`POST /api/v1/sync/ical`,
//!   `rental sync`) or on schedule; it ends in a [`pull::SyncReport`] and one
//!   `calendar.synced` event.
//! - **feed state**: what we remember of a feed between pulls
//!   ([`pull::FeedState`]); its **freshness** ([`feed_status`]) says how its
//!   last pulls went.
//! - **our calendar export**: the `.ics` of a property that the channels
//!   import from us (`GET /api/v1/calendar/{slug}.ics`, [`ical::export`]).
//! - The **availability calendar** (bookings and blocks night by night,
//!   [`crate::calendar`]) is neither: the export is written from it, and a
//!   pull writes into it.
//!
//! The modules: [`ical`] reads and writes the file format, and nothing more;
//! [`pull`] holds the rules of a pull, pure; [`feed_status`] the freshness.

pub mod feed_status;
pub mod ical;
pub mod pull;
