//! The schemas generated from the Rust types the server decodes: the request
//! bodies come from the same derives serde reads them with, through schemars.

use rental_core::{Action, NewBooking, QuoteRequest};
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// `QuoteRequest`, `NewBooking`, `BookingAction` and what they refer to, by
/// name, with `$ref`s into `#/components/schemas/`.
pub(super) fn request_schemas() -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas/".into();
    settings.meta_schema = None;
    let mut generator = settings.into_generator();
    generator.subschema_for::<QuoteRequest>();
    generator.subschema_for::<NewBooking>();
    generator.subschema_for::<Action>();
    generator.take_definitions(true).into_iter().collect()
}
