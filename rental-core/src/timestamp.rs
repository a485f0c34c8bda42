//! Timestamps as the API writes them: RFC 3339 UTC with milliseconds,
//! `2026-11-22T07:39:21.123Z`.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// `2026-11-22T07:39:21.123Z`.
pub fn format(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(crate) fn serialize<S: Serializer>(t: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&format(t))
}

pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    let s = String::deserialize(deserializer)?;
    DateTime::parse_from_rfc3339(&s).map(|t| t.to_utc()).map_err(serde::de::Error::custom)
}

/// The same for optional timestamps.
pub(crate) mod option {
    use super::{DateTime, Deserialize, Deserializer, Serializer, Utc};

    #[expect(clippy::ref_option, reason = "serde's `with` hands over `&Option<T>`")]
    pub(crate) fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, serializer: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => super::serialize(t, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|s| DateTime::parse_from_rfc3339(&s).map(|t| t.to_utc()).map_err(serde::de::Error::custom))
            .transpose()
    }
}
