//! The names a program that embeds the engine uses most, for one glob import:
//! `use rental_core::prelude::*;`.

#[cfg(feature = "redb")]
pub use crate::RedbStore;
pub use crate::{
    Action, Availability, Booking, BookingCode, BookingPage, BookingQuery, Cents, Clock, ClockTime, DateTime,
    DoorCodeMode, Error, EventName, IcalFeed, ManualClock, MemoryStore, NaiveDate, NewBooking, PaymentStatus, Pricing,
    Property, Quote, QuoteRequest, Rental, Scope, SeasonalRate, Settings, Slug, Source, Status, Store, Summary,
    SystemClock, Tz, Utc, format_amount, format_money,
};
