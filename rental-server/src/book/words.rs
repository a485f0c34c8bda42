//! The library's refusals in a guest's words: no field names (`checkOut`),
//! no rules written for programmers ("must be 1 to 200 characters" for a
//! name of spaces), one sentence each, ending with a full stop.

use rental_core::FieldError;

/// `e` as a guest should read it; `typed` is what they typed in its field.
pub fn for_guest(e: &FieldError, typed: &str) -> String {
    let blank = typed.trim().is_empty();
    match (e.field.as_str(), e.code) {
        ("checkIn", _) if e.message == "pick a date" => "Please pick a check-in day.".to_owned(),
        ("checkOut", _) if e.message == "pick a date" => "Please pick a check-out day.".to_owned(),
        ("checkOut", "invalid_range") if e.message.contains("after") => "Check-out must be after check-in.".to_owned(),
        ("checkOut", "invalid_range") => format!("A stay can be {}.", e.message.trim_end_matches('.')),
        ("guests", _) if e.message.starts_with("must be") => "Please choose how many guests are coming.".to_owned(),
        ("guestName", "invalid") if blank => "Please enter your name.".to_owned(),
        ("guestName", "invalid") => "Please shorten your name to at most 200 characters.".to_owned(),
        ("guestEmail", _) if blank => "Please enter your e-mail address.".to_owned(),
        ("guestEmail", _) => "Please enter an e-mail address like name@example.com.".to_owned(),
        _ => sentence(&plain(&e.message)),
    }
}

/// The API's field names in a message, as people write them.
fn plain(message: &str) -> String {
    [("checkIn", "check-in"), ("checkOut", "check-out"), ("guestName", "name"), ("guestEmail", "e-mail address")]
        .iter()
        .fold(message.to_owned(), |m, (field, words)| m.replace(field, words))
}

/// Capitalized, with a full stop.
fn sentence(s: &str) -> String {
    let s = s.trim().trim_end_matches('.');
    let mut chars = s.chars();
    let first: String = chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
    format!("{first}{}.", chars.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_read_as_sentences_without_field_names() {
        let e = |field: &str, code: &'static str, message: &str| FieldError::new(field, code, message);
        let cases = [
            (e("checkOut", "invalid_range", "checkOut must be after checkIn"), "", "Check-out must be after check-in."),
            (e("checkOut", "invalid_range", "at most 366 nights"), "", "A stay can be at most 366 nights."),
            (e("guestName", "invalid", "must be 1 to 200 characters"), "   ", "Please enter your name."),
            (
                e("guestEmail", "invalid_email", "must be an e-mail address"),
                "ada@",
                "Please enter an e-mail address like name@example.com.",
            ),
            (e("checkIn", "invalid_date", "pick a date"), "", "Please pick a check-in day."),
            (e("notes", "invalid", "at most 2000 bytes"), "x", "At most 2000 bytes."),
            (e("guests", "invalid", "must be a number of guests"), "0", "Please choose how many guests are coming."),
            (e("guests", "invalid", "at most 4 guests"), "5", "At most 4 guests."),
            (e("checkIn", "x", "checkIn is before checkOut"), "", "Check-in is before check-out."),
        ];
        for (error, typed, words) in cases {
            assert_eq!(for_guest(&error, typed), words, "{error:?}");
        }
    }
}
