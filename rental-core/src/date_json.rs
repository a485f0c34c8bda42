//! Dates as JSON `"YYYY-MM-DD"`, written without the formatting machinery:
//! availability answers carry hundreds of them, so this is on the hot path.

use chrono::{Datelike, NaiveDate};
use serde::Serializer;

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
