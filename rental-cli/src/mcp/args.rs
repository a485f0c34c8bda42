//! The tools' inputs: their JSON Schemas come from the request types the HTTP
//! API decodes (`QuoteRequest`, `NewBooking`), so the two cannot drift apart.

use std::marker::PhantomData;

use chrono::NaiveDate;
use rental_core::NewBooking;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A tool's arguments as sent, checked against `T` only when the tool runs.
///
/// The schema an agent sees is `T`'s. Arguments that do not fit `T` (a date
/// like `20/12/2030`, a missing field) become a tool error the agent can read
/// and correct, like the API's 422, instead of a protocol error.
#[derive(Debug)]
pub struct Args<T> {
    value: Value,
    of: PhantomData<fn() -> T>,
}

impl<'de, T> Deserialize<'de> for Args<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(|value| Args { value, of: PhantomData })
    }
}

impl<T: JsonSchema> JsonSchema for Args<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

impl<T> Args<T> {
    /// Takes `field` out of the arguments, for a tool's own field beside `T`'s.
    pub fn take(&mut self, field: &str) -> Option<Value> {
        self.value.as_object_mut()?.remove(field)
    }
}

impl<T: DeserializeOwned> Args<T> {
    /// The arguments as `T`, or a sentence saying what is wrong with them.
    pub fn decode(self) -> Result<T, String> {
        let value = if self.value.is_null() { Value::Object(serde_json::Map::new()) } else { self.value };
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let at = if path == "." { String::new() } else { format!("{path}: ") };
            format!("the arguments are not valid: {at}{}", e.into_inner())
        })
    }
}

/// `check_availability`: the path and query parameters of
/// `GET /api/v1/properties/{property}/availability?from=&to=`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AvailabilityRequest {
    /// The property's slug, such as `sea-view` (from `list_properties`).
    pub property: String,
    /// The first night to report, `YYYY-MM-DD`; the property's local today when absent.
    #[serde(default)]
    pub from: Option<NaiveDate>,
    /// The day after the last night to report, `YYYY-MM-DD` (exclusive); `from` + 30 days when absent.
    /// At most 366 nights per call.
    #[serde(default)]
    pub to: Option<NaiveDate>,
}

/// `create_booking`: the body of `POST /api/v1/bookings` without `source`,
/// which is always `agent` for bookings an agent makes, plus [`AGENT_ADDS`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct AgentBooking(pub NewBooking);

/// The field of the API's body that the tool sets itself.
pub const AGENT_SETS: &str = "source";

/// The tool's field that is not in the API's body: the `Idempotency-Key` header.
pub const AGENT_ADDS: &str = "idempotencyKey";

const IDEMPOTENCY_KEY: &str = "Makes retrying safe: a retry with the same key and the same fields \
within 24 hours returns the booking the first call made instead of booking again (or failing \
with dates unavailable on the agent's own booking). Use a new random value, such as a UUID, for \
each booking you mean to make; reusing a key with different fields is an error. 1 to 255 visible \
ASCII characters; the HTTP API's Idempotency-Key header.";

/// The idempotency key of a `create_booking` call, taken from its arguments.
pub fn idempotency_key(args: &mut Args<AgentBooking>) -> Result<Option<String>, String> {
    match args.take(AGENT_ADDS) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(key)) => Ok(Some(key)),
        Some(other) => Err(format!("the arguments are not valid: {AGENT_ADDS}: expected a string, got {other}")),
    }
}

impl JsonSchema for AgentBooking {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AgentBooking".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = NewBooking::json_schema(generator);
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.remove(AGENT_SETS);
            let key =
                serde_json::json!({"type": "string", "minLength": 1, "maxLength": 255, "description": IDEMPOTENCY_KEY});
            properties.insert(AGENT_ADDS.to_owned(), key);
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|name| name != AGENT_SETS);
        }
        schema
    }
}
