//! The booking page's e-mail check (issue 46, 5; docs/API.md section 20):
//! the cap on unverified requests, their lapse, and the guest's verification.

use chrono::{DateTime, Utc};

use super::Rental;
use super::bookings::EXPIRY_BATCH;
use crate::basics::ids::{BookingCode, Source};
use crate::bookings::booking::{Booking, BookingQuery, Status};
use crate::bookings::lifecycle::{self, Outcome};
use crate::bookings::verification::{self, UNVERIFIED_HOLD, UNVERIFIED_HOLDS};
use crate::error::{Error, NotFound, Result};
use crate::properties::property::Property;
use crate::store::{ReadTx, Store};

impl<S: Store> Rental<S> {
    /// Cancels the unverified holds older than [`UNVERIFIED_HOLD`], at most
    /// [`EXPIRY_BATCH`] a call. The holds index has no source, so the oldest
    /// holds are read to find them (a read snapshot; the writer only when one is due).
    pub(super) fn lapse_unverified(&self, now: DateTime<Utc>) -> Result<Vec<Booking>> {
        let due: Vec<BookingCode> = {
            let read = self.store.read()?;
            let mut due = Vec::new();
            for code in read.lapsing_holds(now - UNVERIFIED_HOLD, EXPIRY_BATCH)? {
                if read.booking(code.as_str())?.is_some_and(|b| lifecycle::lapse_unverified(&b, now).is_some()) {
                    due.push(code);
                }
            }
            due
        };
        if due.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|tx| {
            let mut lapsed = Vec::new();
            for code in &due {
                let booking = tx.booking(code.as_str())?;
                if let Some(Outcome::Changed { booking, events }) =
                    booking.and_then(|b| lifecycle::lapse_unverified(&b, now))
                {
                    tx.put_booking(&booking)?;
                    tx.append_events(&events)?;
                    lapsed.push(booking);
                }
            }
            Ok(lapsed)
        })
    }

    /// Marks the guest's address of the request `code` verified (its guest
    /// opened the link mailed to them, docs/API.md section 20): it then holds
    /// its nights like any request, and its `request_received` and
    /// `host_request` messages are recorded. A request already verified, or
    /// not waiting for it, is returned unchanged; a lapsed one is
    /// [`Error::InvalidTransition`].
    pub fn verify_guest_email(&self, code: &str) -> Result<Booking> {
        let now = self.now();
        self.write(|tx| {
            let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            if booking.status == Status::Cancelled && verification::asks_verification(&booking) {
                return Err(Error::InvalidTransition { from: booking.status, action: "verify", channel_owned: false });
            }
            match lifecycle::verify_guest_email(&booking, now) {
                Outcome::Unchanged => Ok(booking),
                Outcome::Changed { booking, events } => {
                    tx.put_booking(&booking)?;
                    tx.append_events(&events)?;
                    Ok(booking)
                }
            }
        })
    }
}

/// Refuses one more unverified request for `property` once it holds
/// [`UNVERIFIED_HOLDS`] (docs/API.md section 20).
pub(super) fn refuse_past_unverified_cap(tx: &impl ReadTx, property: &Property) -> Result<()> {
    let query = BookingQuery {
        statuses: vec![Status::Pending],
        property: Some(property.slug.clone()),
        source: Some(Source::page()),
        limit: 10_000,
        ..BookingQuery::default()
    };
    let held = tx.bookings(&query)?.iter().filter(|b| verification::is_unverified_hold(b)).count();
    if held >= UNVERIFIED_HOLDS {
        return Err(Error::invalid(
            "checkIn",
            "too_many_unverified",
            "this house has too many requests waiting for their guests to confirm their e-mail; try again in half an hour",
        ));
    }
    Ok(())
}
