//! Requests that lapse: a pending, unpaid booking past the checkout TTL, and
//! a booking page request whose guest never verified their e-mail.

use super::bookings::EXPIRY_BATCH;
use crate::bookings::booking::Booking;
use crate::bookings::lifecycle::{self, Outcome};
use crate::error::Result;
use crate::store::{ReadTx, Store};

impl<S: Store> super::Worker<'_, S> {
    /// Cancels every pending, unpaid booking older than the checkout TTL
    /// (payment `expired`, nights released), in transactions of at most 500
    /// bookings. Returns them. Only the holds that have
    /// fallen due are read, from the store's index of holds by creation time.
    /// Requests from the booking page whose guest did not verify their address
    /// within [`UNVERIFIED_HOLD`](crate::verification::UNVERIFIED_HOLD)
    /// are cancelled first, whatever the TTL.
    pub fn expire_due(&self) -> Result<Vec<Booking>> {
        let now = self.now();
        let mut expired = self.lapse_unverified(now)?;
        let Some(ttl) = self.settings.checkout_ttl else {
            return Ok(expired);
        };
        let created_until = now - ttl;
        // The server asks every second: look in a read snapshot first, so the
        // writer is taken only when something has fallen due.
        while !self.store.read()?.lapsing_holds(created_until, 1)?.is_empty() {
            let batch = self.write(|tx| {
                let mut batch = Vec::new();
                for code in tx.lapsing_holds(created_until, EXPIRY_BATCH)? {
                    let booking = tx.booking(code.as_str())?;
                    if let Some(Outcome::Changed { mut booking, events }) =
                        booking.and_then(|b| lifecycle::expire(&b, now, ttl))
                    {
                        super::payments::settle_ledger(tx, &mut booking, now)?;
                        tx.put_booking(&booking)?;
                        tx.append_events(&events)?;
                        batch.push(booking);
                    }
                }
                Ok(batch)
            })?;
            if batch.is_empty() {
                break;
            }
            expired.extend(batch);
        }
        Ok(expired)
    }
}
