//! Editing a property's settings (rates, seasons, fees, rules, access) in one
//! write, checked as an import checks it; the admin dashboard's property form.

use chrono::{DateTime, Utc};

use super::Rental;
use crate::bookings::booking::{BookingQuery, Status};
use crate::bookings::pricing::{self, Asked, Quote};
use crate::error::{Error, FieldError, NotFound, Result};
use crate::properties::property::Property;
use crate::stays::occupancy::today_in;
use crate::store::{ReadTx, Store};

impl<S: Store> Rental<S> {
    /// Reads property `slug` (active or not), lets `edit` change it (again, if
    /// the store asks for the write to be retried), checks the
    /// result with [`Property::validate`] and stores it, all in one write
    /// transaction. The slug cannot change. A refused edit writes nothing.
    /// A currency change is refused while the property has bookings to come
    /// (422 `currency_locked` on `currency`).
    pub fn edit_property(&self, slug: &str, edit: impl Fn(&mut Property)) -> Result<Property> {
        let now = self.now();
        self.write(|tx| {
            let mut property =
                tx.property(slug)?.ok_or_else(|| Error::NotFound(NotFound::Property(slug.to_owned())))?;
            let before = property.clone();
            let slug = property.slug.clone();
            edit(&mut property);
            property.slug = slug;
            property.validate()?;
            refuse_currency_change(&**tx, Some(&before), &property, now)?;
            tx.put_property(&property)?;
            Ok(property)
        })
    }
}

impl<S: Store> Rental<S> {
    /// What a guest would be quoted for `asked` if `edited` were saved: the
    /// property editor's preview of rules not yet stored, priced by the one
    /// quote function against the calendar (and a promo code's uses) stored
    /// now. Writes nothing; `edited` should have passed [`Property::validate`].
    pub fn preview_quote(&self, edited: &Property, asked: &Asked<'_>) -> Result<Quote> {
        let tx = self.store.read()?;
        let (from, to) = pricing::calendar_span(edited, asked.stay);
        let calendar = tx.calendar(edited.slug.as_str(), from, to)?;
        let promo_uses = match asked.promo_code {
            Some(code) => super::bookings::promo_uses(&tx, &edited.slug, code, None)?,
            None => 0,
        };
        Ok(pricing::quote(edited, asked, &pricing::Facts { now: self.now(), calendar: &calendar, promo_uses }))
    }
}

/// Refuses to change a property's currency while it has a booking, pending
/// or confirmed, with a night today or later (in its time zone): such a
/// booking's total, schedule and refunds are in the old currency, and a
/// booking keeps its currency (docs/API.md section 23). A 422 naming
/// `currency` (`currency_locked`), since the property as sent breaks a rule
/// of the store's present state, as a stay over a booked night would.
pub(super) fn refuse_currency_change(
    tx: &impl ReadTx,
    before: Option<&Property>,
    after: &Property,
    now: DateTime<Utc>,
) -> Result<()> {
    let Some(before) = before.filter(|b| b.currency != after.currency) else { return Ok(()) };
    let query = BookingQuery {
        statuses: vec![Status::Pending, Status::Confirmed],
        property: Some(before.slug.clone()),
        from: Some(today_in(before.timezone, now)),
        limit: 1,
        ..BookingQuery::default()
    };
    match tx.bookings(&query)?.first() {
        None => Ok(()),
        Some(b) => Err(Error::Validation(vec![FieldError::new(
            "currency",
            "currency_locked",
            format!("cannot change from {} while bookings are to come ({} and maybe others)", before.currency, b.code),
        )])),
    }
}
