//! How an answer from Stripe becomes a value or a [`ProviderError`]: the one place that
//! decides what is retryable, and that scrubs the secret key from anything kept.

use rental_core::payment_provider::ProviderError;
use serde_json::Value;

use crate::outbound::{OutboundError, Reply};
use crate::payments::Secret;

/// The JSON of a 2xx answer, or the error the status and Stripe's `error` object say.
pub(super) fn answer(reply: Result<Reply, OutboundError>, key: &Secret) -> Result<Value, ProviderError> {
    let reply = reply.map_err(|e| ProviderError::Unavailable { reason: key.scrub(&e.to_string()) })?;
    let status = reply.status.as_u16();
    let json: Option<Value> = serde_json::from_slice(&reply.body).ok();
    if reply.status.is_success() {
        return json.ok_or_else(|| ProviderError::Malformed { reason: "the answer is not json".into() });
    }
    let error = json.as_ref().map(|j| &j["error"]);
    let message = error.and_then(|e| e["message"].as_str()).unwrap_or("no message");
    let reason = key.scrub(&truncate(message, 300));
    Err(match status {
        402 => ProviderError::Declined { reason },
        404 => ProviderError::NotFound { what: "object" },
        409 | 429 | 500.. => ProviderError::Unavailable { reason: format!("status {status}: {reason}") },
        _ => ProviderError::Refused { status, reason },
    })
}

fn truncate(text: &str, max: usize) -> String {
    text.char_indices().nth(max).map_or_else(|| text.to_owned(), |(end, _)| format!("{}...", &text[..end]))
}
