//! What a property shows its guests on their stay page (docs/API.md section
//! 24): the house guide, the address once a stay is confirmed, the check-in form.

use super::check_in_form::CheckInForm;
use crate::error::FieldError;

/// The longest `guide`, in bytes.
pub const MAX_GUIDE_BYTES: usize = 20_000;
/// The longest `address`, in bytes.
pub const MAX_ADDRESS_BYTES: usize = 1_000;

/// The stay page's content of a property. Both are private: the public view
/// of a property shows neither, and the page shows the address only to a
/// confirmed stay.
///
/// ```
/// use rental_core::property::StayPageSettings;
///
/// let page = StayPageSettings::default().guide("Bins go out on Tuesdays.").address("1 Sea Road\nLisbon");
/// assert_eq!(page.address.lines().count(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StayPageSettings {
    /// The house guide: plain text in paragraphs (a blank line between two),
    /// where `http://` and `https://` addresses become links; nothing else is rendered.
    pub guide: String,
    /// The property's address, lines broken with `\n`.
    pub address: String,
    /// `checkInForm`: what the online check-in asks of the guest.
    pub check_in_form: CheckInForm,
}

impl StayPageSettings {
    /// Sets the house guide.
    #[must_use]
    pub fn guide(mut self, guide: impl Into<String>) -> Self {
        self.guide = guide.into();
        self
    }

    /// Sets the address.
    #[must_use]
    pub fn address(mut self, address: impl Into<String>) -> Self {
        self.address = address.into();
        self
    }

    /// Sets the online check-in form.
    #[must_use]
    pub fn check_in_form(mut self, form: CheckInForm) -> Self {
        self.check_in_form = form;
        self
    }

    /// The faults of these settings, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        for (field, text, max) in
            [("guide", &self.guide, MAX_GUIDE_BYTES), ("address", &self.address, MAX_ADDRESS_BYTES)]
        {
            if text.len() > max {
                errors.push(FieldError::new(field, "invalid", format!("must be at most {max} bytes")));
            }
            errors.extend(crate::basics::text::paragraph_field_error(field, text));
        }
    }
}
