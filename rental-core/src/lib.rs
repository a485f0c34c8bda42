//! `rental-core`: a short-term rental booking engine you can embed.
//!
//! It prices stays with seasonal rates, fees, discounts and taxes; reports
//! per-night availability; takes bookings through their lifecycle; summarises
//! occupancy for home automation in each property's own time zone; signs
//! webhook bodies; and keeps everything in an embedded, durable store.
//!
//! The parts:
//!
//! - **Pure domain** ([`pricing`], [`availability`], [`lifecycle`],
//!   [`occupancy`], [`webhook`]): plain functions over plain data, no store,
//!   no clock, no I/O.
//! - **Store** ([`store`]): the narrow [`Store`] trait, with [`RedbStore`]
//!   (durable, the default) and [`MemoryStore`].
//! - **Use cases** ([`Rental`]): each one store transaction. Creating a
//!   booking checks availability and inserts in the same write transaction, so
//!   two overlapping requests can never both win. Every change writes the
//!   [`Event`]s it causes to an outbox in that same transaction.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use rental_core::{demo, ManualClock, MemoryStore, NewBooking, QuoteRequest, Rental};
//!
//! // Time is an input: on a stopped clock the example reads the same in any year.
//! let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
//! let rental = Rental::new(MemoryStore::new()).with_clock(clock);
//! rental.import_properties(&demo::properties())?;
//!
//! let quote = rental.quote(&QuoteRequest {
//!     property: "sea-view".into(),
//!     check_in: "2026-12-20".parse().unwrap(),
//!     check_out: "2026-12-27".parse().unwrap(),
//!     guests: 3,
//! })?;
//! assert!(quote.available);
//!
//! let request = NewBooking {
//!     property: "sea-view".into(),
//!     check_in: quote.check_in,
//!     check_out: quote.check_out,
//!     guest_name: "Ada Lovelace".into(),
//!     guest_email: "ada@example.com".into(),
//!     guests: 3,
//!     notes: None,
//!     source: None,
//! };
//! let booking = rental.create_booking(&request, None)?.booking;
//! assert_eq!(booking.total, quote.total);
//!
//! // The same nights cannot be taken twice.
//! let again = rental.create_booking(&request, None);
//! assert!(matches!(again, Err(rental_core::Error::DatesUnavailable { .. })));
//! # Ok::<(), rental_core::Error>(())
//! ```
//!
//! For a durable store, open a [`RedbStore`] on a data directory instead:
//! `Rental::new(RedbStore::open_dir("./rental-data")?)`.

#![deny(missing_docs)]

mod admin;
mod basics;
mod bookings;
mod channels;
pub mod demo;
pub mod error;
mod outbox;
mod properties;
mod service;
mod stays;
pub mod store;

// The folders above group the modules by what a host would call them; each
// module keeps its path at the crate root.
pub use admin::{admin_session, keys};
pub use basics::{clock, ids, short_text, text, timestamp};
pub use bookings::{availability, booking, booking_page, calendar, change, gathering, lifecycle};
pub use channels::{channel, feed_status, ical};
pub use outbox::{delivery, event, message, webhook};
pub use properties::{local_time, pricing, property};
pub use stays::{access, occupancy, presence, stay, stay_state, stay_summary, turnover, visit};

pub use basics::date_json::parse_date;
pub use booking::{Booking, BookingQuery, NewBooking, PaymentStatus, QuoteRequest, Status};
pub use chrono_tz::Tz;
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{Error, FieldError, NotFound, Result};
pub use event::{Event, EventName};
pub use ids::{BookingCode, Slug, Source};
pub use lifecycle::Action;
pub use property::{Cents, Property};
pub use service::{
    Agenda, CATCH_UP_DAYS, Claim, Claimed, Created, DueDelivery, FeedPull, Fetched, NewKey, PRUNE_BATCH, Pruned,
    PullClaim, Rental, Settings, WRITE_ATTEMPTS, retry_pause,
};
pub use stay::{Stay, StayError};
#[cfg(feature = "redb")]
pub use store::RedbStore;
pub use store::{MemoryStore, Store, StoreError};
