//! The names a program that embeds the engine uses most, for one glob import:
//! `use rental_core::prelude::*;`.

#[cfg(feature = "redb")]
pub use crate::RedbStore;
pub use crate::{
    Action, Booking, BookingCode, Cents, Clock, ClockTime, Error, EventName, ManualClock, MemoryStore, NewBooking,
    PaymentStatus, Pricing, Property, Quote, QuoteRequest, Rental, Scope, Settings, Slug, Source, Status, Store,
    SystemClock, Tz,
};
