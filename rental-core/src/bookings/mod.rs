//! Bookings: what a booking is, its lifecycle and changes, the calendar of
//! taken nights, availability, and how requests are gathered and checked.

pub mod availability;
pub mod booking;
pub mod booking_page;
pub mod calendar;
pub mod change;
pub mod gathering;
pub mod lifecycle;
