//! The booking body as the API writes it to a key with `read`: the booking,
//! plus `stayUrl`, the guest's private page (docs/API.md section 24).

use rental_core::Booking;
use rental_core::stay_link::StayLinks;
use serde::Serialize;

/// A booking with its stay page's address, when the key may read it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[schemars(rename = "Booking")]
#[serde(rename_all = "camelCase")]
pub struct BookingBody<'a> {
    /// The booking.
    #[serde(flatten)]
    pub booking: &'a Booking,
    /// The guest's private stay page, absolute (from `baseUrl`): the stay, its
    /// status, house guide, arrival details once their conditions hold, the
    /// check-in form and cancellation. Given only to keys with `read`; rotate it
    /// with `POST /api/v1/bookings/{code}/stay-link`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(url)]
    pub stay_url: Option<String>,
}

/// Makes stay page addresses under one base URL.
#[derive(Debug, Clone)]
pub struct Linker<'a> {
    /// Signs the links.
    pub links: &'a StayLinks,
    /// The server's public URL, without a trailing slash.
    pub base_url: String,
}

impl Linker<'_> {
    /// `booking` with its `stayUrl`.
    pub fn body<'b>(&self, booking: &'b Booking) -> BookingBody<'b> {
        BookingBody { booking, stay_url: Some(self.links.url(&self.base_url, booking)) }
    }
}

/// One page of bookings with their `stayUrl`s: the API's `{"data", "nextCursor"}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BodyPage<'a> {
    /// The bookings of the page.
    pub data: Vec<BookingBody<'a>>,
    /// Where the next page starts, if there is one.
    pub next_cursor: Option<String>,
}
