//! A property's guest-message settings: the `Reply-To` address, the lead
//! times of the check-in instructions and the check-out reminder, and the
//! host's own wording of each kind.

use std::collections::BTreeMap;

use crate::basics::locale::Locale;
use crate::error::FieldError;
use crate::wording::template::{MessageTemplate, Parts};
use crate::wording::{Lead, MessageKind};

/// How a property's guest messages read and when the timed ones go out
/// (docs/API.md section 21). The default: replies go to `mailFrom`, the
/// instructions 48 h before the access window opens, the reminder 16 h before
/// check-out, every kind in its built-in wording.
///
/// ```
/// use rental_core::message::Lead;
/// use rental_core::property::MessageSettings;
///
/// let messages = MessageSettings::default().check_in_lead(Lead::parse("1d").unwrap());
/// assert_eq!(messages.check_in_lead.to_string(), "24h");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageSettings {
    /// The `Reply-To` of guest messages; empty: `mailFrom` (JSON `contactEmail`).
    pub contact_email: String,
    /// How long before the access window opens the check-in instructions go out (JSON `checkInMessage`).
    pub check_in_lead: Lead,
    /// How long before the check-out time the reminder goes out (JSON `checkOutMessage`).
    pub check_out_lead: Lead,
    /// The property's own wording, by kind; a kind left out keeps the built-in one (JSON `messages`).
    pub templates: BTreeMap<MessageKind, MessageTemplate>,
    /// The language of bookings that give none or one not built in, and of
    /// the wording at the top of each `messages` kind (JSON `language`, default `en`).
    pub language: Locale,
}

impl Default for MessageSettings {
    fn default() -> Self {
        MessageSettings {
            contact_email: String::new(),
            check_in_lead: Lead::CHECK_IN,
            check_out_lead: Lead::CHECK_OUT,
            templates: BTreeMap::new(),
            language: Locale::En,
        }
    }
}

impl MessageSettings {
    /// Sets the address guests' replies go to.
    #[must_use]
    pub fn contact_email(mut self, address: impl Into<String>) -> Self {
        self.contact_email = address.into();
        self
    }

    /// Sets how long before the access window opens the check-in instructions go out.
    #[must_use]
    pub fn check_in_lead(mut self, lead: Lead) -> Self {
        self.check_in_lead = lead;
        self
    }

    /// Sets how long before the check-out time the reminder goes out.
    #[must_use]
    pub fn check_out_lead(mut self, lead: Lead) -> Self {
        self.check_out_lead = lead;
        self
    }

    /// How long before its moment of the stay a message of timed `kind` goes
    /// out: the property's own lead for the two it sets, else the kind's
    /// default; `None` for a kind that is not timed ([`MessageKind::timing`]).
    pub fn lead(&self, kind: MessageKind) -> Option<Lead> {
        match kind {
            MessageKind::CheckInInstructions => Some(self.check_in_lead),
            MessageKind::CheckOutReminder => Some(self.check_out_lead),
            // A kind whose lead a host cannot set yet goes at its default.
            _ => kind.timing().map(|t| t.default_lead),
        }
    }

    /// Words one kind of message the property's own way.
    #[must_use]
    pub fn template(mut self, kind: MessageKind, template: MessageTemplate) -> Self {
        self.templates.insert(kind, template);
        self
    }

    /// Sets the language of bookings that give none, and of the wording at the top of each kind.
    #[must_use]
    pub fn language(mut self, language: Locale) -> Self {
        self.language = language;
        self
    }

    /// The language of a booking asking for `tag`: the language built in that
    /// it names, else the property's. A malformed tag is refused before this.
    pub fn locale_of(&self, tag: Option<&str>) -> Locale {
        tag.and_then(|t| Locale::from_tag(t).ok().flatten()).unwrap_or(self.language)
    }

    /// The host's wording of `kind` for a booking in `locale`: the kind's own
    /// parts in the property's `language`, those under `locales` in another;
    /// a part left out is the built-in one of `locale`.
    pub fn custom(&self, kind: MessageKind, locale: Locale) -> Option<Parts<'_>> {
        self.templates.get(&kind).map(|t| t.parts(locale, self.language))
    }

    /// The faults of these settings, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        let email = &self.contact_email;
        if !(email.is_empty() || crate::basics::text::looks_like_email(email)) {
            errors.push(FieldError::new("contactEmail", "invalid", "must be an e-mail address"));
        }
        errors.extend(crate::basics::text::field_error("contactEmail", email));
        errors.extend(crate::wording::template::check(&self.templates));
    }
}
