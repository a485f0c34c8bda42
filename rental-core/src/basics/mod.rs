//! The small vocabulary every part shares: identifiers, the clock, free
//! text, and the encodings of dates, times and bytes.

pub(crate) mod base64;
pub(crate) mod booking_status;
pub mod clock;
pub(crate) mod clock_time;
pub(crate) mod currency;
pub(crate) mod date_json;
pub(crate) mod field_error;
pub mod ids;
pub(crate) mod json_out;
pub mod lease;
pub mod locale;
pub(crate) mod money;
pub(crate) mod promo_refusal;
pub mod short_text;
pub mod stay;
pub mod text;
pub mod timestamp;
pub mod words;
