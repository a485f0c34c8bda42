//! [`Stripe`]: the [`PaymentProvider`] of Stripe's API, a small typed client of the nine
//! calls the server makes, over the server's own outbound HTTP client.
//!
//! Why not `async-stripe`: its generated crates would add a large build on a 2-core machine
//! for the nine form-encoded calls we make; here each call is a few lines, and errors map
//! onto [`ProviderError`] in one place (`answer`). Every call sends the secret key as
//! `Authorization: Bearer`, and each movement its fixed `Idempotency-Key` (Stripe then
//! answers a retry with the first result; the stand-in used by the tests ignores the
//! header, which is why the key is also in the payment's metadata).

mod answer;
mod form;
mod signature;
mod wire;

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use http::header::{AUTHORIZATION, CONTENT_TYPE};
use http::{HeaderName, HeaderValue};
use rental_core::payment_provider::{
    CardSetup, CardSetupRequest, ChargeRequest, ClientConfig, MOVEMENT_KEY, Payment, PaymentProvider, ProviderError,
    ProviderFuture, Refund, RefundRequest, Session, WebhookError, WebhookEvent, WebhookHeaders,
};
use serde_json::Value;

use super::Secret;
use crate::outbound::{Outbound, OutboundConfig, OutboundError};
use answer::answer;
use form::Form;
pub use signature::{TOLERANCE_SECONDS, sign};

/// The longest answer read from Stripe (a list of 100 payment intents fits).
const MAX_ANSWER: usize = 4 * 1024 * 1024;
/// The most pages of payment intents [`Stripe::find_payment`] reads.
const MAX_PAGES: usize = 20;

/// Stripe's settings (`[payments]` with `provider = "stripe"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StripeConfig {
    /// `secretKey`: sent to Stripe only.
    pub secret_key: Secret,
    /// `publishableKey`: given to the guest's browser.
    pub publishable_key: String,
    /// `webhookSecret`: checks `Stripe-Signature`.
    pub webhook_secret: Secret,
    /// `apiBase`, without a trailing slash.
    pub api_base: String,
    /// `jsUrl`: where the card form's Stripe.js is loaded from.
    pub js_url: String,
    /// The longest one call may take (the caller may set a shorter deadline of its own).
    pub timeout: Duration,
}

impl StripeConfig {
    /// Settings with these keys, Stripe's API and Stripe.js, and a 10 s time-out.
    pub fn new(secret_key: &str, publishable_key: &str, webhook_secret: &str) -> Self {
        StripeConfig {
            secret_key: Secret::new(secret_key),
            publishable_key: publishable_key.to_owned(),
            webhook_secret: Secret::new(webhook_secret),
            api_base: super::STRIPE_API_BASE.to_owned(),
            js_url: super::STRIPE_JS_URL.to_owned(),
            timeout: Duration::from_secs(10),
        }
    }
}

/// Stripe's API as a [`PaymentProvider`].
#[derive(Debug, Clone)]
pub struct Stripe {
    config: StripeConfig,
    http: Outbound,
}

impl Stripe {
    /// A client for these settings. `apiBase` comes from the operator, not from a user, so
    /// it may be a loopback or private address (a stand-in in tests, a proxy).
    pub fn new(config: StripeConfig) -> Result<Self, OutboundError> {
        let outbound = OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() };
        Ok(Stripe { config, http: Outbound::new(outbound)? })
    }

    fn headers(&self, idempotency_key: Option<&str>) -> Vec<(HeaderName, HeaderValue)> {
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", self.config.secret_key.expose()))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer invalid"));
        auth.set_sensitive(true);
        let mut headers = vec![(AUTHORIZATION, auth)];
        if let Some(value) = idempotency_key.and_then(|k| HeaderValue::from_str(k).ok()) {
            headers.push((HeaderName::from_static("idempotency-key"), value));
        }
        headers
    }

    async fn post(&self, path: &str, form: Form, idempotency_key: Option<&str>) -> Result<Value, ProviderError> {
        let mut headers = self.headers(idempotency_key);
        headers.push((CONTENT_TYPE, HeaderValue::from_static("application/x-www-form-urlencoded")));
        let url = format!("{}{path}", self.config.api_base);
        let body = Bytes::from(form.finish());
        let reply = self.http.post(&url, &headers, body, self.config.timeout, MAX_ANSWER).await;
        answer(reply, &self.config.secret_key)
    }

    async fn get(&self, path: &str) -> Result<Value, ProviderError> {
        let url = format!("{}{path}", self.config.api_base);
        let reply = self.http.get(&url, &self.headers(None), self.config.timeout, MAX_ANSWER, 0).await;
        answer(reply, &self.config.secret_key)
    }

    async fn setup(&self, req: CardSetupRequest) -> Result<CardSetup, ProviderError> {
        let customer = if let Some(customer) = req.customer {
            customer
        } else {
            let form = Form::new().field("email", &req.email).field("name", &req.name).metadata(&req.metadata);
            wire::id(&self.post("/v1/customers", form, None).await?)?
        };
        let form = Form::new().field("customer", &customer).field("usage", "off_session").metadata(&req.metadata);
        wire::card_setup(&self.post("/v1/setup_intents", form, None).await?)
    }

    async fn charge_card(&self, req: ChargeRequest) -> Result<Payment, ProviderError> {
        let mut metadata = req.metadata.clone();
        metadata.insert(MOVEMENT_KEY.to_owned(), req.idempotency_key.clone());
        let mut form = Form::new()
            .field("amount", &req.amount.to_string())
            .field("currency", &req.currency.to_ascii_lowercase())
            .field("customer", &req.customer)
            .field("payment_method", &req.card)
            .field("payment_method_types[0]", "card")
            .field("capture_method", if req.hold { "manual" } else { "automatic" })
            .field("confirm", "true")
            .metadata(&metadata);
        if req.session == Session::Off {
            form = form.field("off_session", "true");
        }
        match self.post("/v1/payment_intents", form, Some(&req.idempotency_key)).await {
            Err(ProviderError::Declined { reason }) => self.declined(&req, reason).await,
            other => wire::payment(&other?),
        }
    }

    /// A charge Stripe refused with a 402: the payment it made, failed (Stripe names it in the
    /// error; the stand-in names only its charge, or nothing, so it is looked up).
    async fn declined(&self, req: &ChargeRequest, reason: String) -> Result<Payment, ProviderError> {
        let found = self.find(&req.customer, &req.idempotency_key).await?;
        let mut payment = found.ok_or(ProviderError::Declined { reason: reason.clone() })?;
        payment.error.get_or_insert(reason);
        Ok(payment)
    }

    /// Lists payment intents, `customer`'s where the API can filter (Stripe can; the stand-in
    /// answers 400 to the filter and lists them all), and keeps the one made for `key`.
    async fn find(&self, customer: &str, key: &str) -> Result<Option<Payment>, ProviderError> {
        let mut filter = format!("customer={}&", form::encode(customer));
        let mut after = String::new();
        for _ in 0..MAX_PAGES {
            let page = match self.get(&format!("/v1/payment_intents?{filter}limit=100{after}")).await {
                Err(ProviderError::Refused { status: 400, .. }) if !filter.is_empty() => {
                    filter.clear();
                    continue;
                }
                page => page?,
            };
            let intents = page["data"].as_array().cloned().unwrap_or_default();
            for intent in &intents {
                let payment = wire::payment(intent)?;
                if payment.movement_key() == Some(key) && payment.customer.as_deref() == Some(customer) {
                    return Ok(Some(payment));
                }
            }
            match intents.last().and_then(|i| i["id"].as_str()) {
                Some(last) if page["has_more"].as_bool() == Some(true) => {
                    after = format!("&starting_after={}", form::encode(last));
                }
                _ => break,
            }
        }
        Ok(None)
    }

    /// The refunds of payment intent `payment`, and the one made for `key` among them (the
    /// stand-in ignores `Idempotency-Key`, so a retry looks first).
    async fn find_refund_of(&self, payment: &str, key: &str) -> Result<Option<Refund>, ProviderError> {
        let page = self.get(&format!("/v1/refunds?payment_intent={}&limit=100", form::encode(payment))).await?;
        let refunds = page["data"].as_array().cloned().unwrap_or_default();
        let made = refunds.iter().find(|r| r["metadata"][MOVEMENT_KEY].as_str() == Some(key));
        made.map(wire::refund).transpose()
    }

    async fn refund_payment(&self, req: RefundRequest) -> Result<Refund, ProviderError> {
        let mut metadata = req.metadata.clone();
        metadata.insert(MOVEMENT_KEY.to_owned(), req.idempotency_key.clone());
        let form = Form::new()
            .field("payment_intent", &req.payment)
            .field("amount", &req.amount.to_string())
            .metadata(&metadata);
        wire::refund(&self.post("/v1/refunds", form, Some(&req.idempotency_key)).await?)
    }
}

impl PaymentProvider for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn client_config(&self) -> ClientConfig {
        ClientConfig::new(&self.config.publishable_key, &self.config.js_url)
    }

    fn start_card_setup(&self, req: CardSetupRequest) -> ProviderFuture<'_, CardSetup> {
        Box::pin(self.setup(req))
    }

    fn card_setup(&self, id: &str) -> ProviderFuture<'_, CardSetup> {
        let path = format!("/v1/setup_intents/{}", form::encode(id));
        Box::pin(async move { wire::card_setup(&self.get(&path).await?) })
    }

    fn charge(&self, req: ChargeRequest) -> ProviderFuture<'_, Payment> {
        Box::pin(self.charge_card(req))
    }

    fn payment(&self, id: &str) -> ProviderFuture<'_, Payment> {
        let path = format!("/v1/payment_intents/{}", form::encode(id));
        Box::pin(async move { wire::payment(&self.get(&path).await?) })
    }

    fn find_payment(&self, customer: &str, key: &str) -> ProviderFuture<'_, Option<Payment>> {
        let (customer, key) = (customer.to_owned(), key.to_owned());
        Box::pin(async move { self.find(&customer, &key).await })
    }

    fn capture(&self, id: &str, amount: Option<i64>, idempotency_key: &str) -> ProviderFuture<'_, Payment> {
        let path = format!("/v1/payment_intents/{}/capture", form::encode(id));
        let mut form = Form::new();
        if let Some(amount) = amount {
            form = form.field("amount_to_capture", &amount.to_string());
        }
        let key = idempotency_key.to_owned();
        Box::pin(async move { wire::payment(&self.post(&path, form, Some(&key)).await?) })
    }

    fn release(&self, id: &str, idempotency_key: &str) -> ProviderFuture<'_, Payment> {
        let path = format!("/v1/payment_intents/{}/cancel", form::encode(id));
        let key = idempotency_key.to_owned();
        Box::pin(async move { wire::payment(&self.post(&path, Form::new(), Some(&key)).await?) })
    }

    fn refund(&self, req: RefundRequest) -> ProviderFuture<'_, Refund> {
        Box::pin(self.refund_payment(req))
    }

    fn find_refund(&self, payment: &str, key: &str) -> ProviderFuture<'_, Option<Refund>> {
        let (payment, key) = (payment.to_owned(), key.to_owned());
        Box::pin(async move { self.find_refund_of(&payment, &key).await })
    }

    fn parse_webhook(&self, headers: &WebhookHeaders<'_>, body: &[u8], now: i64) -> Result<WebhookEvent, WebhookError> {
        let header = headers.get("stripe-signature").ok_or(WebhookError::MissingSignature)?;
        signature::verify(self.config.webhook_secret.expose().as_bytes(), header, body, now)?;
        wire::event(body)
    }
}

/// Metadata as Stripe's form fields take it.
fn metadata_fields(metadata: &BTreeMap<String, String>) -> impl Iterator<Item = (String, &str)> {
    metadata.iter().map(|(k, v)| (format!("metadata[{k}]"), v.as_str()))
}
