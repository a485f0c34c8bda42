//! The library's refusals in a guest's words: no field names (`checkOut`),
//! no rules written for programmers ("must be 1 to 200 characters" for a
//! name of spaces), one sentence each, ending with a full stop.

use rental_core::{FieldError, Locale};

/// `e` as a guest should read it in `lang`; `typed` is what they typed in its
/// field. A refusal without words of its own keeps the library's English.
pub fn for_guest(e: &FieldError, typed: &str, lang: Locale) -> String {
    let blank = typed.trim().is_empty();
    let w = crate::lang::words(lang);
    let [check_in, check_out, after, guests, name, shorter, email, like] = w.form_refusals;
    let said = match (e.field.as_str(), e.code) {
        ("checkIn", _) if e.message == "pick a date" => check_in,
        ("checkOut", _) if e.message == "pick a date" => check_out,
        ("checkOut", "invalid_range") if e.message.contains("after") => after,
        ("checkOut", "invalid_range") => return (w.stay_can_be)(e.message.trim_end_matches('.')),
        ("guests", _) if e.message.starts_with("must be") => guests,
        ("guestName", "invalid") if blank => name,
        ("guestName", "invalid") => shorter,
        ("guestEmail", _) if blank => email,
        ("guestEmail", _) => like,
        _ => return sentence(&plain(&e.message)),
    };
    said.to_owned()
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
            assert_eq!(for_guest(&error, typed, Locale::En), words, "{error:?}");
        }
    }
}
