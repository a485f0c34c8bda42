//! Keeps each booking's per-stay door code in step with the booking, for every
//! booking written through the one write path (`UseCaseTx::put_booking`).
//!
//! Whatever use case writes a booking (confirm, cancel, a date change, a
//! channel import, check-out), [`settle`] runs first and makes the stored
//! `access` right: a confirmed stay of a `per_stay` property has a code
//! (issued once, then kept) whose window follows the booking's dates, the
//! property's times and an early check-out; any other booking has none.
//! When that differs from what was stored, an `access.updated` event goes
//! out with the commit. So a use case never calls this itself: it writes the
//! booking and reads it back (`tx.booking`) if it returns the stored code.

use chrono::{DateTime, Days, Utc};

use crate::basics::clock::Entropy;
use crate::bookings::booking::{Booking, Status};
use crate::bookings::calendar::EntryKind;
use crate::bookings::event::Event;
use crate::properties::property::Property;
use crate::stays::access::{self, Access, DoorCodeMode, MAX_ACCESS_MINUTES};
use crate::store::{ReadTx, StoreResult};

/// Sets `booking.visit.access` to what it must be and returns the
/// `access.updated` event when that differs from the stored booking's.
pub(super) fn settle(
    tx: &impl ReadTx,
    booking: &mut Booking,
    entropy: &dyn Entropy,
    now: DateTime<Utc>,
) -> StoreResult<Option<Event>> {
    // Pending and cancelled bookings copied from the store carry the stored
    // access; with none there is nothing to issue, move or revoke.
    if booking.status != Status::Confirmed && booking.visit.access.is_none() {
        return Ok(None);
    }
    let before = tx.booking(booking.code.as_str())?.and_then(|b| b.visit.access);
    let property = tx.property(booking.property.as_str())?;
    booking.visit.access = match property {
        Some(p) if booking.status == Status::Confirmed && p.access.door_code_mode == DoorCodeMode::PerStay => {
            let kept = before.as_ref().or(booking.visit.access.as_ref()).map(|a| a.code.clone());
            Some(access_of(tx, &p, booking, kept, entropy)?)
        }
        _ => None,
    };
    Ok((booking.visit.access != before).then(|| Event::access(booking, now)))
}

/// The booking's access: its kept code, or a fresh one unlike every code of
/// the property whose window overlaps, with the window of its dates now.
fn access_of(
    tx: &impl ReadTx,
    property: &Property,
    booking: &Booking,
    kept: Option<String>,
    entropy: &dyn Entropy,
) -> StoreResult<Access> {
    let (valid_from, valid_until) =
        access::window(property, booking.check_in(), booking.check_out(), booking.visit.checked_out_at);
    let draft = Access { code: String::new(), valid_from, valid_until, booking: booking.code.clone() };
    if let Some(code) = kept {
        return Ok(Access { code, ..draft });
    }
    // Windows reach at most a week beyond their stay's nights on either side.
    let reach = Days::new(u64::from(MAX_ACCESS_MINUTES / (24 * 60)) + 1);
    let from = booking.check_in().checked_sub_days(reach).unwrap_or(booking.check_in());
    let to = booking.check_out().checked_add_days(reach).unwrap_or(booking.check_out());
    let mut taken = Vec::new();
    for entry in tx.calendar(property.slug.as_str(), from, to)? {
        if entry.kind != EntryKind::Booked || entry.holder == booking.code.as_str() {
            continue;
        }
        if let Some(other) = tx.booking(&entry.holder)?.and_then(|b| b.visit.access)
            && other.overlaps(&draft)
        {
            taken.push(other.code);
        }
    }
    let taken: Vec<&str> = taken.iter().map(String::as_str).collect();
    Ok(Access { code: access::fresh_code(property.access.door_code_length, &taken, entropy), ..draft })
}
