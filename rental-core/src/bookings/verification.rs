//! Whether a guest's e-mail address is known to be theirs, and how long a
//! request from the booking page holds its nights until it is (issue 46).
//!
//! Anyone may post the booking page with any address. Until the guest opens
//! the link mailed to them, their request holds nights for [`UNVERIFIED_HOLD`]
//! only, a property keeps at most [`UNVERIFIED_HOLDS`] such requests at once,
//! and nothing the guest typed is mailed (no `request_received`, no
//! `host_request`: those go once the address is verified).

use chrono::{DateTime, TimeDelta, Utc};

use crate::bookings::booking::{Booking, Status};

/// How long a request from the booking page holds its nights while its
/// guest's address is unverified: long enough to open an e-mail, short
/// enough that a made-up address holds nothing for long.
pub const UNVERIFIED_HOLD: TimeDelta = TimeDelta::minutes(30);

/// How many unverified requests a property holds at once; one more is refused.
pub const UNVERIFIED_HOLDS: usize = 5;

/// Why an unverified request lapsed (its `cancelReason`).
pub const UNVERIFIED_REASON: &str = "guest e-mail not verified";

/// True when `b`'s guest must prove their address: a request from the booking page with one.
pub fn asks_verification(b: &Booking) -> bool {
    b.source.as_str() == "page" && !b.guest_email.is_empty()
}

/// The one place that decides whether `b`'s guest address counts as
/// verified: it was never asked to be, or its link was opened. (A card hold,
/// once payments take them, is meant to count here too.)
pub fn is_verified(b: &Booking) -> bool {
    !asks_verification(b) || b.guest_email_verified_at.is_some()
}

/// True for a pending request still waiting for its guest's address.
pub fn is_unverified_hold(b: &Booking) -> bool {
    b.status == Status::Pending && !is_verified(b)
}

/// When the unverified hold `b` lapses.
pub fn lapses_at(b: &Booking) -> DateTime<Utc> {
    b.created_at + UNVERIFIED_HOLD
}
