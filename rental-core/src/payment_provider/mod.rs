//! The payment provider seam (docs/API.md section 23): what the engine asks of whoever moves
//! the money, as one small trait an embedder implements for the provider of their choice.
//!
//! A booking's money moves in one flow on every provider: the guest saves a card once
//! ([`PaymentProvider::start_card_setup`], confirmed in the guest's browser by the provider's
//! own card form), then the server charges or holds amounts with that card
//! ([`PaymentProvider::charge`]), on-session while the guest waits or off-session later for
//! an installment or a deposit, and settles holds ([`PaymentProvider::capture`],
//! [`PaymentProvider::release`]) and refunds ([`PaymentProvider::refund`]). The server never
//! believes a notification alone: a webhook ([`PaymentProvider::parse_webhook`]) only names a
//! payment, which the server then fetches ([`PaymentProvider::payment`]) and acts on.
//!
//! # Why boxed futures
//!
//! Every call but the webhook check goes over the network, so the trait is asynchronous; it
//! returns [`ProviderFuture`] (a boxed `Send` future) rather than using `async fn` because a
//! server picks its provider at run time from its settings and keeps it as
//! `Arc<dyn PaymentProvider>`, which `async fn` in traits does not allow. Boxing costs one
//! allocation per call, nothing next to a round trip to a provider. The trait names no
//! runtime: the engine's own crate has none, and an implementation may use any client whose
//! futures are `Send` (the reference server's Stripe client runs on tokio and hyper). The
//! caller owns deadlines: it wraps each call in its own timeout, so an implementation need
//! not, though it may.
//!
//! # Idempotency
//!
//! Every movement that can move money carries a key fixed for that movement
//! ([`ChargeRequest::idempotency_key`], and the same on capture, release and refund). An
//! implementation passes it to the provider so that a retry after a crash or a time-out
//! never charges twice, and also records it in the payment's metadata
//! ([`MOVEMENT_KEY`]): [`PaymentProvider::find_payment`] finds the payment by it when the
//! answer to the first attempt was lost.
//!
//! # Implementing another provider
//!
//! ```
//! use std::sync::Mutex;
//! use rental_core::payment_provider::*;
//!
//! /// A provider that accepts every card and keeps its payments in memory.
//! #[derive(Debug, Default)]
//! struct Always { payments: Mutex<Vec<Payment>> }
//!
//! impl PaymentProvider for Always {
//!     fn name(&self) -> &'static str { "always" }
//!     fn client_config(&self) -> ClientConfig {
//!         ClientConfig::new("pk_always", "https://pay.example/v1.js")
//!     }
//!     fn start_card_setup(&self, req: CardSetupRequest) -> ProviderFuture<'_, CardSetup> {
//!         let customer = req.customer.unwrap_or_else(|| format!("cus_{}", req.email));
//!         ready(Ok(CardSetup::new("seti_1", "seti_1_secret", customer, SetupState::NeedsCard)))
//!     }
//!     fn card_setup(&self, id: &str) -> ProviderFuture<'_, CardSetup> {
//!         let mut setup = CardSetup::new(id, "seti_1_secret", "cus_x", SetupState::Saved);
//!         setup.card = Some("card_1".into());
//!         ready(Ok(setup))
//!     }
//!     fn charge(&self, req: ChargeRequest) -> ProviderFuture<'_, Payment> {
//!         let state = if req.hold { PaymentState::Authorized } else { PaymentState::Succeeded };
//!         let mut payment = Payment::new(format!("pay_{}", req.idempotency_key), state, req.amount, &req.currency);
//!         payment.metadata = req.metadata.clone();
//!         payment.metadata.insert(MOVEMENT_KEY.into(), req.idempotency_key.clone());
//!         self.payments.lock().unwrap().push(payment.clone());
//!         ready(Ok(payment))
//!     }
//!     fn payment(&self, id: &str) -> ProviderFuture<'_, Payment> {
//!         let found = self.payments.lock().unwrap().iter().find(|p| p.id == id).cloned();
//!         ready(found.ok_or(ProviderError::NotFound { what: "payment" }))
//!     }
//!     fn find_payment(&self, _customer: &str, key: &str) -> ProviderFuture<'_, Option<Payment>> {
//!         let found = self.payments.lock().unwrap().iter().find(|p| p.movement_key() == Some(key)).cloned();
//!         ready(Ok(found))
//!     }
//!     fn capture(&self, id: &str, amount: Option<i64>, _key: &str) -> ProviderFuture<'_, Payment> {
//!         self.settle(id, PaymentState::Succeeded, amount)
//!     }
//!     fn release(&self, id: &str, _key: &str) -> ProviderFuture<'_, Payment> {
//!         self.settle(id, PaymentState::Canceled, None)
//!     }
//!     fn refund(&self, req: RefundRequest) -> ProviderFuture<'_, Refund> {
//!         ready(Ok(Refund { id: format!("re_{}", req.idempotency_key), amount: req.amount, state: RefundState::Succeeded }))
//!     }
//!     fn parse_webhook(&self, _headers: &WebhookHeaders<'_>, _body: &[u8], _now: i64) -> Result<WebhookEvent, WebhookError> {
//!         Err(WebhookError::MissingSignature)
//!     }
//! }
//!
//! impl Always {
//!     fn settle(&self, id: &str, state: PaymentState, amount: Option<i64>) -> ProviderFuture<'_, Payment> {
//!         let mut payments = self.payments.lock().unwrap();
//!         let Some(payment) = payments.iter_mut().find(|p| p.id == id) else {
//!             return ready(Err(ProviderError::NotFound { what: "payment" }));
//!         };
//!         payment.state = state;
//!         payment.amount_received = amount.unwrap_or(payment.amount);
//!         ready(Ok(payment.clone()))
//!     }
//! }
//!
//! // The server keeps it as `Arc<dyn PaymentProvider>`, picked from its settings.
//! let provider: std::sync::Arc<dyn PaymentProvider> = std::sync::Arc::new(Always::default());
//! assert_eq!(provider.name(), "always");
//! ```

mod checkout;
mod error;
mod types;

use std::future::Future;
use std::pin::Pin;

pub use checkout::{Checkout, CheckoutOutcome};
pub use error::{ProviderError, WebhookError};
pub use types::{
    CardSetup, CardSetupRequest, ChargeRequest, ClientConfig, MOVEMENT_KEY, Payment, PaymentState, Refund,
    RefundRequest, RefundState, Session, SetupState, WebhookEvent, WebhookHeaders,
};

/// What every provider call returns: a boxed future, `Send` so that a multi-threaded server
/// may await it on any worker.
pub type ProviderFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ProviderError>> + Send + 'a>>;

/// A [`ProviderFuture`] that is ready at once, for a provider (or a test double) that answers
/// without waiting.
pub fn ready<'a, T: Send + 'a>(result: Result<T, ProviderError>) -> ProviderFuture<'a, T> {
    Box::pin(std::future::ready(result))
}

/// A payment provider: saves a guest's card, then charges, holds, captures, releases and
/// refunds amounts with it. Amounts are integers in the currency's minor unit (cents; a
/// zero-decimal currency such as JPY has none); currencies are ISO 4217 codes.
///
/// Errors say whether to try again ([`ProviderError::is_retryable`]): a decline is the bank's
/// answer and final for that attempt; a provider that is down or slow is not.
pub trait PaymentProvider: Send + Sync + std::fmt::Debug {
    /// The provider's name as the API shows it (`"stripe"`), in the checkout answer.
    fn name(&self) -> &'static str;

    /// What the guest's browser needs to show the provider's card form.
    fn client_config(&self) -> ClientConfig;

    /// Creates the guest's customer when `req.customer` is `None`, then an intent to save a
    /// card for off-session use, which the provider's card form confirms in the browser.
    fn start_card_setup(&self, req: CardSetupRequest) -> ProviderFuture<'_, CardSetup>;

    /// The card-saving intent `id` as the provider has it now (whether the card was saved,
    /// and which).
    fn card_setup(&self, id: &str) -> ProviderFuture<'_, CardSetup>;

    /// Charges (or, with [`ChargeRequest::hold`], holds) an amount with a saved card, confirmed
    /// at once. A bank's refusal is an `Ok` payment in [`PaymentState::Failed`] (or
    /// [`PaymentState::RequiresAction`] when the bank wants the guest), not an error.
    fn charge(&self, req: ChargeRequest) -> ProviderFuture<'_, Payment>;

    /// The payment `id` as the provider has it now: what the server acts on.
    fn payment(&self, id: &str) -> ProviderFuture<'_, Payment>;

    /// The payment made for the movement `key` ([`MOVEMENT_KEY`] in its metadata) for
    /// `customer`, if there is one: how a movement whose answer was lost (a crash between the
    /// provider's answer and our commit) is found again.
    fn find_payment(&self, customer: &str, key: &str) -> ProviderFuture<'_, Option<Payment>>;

    /// Captures a hold, all of it or `amount` of it (the rest is released).
    fn capture(&self, id: &str, amount: Option<i64>, idempotency_key: &str) -> ProviderFuture<'_, Payment>;

    /// Releases a hold (or abandons a payment not yet made); nothing is charged.
    fn release(&self, id: &str, idempotency_key: &str) -> ProviderFuture<'_, Payment>;

    /// Refunds part or all of a payment that succeeded.
    fn refund(&self, req: RefundRequest) -> ProviderFuture<'_, Refund>;

    /// The refund made from payment `payment` for the movement `key` ([`MOVEMENT_KEY`] in its
    /// metadata), if there is one: how a refund whose answer was lost is found before it is
    /// asked for again. The default finds none, which suffices for a provider that answers a
    /// repeated idempotency key with its first answer.
    fn find_refund(&self, payment: &str, key: &str) -> ProviderFuture<'_, Option<Refund>> {
        let _ = (payment, key);
        ready(Ok(None))
    }

    /// Checks a webhook's signature at `now` (Unix seconds) and reads which payment it is
    /// about. Pure and quick: it runs on the request's thread.
    fn parse_webhook(&self, headers: &WebhookHeaders<'_>, body: &[u8], now: i64) -> Result<WebhookEvent, WebhookError>;
}
