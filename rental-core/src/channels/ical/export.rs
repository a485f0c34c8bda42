//! Our calendar export, the file the channels import from us (docs/API.md section 8):
//! one all-day event per stay or block, no guest data, the same bytes for the same state.

use chrono::{DateTime, NaiveDate, Utc};
use icalendar::{Calendar, Component, EventLike, Property};
use sha2::{Digest, Sha256};

/// One stay or block to export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Busy {
    /// The booking code or block id. It is never published: the event's `UID` is a
    /// digest of it and `created_at`, so it stays the same when the dates change.
    pub holder: String,
    /// When the booking or block was made.
    pub created_at: DateTime<Utc>,
    /// The first night.
    pub start: NaiveDate,
    /// The day after the last night.
    pub end: NaiveDate,
    /// True for a booking (`Reserved`), false for a block (`Not available`).
    pub reserved: bool,
    /// When it last changed, the event's `DTSTAMP`.
    pub changed_at: DateTime<Utc>,
}

/// Our calendar export of one property: its bytes and an `ETag` that changes when they do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalendarExport {
    /// `text/calendar` with CRLF line ends and lines folded at 75 octets.
    pub body: String,
    /// A strong, quoted entity tag (`"…"`).
    pub etag: String,
}

/// Writes `busy` as the calendar of the property `name` (slug `slug`).
///
/// ```
/// use rental_core::ical::export::{calendar, Busy};
///
/// let stay = Busy {
///     holder: "BK-7QX2MF".into(),
///     created_at: "2030-10-30T09:12:45.120Z".parse().unwrap(),
///     start: "2030-12-20".parse().unwrap(),
///     end: "2030-12-27".parse().unwrap(),
///     reserved: true,
///     changed_at: "2030-11-01T10:00:00Z".parse().unwrap(),
/// };
/// let export = calendar("sea-view", "Sea View", &[stay]);
/// assert!(export.body.contains("DTSTART;VALUE=DATE:20301220\r\n"));
/// assert!(export.body.contains("SUMMARY:Reserved\r\n"));
/// assert!(!export.body.contains("BK-7QX2MF"));
/// ```
pub fn calendar(slug: &str, name: &str, busy: &[Busy]) -> CalendarExport {
    let mut cal = Calendar::empty();
    cal.append_property(("VERSION", "2.0"))
        .append_property(("PRODID", "-//rental//booking calendar//EN"))
        .append_property(("CALSCALE", "GREGORIAN"))
        .append_property(("METHOD", "PUBLISH"))
        .append_property(text_property("NAME", name))
        .append_property(text_property("X-WR-CALNAME", name));
    for item in busy {
        let event = icalendar::Event::new()
            .uid(&event_uid(slug, item))
            .timestamp(item.changed_at)
            .starts(item.start)
            .ends(item.end)
            .summary(if item.reserved { "Reserved" } else { "Not available" })
            .append_property(("TRANSP", "OPAQUE"))
            .done();
        cal.push(event);
    }
    let body = refolded(&cal.to_string());
    let etag = format!("\"{}\"", hex::encode(&Sha256::digest(body.as_bytes())[..16]));
    CalendarExport { body, etag }
}

/// `text` fit for one TEXT value: every line break (CRLF, CR or LF) becomes one
/// LF, which escaping writes as `\n`, and every other control character but tab
/// is dropped, since RFC 5545 allows none in a content line (stored text from before
/// [`crate::text`]'s rule, or a host's own edit of the store, may still hold them).
fn one_value(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    text.chars().filter(|c| *c == '\n' || *c == '\t' || !c.is_control()).collect()
}

/// `body` folded again, each line at most 75 octets with its leading space
/// (RFC 5545 section 3.1): the crate folds continuation lines at 75 octets after
/// the space, 76 in all. The crate folds with CRLF and one space, and no content
/// line of ours starts with a space (names escape their line breaks), so
/// unfolding first is exact.
fn refolded(body: &str) -> String {
    let unfolded = body.replace("\r\n ", "");
    let mut out = String::with_capacity(body.len() + body.len() / 50);
    for line in unfolded.split_terminator("\r\n") {
        fold_into(&mut out, line);
    }
    out
}

/// Appends `line` and its CRLF, folded before 75 octets on character boundaries.
fn fold_into(out: &mut String, line: &str) {
    const LIMIT: usize = 75;
    let (mut rest, mut room) = (line, LIMIT);
    while rest.len() > room {
        let mut cut = room;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push_str(&rest[..cut]);
        out.push_str("\r\n ");
        rest = &rest[cut..];
        room = LIMIT - 1;
    }
    out.push_str(rest);
    out.push_str("\r\n");
}

/// `key` with `text` as one value marked `VALUE=TEXT`, so that the crate escapes it
/// (backslash, semicolon, comma, line feed; it would write an unknown property such as
/// RFC 7986's `NAME` as given) and readers unescape it (Python's `icalendar` reads
/// both names as opaque otherwise).
fn text_property(key: &str, text: &str) -> Property {
    Property::new(key, one_value(text)).add_parameter("VALUE", "TEXT").done()
}

/// `<32 hex digits>@<slug>.rental`: the first 128 bits of a SHA-256 over the holder and
/// the instant it was made (to the millisecond). Stable for the life of a stay or block,
/// unique per holder, and no reader can get the booking code back out of it.
fn event_uid(slug: &str, item: &Busy) -> String {
    let mut digest = Sha256::new();
    digest.update(b"rental calendar event\0");
    digest.update(item.holder.as_bytes());
    digest.update(b"\0");
    digest.update(item.created_at.timestamp_millis().to_be_bytes());
    format!("{}@{slug}.rental", hex::encode(&digest.finalize()[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(holder: &str, start: &str, end: &str, reserved: bool) -> Busy {
        Busy {
            holder: holder.into(),
            created_at: "2029-12-01T10:00:00.250Z".parse().unwrap(),
            start: start.parse().unwrap(),
            end: end.parse().unwrap(),
            reserved,
            changed_at: "2030-01-01T00:00:00Z".parse().unwrap(),
        }
    }

    #[test]
    fn every_line_ends_with_crlf_and_fits_75_octets() {
        let long_name = "A very long property name that goes on and on, past seventy-five octets: é à ü";
        let body = calendar("sea-view", long_name, &[busy("BK-AAAAAA", "2030-01-01", "2030-01-03", true)]).body;
        assert!(body.ends_with("\r\n"));
        for line in body.split_terminator("\r\n") {
            assert!(!line.contains('\n') && !line.contains('\r'), "{line:?}");
            assert!(line.len() <= 75, "{} octets: {line:?}", line.len());
        }
        assert!(body.contains("\r\n "), "the long name is folded");
    }

    #[test]
    fn a_name_with_line_breaks_and_separators_stays_one_escaped_value() {
        let name = "Evil\r\nBEGIN:VEVENT\r\nSUMMARY:Injected;x,y\\z\u{9b}\u{7}";
        let body = calendar("s", name, &[]).body;
        let value = r"Evil\nBEGIN:VEVENT\nSUMMARY:Injected\;x\,y\\z";
        assert!(body.contains(&format!("\r\nNAME;VALUE=TEXT:{value}\r\n")), "{body}");
        assert!(body.contains(&format!("\r\nX-WR-CALNAME;VALUE=TEXT:{value}\r\n")), "{body}");
        assert!(!body.contains("\r\nBEGIN:VEVENT"), "no line of its own: {body}");
        assert!(!body.contains('\u{9b}') && !body.contains('\u{7}'));
    }

    #[test]
    fn the_same_state_gives_the_same_bytes_and_a_change_a_new_etag() {
        let one = [busy("BK-AAAAAA", "2030-01-01", "2030-01-03", true)];
        let moved = [busy("BK-AAAAAA", "2030-01-02", "2030-01-03", true)];
        let first = calendar("s", "S", &one);
        assert_eq!(first, calendar("s", "S", &one));
        let second = calendar("s", "S", &moved);
        assert_ne!(first.etag, second.etag);
        let uid = |body: &str| body.lines().find(|l| l.starts_with("UID:")).map(str::to_owned);
        assert_eq!(uid(&first.body), uid(&second.body), "the UID survives an edit");
    }

    #[test]
    fn blocks_say_not_available_and_dates_are_all_day() {
        let body = calendar("s", "S", &[busy("blk_1", "2030-02-01", "2030-02-02", false)]).body;
        assert!(body.contains("SUMMARY:Not available\r\n"));
        assert!(body.contains("DTSTART;VALUE=DATE:20300201\r\n"));
        assert!(body.contains("DTEND;VALUE=DATE:20300202\r\n"));
        assert!(body.contains("DTSTAMP:20300101T000000Z\r\n"));
    }
}
