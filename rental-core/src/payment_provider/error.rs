//! [`ProviderError`]: why a call to the payment provider failed, and whether to try again;
//! [`WebhookError`]: why a webhook was not believed.

/// Why a provider call failed. Messages are short, lowercase, and never hold a secret key:
/// they may be stored on a ledger record and shown to the host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// The provider could not be reached, timed out, or failed on its side (5xx, 429): try
    /// again later with the same idempotency key.
    #[error("payment provider unavailable: {reason}")]
    Unavailable {
        /// What happened.
        reason: String,
    },
    /// The card was declined where the provider answers with an error rather than a failed
    /// payment (saving a card, for one).
    #[error("card declined: {reason}")]
    Declined {
        /// The bank's or provider's reason.
        reason: String,
    },
    /// The provider refused the request itself (4xx): a retry would be refused too.
    #[error("payment provider refused the request ({status}): {reason}")]
    Refused {
        /// The provider's HTTP status, or 0 when it has none.
        status: u16,
        /// The provider's message.
        reason: String,
    },
    /// The object named does not exist at the provider.
    #[error("{what} not found at the payment provider")]
    NotFound {
        /// What was looked for (`payment`, `card setup`).
        what: &'static str,
    },
    /// The provider answered something this client cannot read.
    #[error("unreadable payment provider answer: {reason}")]
    Malformed {
        /// What could not be read.
        reason: String,
    },
}

impl ProviderError {
    /// True when the same call may succeed later (the provider was down or slow).
    pub fn is_retryable(&self) -> bool {
        matches!(self, ProviderError::Unavailable { .. })
    }
}

/// Why a webhook was refused (the endpoint answers 400 and changes nothing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// No signature header.
    #[error("missing signature")]
    MissingSignature,
    /// The signature header cannot be read, or no signature in it matches the body.
    #[error("invalid signature")]
    InvalidSignature,
    /// Signed too long ago (or too far in the future) for the tolerance.
    #[error("signature timestamp outside the tolerance")]
    Stale,
    /// Signed, but the body is not an event this provider sends.
    #[error("unreadable event: {reason}")]
    Malformed {
        /// What could not be read.
        reason: String,
    },
}
