//! The manual-block endpoints (docs/API.md section 14): list, create and
//! delete under `/api/v1/properties/{slug}/blocks`.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use rental_core::calendar::{Block, NewBlock};
use rental_core::{Rental, Store};
use serde_json::json;

use crate::reply::{Reply, blocking, json};
use crate::request::{self, Query};

/// `GET /api/v1/properties/{slug}/blocks?from=&to=`.
pub async fn list<S: Store + 'static>(rental: &Arc<Rental<S>>, slug: String, query: &Query) -> Reply {
    let from = query.date("from")?;
    let to = query.date("to")?;
    let blocks = blocking(rental, move |r| r.calendars().blocks(&slug, from, to)).await?;
    let data: Vec<_> = blocks.iter().map(Block::public).collect();
    Ok(json(StatusCode::OK, &json!({ "data": data })))
}

/// `POST /api/v1/properties/{slug}/blocks` → 201 with `Location`.
pub async fn create<S: Store + 'static>(rental: &Arc<Rental<S>>, slug: String, body: &[u8]) -> Reply {
    let req: NewBlock = request::json(body)?;
    let block = blocking(rental, move |r| r.calendars().create_block(&slug, &req)).await?;
    let mut response = json(StatusCode::CREATED, &block.public());
    let location = format!("/api/v1/properties/{}/blocks/{}", block.property, block.id);
    if let Ok(location) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// `DELETE /api/v1/properties/{slug}/blocks/{id}` → 204.
pub async fn delete<S: Store + 'static>(rental: &Arc<Rental<S>>, slug: String, id: String) -> Reply {
    blocking(rental, move |r| r.calendars().remove_block(&slug, &id)).await?;
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    Ok(response)
}
