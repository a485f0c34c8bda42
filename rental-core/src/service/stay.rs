//! Stay use cases (docs/API.md section 15): the `check_in` and `check_out`
//! actions, and the scheduled transitions a server applies as they fall due.

use chrono::{DateTime, Days, Utc};

use super::Rental;
use super::write::UseCaseTx;
use crate::bookings::booking::Booking;
use crate::bookings::calendar::EntryKind;
use crate::bookings::lifecycle::Outcome;
use crate::error::{Error, NotFound, Result};
use crate::stays::occupancy::today_in;
use crate::stays::presence::{self, Door};
use crate::stays::stay_state::{scheduled_check_in, scheduled_check_out};
use crate::store::{ReadTx, Store, WriteTx};

/// How far back a server looks at start for transitions that fell due while
/// it was down: stays that departed up to a week ago.
pub const CATCH_UP_DAYS: u64 = 7;

impl<S: Store> Rental<S> {
    /// Checks a confirmed stay in or out (the `check_in` and `check_out`
    /// actions). A transition already made is a no-op that emits nothing.
    pub(super) fn door(&self, code: &str, door: Door) -> Result<Booking> {
        let now = self.now();
        self.write(|tx| {
            let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            let property = tx
                .property(booking.property.as_str())?
                .ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            match presence::act(&booking, &property, door, now)? {
                Outcome::Unchanged => Ok(booking),
                Outcome::Changed { booking, events } => write_back(tx, &booking, &events),
            }
        })
    }

    /// Codes of the confirmed stays with a scheduled transition due by `now`
    /// on or after `lookback_days` before their property's today, not yet recorded.
    ///
    /// Reads the store, not the read cache, so that a server that has just
    /// started does not load the cache for it; and per property only the
    /// stays that share a night with the lookback up to tomorrow (an index
    /// range), since a stay arriving later has nothing due.
    fn due_candidates(&self, now: DateTime<Utc>, lookback_days: u64) -> Result<Vec<String>> {
        let read = self.store.read()?;
        let mut pending = Vec::new();
        for property in read.properties()?.iter().filter(|p| p.active) {
            let today = today_in(property.timezone, now);
            let from = today.checked_sub_days(Days::new(lookback_days)).unwrap_or(today);
            let until = today.checked_add_days(Days::new(2)).unwrap_or(today);
            let calendar = read.calendar(property.slug.as_str(), from, until)?;
            let due = calendar.iter().filter(|e| e.kind == EntryKind::Booked).filter(|e| {
                let arrived = e.stay.check_in() >= from && scheduled_check_in(property, e.stay.check_in()) <= now;
                arrived || scheduled_check_out(property, e.stay.check_out()) <= now
            });
            // Most were recorded by an earlier run: only those that were not need the writer.
            for entry in due {
                let Some(b) = read.booking(&entry.holder)? else { continue };
                if presence::due(&b, property, now) != Outcome::Unchanged {
                    pending.push(entry.holder.as_str().to_owned());
                }
            }
        }
        Ok(pending)
    }
}

/// Writes a changed booking and its events; returns it as stored (with its door code settled).
fn write_back(
    tx: &mut UseCaseTx<impl WriteTx>,
    booking: &Booking,
    events: &[crate::bookings::event::Event],
) -> Result<Booking> {
    tx.put_booking(booking)?;
    tx.append_events(events)?;
    Ok(tx.booking(booking.code.as_str())?.unwrap_or_else(|| booking.clone()))
}

impl<S: Store> super::Worker<'_, S> {
    /// Records the check-ins and check-outs whose time has come and emits
    /// their events, each exactly once (the booking keeps what was recorded,
    /// in the same transaction as the events). Looks at the confirmed stays
    /// that arrive or depart from `lookback_days` before each property's
    /// today up to tomorrow, read by an index range, not at every booking.
    /// Returns the bookings that changed.
    pub fn apply_stay_schedule(&self, lookback_days: u64) -> Result<Vec<Booking>> {
        let now = self.now();
        let candidates = self.due_candidates(now, lookback_days)?;
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|tx| {
            let mut changed = Vec::new();
            for code in &candidates {
                let Some(booking) = tx.booking(code)? else { continue };
                let Some(property) = tx.property(booking.property.as_str())? else { continue };
                if let Outcome::Changed { booking, events } = presence::due(&booking, &property, now) {
                    changed.push(write_back(tx, &booking, &events)?);
                }
            }
            Ok(changed)
        })
    }
}
