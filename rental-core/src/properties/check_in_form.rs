//! The online check-in form a property asks its guests to fill in on the
//! stay page (docs/API.md section 24): per field `required`, `optional` or `off`.

use serde::{Deserialize, Serialize};

/// Whether the form asks for a field, and whether the guest must give it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldRule {
    /// Asked, and the form is refused without it.
    Required,
    /// Asked; the guest may leave it empty.
    Optional,
    /// Not asked.
    #[default]
    Off,
}

/// A field of the check-in form, in the order the page asks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckInField {
    /// `email`: becomes the booking's `guestEmail`.
    Email,
    /// `phone`.
    Phone,
    /// `arrivalTime`: when the guest expects to arrive, `HH:MM` on the property's clock.
    ArrivalTime,
    /// `guestNames`: the names of everyone staying, one a line.
    GuestNames,
    /// `address`: the guest's home address.
    Address,
    /// `documentNumber`: an identity document's number (what police
    /// registration asks for in Spain and Italy); kept 30 days after check-out.
    DocumentNumber,
}

impl CheckInField {
    /// Every field, in the form's order.
    pub const ALL: [CheckInField; 6] = [
        CheckInField::Email,
        CheckInField::Phone,
        CheckInField::ArrivalTime,
        CheckInField::GuestNames,
        CheckInField::Address,
        CheckInField::DocumentNumber,
    ];

    /// The field's JSON (and form) name.
    pub fn name(self) -> &'static str {
        match self {
            CheckInField::Email => "email",
            CheckInField::Phone => "phone",
            CheckInField::ArrivalTime => "arrivalTime",
            CheckInField::GuestNames => "guestNames",
            CheckInField::Address => "address",
            CheckInField::DocumentNumber => "documentNumber",
        }
    }
}

/// The property field `checkInForm`. An import that leaves a field out
/// gets its default: `arrivalTime` optional, the others off, and `email`
/// (left out) required of a booking without `guestEmail` (a channel's),
/// so that such a guest's address reaches the host and the messages.
///
/// ```
/// use rental_core::property::{CheckInField, CheckInForm, FieldRule};
///
/// let form = CheckInForm::default();
/// assert_eq!(form.rule(CheckInField::ArrivalTime, true), FieldRule::Optional);
/// assert_eq!(form.rule(CheckInField::Email, true), FieldRule::Off);
/// assert_eq!(form.rule(CheckInField::Email, false), FieldRule::Required);
/// assert!(form.has_required(false) && !form.has_required(true));
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[non_exhaustive]
pub struct CheckInForm {
    /// The guest's e-mail; absent: required of a booking without `guestEmail`, else off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<FieldRule>,
    /// A phone number.
    pub phone: FieldRule,
    /// The expected arrival time.
    pub arrival_time: FieldRule,
    /// The names of everyone staying.
    pub guest_names: FieldRule,
    /// The guest's home address.
    pub address: FieldRule,
    /// An identity document's number.
    pub document_number: FieldRule,
}

impl Default for CheckInForm {
    fn default() -> Self {
        CheckInForm {
            email: None,
            phone: FieldRule::Off,
            arrival_time: FieldRule::Optional,
            guest_names: FieldRule::Off,
            address: FieldRule::Off,
            document_number: FieldRule::Off,
        }
    }
}

impl CheckInForm {
    /// Sets the rule of `field`.
    #[must_use]
    pub fn with(mut self, field: CheckInField, rule: FieldRule) -> Self {
        match field {
            CheckInField::Email => self.email = Some(rule),
            CheckInField::Phone => self.phone = rule,
            CheckInField::ArrivalTime => self.arrival_time = rule,
            CheckInField::GuestNames => self.guest_names = rule,
            CheckInField::Address => self.address = rule,
            CheckInField::DocumentNumber => self.document_number = rule,
        }
        self
    }

    /// The rule of `field` for a booking that has a guest e-mail (`has_email`) or not.
    pub fn rule(&self, field: CheckInField, has_email: bool) -> FieldRule {
        match field {
            CheckInField::Email => self.email.unwrap_or(if has_email { FieldRule::Off } else { FieldRule::Required }),
            CheckInField::Phone => self.phone,
            CheckInField::ArrivalTime => self.arrival_time,
            CheckInField::GuestNames => self.guest_names,
            CheckInField::Address => self.address,
            CheckInField::DocumentNumber => self.document_number,
        }
    }

    /// The fields asked of such a booking's guest, with their rules, in order.
    pub fn asked(&self, has_email: bool) -> Vec<(CheckInField, FieldRule)> {
        CheckInField::ALL
            .into_iter()
            .map(|f| (f, self.rule(f, has_email)))
            .filter(|(_, rule)| *rule != FieldRule::Off)
            .collect()
    }

    /// True when the form has a required field for such a booking: the
    /// access details then wait for it (docs/API.md section 24).
    pub fn has_required(&self, has_email: bool) -> bool {
        self.asked(has_email).iter().any(|(_, rule)| *rule == FieldRule::Required)
    }

    /// True at the defaults: the property's JSON then leaves the field out.
    pub fn is_default(&self) -> bool {
        *self == CheckInForm::default()
    }
}
