//! Bookings: what a booking is and its visit, its lifecycle and changes, the
//! events they cause, the calendar of taken nights, availability, quotes, and
//! how requests are gathered and checked.

pub mod availability;
pub mod booking;
pub mod calendar;
pub mod change;
pub mod event;
pub mod gathering;
pub mod lifecycle;
pub mod payment_summary;
pub mod pricing;
pub mod problem;
mod quote_rules;
pub mod verification;
pub mod visit;
