//! How long before an arrival or a departure a message goes out: the
//! property fields `checkInMessage` (default `48h`) and `checkOutMessage` (`16h`).

use std::fmt;

use chrono::TimeDelta;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest lead accepted: 30 days.
pub const MAX_LEAD_MINUTES: u32 = 30 * 24 * 60;

/// A lead time in whole minutes, written like `48h`, `90m`, `2d`, `1h30m` or `0`.
///
/// ```
/// use rental_core::message::Lead;
/// let lead = Lead::parse("1d12h").unwrap();
/// assert_eq!((lead.minutes(), lead.to_string()), (2160, "36h".to_owned()));
/// assert!(Lead::parse("48").is_none() && Lead::parse("31d").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lead(u32);

impl Lead {
    /// The default `checkInMessage`: 48 hours before the access window opens.
    pub const CHECK_IN: Lead = Lead(48 * 60);
    /// The default `checkOutMessage`: 16 hours before the check-out time.
    pub const CHECK_OUT: Lead = Lead(16 * 60);

    /// Reads `<number><unit>` parts (units `m`, `h`, `d`) or `0`; at most 30 days.
    pub fn parse(text: &str) -> Option<Lead> {
        if text == "0" {
            return Some(Lead(0));
        }
        let (mut total, mut rest) = (0u32, text);
        if rest.is_empty() {
            return None;
        }
        while !rest.is_empty() {
            let digits = rest.find(|c: char| !c.is_ascii_digit())?;
            let number: u32 = rest.get(..digits).filter(|d| !d.is_empty())?.parse().ok()?;
            let unit = match rest.as_bytes()[digits] {
                b'm' => 1,
                b'h' => 60,
                b'd' => 24 * 60,
                _ => return None,
            };
            total = total.checked_add(number.checked_mul(unit)?)?;
            rest = &rest[digits + 1..];
        }
        (total <= MAX_LEAD_MINUTES).then_some(Lead(total))
    }

    /// The lead in minutes.
    pub fn minutes(self) -> u32 {
        self.0
    }

    /// The lead as a duration.
    pub fn delta(self) -> TimeDelta {
        TimeDelta::minutes(self.0.into())
    }
}

impl fmt::Display for Lead {
    /// Whole hours as `48h`, else minutes as `90m`; zero as `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("0"),
            m if m % 60 == 0 => write!(f, "{}h", m / 60),
            m => write!(f, "{m}m"),
        }
    }
}

impl Serialize for Lead {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Lead {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Lead::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!("{s:?} is not a lead time like 48h, 90m or 2d (at most 30d)"))
        })
    }
}

/// `48h`, `90m`, `2d`, `1h30m` or `0`; at most 30 days.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Lead {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Lead".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^(0|([0-9]+[mhd])+)$", "examples": ["48h"]})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leads_read_in_minutes_hours_and_days_and_write_back_the_same() {
        let cases = [("0", 0), ("90m", 90), ("48h", 2880), ("2d", 2880), ("1h30m", 90), ("30d", 43_200)];
        for (text, minutes) in cases {
            assert_eq!(Lead::parse(text).map(Lead::minutes), Some(minutes), "{text}");
        }
        for bad in ["", "48", "h", "-1h", "1.5h", "31d", "48H", "1 h", "99999999999d"] {
            assert_eq!(Lead::parse(bad), None, "{bad}");
        }
        assert_eq!(serde_json::to_string(&Lead::parse("2d").unwrap()).unwrap(), "\"48h\"");
        assert_eq!(serde_json::from_str::<Lead>("\"16h\"").unwrap(), Lead::CHECK_OUT);
    }
}
