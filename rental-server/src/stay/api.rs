//! `POST /api/v1/bookings/{code}/stay-link`: the API's one stay page
//! endpoint, rotating a booking's link (docs/API.md section 24).

use std::sync::Arc;

use http::StatusCode;
use rental_core::{Rental, Store};
use serde::Deserialize;

use super::body::Linker;
use crate::reply::{Reply, blocking, json};
use crate::request;

/// The body of `POST /api/v1/bookings/{code}/stay-link`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StayLinkAction {
    /// `rotate`: sign the stay page anew; the old link is dead at once.
    pub action: StayLinkVerb,
}

/// What to do with a stay page link.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StayLinkVerb {
    /// A new signature; every earlier link answers 404.
    Rotate,
}

/// Rotates booking `code`'s link: 200 with the booking and its new `stayUrl`,
/// or 204 for a key without `read` (no `linker`).
pub async fn rotate<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    code: String,
    body: &[u8],
    linker: Option<&Linker<'_>>,
) -> Reply {
    let StayLinkAction { action: StayLinkVerb::Rotate } = request::json(body)?;
    let booking = blocking(rental, move |r| r.rotate_stay_link(&code)).await?;
    match linker {
        Some(linker) => Ok(json(StatusCode::OK, &linker.body(&booking))),
        None => Ok(crate::handlers::no_content()),
    }
}
