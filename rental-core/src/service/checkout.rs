//! The use cases of paying through a provider (docs/API.md section 23): a booking's
//! [`Checkout`] read and saved, and what the provider said of its payment recorded together
//! with the booking change it causes, in one transaction. The calls to the provider are the
//! server's: this crate never waits on the network.

use crate::bookings::booking::{Booking, PaymentStatus, Status};
use crate::bookings::lifecycle::{self, Action, Outcome};
use crate::error::{Error, NotFound, Result};
use crate::payment_provider::Checkout;
use crate::store::{ReadRecords, ReadTx, Store, WriteRecords, WriteTx};

use super::Rental;
use super::write::Tx;

/// What the provider said of a checkout's payment, as the booking takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckoutOutcome {
    /// A hold was taken: a request becomes `authorized` (`booking.payment_authorized`).
    Held,
    /// A charge succeeded: an instant booking is confirmed and `paid`.
    Paid,
    /// The host's confirmation captured the hold: the booking is confirmed and `paid`.
    Captured,
    /// The hold was released (the booking was cancelled, declined or lapsed): nothing moved.
    Released,
    /// The bank refused or the guest did not authenticate: the booking is unchanged, and the
    /// guest may try again (a new attempt).
    Failed,
    /// Not known yet (the bank wants the guest, or it is processing): only the checkout is saved.
    Pending,
}

impl<S: Store> Rental<S> {
    /// The checkout of booking `code`, if one was started.
    pub fn checkout_of(&self, code: &str) -> Result<Option<Checkout>> {
        Ok(self.store.read()?.get::<Checkout>(code)?)
    }

    /// Up to `limit` checkouts whose payment is made and not settled, after booking code
    /// `after` (`""`: from the start), in code order: what reconciliation walks.
    pub fn open_checkouts(&self, after: &str, limit: usize) -> Result<Vec<Checkout>> {
        let mut open = Vec::new();
        let mut cursor = after.to_owned();
        let tx = self.store.read()?;
        while open.len() < limit {
            let page = tx.list::<Checkout>("", &cursor, 200)?;
            let Some(last) = page.last() else { break };
            cursor = last.booking.to_string();
            open.extend(page.into_iter().filter(|c| c.payment.is_some() && !c.settled));
        }
        open.truncate(limit);
        Ok(open)
    }

    /// Saves `checkout` (a new setup, a saved card, an attempt begun) without changing its
    /// booking, which must exist and not be cancelled (409 `invalid_transition`).
    pub fn save_checkout(&self, checkout: &Checkout) -> Result<()> {
        self.write(|tx| {
            let booking = booking_in::<S>(tx, checkout)?;
            if booking.status == Status::Cancelled {
                return Err(Error::InvalidTransition {
                    from: booking.status,
                    action: "checkout",
                    channel_owned: false,
                });
            }
            tx.put(checkout)?;
            Ok(())
        })
    }

    /// Saves `checkout` and applies what the provider said of its payment to the booking,
    /// in one transaction; the booking as it is after. A hold or charge for a booking that
    /// was cancelled meanwhile leaves the booking as it is: the caller releases or refunds it.
    pub fn record_checkout(&self, checkout: &Checkout, outcome: &CheckoutOutcome) -> Result<Booking> {
        let now = self.now();
        self.write(|tx| {
            let booking = booking_in::<S>(tx, checkout)?;
            tx.put(checkout)?;
            let action = match (outcome, booking.status, booking.payment_status) {
                (CheckoutOutcome::Held, Status::Pending, PaymentStatus::Unpaid) => Action::Authorize,
                (CheckoutOutcome::Paid | CheckoutOutcome::Captured, Status::Pending, _) => Action::Confirm,
                _ => return Ok(booking),
            };
            match lifecycle::apply(&booking, &action, now, now.date_naive())? {
                Outcome::Unchanged => Ok(booking),
                Outcome::Changed { booking, events } => {
                    tx.put_booking(&booking)?;
                    tx.append_events(&events)?;
                    Ok(tx.booking(booking.code.as_str())?.unwrap_or(booking))
                }
            }
        })
    }
}

fn booking_in<S: Store>(tx: &mut Tx<'_, S>, checkout: &Checkout) -> Result<Booking> {
    let code = checkout.booking.as_str();
    tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))
}
