//! A set of weekdays (`["fri", "sat"]` in JSON): the days a stay may start or
//! end on. Seven bits, so the stay rules that hold two of them stay `Copy`.

use chrono::Weekday;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The JSON names, Monday first (`Weekday::num_days_from_monday` order).
const NAMES: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// Some days of the week.
///
/// ```
/// use rental_core::property::Weekdays;
/// use chrono::Weekday;
///
/// let changeover: Weekdays = serde_json::from_str(r#"["sat"]"#)?;
/// assert!(changeover.contains(Weekday::Sat) && !changeover.contains(Weekday::Sun));
/// assert_eq!(changeover.names(), ["sat"]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Weekdays(u8);

impl Weekdays {
    /// Every day of the week: the default of the check-in and check-out days.
    pub const ALL: Weekdays = Weekdays(0x7f);
    /// No day at all (a fault where a rule needs one).
    pub const NONE: Weekdays = Weekdays(0);

    /// These days and `day`.
    #[must_use]
    pub fn with(self, day: Weekday) -> Self {
        Weekdays(self.0 | 1 << day.num_days_from_monday())
    }

    /// True when `day` is one of these.
    pub fn contains(self, day: Weekday) -> bool {
        self.0 & 1 << day.num_days_from_monday() != 0
    }

    /// True for all seven days.
    pub fn is_all(self) -> bool {
        self == Weekdays::ALL
    }

    /// True for no day.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The JSON names of these days, Monday first (`["fri", "sat"]`).
    pub fn names(self) -> Vec<&'static str> {
        NAMES.iter().enumerate().filter(|(i, _)| self.0 & 1 << i != 0).map(|(_, n)| *n).collect()
    }

    /// The day a JSON name (`mon` … `sun`) stands for.
    pub fn day(name: &str) -> Option<Weekday> {
        let i = NAMES.iter().position(|n| *n == name)?;
        Weekday::try_from(u8::try_from(i).ok()?).ok()
    }

    /// The JSON name of `day` (`sat`).
    pub fn name(day: Weekday) -> &'static str {
        NAMES[day.num_days_from_monday() as usize]
    }
}

impl Default for Weekdays {
    fn default() -> Self {
        Weekdays::ALL
    }
}

impl FromIterator<Weekday> for Weekdays {
    fn from_iter<I: IntoIterator<Item = Weekday>>(days: I) -> Self {
        days.into_iter().fold(Weekdays::NONE, Weekdays::with)
    }
}

impl Serialize for Weekdays {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.names().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Weekdays {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(deserializer)?;
        names
            .iter()
            .map(|n| Weekdays::day(n).ok_or_else(|| serde::de::Error::custom(format!("{n:?} is not a day: mon … sun"))))
            .collect()
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Weekdays {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Weekdays".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "array",
            "items": {"type": "string", "enum": NAMES},
            "description": "Days of the week, `mon` to `sun`; absent means every day."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_read_and_write_as_their_short_names() {
        let cases: [(&str, &[&str]); 4] = [
            (r#"["sat"]"#, &["sat"]),
            (r#"["sun","mon"]"#, &["mon", "sun"]),
            (r#"["mon","tue","wed","thu","fri","sat","sun"]"#, &["mon", "tue", "wed", "thu", "fri", "sat", "sun"]),
            ("[]", &[]),
        ];
        for (json, names) in cases {
            let days: Weekdays = serde_json::from_str(json).unwrap();
            assert_eq!(days.names(), names, "{json}");
        }
        assert!(serde_json::from_str::<Weekdays>(r#"["saturday"]"#).is_err());
        assert!(Weekdays::default().is_all());
    }
}
