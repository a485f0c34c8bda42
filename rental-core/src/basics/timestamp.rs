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

/// The schema of a timestamp as written here: RFC 3339, UTC, milliseconds.
#[cfg(feature = "schemars")]
pub(crate) struct Rfc3339Millis;

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Rfc3339Millis {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "format": "date-time",
            "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$",
            "examples": ["2026-11-22T07:39:21.123Z"],
        })
    }
}
