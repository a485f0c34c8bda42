//! Durations as the config writes them: `90s`, `30m`, `24h`, `2d`, or
//! several parts such as `1h30m`; a bare `0` means zero (a setting that is off).

use std::fmt;
use std::time::Duration;

/// Why a text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError(String);

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a duration like 90s, 30m, 24h or 0", self.0)
    }
}

/// Reads a duration: one or more `<number><unit>` parts (units `s`, `m`, `h`, `d`), or `0`.
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let fail = || DurationError(text.to_owned());
    let s = text.trim();
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total: u64 = 0;
    let mut rest = s;
    if rest.is_empty() {
        return Err(fail());
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or_else(fail)?;
        if digits == 0 {
            return Err(fail());
        }
        let number: u64 = rest[..digits].parse().map_err(|_| fail())?;
        let unit = rest[digits..].chars().next().ok_or_else(fail)?;
        let seconds = number.checked_mul(unit_seconds(unit).ok_or_else(fail)?).ok_or_else(fail)?;
        total = total.checked_add(seconds).ok_or_else(fail)?;
        rest = &rest[digits + unit.len_utf8()..];
    }
    Ok(Duration::from_secs(total))
}

fn unit_seconds(unit: char) -> Option<u64> {
    match unit {
        's' => Some(1),
        'm' => Some(60),
        'h' => Some(3_600),
        'd' => Some(86_400),
        _ => None,
    }
}

/// Reads a comma-separated list of durations, such as the webhook retry schedule.
pub fn parse_list(text: &str) -> Result<Vec<Duration>, DurationError> {
    text.split(',').map(parse).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_seconds_minutes_hours_and_days() {
        let cases = [
            ("0", 0),
            ("0s", 0),
            ("90s", 90),
            ("30m", 1_800),
            ("24h", 86_400),
            ("2d", 172_800),
            ("1h30m", 5_400),
            (" 10s ", 10),
        ];
        for (text, seconds) in cases {
            assert_eq!(parse(text), Ok(Duration::from_secs(seconds)), "{text}");
        }
    }

    #[test]
    fn text_without_a_unit_or_with_an_unknown_one_is_refused() {
        for bad in ["", "90", "m", "10x", "1.5h", "-5m", "5 m", "h5", "99999999999999999999s", "1h30"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse("10x").unwrap_err().to_string(), r#""10x" is not a duration like 90s, 30m, 24h or 0"#);
    }

    #[test]
    fn lists_are_comma_separated() {
        assert_eq!(parse_list("10s,1m, 5m"), Ok(vec![10, 60, 300].into_iter().map(Duration::from_secs).collect()));
        assert!(parse_list("10s,,1m").is_err());
    }
}
