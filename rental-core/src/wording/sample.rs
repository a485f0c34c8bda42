//! Made-up variables of each kind, for checking a property's templates when
//! it is saved: a template that renders with these renders with any booking.
//!
//! They are plain values rather than a sample booking so that checking
//! wording needs no booking or property type (those sit above, and render
//! through `message::template::context`); a test there holds the two to the
//! same names and JSON types.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::MessageKind;
use super::template::{COMMON_VARIABLES, kind_variables};

/// The sample variables of `kind`: every name it allows, each with a value of its type.
pub(crate) fn context(kind: MessageKind) -> BTreeMap<&'static str, Value> {
    COMMON_VARIABLES.iter().chain(kind_variables(kind)).map(|name| (*name, value(name))).collect()
}

fn value(name: &str) -> Value {
    match name {
        "guest_name" => json!("Ada Lovelace"),
        "guest_email" => json!("ada@example.com"),
        "booking_code" => json!("BK-SAMPLE"),
        "property_name" => json!("Sea View Cottage"),
        "check_in" => json!("Sunday 20 December 2026"),
        "check_out" => json!("Tuesday 22 December 2026"),
        "check_in_time" => json!("15:00"),
        "check_out_time" => json!("11:00"),
        "nights" => json!(2),
        "guests" => json!(3),
        "total" => json!("$1,342.88"),
        "contact_email" => json!("host@example.com"),
        "booking_page_url" => json!("https://rental.example/book/sea-view"),
        "status" => json!("confirmed"),
        "stay_url" => json!("https://rental.example/stay/BK-SAMPLE.0123456789abcdef0123456789abcdef"),
        "notes" => json!("Arriving late"),
        "source" => json!("api"),
        "cancel_reason" => json!("Plans changed"),
        "expired" => json!(false),
        "door_code" => json!("4821"),
        "access_from" => json!("Sunday 20 December 2026, 15:00 Lisbon time"),
        "access_until" => json!("Tuesday 22 December 2026, 11:00 Lisbon time"),
        "wifi_name" => json!("SeaView"),
        "arrival_notes" => json!("The key box is left of the door."),
        "balance_due" => json!("$671.44"),
        // A name added to the lists without a sample is checked as text.
        _ => json!("sample"),
    }
}
