//! `POST /payments/stripe/webhook` (docs/API.md section 23): the provider's notice that a
//! payment changed. The signature is checked (missing, wrong or stale: 400, nothing changes);
//! the event only names a payment, which is fetched from the provider and acted on as it is
//! there, so a forged or replayed body changes nothing the provider does not confirm, and a
//! repeat is a no-op. A payment that is not one of ours is acknowledged and ignored.

use std::sync::Arc;

use http::StatusCode;
use rental_core::payment_provider::{PaymentProvider, WebhookHeaders};
use rental_core::{Rental, Store};
use serde_json::json;

use super::provider_call::{deadline, failed, within};
use super::reconcile::{Unreconciled, reconcile};
use crate::AppState;
use crate::problem::Problem;
use crate::reply::{Reply, blocking, json};

/// The webhook of the provider named `name` in the path.
pub async fn receive<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    name: &str,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Reply {
    let provider = state
        .payments
        .clone()
        .filter(|p| p.name() == name)
        .ok_or_else(|| Problem::not_found(format!("no {name} payment provider is configured on this server")))?;
    let pairs: Vec<(&str, &str)> = headers.iter().filter_map(|(n, v)| Some((n.as_str(), v.to_str().ok()?))).collect();
    // The provider signs with its own clock: freshness is judged on the real one.
    let now = chrono::Utc::now().timestamp();
    let event = provider.parse_webhook(&WebhookHeaders(&pairs), body, now).map_err(|e| {
        tracing::warn!(error = %e, "payment webhook refused");
        Problem::new(StatusCode::BAD_REQUEST, "invalid_signature", format!("webhook refused: {e}"))
    })?;
    let acted = match event.payment.as_deref() {
        Some(id) => act(state.rental(), provider.as_ref(), id).await?,
        None => false,
    };
    tracing::info!(event = %event.id, kind = %event.kind, acted, "payment webhook");
    Ok(json(StatusCode::OK, &json!({"received": true})))
}

/// Fetches payment `id` and brings its checkout in line; false when it is not ours.
async fn act<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    id: &str,
) -> Result<bool, Problem> {
    let payment = within(deadline(), provider.payment(id)).await.map_err(|e| failed(&e))?;
    let Some(code) = payment.metadata.get("booking").cloned() else { return Ok(false) };
    let checkout = blocking(rental, move |r| r.checkout_of(&code)).await?;
    // Ours only if the booking's checkout made this very payment (metadata alone can be anyone's).
    let Some(checkout) = checkout.filter(|c| c.payment.as_deref() == Some(id) || c.payment.is_none()) else {
        return Ok(false);
    };
    if checkout.customer.as_str() != payment.customer.as_deref().unwrap_or_default() {
        return Ok(false);
    }
    match reconcile(rental, provider, checkout).await {
        Ok(()) => Ok(true),
        Err(Unreconciled::Provider(e)) => Err(failed(&e)),
        Err(Unreconciled::Store(problem)) => Err(problem),
    }
}
