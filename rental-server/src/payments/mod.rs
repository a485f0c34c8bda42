//! Taking payments (docs/API.md section 23): the `[payments]` settings and the provider
//! they choose, Stripe (the `stripe` module), behind rental-core's [`PaymentProvider`] seam.
//!
//! Without a provider (`provider = "none"`, the default) the server behaves as before
//! section 23: the checkout endpoints answer 409 `payments_not_configured`.

pub mod checkout;
pub mod installments;
mod provider_call;
pub mod reconcile;
pub mod refunds;
pub mod settle;
pub mod stripe;
pub mod webhook;

use std::fmt;
use std::sync::Arc;

use rental_core::payment_provider::PaymentProvider;

pub use provider_call::HANDLER_DEADLINE;
pub use stripe::{Stripe, StripeConfig};

/// The default of `apiBase`: Stripe's API.
pub const STRIPE_API_BASE: &str = "https://api.stripe.com";
/// The default of `jsUrl`: Stripe.js.
pub const STRIPE_JS_URL: &str = "https://js.stripe.com/v3/";

/// A secret setting (the secret key, the webhook secret): its `Debug` never shows it, and
/// nothing renders it but the one call that sends it to the provider.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Secret(secret.into())
    }

    /// The secret itself, for the one place that sends or checks it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the secret replaced by `[redacted]`: for a provider's
    /// message that might echo it.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.is_empty() { text.to_owned() } else { text.replace(&self.0, "[redacted]") }
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// The payment settings (`[payments]` in rental.toml): which provider, and its own settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PaymentsConfig {
    /// No provider: no money moves through the server (the default).
    #[default]
    None,
    /// Stripe (or a stand-in speaking its API at `apiBase`).
    Stripe(StripeConfig),
}

impl PaymentsConfig {
    /// The provider these settings choose, built once per server; `None` without one.
    pub fn provider(&self) -> Result<Option<Arc<dyn PaymentProvider>>, crate::outbound::OutboundError> {
        match self {
            PaymentsConfig::None => Ok(None),
            PaymentsConfig::Stripe(config) => Ok(Some(Arc::new(Stripe::new(config.clone())?))),
        }
    }
}
