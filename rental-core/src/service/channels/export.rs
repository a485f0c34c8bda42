//! Our calendar export of a property, read from one store snapshot: stays and
//! blocks from 30 days ago on, optionally without those of one channel's feed.

use chrono::{Days, NaiveDate};

use crate::bookings::calendar::EntryKind;
use crate::channels::ical::export::{self, Busy, CalendarExport};
use crate::error::Result;
use crate::service::{FromStore, active_property};
use crate::stays::occupancy::today_in;
use crate::store::{ReadTx, Store};

/// Stays that ended more than this many days ago are left out of our calendar export.
pub const EXPORT_PAST_DAYS: u64 = 30;

impl<S: Store> crate::service::Calendars<'_, S> {
    /// The calendar of an active property for the channels to import (docs/API.md section 8):
    /// every pending or confirmed stay and every block that ended at most 30 days ago, as
    /// all-day events with no guest data. `exclude` leaves out what was imported from that
    /// feed, so a channel is not sent its own bookings back.
    pub fn calendar_export(&self, slug: &str, exclude: Option<&str>) -> Result<CalendarExport> {
        let tx = self.store.read()?;
        let property = active_property(&FromStore(&tx), slug)?.into_owned();
        let today = today_in(property.timezone, self.now());
        // Entries ending after this day, i.e. at most EXPORT_PAST_DAYS ago.
        let after = today.checked_sub_days(Days::new(EXPORT_PAST_DAYS + 1)).unwrap_or(NaiveDate::MIN);
        let mut busy = Vec::new();
        for entry in tx.calendar(slug, after, NaiveDate::MAX)? {
            let (feed, created_at, changed_at, reserved) = if entry.kind == EntryKind::Blocked {
                let Some(block) = tx.block(&entry.holder)? else { continue };
                (block.feed, block.created_at, block.created_at, false)
            } else {
                let Some(booking) = tx.booking(&entry.holder)? else { continue };
                (booking.external.map(|e| e.feed), booking.created_at, booking.updated_at, true)
            };
            if exclude.is_some_and(|name| feed.is_some_and(|f| f.as_str() == name)) {
                continue;
            }
            let (start, end) = (entry.stay.check_in(), entry.stay.check_out());
            busy.push(Busy { holder: entry.holder.into(), created_at, start, end, reserved, changed_at });
        }
        Ok(export::calendar(slug, &property.name, &busy))
    }
}
