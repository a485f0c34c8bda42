//! A booking and its states: who stays, when, what it costs, where it came
//! from and what happened to it. The transitions live in `lifecycle`.

use std::fmt;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

pub use crate::basics::booking_status::Status;
use crate::basics::ids::{BookingCode, Slug, Source};
use crate::basics::stay::Stay;
use crate::bookings::visit::Visit;
use crate::properties::property::Cents;

/// A booking (docs/API.md section 6).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Booking {
    /// `BK-7QX2MF`.
    pub code: BookingCode,
    /// The property's slug.
    pub property: Slug,
    /// The property's display name when the booking was made.
    pub property_name: String,
    /// The guest's name.
    pub guest_name: String,
    /// The guest's e-mail address; empty for channel imports.
    pub guest_email: String,
    /// Number of guests.
    pub guests: u32,
    /// Arrival and departure.
    #[serde(flatten)]
    pub stay: Stay,
    /// Number of nights (derived from the stay, shown for convenience).
    pub nights: u32,
    /// Where the booking is in its lifecycle.
    pub status: Status,
    /// Where its payment is.
    pub payment_status: PaymentStatus,
    /// The quoted total in cents.
    pub total: Cents,
    /// `USD`.
    pub currency: String,
    /// Where the booking came from: `api`, `admin`, `cli`, `agent`, `page` (the booking page) or a channel feed's name.
    pub source: Source,
    /// The language the guest reads their pages and messages in (docs/API.md
    /// section 24); bookings stored before it read as `en`.
    #[serde(default)]
    pub locale: crate::basics::locale::Locale,
    /// Notes added over time, oldest first.
    pub notes: Vec<Note>,
    /// When it was made.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub updated_at: DateTime<Utc>,
    /// Who cancelled it, once cancelled.
    pub cancelled_by: Option<CancelledBy>,
    /// Why, when a reason was given.
    pub cancel_reason: Option<String>,
    /// For bookings imported from a channel: the feed and event that own it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalRef>,
    /// When the guest opened the link mailed to them (a request from the
    /// booking page; see `verification`); absent until then and for other sources.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub guest_email_verified_at: Option<DateTime<Utc>>,
    /// Check-in, check-out and the stay's own door code (docs/API.md section 15).
    #[serde(flatten)]
    pub visit: Visit,
    /// Children, pets and the promo code it was booked with (docs/API.md section 25).
    #[serde(flatten)]
    pub extras: Extras,
    /// How many times the guest's stay link was rotated (docs/API.md section
    /// 24): the link's generation, signed into it. Omitted while 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stay_link_rotations: u32,
    /// `amountPaid`, `amountRefunded`, `balanceDue`, `nextPaymentAt`: its
    /// ledger's sums, kept in step with it (docs/API.md, Payments).
    #[serde(flatten)]
    pub money: crate::bookings::payment_summary::PaymentSummary,
}

/// What a booking holds beyond adults and dates: children and pets (the
/// quote's tourist tax and pet fee), and the promo code that priced it. Each
/// is left out of the JSON at its default, as bookings stored before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Extras {
    /// Of the guests, children under the tourist tax's exempt age; absent: 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub children: u32,
    /// Pets; absent: 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pets: u32,
    /// The promo code the booking used, as the property spells it; absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promo_code: Option<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A booking comes from [`crate::Rental::create_booking`] and changes with
/// [`crate::Rental::update_booking`] ([`crate::Action`]s, docs/API.md section 6).
///
/// ```
/// use std::sync::Arc;
/// use rental_core::{demo, Action, ManualClock, MemoryStore, NewBooking, PaymentStatus, Rental, Status};
///
/// let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
/// let rental = Rental::new(MemoryStore::new()).with_clock(clock);
/// rental.import_properties(&demo::properties())?;
/// let booking = rental.create_booking(&NewBooking {
///     property: "sea-view".parse()?,
///     check_in: "2026-12-20".parse().unwrap(),
///     check_out: "2026-12-27".parse().unwrap(),
///     guest_name: "Ada Lovelace".into(),
///     guest_email: "ada@example.com".into(),
///     guests: 3,
///     notes: None,
///     source: None,
///     children: 0,
///     pets: 0,
///     promo_code: None,
///     locale: None,
/// }, None)?.booking;
/// assert_eq!((booking.status, booking.payment_status), (Status::Pending, PaymentStatus::Unpaid));
///
/// let booking = rental.update_booking(booking.code.as_str(), &Action::Confirm)?;
/// assert_eq!(booking.status, Status::Confirmed);
/// assert_eq!(rental.booking(booking.code.as_str())?, booking);
/// # Ok::<(), rental_core::Error>(())
/// ```
impl Booking {
    /// The first night.
    pub fn check_in(&self) -> NaiveDate {
        self.stay.check_in()
    }

    /// The departure day.
    pub fn check_out(&self) -> NaiveDate {
        self.stay.check_out()
    }

    /// True while the booking holds its nights (pending or confirmed).
    pub fn is_active(&self) -> bool {
        self.status != Status::Cancelled
    }

    /// True when a channel feed owns the booking: only the feed may confirm or cancel it.
    pub fn is_channel_owned(&self) -> bool {
        self.external.is_some()
    }
}

/// The channel feed event a booking was imported from.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalRef {
    /// The feed's name.
    pub feed: Source,
    /// The event's `UID` in that feed.
    pub uid: String,
}

/// A note on a booking.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// What was noted.
    pub text: String,
    /// When.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub at: DateTime<Utc>,
}

/// Where a booking's payment is.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaymentStatus {
    /// Nothing taken yet.
    Unpaid,
    /// The guest's card hold succeeded.
    Authorized,
    /// Some installments paid, a balance still due.
    #[serde(rename = "partially_paid")]
    PartiallyPaid,
    /// Captured on confirmation; every installment paid.
    Paid,
    /// Some of what was paid given back.
    #[serde(rename = "partially_refunded")]
    PartiallyRefunded,
    /// Given back on cancellation, or all that was paid refunded.
    Refunded,
    /// The checkout link lapsed unpaid.
    Expired,
    /// Paid on the channel the booking came from.
    External,
}

/// Who cancelled a booking.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CancelledBy {
    /// The host.
    Host,
    /// The guest.
    Guest,
    /// The service, when a checkout link lapsed.
    System,
    /// The channel feed it came from dropped it.
    Channel,
}

macro_rules! display_as_serde_name {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let json = serde_json::to_value(self).map_err(|_| fmt::Error)?;
                f.write_str(json.as_str().unwrap_or_default())
            }
        }
    )*};
}
display_as_serde_name!(PaymentStatus, CancelledBy);

/// A request to create a booking: the fields of docs/API.md section 6, `notes` and `source` included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NewBooking {
    /// The property's slug, such as `sea-view`.
    pub property: Slug,
    /// Arrival date, `YYYY-MM-DD`: the first night of the stay.
    #[serde(deserialize_with = "crate::basics::date_json::deserialize")]
    pub check_in: NaiveDate,
    /// Departure date, `YYYY-MM-DD`: the morning the guests leave, not a night of the stay.
    #[serde(deserialize_with = "crate::basics::date_json::deserialize")]
    pub check_out: NaiveDate,
    /// The guest's name: not blank, at most 200 bytes, trimmed.
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 200)))]
    pub guest_name: String,
    /// The guest's e-mail address; trimmed.
    #[cfg_attr(feature = "schemars", schemars(email, length(max = 254)))]
    pub guest_email: String,
    /// Number of guests, 1 to the property's `maxGuests`.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 100)))]
    pub guests: u32,
    /// A first note for the host, such as an arrival time; at most 2000 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(max = 2000)))]
    pub notes: Option<String>,
    /// Where the request came from; `api` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Of the guests, children under the tourist tax's exempt age; 0 when absent.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "schemars", schemars(range(max = 99)))]
    pub children: u32,
    /// Pets coming along, at most the property's `maxPets`; 0 when absent.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "schemars", schemars(range(max = 100)))]
    pub pets: u32,
    /// A promo code of the property, for its discount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 32)))]
    pub promo_code: Option<String>,
    /// The guest's language as a BCP 47 tag (`de-DE`): one not built in, or
    /// none, is the property's `language`; a malformed one is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 2, max = 35)))]
    pub locale: Option<String>,
}

/// A request to price a stay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuoteRequest {
    /// The property's slug, such as `sea-view`.
    pub property: Slug,
    /// Arrival date, `YYYY-MM-DD`: the first night of the stay.
    #[serde(deserialize_with = "crate::basics::date_json::deserialize")]
    pub check_in: NaiveDate,
    /// Departure date, `YYYY-MM-DD`: the morning the guests leave, not a night of the stay.
    #[serde(deserialize_with = "crate::basics::date_json::deserialize")]
    pub check_out: NaiveDate,
    /// Number of guests; 1 when absent.
    #[serde(default = "one_guest")]
    #[cfg_attr(feature = "schemars", schemars(range(min = 1, max = 100)))]
    pub guests: u32,
    /// Of the guests, children under the tourist tax's exempt age; 0 when absent.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "schemars", schemars(range(max = 99)))]
    pub children: u32,
    /// Pets coming along, at most the property's `maxPets`; 0 when absent.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "schemars", schemars(range(max = 100)))]
    pub pets: u32,
    /// A promo code of the property, for its discount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(length(min = 1, max = 32)))]
    pub promo_code: Option<String>,
}

fn one_guest() -> u32 {
    1
}

// `is_zero` (above, beside `Booking`) serves `QuoteRequest`'s counts too.

impl QuoteRequest {
    /// A quote of `guests` adults at `property` from `check_in` to `check_out`,
    /// without children, pets or a promo code.
    pub fn new(property: Slug, check_in: NaiveDate, check_out: NaiveDate, guests: u32) -> Self {
        QuoteRequest { property, check_in, check_out, guests, children: 0, pets: 0, promo_code: None }
    }
}

impl NewBooking {
    /// A booking of the stay `quoted` for a guest, with no notes, its source the API's default.
    ///
    /// ```
    /// use rental_core::{NaiveDate, NewBooking, QuoteRequest};
    ///
    /// let day = |s: &str| s.parse::<NaiveDate>().unwrap();
    /// let stay = QuoteRequest::new("sea-view".parse()?, day("2027-07-01"), day("2027-07-08"), 2);
    /// let booking = NewBooking::new(&stay, "Ada Lovelace", "ada@example.com");
    /// assert_eq!((booking.check_in, booking.guests), (stay.check_in, 2));
    /// # Ok::<(), rental_core::Error>(())
    /// ```
    pub fn new(quoted: &QuoteRequest, guest_name: impl Into<String>, guest_email: impl Into<String>) -> Self {
        NewBooking {
            property: quoted.property.clone(),
            check_in: quoted.check_in,
            check_out: quoted.check_out,
            guest_name: guest_name.into(),
            guest_email: guest_email.into(),
            guests: quoted.guests,
            notes: None,
            source: None,
            children: quoted.children,
            pets: quoted.pets,
            promo_code: quoted.promo_code.clone(),
            locale: None,
        }
    }
}

/// Which bookings a listing returns, and from where (docs/API.md section 6).
///
/// The default lists every booking, [`BookingQuery::DEFAULT_LIMIT`] to a page:
///
/// ```
/// use rental_core::BookingQuery;
///
/// assert_eq!(BookingQuery::default().limit, BookingQuery::DEFAULT_LIMIT);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingQuery {
    /// Only these statuses; all when empty.
    pub statuses: Vec<Status>,
    /// Only this property.
    pub property: Option<Slug>,
    /// Only this source.
    pub source: Option<Source>,
    /// Only stays with a night on or after this date.
    pub from: Option<NaiveDate>,
    /// Only stays with a night before this date.
    pub to: Option<NaiveDate>,
    /// Only bookings changed at or after this instant.
    pub updated_since: Option<DateTime<Utc>>,
    /// Start after this position (from a previous page's `next`).
    pub after: Option<Cursor>,
    /// Page size; see [`BookingQuery::MAX_LIMIT`].
    pub limit: usize,
}

impl Default for BookingQuery {
    fn default() -> Self {
        Self {
            statuses: Vec::new(),
            property: None,
            source: None,
            from: None,
            to: None,
            updated_since: None,
            after: None,
            limit: Self::DEFAULT_LIMIT,
        }
    }
}

impl BookingQuery {
    /// The page size when none is asked for.
    pub const DEFAULT_LIMIT: usize = 50;
    /// The largest page size.
    pub const MAX_LIMIT: usize = 200;

    /// True when `b` passes every filter (the position is not checked here).
    pub fn matches(&self, b: &Booking) -> bool {
        (self.statuses.is_empty() || self.statuses.contains(&b.status))
            && self.property.as_ref().is_none_or(|p| *p == b.property)
            && self.source.as_ref().is_none_or(|s| *s == b.source)
            && self.from.is_none_or(|from| b.check_out() > from)
            && self.to.is_none_or(|to| b.check_in() < to)
            && self.updated_since.is_none_or(|t| b.updated_at >= t)
    }
}

/// A position in the listing order (`checkIn`, then `code`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cursor {
    /// The last listed booking's check-in.
    pub check_in: NaiveDate,
    /// The last listed booking's code.
    pub code: BookingCode,
}

impl Cursor {
    /// The position just after `b`.
    pub fn after(b: &Booking) -> Self {
        Cursor { check_in: b.check_in(), code: b.code.clone() }
    }

    /// The opaque text form handed to clients.
    pub fn encode(&self) -> String {
        hex::encode(format!("{}/{}", self.check_in, self.code))
    }

    /// Reads a text form made by [`Cursor::encode`].
    pub fn decode(s: &str) -> Option<Self> {
        let text = String::from_utf8(hex::decode(s).ok()?).ok()?;
        let (date, code) = text.split_once('/')?;
        Some(Cursor { check_in: date.parse().ok()?, code: BookingCode::from(code) })
    }
}

/// One page of a listing; serialises as the API's `{"data": [...], "nextCursor": "..." | null}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The bookings of this page, in order.
    pub data: Vec<Booking>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<Cursor>,
}

impl Serialize for Page {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Json<'a> {
            data: &'a [Booking],
            next_cursor: Option<String>,
        }
        Json { data: &self.data, next_cursor: self.next.as_ref().map(Cursor::encode) }.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let c = Cursor { check_in: "2026-12-20".parse().unwrap(), code: BookingCode::from("BK-7QX2MF") };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        for bad in ["", "zz", "00", &hex::encode("2026-13-01/BK")] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn statuses_show_and_parse_as_their_json_names() {
        assert_eq!(Status::Pending.to_string(), "pending");
        assert_eq!(PaymentStatus::External.to_string(), "external");
        assert_eq!("confirmed".parse::<Status>(), Ok(Status::Confirmed));
        assert!("done".parse::<Status>().is_err());
    }

    #[test]
    fn a_booking_stored_before_locale_reads_as_english_and_keeps_its_language_after() {
        let mut stored = serde_json::to_value(crate::demo::booking("BK-OLDONE", "2026-12-20", "2026-12-23")).unwrap();
        assert_eq!(stored.as_object_mut().unwrap().remove("locale"), Some("en".into()));
        let old: Booking = serde_json::from_value(stored).unwrap();
        assert_eq!(old.locale, crate::Locale::En);
        let german = Booking { locale: crate::Locale::De, ..old };
        let again: Booking = serde_json::from_str(&serde_json::to_string(&german).unwrap()).unwrap();
        assert_eq!(again.locale, crate::Locale::De);
    }
}
