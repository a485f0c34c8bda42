//! The transport layer of a feed: from raw bytes to unfolded, decoded content lines.
//! Strips a UTF-8 BOM, accepts CRLF, LF and bare CR, unfolds before decoding, falls back to Latin-1.

use std::borrow::Cow;

/// The UTF-8 byte order mark some exporters put in front of the calendar.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The logical (unfolded) lines of `body`, decoded to text, blank ones left out.
///
/// Folding is undone on bytes, before decoding, so a multi-byte character
/// split across a fold comes back whole.
pub(crate) fn logical_lines(body: &[u8]) -> impl Iterator<Item = Cow<'_, str>> {
    Unfold { physical: PhysicalLines { rest: body.strip_prefix(BOM).unwrap_or(body) }.peekable() }
        .map(decode)
        .filter(|line| !line.trim().is_empty())
}

/// Text of a line: UTF-8 when it is, otherwise each byte as its Latin-1 character.
pub(crate) fn decode(line: Cow<'_, [u8]>) -> Cow<'_, str> {
    match line {
        Cow::Borrowed(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => Cow::Owned(latin1(bytes)),
        },
        Cow::Owned(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Cow::Owned(text),
            Err(error) => Cow::Owned(latin1(error.as_bytes())),
        },
    }
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&byte| char::from(byte)).collect()
}

/// Lines as they sit in the body, split at CRLF, LF or a bare CR.
struct PhysicalLines<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for PhysicalLines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        let Some(at) = self.rest.iter().position(|&b| b == b'\n' || b == b'\r') else {
            let line = self.rest;
            self.rest = &[];
            return Some(line);
        };
        let line = &self.rest[..at];
        let skip = if self.rest[at] == b'\r' && self.rest.get(at + 1) == Some(&b'\n') { 2 } else { 1 };
        self.rest = &self.rest[at + skip..];
        Some(line)
    }
}

/// Joins each line with the continuation lines (one leading SPACE or TAB) that follow it.
struct Unfold<'a> {
    physical: std::iter::Peekable<PhysicalLines<'a>>,
}

fn is_continuation(line: &[u8]) -> bool {
    matches!(line.first(), Some(b' ' | b'\t'))
}

impl<'a> Iterator for Unfold<'a> {
    type Item = Cow<'a, [u8]>;

    fn next(&mut self) -> Option<Cow<'a, [u8]>> {
        let first = self.physical.next()?;
        let mut line = Cow::Borrowed(first);
        while let Some(next) = self.physical.next_if(|next| is_continuation(next)) {
            line.to_mut().extend_from_slice(&next[1..]);
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &[u8]) -> Vec<String> {
        logical_lines(body).map(Cow::into_owned).collect()
    }

    #[test]
    fn crlf_lf_and_bare_cr_all_end_a_line() {
        assert_eq!(lines(b"A:1\r\nB:2\nC:3\rD:4"), ["A:1", "B:2", "C:3", "D:4"]);
    }

    #[test]
    fn folds_are_undone_across_crlf_and_lf() {
        assert_eq!(lines(b"DESCRIPTION:de\r\n tails\r\nX:1"), ["DESCRIPTION:details", "X:1"]);
        assert_eq!(lines(b"DESCRIPTION:de\n tails\nX:1"), ["DESCRIPTION:details", "X:1"]);
    }

    #[test]
    fn a_tab_folds_too_and_only_one_blank_is_removed() {
        assert_eq!(lines(b"SUMMARY:a\r\n\tb\r\n  c"), ["SUMMARY:ab c"]);
    }

    #[test]
    fn a_fold_on_bare_cr_is_undone() {
        assert_eq!(lines(b"SUMMARY:ab\r cd\rX:1"), ["SUMMARY:abcd", "X:1"]);
    }

    #[test]
    fn a_utf8_character_split_by_a_fold_comes_back_whole() {
        assert_eq!(
            lines("SUMMARY:R\u{e9}serv\u{e9}e".replace("\u{e9}s", "\u{e9}\r\n s").as_bytes()),
            ["SUMMARY:R\u{e9}serv\u{e9}e"]
        );
        let split = b"SUMMARY:caf\xC3\r\n \xA9";
        assert_eq!(lines(split), ["SUMMARY:caf\u{e9}"]);
    }

    #[test]
    fn the_bom_is_stripped() {
        assert_eq!(lines(b"\xEF\xBB\xBFBEGIN:VCALENDAR\r\n"), ["BEGIN:VCALENDAR"]);
    }

    #[test]
    fn latin1_bytes_are_read_as_latin1() {
        assert_eq!(lines(b"SUMMARY:Ferm\xE9\r\n"), ["SUMMARY:Ferm\u{e9}"]);
    }

    #[test]
    fn blank_and_whitespace_lines_are_left_out() {
        assert_eq!(lines(b"\nA:1\r\n\r\n   \nB:2\n"), ["A:1", "B:2"]);
    }
}
