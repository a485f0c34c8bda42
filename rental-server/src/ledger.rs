//! The payment ledger endpoint (docs/API.md, Payments): a booking's
//! installments, deposit and refunds, under `/api/v1/bookings/{code}/payments`.

use std::sync::Arc;

use http::StatusCode;
use rental_core::payments::PaymentView;
use rental_core::{Rental, Store};
use serde_json::json;

use crate::reply::{Reply, blocking, json};

/// `GET /api/v1/bookings/{code}/payments` → `{"data": [Payment…]}`:
/// installments by number, then the deposit, then refunds.
pub async fn list<S: Store + 'static>(rental: &Arc<Rental<S>>, code: String) -> Reply {
    let records = blocking(rental, move |r| r.payments(&code)).await?;
    let data: Vec<PaymentView> = records.iter().map(PaymentView::from).collect();
    Ok(json(StatusCode::OK, &json!({ "data": data })))
}
