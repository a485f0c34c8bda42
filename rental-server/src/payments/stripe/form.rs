//! Stripe's request bodies: `application/x-www-form-urlencoded`, nested keys in brackets
//! (`metadata[booking]=…`).

use std::collections::BTreeMap;
use std::fmt::Write;

/// A form body under construction.
#[derive(Debug, Default)]
pub(super) struct Form(String);

impl Form {
    pub(super) fn new() -> Self {
        Form(String::new())
    }

    /// Appends `name=value`, both percent-encoded.
    pub(super) fn field(mut self, name: &str, value: &str) -> Self {
        if !self.0.is_empty() {
            self.0.push('&');
        }
        let _ = write!(self.0, "{}={}", encode(name), encode(value));
        self
    }

    /// Appends each entry as `metadata[key]=value`.
    pub(super) fn metadata(self, metadata: &BTreeMap<String, String>) -> Self {
        super::metadata_fields(metadata).fold(self, |form, (name, value)| form.field(&name, value))
    }

    pub(super) fn finish(self) -> String {
        self.0
    }
}

/// `text` percent-encoded for a form or a URL: unreserved characters (RFC 3986) kept, every
/// other byte as `%XX`.
pub(super) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_percent_encoded_and_joined() {
        let mut metadata = BTreeMap::new();
        metadata.insert("booking".to_owned(), "SV-2 & co".to_owned());
        let form = Form::new().field("amount", "1000").field("email", "a+b@example.com").metadata(&metadata);
        assert_eq!(form.finish(), "amount=1000&email=a%2Bb%40example.com&metadata%5Bbooking%5D=SV-2%20%26%20co");
    }
}
