//! Refunds through the provider (docs/API.md section 23), against localstripe: a
//! cancellation's refund by the frozen policy on the cancel answer, a host's refunding all,
//! goodwill refunds and their refusals, and a provider down while refunding.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rental_core::MemoryStore;
use rental_core::payment_provider::*;
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState as Ledger};
use rental_core::property::CancellationPolicy;
use rental_server::ServerConfig;
use rental_server::payments::Stripe;
use rental_server::payments::installments::charge_due;
use rental_tests::http::TestServer;
use rental_tests::localstripe::{LocalStripe, cards};
use serde_json::{Value, json};

/// Stripe, whose refunds fail as a provider down does while `down` is set.
#[derive(Debug)]
struct Flaky {
    stripe: Stripe,
    down: AtomicBool,
}

impl Flaky {
    fn refuse<'a, T: Send + 'a>(&self) -> Option<ProviderFuture<'a, T>> {
        let reason = "connection refused".to_owned();
        self.down.load(Ordering::SeqCst).then(|| ready(Err(ProviderError::Unavailable { reason })))
    }
}

impl PaymentProvider for Flaky {
    fn name(&self) -> &'static str {
        self.stripe.name()
    }
    fn client_config(&self) -> ClientConfig {
        self.stripe.client_config()
    }
    fn start_card_setup(&self, req: CardSetupRequest) -> ProviderFuture<'_, CardSetup> {
        self.stripe.start_card_setup(req)
    }
    fn card_setup(&self, id: &str) -> ProviderFuture<'_, CardSetup> {
        self.stripe.card_setup(id)
    }
    fn charge(&self, req: ChargeRequest) -> ProviderFuture<'_, Payment> {
        self.stripe.charge(req)
    }
    fn payment(&self, id: &str) -> ProviderFuture<'_, Payment> {
        self.stripe.payment(id)
    }
    fn find_payment(&self, customer: &str, key: &str) -> ProviderFuture<'_, Option<Payment>> {
        self.stripe.find_payment(customer, key)
    }
    fn capture(&self, id: &str, amount: Option<i64>, key: &str) -> ProviderFuture<'_, Payment> {
        self.stripe.capture(id, amount, key)
    }
    fn release(&self, id: &str, key: &str) -> ProviderFuture<'_, Payment> {
        self.stripe.release(id, key)
    }
    fn refund(&self, req: RefundRequest) -> ProviderFuture<'_, Refund> {
        self.refuse().unwrap_or_else(|| self.stripe.refund(req))
    }
    fn find_refund(&self, payment: &str, key: &str) -> ProviderFuture<'_, Option<Refund>> {
        self.refuse().unwrap_or_else(|| self.stripe.find_refund(payment, key))
    }
    fn parse_webhook(&self, headers: &WebhookHeaders<'_>, body: &[u8], now: i64) -> Result<WebhookEvent, WebhookError> {
        self.stripe.parse_webhook(headers, body, now)
    }
}

/// A server whose sea-view books instantly under the policy 30 days: 100 %, 7 days: 50 %,
/// and a booking there (28 days ahead) paid in full at checkout; its code and total.
async fn paid(stripe: &LocalStripe) -> (TestServer<MemoryStore>, Arc<Flaky>, String, i64) {
    let provider = Arc::new(Flaky { stripe: Stripe::new(stripe.config()).unwrap(), down: AtomicBool::new(false) });
    let server =
        TestServer::with_config(&ServerConfig { payments: Some(provider.clone()), ..ServerConfig::default() }).await;
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.instant_booking = true;
    property.payments.cancellation_policy = CancellationPolicy::checkpoints(&[(30, 10_000), (7, 5_000)]);
    server.rental.import_properties(&[property]).unwrap();
    server.set_now("2026-11-22T10:00:00Z");
    let booked = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await;
    let code = booked["code"].as_str().unwrap().to_owned();
    let started = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), cards::OK).await.expect(200);
    let done = server.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &server.key, &json!({})).await;
    assert_eq!(done.body["status"], "succeeded", "{}", done.body);
    (server, provider, code, booked["total"].as_i64().unwrap())
}

fn refunds(server: &TestServer<MemoryStore>, code: &str) -> Vec<PaymentRecord> {
    server.rental.payments(code).unwrap().into_iter().filter(|r| r.kind == PaymentKind::Refund).collect()
}

/// The refunds localstripe made of the booking's one payment intent.
async fn stripe_refunds(stripe: &LocalStripe) -> Vec<Value> {
    let intents = stripe.get("/v1/payment_intents?limit=100").await;
    let id = intents["data"][0]["id"].as_str().unwrap().to_owned();
    stripe.get(&format!("/v1/refunds?payment_intent={id}&limit=100")).await["data"].as_array().unwrap().clone()
}

fn events(server: &TestServer<MemoryStore>, name: &str) -> usize {
    let all = server.rental.admin().events_after(0, 100_000).unwrap();
    all.iter().filter(|e| e.event.event.as_str() == name).count()
}

#[tokio::test]
async fn a_guest_cancellation_refunds_the_policys_share_through_the_provider_once() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code, total) = paid(&stripe).await;
    let half = (total + 1) / 2;

    let cancelled = server.act(&code, &json!({"action": "cancel", "by": "guest"})).await;
    cancelled.expect(200);
    let body = &cancelled.body;
    assert_eq!(body["refund"]["amount"], half, "28 days ahead: 50 % of the total: {body}");
    assert_eq!(
        (body["refund"]["status"].as_str(), body["refund"]["currency"].as_str()),
        (Some("succeeded"), Some("USD"))
    );
    assert_eq!((body["amountPaid"].as_i64(), body["amountRefunded"].as_i64()), (Some(total), Some(half)));
    assert_eq!(body["paymentStatus"], "partially_refunded", "half of what was paid given back");

    let made = stripe_refunds(&stripe).await;
    assert_eq!(made.len(), 1, "{made:?}");
    assert_eq!((made[0]["amount"].as_i64(), made[0]["status"].as_str()), (Some(half), Some("succeeded")));
    let ledger = refunds(&server, &code);
    assert_eq!(ledger.len(), 1);
    assert_eq!((ledger[0].status, ledger[0].amount), (Ledger::Succeeded, half));
    assert_eq!(ledger[0].provider_ref.as_deref(), made[0]["id"].as_str());
    assert_eq!(made[0]["metadata"]["rental_movement"], ledger[0].idempotency_key.as_str());
    assert_eq!(events(&server, "booking.payment_refunded"), 1);

    // Later passes and a repeated cancel refund nothing more.
    server.set_now("2026-11-22T11:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    server.act(&code, &json!({"action": "cancel", "by": "guest"})).await.expect(200);
    assert_eq!(stripe_refunds(&stripe).await.len(), 1);
}

#[tokio::test]
async fn a_host_cancellation_refunds_everything_and_a_late_guest_one_nothing() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, code, total) = paid(&stripe).await;
    let cancelled = server.act(&code, &json!({"action": "cancel", "by": "host"})).await;
    assert_eq!(
        (cancelled.body["refund"]["amount"].as_i64(), cancelled.body["amountRefunded"].as_i64()),
        (Some(total), Some(total))
    );
    assert_eq!(stripe_refunds(&stripe).await[0]["amount"], total);

    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, code, _) = paid(&stripe).await;
    server.set_now("2026-12-17T10:00:00Z");
    let cancelled = server.act(&code, &json!({"action": "cancel", "by": "guest"})).await;
    assert_eq!(cancelled.body["refund"], Value::Null, "3 days ahead: nothing back");
    assert_eq!(cancelled.body["paymentStatus"], "paid", "a cancellation that refunds nothing leaves it as it was");
    assert!(stripe_refunds(&stripe).await.is_empty());
}

#[tokio::test]
async fn a_goodwill_refund_is_at_most_what_was_paid_and_not_refunded() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, code, total) = paid(&stripe).await;
    let path = format!("/api/v1/bookings/{code}/refunds");

    for bad in
        [json!({"amount": total + 1}), json!({"amount": 0}), json!({"amount": "10"}), json!({"amount": 5, "x": 1})]
    {
        server.post(&path, &server.key, &bad).await.problem(422, "validation_failed");
    }
    server.post(&path, &server.read_key, &json!({"amount": 100})).await.expect(403);
    assert!(stripe_refunds(&stripe).await.is_empty(), "nothing refunded");
    assert!(refunds(&server, &code).is_empty());

    let made = server.post(&path, &server.key, &json!({"amount": 5_000, "reason": "the hot water failed"})).await;
    made.expect(201);
    assert_eq!(made.body["data"][0]["status"], "succeeded", "{}", made.body);
    assert_eq!(made.body["data"][0]["amount"], 5_000);
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!(
        (booking["amountRefunded"].as_i64(), booking["paymentStatus"].as_str()),
        (Some(5_000), Some("partially_refunded"))
    );
    server.post(&path, &server.key, &json!({"amount": total - 4_999})).await.problem(422, "validation_failed");
    server.post(&path, &server.key, &json!({"amount": total - 5_000})).await.expect(201);
    let sum: i64 = stripe_refunds(&stripe).await.iter().map(|r| r["amount"].as_i64().unwrap()).sum();
    assert_eq!(sum, total);
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!(booking["paymentStatus"], "refunded", "all that was paid given back");
    assert_eq!(refunds(&server, &code).last().unwrap().reason.as_deref(), Some("goodwill"));
}

#[tokio::test]
async fn a_refund_while_the_provider_is_down_is_retried_with_its_key_and_made_once() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code, total) = paid(&stripe).await;
    provider.down.store(true, Ordering::SeqCst);
    let cancelled = server.act(&code, &json!({"action": "cancel", "by": "host"})).await;
    cancelled.expect(200);
    assert_eq!(cancelled.body["status"], "cancelled", "the cancellation does not wait on the provider");
    assert_eq!(
        (cancelled.body["refund"]["status"].as_str(), cancelled.body["amountRefunded"].as_i64()),
        (Some("due"), Some(0))
    );
    let due = refunds(&server, &code);
    assert_eq!((due[0].status, due[0].error.is_some()), (Ledger::Due, true), "{due:?}");

    provider.down.store(false, Ordering::SeqCst);
    charge_due(&server.rental, provider.as_ref()).await;
    assert_eq!(refunds(&server, &code)[0].status, Ledger::Due, "leased to the failed try until its lease lapses");
    server.set_now("2026-11-22T10:02:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    charge_due(&server.rental, provider.as_ref()).await;
    let made = refunds(&server, &code);
    assert_eq!((made[0].status, made[0].amount, made[0].error.as_deref()), (Ledger::Succeeded, total, None));
    assert_eq!(stripe_refunds(&stripe).await.len(), 1);
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!(booking["amountRefunded"], total);
}

#[tokio::test]
async fn without_a_provider_a_refund_is_409() {
    let server = TestServer::memory().await;
    let code = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    let reply = server.post(&format!("/api/v1/bookings/{code}/refunds"), &server.key, &json!({"amount": 1})).await;
    reply.problem(409, "payments_not_configured");
}

#[tokio::test]
async fn a_change_below_what_was_paid_refunds_the_difference_through_the_provider() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, code, total) = paid(&stripe).await;
    let changed = server.act(&code, &json!({"action": "change", "checkOut": "2026-12-23"})).await;
    changed.expect(200);
    let new_total = changed.body["total"].as_i64().unwrap();
    assert!(new_total < total, "{}", changed.body);
    assert_eq!(changed.body["amountRefunded"], total - new_total, "{}", changed.body);
    assert_eq!(changed.body["balanceDue"], 0);
    let made = stripe_refunds(&stripe).await;
    assert_eq!((made.len(), made[0]["amount"].as_i64()), (1, Some(total - new_total)));
    assert_eq!(refunds(&server, &code)[0].reason.as_deref(), Some("change"));
}
