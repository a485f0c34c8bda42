//! The guest message endpoints (docs/API.md section 21): a booking's messages,
//! and sending one kind again, under `/api/v1/bookings/{code}/messages`.

use std::sync::Arc;

use http::StatusCode;
use rental_core::message::{MessageView, ResendRequest};
use rental_core::{Rental, Store};
use serde_json::json;

use crate::reply::{Reply, blocking, json};
use crate::request;

/// `GET /api/v1/bookings/{code}/messages` → `{"data": [Message…]}`, in the order recorded.
pub async fn list<S: Store + 'static>(rental: &Arc<Rental<S>>, code: String) -> Reply {
    let messages = blocking(rental, move |r| r.messages(&code)).await?;
    let data: Vec<MessageView> = messages.iter().map(MessageView::from).collect();
    Ok(json(StatusCode::OK, &json!({ "data": data })))
}

/// The fields of a resent message a key without `read` gets back: the rest
/// (`to`, the rendered `subject`, the last `error`) is the guest's and the
/// host's, and a subject may carry a door code.
pub const UNREAD_FIELDS: &[&str] = &["id", "kind", "status", "dueAt"];

/// `POST /api/v1/bookings/{code}/messages` `{"kind"}` → 202 with the new record,
/// due now; for a key without `read` (`reader` false), [`UNREAD_FIELDS`] of it only.
pub async fn resend<S: Store + 'static>(rental: &Arc<Rental<S>>, code: String, body: &[u8], reader: bool) -> Reply {
    let req: ResendRequest = request::json(body)?;
    let message = blocking(rental, move |r| r.resend_message(&code, req.kind)).await?;
    let view = MessageView::from(&message);
    if reader {
        return Ok(json(StatusCode::ACCEPTED, &view));
    }
    // An allow list, so that a field added to the view later stays out until chosen.
    let mut all = serde_json::to_value(&view).map_err(|_| crate::problem::Problem::internal())?;
    let fields = all.as_object_mut().map(std::mem::take).unwrap_or_default();
    let kept: serde_json::Map<_, _> = fields.into_iter().filter(|(k, _)| UNREAD_FIELDS.contains(&k.as_str())).collect();
    Ok(json(StatusCode::ACCEPTED, &kept))
}
