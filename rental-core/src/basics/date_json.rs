//! Dates as `"YYYY-MM-DD"`: read strictly (the one date syntax the API accepts)
//! and written without the formatting machinery, since availability answers carry hundreds.

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Deserializer, Serializer};

/// A date written exactly `YYYY-MM-DD`: a four-digit year from 0001 to 9999, a
/// two-digit month and day.
///
/// chrono's own parser also takes `2027-1-5`, `+2027-03-01`, `+10000-01-03` and the
/// year `0000` (1 BC in the proleptic calendar, which no booking, feed or reader
/// means); requests, queries and commands read dates here instead, so none of those get in.
///
/// ```
/// use rental_core::parse_date;
///
/// assert_eq!(parse_date("2027-01-05"), "2027-01-05".parse().ok());
/// for bad in ["2027-1-5", "+2027-03-01", "+10000-01-03", "2027-02-30", "0000-01-01", "2027-01-05 ", ""] {
///     assert_eq!(parse_date(bad), None, "{bad:?}");
/// }
/// ```
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    let shape_ok = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shape_ok {
        return None;
    }
    let number = |range: std::ops::Range<usize>| s[range].parse::<u32>().ok();
    let year = number(0..4).filter(|y| *y >= 1)?;
    NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, number(5..7)?, number(8..10)?)
}

/// Deserialises a request's date with [`parse_date`].
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<NaiveDate, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_date(&text).ok_or_else(|| {
        serde::de::Error::custom(format!("{text:?} is not a date written YYYY-MM-DD (years 0001 to 9999)"))
    })
}

/// Deserialises an optional request date with [`parse_date`] (`null` is none).
pub(crate) fn deserialize_opt<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<NaiveDate>, D::Error> {
    let Some(text) = Option::<String>::deserialize(deserializer)? else { return Ok(None) };
    let date = parse_date(&text);
    date.map(Some).ok_or_else(|| {
        serde::de::Error::custom(format!("{text:?} is not a date written YYYY-MM-DD (years 0001 to 9999)"))
    })
}

/// Serialises `date` as `"YYYY-MM-DD"`.
#[expect(clippy::trivially_copy_pass_by_ref, reason = "serde's serialize_with hands over a reference")]
pub(crate) fn serialize<S: Serializer>(date: &NaiveDate, serializer: S) -> Result<S::Ok, S::Error> {
    match ymd(*date) {
        Some(buf) => serializer.serialize_str(std::str::from_utf8(&buf).unwrap_or_default()),
        None => serializer.collect_str(date),
    }
}

/// `YYYY-MM-DD` as bytes, for years 0 to 9999 (others need chrono's `+10000-01-01` form).
pub(crate) fn ymd(date: NaiveDate) -> Option<[u8; 10]> {
    let year = u16::try_from(date.year()).ok().filter(|y| *y <= 9999)?;
    let mut buf = *b"0000-00-00";
    write_digits(&mut buf[0..4], u32::from(year));
    write_digits(&mut buf[5..7], date.month());
    write_digits(&mut buf[8..10], date.day());
    Some(buf)
}

fn write_digits(out: &mut [u8], mut n: u32) {
    for slot in out.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct D(#[serde(serialize_with = "super::serialize")] chrono::NaiveDate);

    #[test]
    fn dates_are_written_as_chrono_writes_them() {
        for s in ["2026-12-01", "0001-01-01", "9999-12-31", "2024-02-29"] {
            let d: chrono::NaiveDate = s.parse().unwrap();
            assert_eq!(serde_json::to_string(&D(d)).unwrap(), serde_json::to_string(&d).unwrap(), "{s}");
        }
        let far = chrono::NaiveDate::from_ymd_opt(10_000, 1, 1).unwrap();
        assert_eq!(serde_json::to_string(&D(far)).unwrap(), serde_json::to_string(&far).unwrap());
    }
}
