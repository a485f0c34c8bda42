//! One field at fault, named as in JSON: the common part of every area's
//! validation errors, which the crate's `Error` collects.

/// One field at fault in a [`Error::Validation`](crate::Error::Validation).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    /// The field's name as it appears in JSON (`checkIn`, `guests`, ...).
    pub field: String,
    /// A stable code: `required`, `invalid_date`, `min_nights`, `max_guests`, ...
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl FieldError {
    /// A field error.
    pub fn new(field: &str, code: &'static str, message: impl Into<String>) -> Self {
        FieldError { field: field.to_owned(), code, message: message.into() }
    }
}
