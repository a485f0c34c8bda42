//! Changing a booking's dates or guests: checked, re-priced and written in
//! one transaction, or previewed as a quote first (docs/API.md section 13).

use chrono::{DateTime, Utc};

use super::bookings::promo_uses;
use super::read_model::FromStore;
use super::refusal::refuse_problems;
use super::write::Tx;
use super::{Rental, active_property};
use crate::bookings::booking::Booking;
use crate::bookings::change::{self, Change};
use crate::bookings::lifecycle::Outcome;
use crate::bookings::pricing::Quote;
use crate::error::{Error, NotFound, Result};
use crate::stays::occupancy::today_in;
use crate::store::{ReadTx, Store};

impl<S: Store> Rental<S> {
    /// What `change` would make of booking `code`: the new stay's quote, with
    /// any problems in it, writing nothing. Refused as [`Rental::update_booking`]
    /// would refuse it when the change is malformed or the booking cannot change.
    pub fn preview_change(&self, code: &str, change: &Change) -> Result<Quote> {
        let tx = self.store.read()?;
        let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
        let target = change.target(&booking)?;
        let property = active_property(&FromStore(&tx), booking.property.as_str())?.into_owned();
        let today = today_in(property.timezone, self.now());
        change::check_allowed(&booking, today)?;
        let (from, to) = crate::bookings::pricing::calendar_span(&property, target.stay);
        let calendar = tx.calendar(booking.property.as_str(), from, to)?;
        let promo_uses = match &booking.extras.promo_code {
            Some(code) => promo_uses(&tx, &property.slug, code, Some(&booking.code))?,
            None => 0,
        };
        Ok(change::quote(&booking, target, &property, &calendar, change::Moment { now: self.now(), promo_uses }))
    }
}

/// The change of `booking` inside an update's transaction.
pub(super) fn change_in<S: Store>(
    tx: &mut Tx<'_, S>,
    booking: Booking,
    change: &Change,
    now: DateTime<Utc>,
) -> Result<Booking> {
    let target = change.target(&booking)?;
    let property = active_property(&FromStore(&**tx), booking.property.as_str())?.into_owned();
    let today = today_in(property.timezone, now);
    change::check_allowed(&booking, today)?;
    if change::is_same(&booking, target) {
        return Ok(booking);
    }
    let (from, to) = crate::bookings::pricing::calendar_span(&property, target.stay);
    let calendar = tx.calendar(booking.property.as_str(), from, to)?;
    let promo_uses = match &booking.extras.promo_code {
        Some(code) => promo_uses(&**tx, &property.slug, code, Some(&booking.code))?,
        None => 0,
    };
    let quote = change::quote(&booking, target, &property, &calendar, change::Moment { now, promo_uses });
    refuse_problems(&quote.problems)?;
    match change::apply(&booking, target, &quote, now) {
        Outcome::Unchanged => Ok(booking),
        Outcome::Changed { mut booking, events } => {
            super::payments::reprice_ledger(tx, &mut booking, now)?;
            tx.put_booking(&booking)?;
            tx.append_events(&events)?;
            // As stored: a per-stay door code's window moved with the dates.
            Ok(tx.booking(booking.code.as_str())?.unwrap_or(booking))
        }
    }
}
