//! Properties: a property and its settings by area (pricing, stay rules,
//! access, booking page, stay page, messages, feeds, payments), its JSON, builder and local time.

pub mod access_settings;
pub mod booking_page;
mod builder;
pub mod check_in_form;
pub mod feed_settings;
pub mod local_time;
pub mod message_settings;
pub mod payment_settings;
pub mod price_rules;
pub mod property;
mod public;
pub mod rates;
pub mod stay_page_settings;
pub mod stay_rules;
pub mod weekdays;
mod wire;
