//! The agent tools: `list_properties`, `check_availability`, `get_quote` and
//! `create_booking`, with descriptions an agent can act on.

use rental_core::{QuoteRequest, Source};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

use crate::mcp::args::{AgentBooking, Args, AvailabilityRequest, idempotency_key};
use crate::mcp::backend::{Backend, Outcome};

/// The source of every booking an agent makes.
pub const AGENT_SOURCE: &str = "agent";

const LIST_PROPERTIES: &str = "List the rental properties that can be booked: slug (the `property` \
value of the other tools), name, time zone, maxGuests, baseGuests, nightly and weekend rates, fees, \
minNights and maxNights, check-in and check-out times, and seasonal rates. Money is in integer cents \
of the property's `currency` (15000 = $150.00); taxRate and discounts are basis points (1200 = 12 %).";

const CHECK_AVAILABILITY: &str = "Per-night availability and price of one property. Dates are \
YYYY-MM-DD; a night is named by the date it starts on. `from` is the first night (default: the \
property's local today), `to` is exclusive (default: from + 30 days, at most 366 nights). Each night \
has `available`, `status` (available, booked, held = a pending request, blocked, past), `price` \
(the night's rate in integer cents before discounts, fees and taxes) and `minNights` (the minimum \
stay starting that night). Use it to find free dates before quoting or booking.";

const GET_QUOTE: &str = "Price a stay and check whether it can be booked, without booking it. \
checkIn is the arrival date and checkOut the departure date (YYYY-MM-DD); checkOut is the morning \
the guests leave and is not a night of the stay, so 2030-12-20 to 2030-12-27 is 7 nights. `guests` \
defaults to 1. Amounts are integer cents of `currency`: total = accommodation - discount + \
extraGuestFee + cleaningFee + taxes. `available` is true only when `problems` is empty; problem \
codes: dates_unavailable (the listed `dates` are taken: pick other dates with check_availability), \
min_nights / max_nights (stay length for that arrival), max_guests, past_dates. Quote first, and \
book only stays with available = true.";

const CREATE_BOOKING: &str = "Request a booking for a guest. Fields: property (slug), checkIn and \
checkOut (YYYY-MM-DD; checkOut is the departure morning, not a night), guestName, guestEmail, \
guests (1 to the property's maxGuests), optional notes for the host. The result is the booking: \
its `code` (such as BK-7QX2MF) identifies it, `total` is in integer cents of `currency`. A new \
booking is `pending` and `unpaid`: it holds the nights, but the guest is NOT yet guaranteed the \
stay until the host confirms it (status `confirmed`); tell the guest so. If the answer is an error \
saying the dates are unavailable, those nights were taken (perhaps just now): do not retry the \
same dates; call check_availability or get_quote and offer the guest other dates. Other errors \
name the field at fault (past dates, too many guests, stay too short or long). Pass a fresh \
idempotencyKey with each new booking: if a call times out, retry it with the same key and fields \
to get the booking it made rather than a second one or a dates-unavailable error. The booking's \
checkedInAt, checkedOutAt and access stay null here: check-in, check-out and door codes belong to \
confirmed stays and are the host's (never given out through these tools).";

/// The tool server: one backend, four tools.
#[derive(Debug, Clone)]
pub struct RentalTools {
    backend: Backend,
    tool_router: ToolRouter<Self>,
}

impl RentalTools {
    /// The tools, answering from `backend`.
    pub fn new(backend: Backend) -> Self {
        RentalTools { backend, tool_router: Self::tool_router() }
    }

    /// Every tool, as `tools/list` describes it.
    #[cfg(test)]
    pub fn tools() -> Vec<rmcp::model::Tool> {
        Self::tool_router().list_all()
    }
}

#[tool_router]
impl RentalTools {
    /// `list_properties`.
    #[tool(description = LIST_PROPERTIES, annotations(read_only_hint = true))]
    async fn list_properties(&self) -> Outcome {
        self.backend.list_properties().await
    }

    /// `check_availability`.
    #[tool(description = CHECK_AVAILABILITY, annotations(read_only_hint = true))]
    async fn check_availability(&self, Parameters(args): Parameters<Args<AvailabilityRequest>>) -> Outcome {
        self.backend.availability(args.decode()?).await
    }

    /// `get_quote`.
    #[tool(description = GET_QUOTE, annotations(read_only_hint = true))]
    async fn get_quote(&self, Parameters(args): Parameters<Args<QuoteRequest>>) -> Outcome {
        self.backend.quote(args.decode()?).await
    }

    /// `create_booking`: always with source `agent`.
    #[tool(description = CREATE_BOOKING, annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false))]
    async fn create_booking(&self, Parameters(mut args): Parameters<Args<AgentBooking>>) -> Outcome {
        let key = idempotency_key(&mut args)?;
        let AgentBooking(mut req) = args.decode()?;
        req.source = Some(Source::parse(AGENT_SOURCE).map_err(|e| e.to_string())?);
        self.backend.create_booking(req, key).await
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "rental",
    instructions = "Tools of a short-term rental booking engine. Find a property with list_properties, \
free nights with check_availability, the price with get_quote, then request the stay with \
create_booking. Dates are YYYY-MM-DD; checkOut is the departure day. Money is integer cents. \
A new booking is pending until the host confirms it."
)]
impl ServerHandler for RentalTools {}

/// The tools' input schemas against the request types the HTTP API decodes
/// and against the published OpenAPI document: a field added to, renamed in
/// or made optional in one of them fails here until the others agree.
#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rental_core::NewBooking;
    use schemars::JsonSchema;
    use schemars::generate::SchemaSettings;
    use serde::Serialize;
    use serde_json::{Map, Value, json};

    use super::*;
    use crate::mcp::args::{AGENT_ADDS, AGENT_SETS};

    fn tool(name: &str) -> Map<String, Value> {
        let tool = RentalTools::tools().into_iter().find(|t| t.name == name);
        tool.unwrap_or_else(|| panic!("no tool {name}")).input_schema.as_ref().clone()
    }

    /// `T`'s schema as rmcp builds a tool's (JSON Schema 2020-12, top-level title and description dropped).
    fn schema_of<T: JsonSchema>() -> Map<String, Value> {
        let schema = SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
        let Value::Object(mut schema) = serde_json::to_value(schema).unwrap() else { panic!("not an object") };
        schema.remove("title");
        schema.remove("description");
        schema
    }

    fn names(schema: &Map<String, Value>, key: &str) -> BTreeSet<String> {
        match &schema[key] {
            Value::Object(properties) => properties.keys().cloned().collect(),
            Value::Array(required) => required.iter().map(|v| v.as_str().unwrap().to_owned()).collect(),
            other => panic!("{key} is {other}"),
        }
    }

    /// The fields a full request body of `T` holds, as the API reads and writes them.
    fn body_fields(full: &impl Serialize) -> BTreeSet<String> {
        serde_json::to_value(full).unwrap().as_object().unwrap().keys().cloned().collect()
    }

    /// The fields without which the API's type refuses a body.
    fn needed_fields<T: serde::de::DeserializeOwned>(full: &impl Serialize) -> BTreeSet<String> {
        let full = serde_json::to_value(full).unwrap();
        let fields = full.as_object().unwrap();
        let missing = |name: &String| {
            let mut body = fields.clone();
            body.remove(name);
            serde_json::from_value::<T>(Value::Object(body)).is_err()
        };
        fields.keys().filter(|name| missing(name)).cloned().collect()
    }

    fn openapi_schema(name: &str) -> Map<String, Value> {
        let doc = rental_server::openapi::document();
        doc["components"]["schemas"][name].as_object().unwrap_or_else(|| panic!("no {name} in the OpenAPI")).clone()
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    fn full_booking() -> NewBooking {
        NewBooking {
            property: "sea-view".parse().unwrap(),
            check_in: "2030-12-20".parse().unwrap(),
            check_out: "2030-12-27".parse().unwrap(),
            guest_name: "Ada Lovelace".into(),
            guest_email: "ada@example.com".into(),
            guests: 3,
            notes: Some("late arrival".into()),
            source: Some(Source::parse("api").unwrap()),
            children: 1,
            pets: 1,
            promo_code: Some("WINTER".into()),
            locale: Some("de-DE".into()),
        }
    }

    fn full_quote() -> QuoteRequest {
        QuoteRequest {
            property: "sea-view".parse().unwrap(),
            check_in: "2030-12-20".parse().unwrap(),
            check_out: "2030-12-27".parse().unwrap(),
            guests: 3,
            children: 1,
            pets: 1,
            promo_code: Some("WINTER".into()),
        }
    }

    #[test]
    fn get_quote_takes_exactly_the_body_of_post_quotes() {
        let schema = tool("get_quote");
        assert_eq!(schema, schema_of::<QuoteRequest>());
        assert_eq!(names(&schema, "properties"), body_fields(&full_quote()));
        assert_eq!(names(&schema, "required"), needed_fields::<QuoteRequest>(&full_quote()));
        assert_eq!(names(&schema, "required"), set(&["property", "checkIn", "checkOut"]));
        assert_eq!(schema["properties"]["checkIn"]["format"], "date");
        assert_eq!(schema["properties"]["guests"]["default"], 1);

        let published = openapi_schema("QuoteRequest");
        assert_eq!(names(&schema, "properties"), names(&published, "properties"));
        assert_eq!(names(&schema, "required"), names(&published, "required"));
    }

    #[test]
    fn create_booking_takes_the_body_of_post_bookings_less_the_source_it_sets_plus_an_idempotency_key() {
        let mut schema = tool("create_booking");
        let key = schema["properties"].as_object_mut().unwrap().remove(AGENT_ADDS).expect("an idempotency key");
        assert_eq!((&key["type"], &key["maxLength"]), (&json!("string"), &json!(255)), "{key}");
        let mut api = schema_of::<NewBooking>();
        api["properties"].as_object_mut().unwrap().remove(AGENT_SETS);
        assert_eq!(schema, api, "the API's schema with only `source` taken out");

        let mut accepted = body_fields(&full_booking());
        assert!(accepted.remove(AGENT_SETS), "the API takes a source");
        assert_eq!(names(&schema, "properties"), accepted);
        assert_eq!(names(&schema, "required"), needed_fields::<NewBooking>(&full_booking()));
        assert_eq!(
            names(&schema, "required"),
            set(&["property", "checkIn", "checkOut", "guestName", "guestEmail", "guests"])
        );

        let published = openapi_schema("NewBooking");
        let mut published_fields = names(&published, "properties");
        published_fields.remove(AGENT_SETS);
        assert_eq!(names(&schema, "properties"), published_fields);
        assert_eq!(names(&schema, "required"), names(&published, "required"));
    }

    #[test]
    fn check_availability_takes_the_slug_and_the_query_parameters_of_get_availability() {
        let schema = tool("check_availability");
        assert_eq!(names(&schema, "properties"), set(&["property", "from", "to"]));
        assert_eq!(names(&schema, "required"), set(&["property"]));
        let doc = rental_server::openapi::document();
        let parameter = |name: &str| doc["components"]["parameters"][name]["name"].as_str().unwrap().to_owned();
        assert_eq!((parameter("AvailabilityFrom"), parameter("AvailabilityTo")), ("from".into(), "to".into()));
        assert_eq!(parameter("Slug"), "slug", "the path's slug is the tool's `property`");
    }

    #[test]
    fn every_tool_has_an_object_schema_and_a_description_that_says_how_to_read_it() {
        let tools = RentalTools::tools();
        let names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, BTreeSet::from(["list_properties", "check_availability", "get_quote", "create_booking"]));
        for t in &tools {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            let description = t.description.as_deref().unwrap_or_default();
            assert!(description.contains("cents"), "{}: money unit", t.name);
        }
        let book = tools.iter().find(|t| t.name == "create_booking").unwrap().description.clone().unwrap();
        let book = book.to_lowercase();
        for needed in ["yyyy-mm-dd", "pending", "not yet guaranteed", "check_availability", "departure"] {
            assert!(book.contains(needed), "create_booking's description lacks {needed:?}");
        }
        assert_eq!(tool("list_properties")["properties"], json!({}));
    }
}
