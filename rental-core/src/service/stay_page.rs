//! The guest's stay page use cases (docs/API.md section 24): rotating a
//! booking's private link, and reading a booking for its page.

use super::Rental;
use crate::bookings::booking::Booking;
use crate::error::{Error, NotFound, Result};
use crate::store::{ReadTx, Store};

impl<S: Store> Rental<S> {
    /// Makes a new stay link for booking `code`: its link generation goes up
    /// by one, so every link signed before is refused from the moment this
    /// commits, by every server reading the same store. No event is emitted:
    /// the link is a secret, and webhooks would spread it.
    pub fn rotate_stay_link(&self, code: &str) -> Result<Booking> {
        self.write(|tx| {
            let mut booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            booking.stay_link_rotations = booking.stay_link_rotations.wrapping_add(1);
            tx.put_booking(&booking)?;
            Ok(booking)
        })
    }

    /// Booking `code` as the store holds it now (never a cached copy: a link
    /// rotated by another server is refused here at once), if there is one.
    pub fn stay_page_booking(&self, code: &str) -> Result<Option<Booking>> {
        Ok(self.store.read()?.booking(code)?)
    }
}
