//! DATE, DATE-TIME, DURATION and UTC-offset values, read strictly by shape (RFC 5545 §3.3).
//! A value that does not have the shape is `None`: the caller counts its event as invalid.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};

/// A DATE or DATE-TIME value, before any time zone is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Stamp {
    /// An all-day DATE.
    Date(NaiveDate),
    /// A DATE-TIME; `utc` when it ends in `Z`, else local to its `TZID` (or floating).
    DateTime { at: NaiveDateTime, utc: bool },
}

impl Stamp {
    /// The calendar date the value names, in its own zone.
    pub fn date(self) -> NaiveDate {
        match self {
            Stamp::Date(date) => date,
            Stamp::DateTime { at, .. } => at.date(),
        }
    }

    /// The value as a wall-clock time (midnight for a DATE).
    pub fn wall(self) -> NaiveDateTime {
        match self {
            Stamp::Date(date) => date.and_time(NaiveTime::MIN),
            Stamp::DateTime { at, .. } => at,
        }
    }

    /// The same kind of value at wall-clock time `at` (a DATE keeps only the date).
    pub fn with_wall(self, at: NaiveDateTime) -> Stamp {
        match self {
            Stamp::Date(_) => Stamp::Date(at.date()),
            Stamp::DateTime { utc, .. } => Stamp::DateTime { at, utc },
        }
    }
}

/// Reads `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]`. `VALUE=DATE` on a date-time keeps its date.
pub(crate) fn parse_stamp(raw: &str, value_is_date: bool) -> Option<Stamp> {
    let raw = raw.trim();
    let date = parse_date(raw.get(..8)?)?;
    if raw.len() == 8 {
        return Some(Stamp::Date(date));
    }
    let rest = raw.get(8..)?;
    let rest = rest.strip_prefix(['T', 't'])?;
    let (time, utc) = match rest.strip_suffix(['Z', 'z']) {
        Some(time) => (time, true),
        None => (rest, false),
    };
    if time.len() != 6 || !time.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hour = number(&time[0..2])?;
    let minute = number(&time[2..4])?;
    // RFC 5545 allows a leap second (60); it is read as the last second of the minute.
    let second = number(&time[4..6])?.min(59);
    let at = date.and_time(NaiveTime::from_hms_opt(hour, minute, second)?);
    Some(if value_is_date { Stamp::Date(date) } else { Stamp::DateTime { at, utc } })
}

fn parse_date(raw: &str) -> Option<NaiveDate> {
    if raw.len() != 8 || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    NaiveDate::from_ymd_opt(number(&raw[0..4])? as i32, number(&raw[4..6])?, number(&raw[6..8])?)
}

fn number(digits: &str) -> Option<u32> {
    digits.parse().ok()
}

/// Reads a DURATION such as `P3D`, `P1W`, `PT2H30M`, `-P1DT12H`.
///
/// Lenient where real feeds are wrong: weeks in the time part (`PT1W`, sent by
/// Synology) are read as weeks, and weeks may be combined with other units.
pub(crate) fn parse_duration(raw: &str) -> Option<Duration> {
    let raw = raw.trim();
    let (negative, raw) = match raw.as_bytes().first()? {
        b'-' => (true, &raw[1..]),
        b'+' => (false, &raw[1..]),
        _ => (false, raw),
    };
    let body = raw.strip_prefix(['P', 'p'])?;
    let mut total = Duration::zero();
    let mut in_time = false;
    let mut digits = String::new();
    let mut any_unit = false;
    for c in body.chars() {
        match c.to_ascii_uppercase() {
            '0'..='9' if digits.len() < 9 => digits.push(c),
            'T' if digits.is_empty() && !in_time => in_time = true,
            unit @ ('W' | 'D' | 'H' | 'M' | 'S') if !digits.is_empty() => {
                let n: i64 = digits.parse().ok()?;
                digits.clear();
                total = total.checked_add(&unit_duration(unit, n, in_time)?)?;
                any_unit = true;
            }
            _ => return None,
        }
    }
    if !digits.is_empty() || !any_unit {
        return None;
    }
    Some(if negative { -total } else { total })
}

fn unit_duration(unit: char, n: i64, in_time: bool) -> Option<Duration> {
    match (unit, in_time) {
        ('W', _) => Duration::try_weeks(n),
        ('D', false) => Duration::try_days(n),
        ('H', true) => Duration::try_hours(n),
        ('M', true) => Duration::try_minutes(n),
        ('S', true) => Duration::try_seconds(n),
        _ => None,
    }
}

/// Reads a UTC offset `+HHMM` or `+HHMMSS` as seconds east of UTC.
pub(crate) fn parse_offset(raw: &str) -> Option<i32> {
    let raw = raw.trim();
    let sign = match raw.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits = &raw[1..];
    if !(digits.len() == 4 || digits.len() == 6) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours = number(&digits[0..2])? as i32;
    let minutes = number(&digits[2..4])? as i32;
    let seconds = digits.get(4..6).map_or(Some(0), number)? as i32;
    if hours > 23 || minutes > 59 || seconds > 59 {
        return None;
    }
    Some(sign * (hours * 3600 + minutes * 60 + seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("a date")
    }

    #[test]
    fn dates_and_date_times_are_read_by_shape() {
        assert_eq!(parse_stamp("20240215", false), Some(Stamp::Date(date(2024, 2, 15))));
        let at = date(2026, 12, 28).and_hms_opt(15, 0, 0).expect("a time");
        assert_eq!(parse_stamp("20261228T150000Z", false), Some(Stamp::DateTime { at, utc: true }));
        assert_eq!(parse_stamp("20261228T150000", false), Some(Stamp::DateTime { at, utc: false }));
        assert_eq!(parse_stamp("20261228T150000", true), Some(Stamp::Date(date(2026, 12, 28))));
    }

    #[test]
    fn malformed_dates_are_not_read() {
        for raw in ["2025-06-21T000000Z", "20250231", "2025062", "20250621T0000", "20250621X000000", "", "éééééééé"]
        {
            assert_eq!(parse_stamp(raw, false), None, "{raw}");
        }
    }

    #[test]
    fn duration_forms() {
        let cases = [
            ("P3D", Some(Duration::days(3))),
            ("P1W", Some(Duration::weeks(1))),
            ("PT1W", Some(Duration::weeks(1))),
            ("P2DT20H", Some(Duration::days(2) + Duration::hours(20))),
            ("PT1H30M15S", Some(Duration::seconds(5415))),
            ("-P1D", Some(Duration::days(-1))),
            ("+P1D", Some(Duration::days(1))),
            ("P", None),
            ("PT", None),
            ("P1", None),
            ("P1H", None),
            ("3D", None),
            ("P99999999999D", None),
            (&"P999999999W".repeat(40)[..], None),
        ];
        for (raw, expected) in cases {
            assert_eq!(parse_duration(raw), expected, "{raw}");
        }
    }

    #[test]
    fn utc_offsets() {
        assert_eq!(parse_offset("+0100"), Some(3600));
        assert_eq!(parse_offset("-0330"), Some(-12600));
        assert_eq!(parse_offset("+000921"), Some(561));
        assert_eq!(parse_offset("0100"), None);
        assert_eq!(parse_offset("+2500"), None);
    }
}
