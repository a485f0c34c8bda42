//! The transport layer of a feed: from raw bytes to unfolded, decoded content lines.
//! Strips a UTF-8 BOM, accepts CRLF, LF and bare CR, unfolds before decoding, falls back to Latin-1.

use std::borrow::Cow;

/// The UTF-8 byte order mark some exporters put in front of the calendar.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The logical lines of `body`, blank ones left out, each unfolded and decoded on demand.
pub(crate) fn logical_lines(body: &[u8]) -> impl Iterator<Item = Folded<'_>> {
    let body = body.strip_prefix(BOM).unwrap_or(body);
    Unfold { body, physical: PhysicalLines { rest: body, at: 0 }.peekable() }.filter(|line| !line.is_blank())
}

/// One logical line: a physical line and the continuation lines folded under it.
///
/// Nothing is copied until [`Folded::text`] is asked for, so the lines a
/// reader skips after looking at their name (most of a feed's bytes, in
/// DESCRIPTIONs) cost only the scan for their line ends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Folded<'a> {
    /// From the first byte of the first line to the last byte of the last continuation.
    region: &'a [u8],
    /// The length of the first physical line.
    first: usize,
    /// Whether continuation lines follow the first.
    continued: bool,
}

impl<'a> Folded<'a> {
    /// The property name, upper-cased, when the first physical line holds all
    /// of it (it does unless a fold splits the name itself).
    pub fn name(&self) -> Option<Cow<'a, str>> {
        let first = &self.region[..self.first];
        let end = memchr::memchr2(b';', b':', first);
        let end = match end {
            Some(end) => end,
            None if self.continued => return None,
            None => first.len(),
        };
        let name = match decode(Cow::Borrowed(&first[..end])) {
            Cow::Borrowed(name) => name.trim_ascii(),
            Cow::Owned(name) => return Some(Cow::Owned(name.trim().to_ascii_uppercase())),
        };
        Some(if name.bytes().any(|b| b.is_ascii_lowercase()) {
            Cow::Owned(name.to_ascii_uppercase())
        } else {
            Cow::Borrowed(name)
        })
    }

    /// The whole line: folds undone on bytes, before decoding, so a
    /// multi-byte character split across a fold comes back whole.
    pub fn text(&self) -> Cow<'a, str> {
        if !self.continued {
            return decode(Cow::Borrowed(self.region));
        }
        let mut lines = PhysicalLines { rest: self.region, at: 0 };
        let mut joined = Vec::with_capacity(self.region.len());
        if let Some((first, _)) = lines.next() {
            joined.extend_from_slice(first);
        }
        for (line, _) in lines {
            joined.extend_from_slice(line.get(1..).unwrap_or_default());
        }
        decode(Cow::Owned(joined))
    }

    fn is_blank(&self) -> bool {
        self.region.iter().all(u8::is_ascii_whitespace)
    }
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

/// Lines as they sit in the body, split at CRLF, LF or a bare CR, each with
/// the offset just past its content (before its line end).
struct PhysicalLines<'a> {
    rest: &'a [u8],
    at: usize,
}

impl<'a> Iterator for PhysicalLines<'a> {
    type Item = (&'a [u8], usize);

    fn next(&mut self) -> Option<(&'a [u8], usize)> {
        if self.rest.is_empty() {
            return None;
        }
        let Some(end) = memchr::memchr2(b'\n', b'\r', self.rest) else {
            let line = self.rest;
            self.at += line.len();
            self.rest = &[];
            return Some((line, self.at));
        };
        let line = &self.rest[..end];
        let skip = if self.rest[end] == b'\r' && self.rest.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
        let content_end = self.at + end;
        self.at += end + skip;
        self.rest = &self.rest[end + skip..];
        Some((line, content_end))
    }
}

/// Groups each line with the continuation lines (one leading SPACE or TAB) that follow it.
struct Unfold<'a> {
    body: &'a [u8],
    physical: std::iter::Peekable<PhysicalLines<'a>>,
}

fn is_continuation(line: &[u8]) -> bool {
    matches!(line.first(), Some(b' ' | b'\t'))
}

impl<'a> Iterator for Unfold<'a> {
    type Item = Folded<'a>;

    fn next(&mut self) -> Option<Folded<'a>> {
        let (first, mut end) = self.physical.next()?;
        let start = end - first.len();
        let mut continued = false;
        while let Some((_, next_end)) = self.physical.next_if(|(next, _)| is_continuation(next)) {
            end = next_end;
            continued = true;
        }
        Some(Folded { region: &self.body[start..end], first: first.len(), continued })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &[u8]) -> Vec<String> {
        logical_lines(body).map(|line| line.text().into_owned()).collect()
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
    fn names_are_read_from_the_first_physical_line() {
        let names: Vec<Option<String>> =
            logical_lines(b"dtStart;VALUE=DATE:1\nDESCRIPTION:a\n b\nSUM\n MARY:x\nBEGIN\n")
                .map(|l| l.name().map(Cow::into_owned))
                .collect();
        assert_eq!(names, [Some("DTSTART".to_owned()), Some("DESCRIPTION".to_owned()), None, Some("BEGIN".to_owned())]);
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
