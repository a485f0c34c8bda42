//! The online check-in (docs/API.md section 24): what a guest gives on the
//! stay page, checked against the property's `checkInForm`, and kept as a record.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::clock_time::ClockTime;
use crate::basics::ids::{BookingCode, Slug};
use crate::basics::text::{field_error, looks_like_email, paragraph_field_error, paragraphs};
use crate::error::FieldError;
use crate::properties::check_in_form::{CheckInField, CheckInForm, FieldRule};

/// How long after check-out a document number is kept: then it is deleted,
/// and the rest of the check-in stays.
pub const DOCUMENT_KEPT: TimeDelta = TimeDelta::days(30);
/// The longest guest names or address, in bytes.
pub const MAX_TEXT_BYTES: usize = 1_000;
/// How many forms a check-in remembers as used: more than the posts a link
/// may make within a form's lifetime (10 an hour for 2 hours).
pub const REMEMBERED_FORMS: usize = 24;

/// The form as a guest sent it: each field's text, empty when not given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckInInput {
    /// `email`.
    pub email: String,
    /// `phone`.
    pub phone: String,
    /// `arrivalTime`, `HH:MM`.
    pub arrival_time: String,
    /// `guestNames`, one a line.
    pub guest_names: String,
    /// `address`.
    pub address: String,
    /// `documentNumber`.
    pub document_number: String,
}

impl CheckInInput {
    /// The text sent for `field`.
    pub fn get(&self, field: CheckInField) -> &str {
        match field {
            CheckInField::Email => &self.email,
            CheckInField::Phone => &self.phone,
            CheckInField::ArrivalTime => &self.arrival_time,
            CheckInField::GuestNames => &self.guest_names,
            CheckInField::Address => &self.address,
            CheckInField::DocumentNumber => &self.document_number,
        }
    }

    /// Sets the text of `field`.
    pub fn set(&mut self, field: CheckInField, text: impl Into<String>) {
        let text = text.into();
        match field {
            CheckInField::Email => self.email = text,
            CheckInField::Phone => self.phone = text,
            CheckInField::ArrivalTime => self.arrival_time = text,
            CheckInField::GuestNames => self.guest_names = text,
            CheckInField::Address => self.address = text,
            CheckInField::DocumentNumber => self.document_number = text,
        }
    }
}

/// What a guest gave, checked: each field absent when not asked or left empty.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckInAnswers {
    /// The guest's e-mail, now the booking's `guestEmail`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// A phone number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// When the guest expects to arrive, on the property's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_time: Option<ClockTime>,
    /// The names of everyone staying, one a line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_names: Option<String>,
    /// The guest's home address, lines broken with `\n`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// An identity document's number; only to keys with the `guests` scope,
    /// and deleted 30 days after check-out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_number: Option<String>,
}

/// A booking's check-in as stored: the answers, when they were given, and
/// the forms that sent them (each may be used once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckIn {
    /// The booking's property.
    pub property: Slug,
    /// The booking.
    pub booking: BookingCode,
    /// When the guest last sent the form.
    #[serde(with = "crate::basics::timestamp")]
    pub given_at: DateTime<Utc>,
    /// What was given.
    pub answers: CheckInAnswers,
    /// When the document number is to be deleted (30 days after check-out); null once it is, or without one.
    #[serde(default, with = "crate::basics::timestamp::option")]
    pub delete_document_at: Option<DateTime<Utc>>,
    /// When it was deleted; null until then.
    #[serde(default, with = "crate::basics::timestamp::option")]
    pub document_deleted_at: Option<DateTime<Utc>>,
    /// The ids of the last forms that sent it, newest last.
    #[serde(default)]
    pub forms: Vec<String>,
}

/// The record key of booking `code`'s check-in at property `slug`.
pub fn key(slug: &str, code: &str) -> String {
    format!("{slug}/{code}")
}

impl CheckIn {
    /// When its document number is to be deleted: `None` without one (or once it is).
    pub fn document_due(&self) -> Option<DateTime<Utc>> {
        self.answers.document_number.as_ref().and(self.delete_document_at)
    }

    /// This check-in without its document number, deleted at `now`.
    #[must_use]
    pub fn without_document(mut self, now: DateTime<Utc>) -> Self {
        if self.answers.document_number.take().is_some() {
            self.document_deleted_at = Some(now);
        }
        self.delete_document_at = None;
        self
    }

    /// True when the form `id` sent this check-in before.
    pub fn used(&self, id: &str) -> bool {
        self.forms.iter().any(|f| f == id)
    }
}

/// Reads `input` against `form` for a booking with or without a guest
/// e-mail (`has_email`): the answers, or every fault, each naming its field.
/// A field the form does not ask is ignored.
///
/// ```
/// use rental_core::check_in::{read, CheckInInput};
/// use rental_core::property::{CheckInField, CheckInForm, FieldRule};
///
/// let form = CheckInForm::default().with(CheckInField::Phone, FieldRule::Required);
/// let mut input = CheckInInput { arrival_time: "17:30".into(), ..CheckInInput::default() };
/// assert_eq!(read(&form, true, &input).unwrap_err()[0].field, "phone");
/// input.phone = "+351 912 345 678".into();
/// let answers = read(&form, true, &input).unwrap();
/// assert_eq!(answers.arrival_time.unwrap().to_string(), "17:30");
/// ```
pub fn read(form: &CheckInForm, has_email: bool, input: &CheckInInput) -> Result<CheckInAnswers, Vec<FieldError>> {
    let mut answers = CheckInAnswers::default();
    let mut faults = Vec::new();
    for (field, rule) in form.asked(has_email) {
        let text = input.get(field).trim();
        if text.is_empty() {
            if rule == FieldRule::Required {
                faults.push(FieldError::new(field.name(), "required", "is required"));
            }
            continue;
        }
        if let Err(fault) = answer(&mut answers, field, text) {
            faults.push(fault);
        }
    }
    if faults.is_empty() { Ok(answers) } else { Err(faults) }
}

/// Checks one given field's text and sets it on `answers`.
fn answer(answers: &mut CheckInAnswers, field: CheckInField, text: &str) -> Result<(), FieldError> {
    let name = field.name();
    let invalid = |message: &str| FieldError::new(name, "invalid", message);
    match field {
        CheckInField::Email if looks_like_email(text) => answers.email = Some(text.to_owned()),
        CheckInField::Email => return Err(FieldError::new(name, "invalid_email", "must be an e-mail address")),
        CheckInField::Phone => {
            let digits = text.chars().filter(char::is_ascii_digit).count();
            let allowed = text.chars().all(|c| c.is_ascii_digit() || " +-()./".contains(c));
            if !allowed || !(5..=20).contains(&digits) || text.len() > 40 {
                return Err(invalid("must be a phone number: 5 to 20 digits, with spaces, +, -, ( or ) between"));
            }
            answers.phone = Some(text.to_owned());
        }
        CheckInField::ArrivalTime => {
            answers.arrival_time = Some(ClockTime::parse(text).map_err(|_| invalid("must be a time, HH:MM"))?);
        }
        CheckInField::GuestNames | CheckInField::Address => {
            if text.len() > MAX_TEXT_BYTES {
                return Err(invalid(&format!("must be at most {MAX_TEXT_BYTES} bytes")));
            }
            if let Some(fault) = paragraph_field_error(name, text) {
                return Err(fault);
            }
            let text = Some(paragraphs(text).into_owned());
            if field == CheckInField::GuestNames { answers.guest_names = text } else { answers.address = text }
        }
        CheckInField::DocumentNumber => {
            if let Some(fault) = field_error(name, text) {
                return Err(fault);
            }
            let allowed = text.chars().all(|c| c.is_ascii_alphanumeric() || " -/".contains(c));
            if !allowed || text.len() > 40 {
                return Err(invalid("must be 1 to 40 letters, digits, spaces, - or /"));
            }
            answers.document_number = Some(text.to_owned());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_field(rule: FieldRule) -> CheckInForm {
        CheckInField::ALL.into_iter().fold(CheckInForm::default(), |form, f| form.with(f, rule))
    }

    #[test]
    fn each_field_is_refused_or_taken_as_its_rule_says() {
        let required = every_field(FieldRule::Required);
        let faults = read(&required, true, &CheckInInput::default()).unwrap_err();
        let names: Vec<&str> = faults.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(names, ["email", "phone", "arrivalTime", "guestNames", "address", "documentNumber"]);
        assert_eq!(
            read(&every_field(FieldRule::Optional), true, &CheckInInput::default()),
            Ok(CheckInAnswers::default())
        );
        let sent = CheckInInput { phone: "123".into(), document_number: "X1".into(), ..CheckInInput::default() };
        assert_eq!(read(&every_field(FieldRule::Off), false, &sent), Ok(CheckInAnswers::default()), "off is not read");
    }

    #[test]
    fn bad_values_name_their_field() {
        let form = every_field(FieldRule::Optional);
        for (field, text, code) in [
            (CheckInField::Email, "not-an-address", "invalid_email"),
            (CheckInField::Phone, "call me", "invalid"),
            (CheckInField::Phone, "1234", "invalid"),
            (CheckInField::ArrivalTime, "25:00", "invalid"),
            (CheckInField::ArrivalTime, "5pm", "invalid"),
            (CheckInField::GuestNames, "Ada\u{1b}[31m", "control_character"),
            (CheckInField::DocumentNumber, "<script>", "invalid"),
            (CheckInField::DocumentNumber, "A\nB", "control_character"),
        ] {
            let mut input = CheckInInput::default();
            input.set(field, text);
            let faults = read(&form, true, &input).unwrap_err();
            assert_eq!((faults[0].field.as_str(), faults[0].code), (field.name(), code), "{text:?}");
        }
        let mut input = CheckInInput::default();
        input.set(CheckInField::GuestNames, "Ada Lovelace\r\nCharles Babbage");
        let answers = read(&form, true, &input).unwrap();
        assert_eq!(answers.guest_names.as_deref(), Some("Ada Lovelace\nCharles Babbage"));
    }

    #[test]
    fn the_document_number_leaves_the_time_index_once_deleted() {
        let now: DateTime<Utc> = "2027-01-20T11:00:00Z".parse().unwrap();
        let check_in = CheckIn {
            property: "sea-view".parse().unwrap(),
            booking: BookingCode::from("BK-7QX2MF"),
            given_at: now,
            answers: CheckInAnswers { document_number: Some("X123".into()), ..CheckInAnswers::default() },
            delete_document_at: Some(now),
            document_deleted_at: None,
            forms: vec![],
        };
        assert_eq!(check_in.document_due(), Some(now));
        let gone = check_in.without_document(now);
        assert_eq!(
            (gone.document_due(), gone.answers.document_number, gone.document_deleted_at),
            (None, None, Some(now))
        );
    }
}
