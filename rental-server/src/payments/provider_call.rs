//! Calling the provider from a request handler: every call within the handler's deadline,
//! and a provider that is down, slow or refusing turned into the answer a client gets.

use std::future::Future;
use std::time::Duration;

use http::StatusCode;
use rental_core::payment_provider::ProviderError;
use tokio::time::Instant;

use crate::problem::Problem;

/// The longest a request handler waits on the provider in all: the client gets an answer
/// before a browser or proxy gives up, and the movement is retried later.
pub const HANDLER_DEADLINE: Duration = Duration::from_secs(8);

/// The handler's deadline, started now.
pub(crate) fn deadline() -> Instant {
    Instant::now() + HANDLER_DEADLINE
}

/// `call`, unless the deadline passes first ([`ProviderError::Unavailable`]).
pub(crate) async fn within<T>(
    deadline: Instant,
    call: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    tokio::time::timeout_at(deadline, call)
        .await
        .unwrap_or_else(|_| Err(ProviderError::Unavailable { reason: "no answer within the deadline".into() }))
}

/// 409 `payments_not_configured`: no provider, so no money moves through the server.
pub(crate) fn not_configured() -> Problem {
    Problem::new(StatusCode::CONFLICT, "payments_not_configured", "no payment provider is configured on this server")
}

/// The problem of a provider error: 503 `unavailable` when it may work later, else 502
/// `payment_failed` (a refusal). The message is the provider's, scrubbed of secrets already.
pub(crate) fn failed(error: &ProviderError) -> Problem {
    tracing::warn!(%error, "payment provider call failed");
    if error.is_retryable() {
        return Problem::unavailable("the payment provider is not answering; try again shortly");
    }
    Problem::new(StatusCode::BAD_GATEWAY, "payment_failed", format!("the payment provider refused: {error}"))
}
