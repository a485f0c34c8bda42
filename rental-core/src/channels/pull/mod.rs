//! The rules of a pull of a channel's feed (the words are those of docs/API.md
//! section 8): which events are reservations, what a pull changes, what is
//! remembered between pulls, and what a pull and a sync report.
//!
//! Reading a feed body is [`crate::ical`]'s job; applying a pull in one store
//! transaction is [`Worker::apply_pull`](crate::worker::Worker::apply_pull)'s.

mod classify;
mod reconcile;
mod state;

pub use self::classify::{EventKind, UNNAMED_GUEST, classify, without_markers};
pub use self::reconcile::{EventAction, HORIZON_DAYS, Seen, Step, plan};
pub use self::state::{FeedState, Owned, OwnedKind, PullResult, SyncReport};
