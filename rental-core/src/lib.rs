//! `rental-core`: a short-term rental booking engine you can embed.
//!
//! It prices stays with seasonal rates, fees, discounts and taxes; reports
//! per-night availability; takes bookings through their lifecycle; summarises
//! occupancy for home automation in each property's own time zone; signs
//! webhook bodies; and keeps everything in a durable store.
//!
//! # A first program
//!
//! Everything goes through one [`Rental`]: an engine over a [`Store`]. Each
//! call is one use case in one store transaction; a booking is checked
//! against the calendar and inserted in the same write transaction, so two
//! overlapping requests never both win. Errors are one [`Error`] type whose
//! variants say what went wrong (docs/API.md section 1 names the same cases
//! for the HTTP API).
//!
//! ```
//! use std::sync::Arc;
//! use rental_core::prelude::*;
//!
//! // A store: `MemoryStore` for tests, `RedbStore::open_dir("./data")?` to keep data.
//! // Time is an input: on a stopped clock this example reads the same in any year.
//! let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
//! let rental = Rental::new(MemoryStore::new()).with_clock(clock);
//!
//! // A property: its name, zone and prices; every other area at its documented default.
//! let sea_view = Property::builder("sea-view")
//!     .name("Sea View Cottage")
//!     .timezone(Tz::Europe__Lisbon)
//!     .pricing(Pricing::new(15_000).max_guests(4).cleaning_fee(6_000))
//!     .build()?;
//! rental.import_properties(&[sea_view])?;
//!
//! // 1. Quote: a stay that breaks a rule is still priced, with its `problems`.
//! let quote = rental.quote(&QuoteRequest {
//!     property: "sea-view".parse()?,
//!     check_in: "2026-12-20".parse().unwrap(),
//!     check_out: "2026-12-27".parse().unwrap(),
//!     guests: 2,
//!     children: 0,
//!     pets: 0,
//!     promo_code: None,
//! })?;
//! assert!(quote.available, "{:?}", quote.problems);
//! assert_eq!(quote.total, 7 * 15_000 + 6_000);
//!
//! // 2. Book: the booking holds its nights, pending and unpaid.
//! let request = NewBooking {
//!     property: quote.property.clone(),
//!     check_in: quote.check_in,
//!     check_out: quote.check_out,
//!     guest_name: "Ada Lovelace".into(),
//!     guest_email: "ada@example.com".into(),
//!     guests: 2,
//!     notes: None,
//!     source: None,
//!     children: 0,
//!     pets: 0,
//!     promo_code: None,
//!     locale: None,
//! };
//! let booking = rental.create_booking(&request, None)?.booking;
//! assert_eq!(booking.status, Status::Pending);
//!
//! // The same nights cannot be taken twice.
//! let again = rental.create_booking(&request, None);
//! assert!(matches!(again, Err(Error::DatesUnavailable { .. })));
//!
//! // 3. Confirm: an action from docs/API.md section 6's lifecycle.
//! let booking = rental.update_booking(booking.code.as_str(), &Action::Confirm)?;
//! assert_eq!(booking.status, Status::Confirmed);
//!
//! // 4. Read the outbox: every change wrote its events in its own transaction
//! //    (what webhooks deliver, docs/API.md section 9). Confirming is a status change too.
//! let events: Vec<EventName> = rental.admin().events_after(0, 100)?.into_iter().map(|e| e.event.event).collect();
//! assert_eq!(events, [EventName::BookingCreated, EventName::BookingConfirmed, EventName::BookingUpdated]);
//!
//! // 5. The occupancy summary, each property judged on its own today.
//! let summary = rental.summary()?;
//! assert_eq!(summary.totals.properties, 1);
//! # Ok::<(), rental_core::Error>(())
//! ```
//!
//! `?` works on identifiers too: a malformed slug or booking code is an
//! [`IdError`], which becomes [`Error::Validation`] naming its field.
//!
//! # Where to go next
//!
//! - **Today's door code**: each property of [`Rental::summary`] has the
//!   code valid now (`door_code`) and the one valid now or next with its
//!   window (`access`, an [`access::Access`]); a booking's own code, when
//!   the property gives each stay one ([`DoorCodeMode::PerStay`]), is
//!   `booking.visit.access`. A property's "today" is [`Property::today`].
//! - **Keeping data**: [`RedbStore`] (feature `redb`, on by default) is one
//!   process's durable store; `store::PgStore` (feature `postgres`) lets
//!   several processes share one PostgreSQL database. The [`Store`] trait is
//!   what a store of your own implements. To choose a store at run time,
//!   write the program generic over `S: Store` and call it with the one
//!   opened, as the `rental` command does; no wrapper store is needed.
//! - **Async programs**: [`Rental::create_booking_async`] books without
//!   holding a thread; the other calls are short and synchronous (run them
//!   on your runtime's blocking pool when the store is on disk).
//! - **Serving HTTP**: the `rental-server` crate mounts the JSON API, the
//!   admin pages, the booking page and the calendars in your own hyper app,
//!   as one service (`rental_server::RentalService`), or serves them alone.
//! - **Webhooks and channel calendars**: the events of the outbox are
//!   delivered, signed ([`webhook`]), by `rental-server`; a program that
//!   delivers them itself, or pulls the channels' feeds itself ([`pull`]),
//!   uses [`Rental::worker`], the calls meant for servers. Our calendar
//!   export, for the channels to import, is [`Calendars::calendar_export`].
//! - **Taking payments**: [`payment_provider::PaymentProvider`] is the seam to a
//!   payment provider (the server's is Stripe); implement it for another.
//! - **Pure functions**: [`pricing`], [`availability`], [`lifecycle`],
//!   [`occupancy`] and the money math of [`payments`] are plain functions
//!   over plain data, no store, no clock, no I/O.

#![deny(missing_docs)]

mod admin;
pub mod backup;
mod basics;
mod bookings;
mod channels;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod demo;
mod error;
pub mod metrics;
mod outbox;
pub mod payment_provider;
pub mod payments;
mod properties;
mod service;
mod stays;
pub mod store;
mod wording;
pub mod worker;

// The folders above group the modules by what a host would call them; the
// modules an embedder uses keep their paths at the crate root.
pub use admin::{admin_session, allowance, keys};
pub use basics::{clock, ids, lease, short_text, stay, text, timestamp, words};
pub use bookings::{availability, booking, calendar, change, event, lifecycle, pricing, verification, visit};
pub use channels::{feed_status, ical, pull};
pub use outbox::{delivery, message, webhook};
pub use properties::{booking_page, property};
pub use stays::{access, access_gate, check_in, occupancy, stay_link, stay_state, stay_summary, turnover};

pub mod prelude;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

pub use access::DoorCodeMode;
pub use availability::Availability;
pub use basics::clock_time::{ClockTime, local_moment};
pub use basics::currency::{Currency, format_amount, parse_amount, plain_amount};
pub use basics::date_json::parse_date;
pub use basics::locale::Locale;
pub use booking::{Booking, BookingQuery, NewBooking, PaymentStatus, QuoteRequest, Status};
pub use booking_page::BookingPage;
/// The dates and instants the API takes and returns, from `chrono`: re-exported
/// so that an embedder needs no `chrono` of its own (its version is this crate's).
#[doc(no_inline)]
pub use chrono::{DateTime, NaiveDate, Utc};
/// The IANA time zone of a property (`Tz::Europe__Lisbon`), from `chrono-tz`.
#[doc(no_inline)]
pub use chrono_tz::Tz;
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{Error, FieldError, NotFound, Result};
pub use event::{Event, EventName, OutboxEvent};
pub use ids::{BookingCode, IdError, Slug, Source};
pub use keys::{ApiKey, Scope};
pub use lifecycle::Action;
pub use occupancy::Summary;
pub use pricing::Quote;
pub use property::{Cents, IcalFeed, Pricing, Property, PropertyBuilder, SeasonalRate, format_money};
pub use service::{
    Admin, Agenda, Calendars, CheckIns, Created, NewKey, PaymentChange, Rental, Settings, TestMessages, WRITE_ATTEMPTS,
    retry_pause,
};
pub use stay::{Stay, StayError};
#[cfg(feature = "redb")]
pub use store::RedbStore;
pub use store::{
    MemoryStore, ReadRecords, ReadTx, Record, RecordKind, RecordRow, Store, StoreError, WriteRecords, WriteTx,
};
pub use webhook::{Subscription, Webhook};
