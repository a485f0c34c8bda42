//! A local time of day (a property's check-in and check-out time): plain
//! data, shared by the properties and the local-time arithmetic.

use std::fmt;

use chrono::{NaiveTime, Timelike};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::basics::ids::IdError;

/// A local time of day, written `15:00` in JSON and `3:00 PM` for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClockTime(pub NaiveTime);

impl ClockTime {
    /// Reads `HH:MM` (24-hour, two digits each), as [`str::parse`] does.
    ///
    /// ```
    /// use rental_core::ClockTime;
    ///
    /// let three_pm = ClockTime::parse("15:00")?;
    /// assert_eq!(three_pm.to_12h(), "3:00 PM");
    /// assert!("3pm".parse::<ClockTime>().is_err());
    /// # Ok::<(), rental_core::IdError>(())
    /// ```
    pub fn parse(s: &str) -> Result<Self, IdError> {
        Self::read(s).ok_or_else(|| IdError::Time(s.to_owned()))
    }

    fn read(s: &str) -> Option<Self> {
        let (h, m) = s.split_once(':')?;
        let two_digits =
            |t: &str| (t.len() == 2 && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse::<u32>().ok())?;
        NaiveTime::from_hms_opt(two_digits(h)?, two_digits(m)?, 0).map(ClockTime)
    }

    /// `hour:minute`, or `None` past `23:59`.
    pub fn at(hour: u32, minute: u32) -> Option<Self> {
        NaiveTime::from_hms_opt(hour, minute, 0).map(ClockTime)
    }

    /// The time as people where `zone` is write it: `3:00 PM` in the
    /// countries that use a 12-hour clock (the United States, Canada,
    /// Australia, New Zealand, India, the Philippines), `15:00` elsewhere.
    /// The booking page and the e-mails of one property say it alike.
    ///
    /// ```
    /// use rental_core::ClockTime;
    ///
    /// let t = ClockTime::parse("16:00")?;
    /// assert_eq!(t.in_zone(chrono_tz::Europe::Athens), "16:00");
    /// assert_eq!(t.in_zone(chrono_tz::America::New_York), "4:00 PM");
    /// # Ok::<(), rental_core::IdError>(())
    /// ```
    pub fn in_zone(self, zone: chrono_tz::Tz) -> String {
        if twelve_hour(zone) { self.to_12h() } else { self.to_string() }
    }

    /// `3:00 PM` style, as the occupancy summary shows it.
    pub fn to_12h(self) -> String {
        let (pm, hour) = self.0.hour12();
        format!("{hour}:{:02} {}", self.0.minute(), if pm { "PM" } else { "AM" })
    }
}

/// An instant as people of `zone` read it, on their wall clock with the zone
/// named: `2026-12-18 16:00 Athens time`, `2026-12-18 4:00 PM New York time`.
/// The admin and `rental bookings messages` show a message's times this way.
///
/// ```
/// use rental_core::local_moment;
///
/// let at = "2026-12-18T14:00:00Z".parse().unwrap();
/// assert_eq!(local_moment(at, rental_core::Tz::Europe__Athens), "2026-12-18 16:00 Athens time");
/// assert_eq!(local_moment(at, rental_core::Tz::America__New_York), "2026-12-18 9:00 AM New York time");
/// ```
pub fn local_moment(at: chrono::DateTime<chrono::Utc>, zone: chrono_tz::Tz) -> String {
    let local = at.with_timezone(&zone);
    format!("{} {} {} time", local.format("%Y-%m-%d"), ClockTime(local.time()).in_zone(zone), zone_city(zone))
}

/// The place a zone is named for: `Athens`, `New York`.
pub(crate) fn zone_city(zone: chrono_tz::Tz) -> String {
    zone.name().rsplit('/').next().unwrap_or_default().replace('_', " ")
}

/// True where clocks are read in 12 hours, judged by the zone's name.
pub(crate) fn twelve_hour(zone: chrono_tz::Tz) -> bool {
    const PREFIXES: [&str; 5] = ["US/", "Canada/", "Australia/", "America/Indiana/", "America/Kentucky/"];
    const ZONES: [&str; 30] = [
        "America/New_York",
        "America/Chicago",
        "America/Denver",
        "America/Los_Angeles",
        "America/Phoenix",
        "America/Anchorage",
        "America/Juneau",
        "America/Sitka",
        "America/Nome",
        "America/Yakutat",
        "America/Metlakatla",
        "America/Adak",
        "America/Boise",
        "America/Detroit",
        "America/Menominee",
        "America/North_Dakota/Center",
        "America/Toronto",
        "America/Vancouver",
        "America/Edmonton",
        "America/Winnipeg",
        "America/Halifax",
        "America/St_Johns",
        "America/Regina",
        "Pacific/Honolulu",
        "Pacific/Auckland",
        "Asia/Kolkata",
        "Asia/Calcutta",
        "Asia/Manila",
        "America/Puerto_Rico",
        "Pacific/Guam",
    ];
    let name = zone.name();
    ZONES.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.0.hour(), self.0.minute())
    }
}

/// `HH:MM`, 24-hour.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for ClockTime {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ClockTime".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "examples": ["15:00"]})
    }
}

impl Serialize for ClockTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ClockTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        ClockTime::read(&s).ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not a time like 15:00")))
    }
}

impl std::str::FromStr for ClockTime {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, IdError> {
        ClockTime::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_24h_and_show_as_12h() {
        let t: ClockTime = serde_json::from_str("\"15:00\"").unwrap();
        assert_eq!(t.to_12h(), "3:00 PM");
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"15:00\"");
        let cases = [("00:05", "12:05 AM"), ("11:00", "11:00 AM"), ("12:30", "12:30 PM"), ("23:59", "11:59 PM")];
        for (raw, want) in cases {
            let t: ClockTime = serde_json::from_str(&format!("\"{raw}\"")).unwrap();
            assert_eq!(t.to_12h(), want);
        }
        for bad in ["3pm", "7:00", "24:00", "07:60", "0700", "07:00:00", ""] {
            assert!(serde_json::from_str::<ClockTime>(&format!("\"{bad}\"")).is_err(), "{bad}");
        }
    }
}
