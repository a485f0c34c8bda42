//! Free text from people and channels: the one rule every typed field follows
//! (guest names, notes, reasons, property names, codes, key names), and a visible form for terminals.
//!
//! Text ends up in e-mails, calendars, HTTP headers, HTML and terminals. A C0
//! control can break a line in any of them, a C1 control (U+009B is a
//! terminal's CSI) can drive a terminal, and a bidirectional control (U+202E)
//! reorders what a host reads. So every field refuses them, tab excepted, and
//! every field is one line: a booking's notes are a list, one line each.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::basics::field_error::FieldError;

/// The `code` of a field error for a refused character.
pub const CONTROL_CHARACTER: &str = "control_character";

/// The message of that field error.
const MESSAGE: &str = "must not contain control characters or bidirectional formatting (tab is allowed)";

/// True for a character no free-text field accepts: C0 controls but tab (line
/// breaks included), DEL, C1 controls (U+0080 to U+009F), the Unicode line and
/// paragraph separators (U+2028, U+2029), and the bidirectional marks,
/// embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A to
/// U+202E, U+2066 to U+2069).
///
/// ```
/// use rental_core::text::is_refused;
///
/// assert!(is_refused('\n') && is_refused('\u{9b}') && is_refused('\u{202e}') && is_refused('\u{7f}'));
/// assert!(!is_refused('\t') && !is_refused('é') && !is_refused('\u{200d}'));
/// ```
pub fn is_refused(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{a}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
        || matches!(c, '\u{2028}' | '\u{2029}')
        || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The field error of `field` when `text` holds a refused character.
pub fn field_error(field: &str, text: &str) -> Option<FieldError> {
    text.chars().any(is_refused).then(|| FieldError::new(field, CONTROL_CHARACTER, MESSAGE))
}

/// The field error of `field` when `text`, made for paragraphs, holds a
/// refused character other than a line break (LF, or CR which
/// [`paragraphs`] turns into LF).
///
/// ```
/// use rental_core::text::paragraph_field_error;
///
/// assert!(paragraph_field_error("notes", "Arriving late.\r\nWe have a dog.").is_none());
/// assert!(paragraph_field_error("notes", "Late\u{1b}[31m").is_some());
/// ```
pub fn paragraph_field_error(field: &str, text: &str) -> Option<FieldError> {
    let refused = |c: char| c != '\n' && c != '\r' && is_refused(c);
    text.chars().any(refused).then(|| {
        FieldError::new(field, CONTROL_CHARACTER, "must not contain control characters other than tab and line breaks")
    })
}

/// Text made for paragraphs with its line breaks as LF: a CRLF (what a browser's
/// text area sends) and a lone CR each become one LF.
///
/// ```
/// use rental_core::text::paragraphs;
///
/// assert_eq!(paragraphs("a\r\nb\rc\nd"), "a\nb\nc\nd");
/// ```
pub fn paragraphs(text: &str) -> Cow<'_, str> {
    if text.contains('\r') { Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n")) } else { Cow::Borrowed(text) }
}

/// `Ok` when `text` of `field` holds no refused character, else the fault
/// of `field` (a 422 on it, as an [`Error`](crate::Error)).
pub fn check(field: &str, text: &str) -> Result<(), FieldError> {
    field_error(field, text).map_or(Ok(()), Err)
}

/// `text` without its refused characters: for text that must be taken as it
/// comes (a channel's event summary), never typed back into an error.
pub fn scrubbed(text: &str) -> Cow<'_, str> {
    if text.chars().any(is_refused) {
        Cow::Owned(text.chars().filter(|c| !is_refused(*c)).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as a terminal shows it without obeying it: every control character
/// (tab too, which breaks a table's columns), and every refused one, written as
/// a visible escape such as `\u{9b}`; a backslash stays a backslash.
///
/// ```
/// use rental_core::text::visible;
///
/// assert_eq!(visible("A\u{9b}31mB"), "A\\u{9b}31mB");
/// assert_eq!(visible("Ann\tLee\u{202e}"), "Ann\\u{9}Lee\\u{202e}");
/// assert_eq!(visible("Zoë"), "Zoë");
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| c.is_control() || is_refused(c);
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One `@` with text on both sides, a dot in the domain, no spaces, at most 254 bytes.
pub(crate) fn looks_like_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    s.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control() || is_refused(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refused_characters_are_exactly_the_controls_but_tab_the_separators_and_the_bidi_marks() {
        let refused: Vec<u32> =
            (0..=0x10_ffff).filter_map(char::from_u32).filter(|c| is_refused(*c)).map(u32::from).collect();
        let mut want: Vec<u32> = (0..=0x1f).filter(|c| *c != 9).collect();
        want.extend(0x7f..=0x9f);
        want.extend([0x61c, 0x200e, 0x200f, 0x2028, 0x2029]);
        want.extend(0x202a..=0x202e);
        want.extend(0x2066..=0x2069);
        assert_eq!(refused, want);
    }

    #[test]
    fn a_field_with_a_refused_character_is_named_in_the_error() {
        for bad in ["Evil\r\nBEGIN:VEVENT", "A\u{9b}31mB", "\u{202e}txt.exe", "a\u{7f}", "\u{0}"] {
            let Err(fault) = check("name", bad) else { panic!("{bad:?} accepted") };
            assert_eq!((fault.field.as_str(), fault.code), ("name", CONTROL_CHARACTER), "{bad:?}");
        }
        for good in ["Ann\tLee", "Zoë Ångström", "سلام", "日本語", "👩‍👩‍👧", ""] {
            assert!(check("name", good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn paragraphs_take_line_breaks_and_nothing_else() {
        assert!(paragraph_field_error("notes", "One.\n\nTwo.\r\nThree.\tEnd").is_none());
        for bad in ["a\u{0}", "a\u{1b}[2J", "a\u{2028}b", "a\u{202e}b", "a\u{85}b"] {
            assert!(paragraph_field_error("notes", bad).is_some(), "{bad:?}");
        }
        assert!(matches!(paragraphs("no breaks\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn scrubbing_drops_only_the_refused_characters() {
        assert_eq!(scrubbed("Jane\u{202e} Doe\r\n"), "Jane Doe");
        assert!(matches!(scrubbed("Jane Doe"), Cow::Borrowed(_)));
    }
}
