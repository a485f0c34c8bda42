//! The online check-in's use cases (docs/API.md section 24): a guest's form
//! from the stay page, reading what was given, and deleting document numbers.

use chrono::{DateTime, Utc};

use super::Rental;
use crate::bookings::booking::{Booking, Status};
use crate::bookings::event::Event;
use crate::error::{Error, FieldError, NotFound, Result};
use crate::outbox::message::timing::departure;
use crate::stays::check_in::{self, CheckIn, CheckInInput, DOCUMENT_KEPT, REMEMBERED_FORMS};
use crate::store::{ReadRecords, ReadTx, Store};

/// The online check-in of every booking, from [`Rental::check_ins`].
#[derive(Debug)]
pub struct CheckIns<'r, S>(pub(super) &'r Rental<S>);

impl<S> Clone for CheckIns<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for CheckIns<'_, S> {}

impl<S: Store> CheckIns<'_, S> {
    /// Records the check-in form `form` (an id the caller gives each form it
    /// hands out) sent for booking `code`, as the property's `checkInForm`
    /// asks: the answers replace any earlier ones, the booking gets
    /// `checkInFormAt`, and an e-mail given becomes its `guestEmail`, which
    /// starts its guest messages (`booking.updated` names what changed).
    ///
    /// A form already used for this booking, or any fault of a field, is a
    /// [`Error::Validation`] (the form's as `form`, `used`) and changes nothing;
    /// a cancelled booking takes no check-in.
    pub fn submit(self, code: &str, input: &CheckInInput, form: &str) -> Result<Booking> {
        let now = self.0.now();
        self.0.write(|tx| {
            let mut booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            if booking.status == Status::Cancelled {
                return Err(Error::InvalidTransition {
                    from: booking.status,
                    action: "check_in_form",
                    channel_owned: false,
                });
            }
            let slug = booking.property.as_str().to_owned();
            let property = tx.property(&slug)?.ok_or_else(|| Error::NotFound(NotFound::Property(slug.clone())))?;
            let earlier = tx.get::<CheckIn>(&check_in::key(&slug, code))?;
            if earlier.as_ref().is_some_and(|c| c.used(form)) {
                return Err(Error::Validation(vec![FieldError::new("form", "used", "this form was sent already")]));
            }
            let form_rules = &property.access.stay_page.check_in_form;
            let answers =
                check_in::read(form_rules, !booking.guest_email.is_empty(), input).map_err(Error::Validation)?;
            let mut forms = earlier.map(|c| c.forms).unwrap_or_default();
            forms.push(form.to_owned());
            let excess = forms.len().saturating_sub(REMEMBERED_FORMS);
            forms.drain(..excess);
            let delete_at = departure(&property, booking.check_out()) + DOCUMENT_KEPT;
            let record = CheckIn {
                property: booking.property.clone(),
                booking: booking.code.clone(),
                given_at: now,
                answers,
                delete_document_at: Some(delete_at),
                document_deleted_at: None,
                forms,
            };
            // A stay more than 30 days gone keeps no document number at all.
            let record = if delete_at <= now { record.without_document(now) } else { record };
            let mut changes = vec!["checkInFormAt"];
            if let Some(email) = record.answers.email.as_ref().filter(|e| **e != booking.guest_email) {
                booking.guest_email.clone_from(email);
                changes.push("guestEmail");
            }
            booking.visit.check_in_form_at = Some(now);
            booking.updated_at = now;
            tx.put(&record)?;
            tx.put_booking(&booking)?;
            tx.append_events(&[Event::updated(&booking, &changes, now)])?;
            Ok(booking)
        })
    }

    /// What booking `code`'s guest gave on the check-in form, if anything.
    pub fn get(self, code: &str) -> Result<Option<CheckIn>> {
        let tx = self.0.store.read()?;
        let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
        Ok(tx.get::<CheckIn>(&check_in::key(booking.property.as_str(), code))?)
    }

    /// Deletes up to `limit` document numbers whose 30 days after check-out
    /// ended by `now`; the rest of each check-in stays. Returns how many.
    pub(super) fn delete_documents(self, now: DateTime<Utc>, limit: usize) -> Result<usize> {
        self.0.write(|tx| {
            let due = tx.due::<CheckIn>(now, limit)?;
            for record in &due {
                tx.put(&record.clone().without_document(now))?;
            }
            Ok(due.len())
        })
    }
}
