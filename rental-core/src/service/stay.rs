//! Stay use cases (CONTRACT.md section 15): the `check_in` and `check_out`
//! actions, and the scheduled transitions a server applies as they fall due.

use chrono::{DateTime, Days, NaiveDate, Utc};

use super::Rental;
use crate::booking::Booking;
use crate::calendar::EntryKind;
use crate::error::{Error, NotFound, Result};
use crate::lifecycle::Outcome;
use crate::occupancy::today_in;
use crate::presence::{self, Door};
use crate::stay_state::{scheduled_check_in, scheduled_check_out};
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

    /// Records the check-ins and check-outs whose time has come and emits
    /// their events, each exactly once (the booking keeps what was recorded,
    /// in the same transaction as the events). Looks at the confirmed stays
    /// of the read cache's live calendar that arrive or depart from
    /// `lookback_days` before each property's today on, not at every booking.
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

    /// Codes of the confirmed stays with a scheduled transition due by `now`
    /// on or after `lookback_days` before their property's today, not yet recorded.
    fn due_candidates(&self, now: DateTime<Utc>, lookback_days: u64) -> Result<Vec<String>> {
        let properties = self.properties()?;
        let starts: Vec<(&str, NaiveDate)> = properties
            .iter()
            .map(|p| {
                let today = today_in(p.timezone, now);
                (p.slug.as_str(), today.checked_sub_days(Days::new(lookback_days)).unwrap_or(today))
            })
            .collect();
        let mut codes = Vec::new();
        self.read_with(|model| {
            for ((property, (_, from)), calendar) in properties.iter().zip(&starts).zip(model.calendars_from(&starts)?)
            {
                let due = calendar.iter().filter(|e| e.kind == EntryKind::Booked).filter(|e| {
                    let arrived = e.stay.check_in() >= *from && scheduled_check_in(property, e.stay.check_in()) <= now;
                    arrived || scheduled_check_out(property, e.stay.check_out()) <= now
                });
                codes.extend(due.map(|e| (e.holder.clone(), property)));
            }
            Ok(())
        })?;
        // Most were recorded by an earlier run: only those that were not need the writer.
        let read = self.store.read()?;
        let mut pending = Vec::new();
        for (code, property) in codes {
            let Some(b) = read.booking(&code)? else { continue };
            if presence::due(&b, property, now) != Outcome::Unchanged {
                pending.push(code);
            }
        }
        Ok(pending)
    }
}

/// Writes a changed booking and its events; returns it as stored (with its door code settled).
fn write_back(tx: &mut impl WriteTx, booking: &Booking, events: &[crate::event::Event]) -> Result<Booking> {
    tx.put_booking(booking)?;
    tx.append_events(events)?;
    Ok(tx.booking(booking.code.as_str())?.unwrap_or_else(|| booking.clone()))
}
