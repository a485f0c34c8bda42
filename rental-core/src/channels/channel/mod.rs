//! Channel calendars (Airbnb, Vrbo, Booking.com...): which feed events are
//! reservations, what each pull changes, and what is remembered between pulls.
//!
//! Reading a feed body is [`crate::ical`]'s job; applying a pull in one store
//! transaction is [`Operations::apply_feed`](crate::Operations::apply_feed)'s.

mod classify;
mod lease;
mod reconcile;
mod state;

pub use self::classify::{Kind, UNNAMED_GUEST, classify, without_markers};
pub use self::lease::{FeedLease, held_until, is_owned_by};
pub use self::reconcile::{FeedAction, HORIZON_DAYS, Seen, Step, plan};
pub use self::state::{FeedResult, FeedState, Owned, OwnedKind, SyncReport};
