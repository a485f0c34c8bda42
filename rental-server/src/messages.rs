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

/// `POST /api/v1/bookings/{code}/messages` `{"kind"}` → 202 with the new record, due now.
pub async fn resend<S: Store + 'static>(rental: &Arc<Rental<S>>, code: String, body: &[u8]) -> Reply {
    let req: ResendRequest = request::json(body)?;
    let message = blocking(rental, move |r| r.resend_message(&code, req.kind)).await?;
    Ok(json(StatusCode::ACCEPTED, &MessageView::from(&message)))
}
