//! One function per endpoint: parse, call one library use case off the
//! async runtime, render. Shapes follow docs/API.md sections 3 to 8.

use std::sync::Arc;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use rental_core::booking::Cursor;
use rental_core::{Action, BookingQuery, NewBooking, QuoteRequest, Rental, Slug, Source, Status, Store};
use serde_json::json;

use crate::feed_pulls;
use crate::problem::Problem;
use crate::reply::{Reply, blocking, json, json_bytes, problem, read};
use crate::request::{self, Query};
use crate::stay::body::{BodyPage, Linker};

/// `GET /api/v1/properties`.
pub async fn list_properties<S: Store + 'static>(rental: &Arc<Rental<S>>) -> Reply {
    let properties = read(rental, Rental::properties).await?;
    let data: Vec<_> = properties.iter().map(rental_core::Property::public).collect();
    Ok(json(StatusCode::OK, &json!({ "data": data })))
}

/// `GET /api/v1/properties/{slug}`.
pub async fn get_property<S: Store + 'static>(rental: &Arc<Rental<S>>, slug: String) -> Reply {
    let property = read(rental, move |r| r.property(&slug)).await?;
    Ok(json(StatusCode::OK, &property.public()))
}

/// `GET /api/v1/properties/{slug}/availability?from=&to=`.
pub async fn availability<S: Store + 'static>(rental: &Arc<Rental<S>>, slug: String, query: &Query) -> Reply {
    let from = query.date("from")?;
    let to = query.date("to")?;
    let availability = read(rental, move |r| r.availability(&slug, from, to)).await?;
    Ok(json_bytes(StatusCode::OK, availability.to_json()))
}

/// `POST /api/v1/quotes`.
pub async fn quote<S: Store + 'static>(rental: &Arc<Rental<S>>, body: &[u8]) -> Reply {
    let req: QuoteRequest = stay_request(body)?;
    let quote = read(rental, move |r| r.quote(&req)).await?;
    Ok(json_bytes(StatusCode::OK, quote.to_json()))
}

/// A quote or booking request. A `property` that is not even a slug names no
/// property: 404, as for an unknown one (docs/API.md section 5).
fn stay_request<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Problem> {
    request::json(body).map_err(|p| {
        let about_property =
            p.status == StatusCode::UNPROCESSABLE_ENTITY && p.errors.first().is_some_and(|e| e.field == "property");
        let given =
            || serde_json::from_slice::<serde_json::Value>(body).ok()?.get("property")?.as_str().map(str::to_owned);
        match given().filter(|_| about_property) {
            Some(slug) => problem(rental_core::Error::NotFound(rental_core::NotFound::Property(slug))),
            None => p,
        }
    })
}

/// `GET /api/v1/bookings` with its filters and cursor.
pub async fn list_bookings<S: Store + 'static>(rental: &Arc<Rental<S>>, query: &Query, linker: &Linker<'_>) -> Reply {
    let q = booking_query(query)?;
    let page = blocking(rental, move |r| r.bookings(&q)).await?;
    let body = BodyPage {
        data: page.data.iter().map(|b| linker.body(b)).collect(),
        next_cursor: page.next.as_ref().map(Cursor::encode),
    };
    Ok(json(StatusCode::OK, &body))
}

fn booking_query(query: &Query) -> Result<BookingQuery, Problem> {
    let statuses = match query.get("status") {
        None => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|s| s.trim().parse::<Status>().map_err(|e| Problem::invalid_parameter("status", e)))
            .collect::<Result<_, _>>()?,
    };
    let limit = query.parse::<usize>("limit", "a number from 1 to 200")?.unwrap_or(BookingQuery::DEFAULT_LIMIT);
    if !(1..=BookingQuery::MAX_LIMIT).contains(&limit) {
        return Err(Problem::invalid_parameter(
            "limit",
            format!("{limit} is not from 1 to {}", BookingQuery::MAX_LIMIT),
        ));
    }
    let after = query
        .get("cursor")
        .map(|c| Cursor::decode(c).ok_or_else(|| Problem::invalid_parameter("cursor", "not a cursor from nextCursor")))
        .transpose()?;
    let property = query
        .get("property")
        .map(Slug::parse)
        .transpose()
        .map_err(|e| Problem::invalid_parameter("property", e.to_string()))?;
    let source = query
        .get("source")
        .map(Source::parse)
        .transpose()
        .map_err(|e| Problem::invalid_parameter("source", e.to_string()))?;
    let updated_since = query
        .get("updatedSince")
        .map(|t| {
            DateTime::parse_from_rfc3339(t)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| Problem::invalid_parameter("updatedSince", format!("{t:?} is not an RFC 3339 timestamp")))
        })
        .transpose()?;
    Ok(BookingQuery {
        statuses,
        property,
        source,
        from: query.date("from")?,
        to: query.date("to")?,
        updated_since,
        after,
        limit,
    })
}

/// `POST /api/v1/bookings`, with `Idempotency-Key` replays. A key without
/// `read` (`reader` false) gets the booking it sent back, never a door code
/// nor its stay page's address.
pub async fn create_booking<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    headers: &HeaderMap,
    body: &[u8],
    (api_key, reader): (&str, bool),
    linker: &Linker<'_>,
) -> Reply {
    let key = match headers.get("idempotency-key") {
        None => None,
        Some(v) => Some(v.to_str().map(|k| scoped_idempotency_key(api_key, k)).map_err(|_| {
            Problem::from(rental_core::Error::invalid("Idempotency-Key", "invalid", "must be visible ASCII"))
        })??),
    };
    let req: NewBooking = stay_request(body)?;
    // Checked with the mailer's own parser: an address it cannot send to is refused now, not at send time.
    let email = req.guest_email.trim();
    if !email.is_empty() && !crate::mail::compose::can_send_to(email) {
        // Beside every other fault of the request, as the library reports them.
        let mut fields = match req.check() {
            Err(rental_core::Error::Validation(fields)) => fields,
            _ => Vec::new(),
        };
        if !fields.iter().any(|f| f.field == "guestEmail") {
            let message = "must be an e-mail address the mail server can be given";
            fields.push(rental_core::FieldError::new("guestEmail", "invalid_email", message));
        }
        return Err(Problem::from(rental_core::Error::Validation(fields)));
    }
    let mut created = rental.create_booking_async(&req, key.as_deref()).await.map_err(problem)?;
    let mut response = if reader {
        json(StatusCode::CREATED, &linker.body(&created.booking))
    } else {
        created.booking.visit.access = None;
        json(StatusCode::CREATED, &created.booking)
    };
    let location = format!("/api/v1/bookings/{}", created.booking.code);
    if let Ok(location) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    if created.replayed {
        response.headers_mut().insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// The longest `Idempotency-Key` a client may send (docs/API.md section 6).
const MAX_IDEMPOTENCY_KEY: usize = 255;

/// The idempotency key stored for `given` sent with the API key `api_key`:
/// scoped to that key, so another key sending the same value neither replays
/// this key's booking nor is refused for it. The client's value is hashed
/// (after the usual checks), so that any value allowed stays within the length allowed.
fn scoped_idempotency_key(api_key: &str, given: &str) -> Result<String, Problem> {
    let ok = (1..=MAX_IDEMPOTENCY_KEY).contains(&given.len()) && given.bytes().all(|b| b.is_ascii_graphic());
    if !ok {
        let message = "must be 1 to 255 visible ASCII characters";
        return Err(Problem::from(rental_core::Error::invalid("Idempotency-Key", "invalid", message)));
    }
    Ok(format!("{api_key}:{}", hex::encode(<sha2::Sha256 as sha2::Digest>::digest(given.as_bytes()))))
}

/// `GET /api/v1/bookings/{code}`.
pub async fn get_booking<S: Store + 'static>(rental: &Arc<Rental<S>>, code: String, linker: &Linker<'_>) -> Reply {
    let booking = blocking(rental, move |r| r.booking(&code)).await?;
    Ok(json(StatusCode::OK, &linker.body(&booking)))
}

/// `PATCH /api/v1/bookings/{code}` with one action: 200 with the booking, or
/// `204 No Content` for a key without `read` (no `linker`), which may change
/// a booking but never read its guest's details or door code.
pub async fn patch_booking<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    code: String,
    body: &[u8],
    linker: Option<&Linker<'_>>,
) -> Reply {
    let action: Action = request::json(body)?;
    let booking = blocking(rental, move |r| r.update_booking(&code, &action)).await?;
    match linker {
        Some(linker) => Ok(json(StatusCode::OK, &linker.body(&booking))),
        None => Ok(no_content()),
    }
}

/// `204 No Content`.
pub(crate) fn no_content() -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// `GET /api/v1/ha/summary`.
pub async fn summary<S: Store + 'static>(rental: &Arc<Rental<S>>) -> Reply {
    let summary = read(rental, Rental::summary).await?;
    Ok(json_bytes(StatusCode::OK, summary.to_json()))
}

/// `GET /api/v1/sync/status`: every configured feed's freshness.
pub async fn sync_status<S: Store + 'static>(rental: &Arc<Rental<S>>) -> Reply {
    let status = read(rental, |r: &Rental<_>| r.calendars().sync_status()).await?;
    Ok(json(StatusCode::OK, &status))
}

/// `POST /api/v1/sync/ical[?property=slug]`: pulls the feeds now and answers with the
/// report once every pull ended (failed feeds are in it, the request still succeeds).
/// An unknown or inactive property is a 404.
pub async fn sync<S: Store + 'static>(puller: &Arc<feed_pulls::FeedPuller<S>>, query: &Query) -> Reply {
    let property = query
        .get("property")
        .map(|p| Slug::parse(p).map(|_| p.to_owned()))
        .transpose()
        .map_err(|e| Problem::invalid_parameter("property", e.to_string()))?;
    let report = puller.sync(property, |_| {}).await.map_err(problem)?;
    Ok(json(StatusCode::OK, &report))
}

/// `GET /api/v1/calendar/{slug}.ics`: our calendar export of the property, or 304 when `If-None-Match`
/// names its current `ETag`.
pub async fn calendar<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    slug: String,
    query: &Query,
    headers: &HeaderMap,
) -> Reply {
    let exclude = query.get("exclude").map(str::to_owned);
    let export = blocking(rental, move |r| r.calendars().calendar_export(&slug, exclude.as_deref())).await?;
    let etag = HeaderValue::try_from(export.etag.as_str()).map_err(|_| Problem::internal())?;
    let known = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim() == "*" || tag.trim().trim_start_matches("W/") == export.etag);
    let (status, body) =
        if known { (StatusCode::NOT_MODIFIED, Bytes::new()) } else { (StatusCode::OK, Bytes::from(export.body)) };
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::ETAG, etag);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/calendar; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}
