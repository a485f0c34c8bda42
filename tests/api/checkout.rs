//! Paying through HTTP against localstripe (docs/API.md section 23): `checkout`, the card
//! saved as Stripe.js would, `checkout/complete`, and the host's confirm and cancel moving the
//! hold, for each test card; and the refusals (an amount from a client, no provider).

use std::sync::Arc;
use std::time::Duration;

use rental_core::MemoryStore;
use rental_core::payments::PaymentKind;
use rental_server::ServerConfig;
use rental_server::payments::Stripe;
use rental_tests::http::TestServer;
use rental_tests::localstripe::{LocalStripe, PUBLISHABLE_KEY, SECRET_KEY, WEBHOOK_SECRET, cards};
use rental_tests::receiver::Receiver;
use serde_json::{Value, json};

async fn server(stripe: &LocalStripe) -> TestServer<MemoryStore> {
    let provider = Stripe::new(stripe.config()).expect("a Stripe client");
    let config = ServerConfig { payments: Some(Arc::new(provider)), ..ServerConfig::default() };
    TestServer::with_config(&config).await
}

/// A new request at sea-view; its code.
async fn request(server: &TestServer<MemoryStore>) -> String {
    server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned()
}

async fn checkout(server: &TestServer<MemoryStore>, code: &str) -> Value {
    let reply = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    reply.expect(200);
    reply.body
}

async fn complete(server: &TestServer<MemoryStore>, code: &str) -> Value {
    let reply = server.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &server.key, &json!({})).await;
    reply.expect(200);
    reply.body
}

/// The booking's first installment in the ledger: its status, provider reference and error.
fn first_installment(server: &TestServer<MemoryStore>, code: &str) -> (String, Option<String>, Option<String>) {
    let records = server.rental.payments(code).unwrap();
    let first = records.iter().find(|r| r.kind == PaymentKind::Installment && r.number == 1).expect("installment 1");
    let status = serde_json::to_value(first.status).unwrap().as_str().unwrap().to_owned();
    (status, first.provider_ref.clone(), first.error.clone())
}

async fn booking(server: &TestServer<MemoryStore>, code: &str) -> Value {
    server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body
}

/// The checkout's payment as localstripe has it: the only payment intent there.
async fn the_intent(stripe: &LocalStripe) -> Value {
    let list = stripe.get("/v1/payment_intents?limit=100").await;
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "{list}");
    data[0].clone()
}

#[tokio::test]
async fn a_request_is_held_at_checkout_and_captured_when_the_host_confirms() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    let total = booking(&server, &code).await["total"].clone();

    let started = checkout(&server, &code).await;
    assert_eq!(started["provider"], "stripe");
    assert_eq!(started["publishableKey"], PUBLISHABLE_KEY);
    assert_eq!((&started["amountDueNow"], started["currency"].as_str()), (&total, Some("USD")));
    let secret = started["setupClientSecret"].as_str().unwrap();
    assert_eq!(checkout(&server, &code).await["setupClientSecret"], secret, "a repeat gives the same intent");

    stripe.save_card(secret, cards::OK).await.expect(200);
    assert_eq!(complete(&server, &code).await, json!({"status": "authorized"}));
    let held = booking(&server, &code).await;
    assert_eq!((held["status"].as_str(), held["paymentStatus"].as_str()), (Some("pending"), Some("authorized")));
    let intent = the_intent(&stripe).await;
    assert_eq!((intent["status"].as_str(), &intent["amount"]), (Some("requires_capture"), &total));
    assert_eq!(intent["metadata"]["booking"], code.as_str());
    let id = intent["id"].as_str().map(str::to_owned);
    assert_eq!(first_installment(&server, &code), ("authorized".to_owned(), id.clone(), None));
    // A repeat answers with the same hold and takes no second one.
    assert_eq!(complete(&server, &code).await, json!({"status": "authorized"}));

    let confirmed = server.act(&code, &json!({"action": "confirm"})).await;
    confirmed.expect(200);
    assert_eq!(
        (confirmed.body["status"].as_str(), confirmed.body["paymentStatus"].as_str()),
        (Some("confirmed"), Some("paid"))
    );
    assert_eq!(the_intent(&stripe).await["status"], "succeeded");
    assert_eq!(first_installment(&server, &code), ("succeeded".to_owned(), id, None));
}

#[tokio::test]
async fn cancelling_a_held_request_releases_the_hold() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::OK).await.expect(200);
    assert_eq!(complete(&server, &code).await["status"], "authorized");

    let cancelled = server.act(&code, &json!({"action": "cancel", "reason": "declined"})).await;
    cancelled.expect(200);
    assert_eq!(cancelled.body["status"], "cancelled");
    assert_eq!(the_intent(&stripe).await["status"], "canceled");
    assert_ne!(first_installment(&server, &code).0, "authorized", "the ledger no longer shows a hold");
}

#[tokio::test]
async fn a_capture_the_provider_refuses_is_502_and_the_booking_stays_pending() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::OK).await.expect(200);
    complete(&server, &code).await;
    // The hold is gone at the bank (released there, or lapsed): the capture is refused.
    let id = the_intent(&stripe).await["id"].as_str().unwrap().to_owned();
    let http = rental_tests::http::Http::new(stripe.addr);
    http.post(&format!("/v1/payment_intents/{id}/cancel"), SECRET_KEY, &json!({})).await.expect(200);

    server.act(&code, &json!({"action": "confirm"})).await.problem(502, "payment_failed");
    let after = booking(&server, &code).await;
    assert_eq!((after["status"].as_str(), after["paymentStatus"].as_str()), (Some("pending"), Some("authorized")));
}

#[tokio::test]
async fn a_card_declined_when_saved_or_charged_leaves_the_booking_unpaid_and_another_card_pays() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;

    let first = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&first, cards::DECLINED).await.expect(402);
    let refused = complete(&server, &code).await;
    assert_eq!(refused["status"], "failed", "{refused}");
    assert_eq!(booking(&server, &code).await["paymentStatus"], "unpaid");

    let second = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    assert_ne!(second, first, "a cancelled intent is replaced");
    stripe.save_card(&second, cards::CHARGE_DECLINED).await.expect(200);
    let declined = complete(&server, &code).await;
    assert_eq!(declined["status"], "failed", "{declined}");
    assert!(declined["error"].as_str().unwrap().contains("declined"), "{declined}");
    assert_eq!(booking(&server, &code).await["paymentStatus"], "unpaid");
    let (status, reference, error) = first_installment(&server, &code);
    assert_eq!((status.as_str(), reference.is_some()), ("failed", true));
    assert!(error.unwrap_or_default().contains("declined"));

    let third = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    assert_ne!(third, second, "a used intent is replaced");
    stripe.save_card(&third, cards::OK).await.expect(200);
    assert_eq!(complete(&server, &code).await["status"], "authorized");
    assert_eq!(booking(&server, &code).await["paymentStatus"], "authorized");
    assert_eq!(first_installment(&server, &code).0, "authorized");
}

#[tokio::test]
async fn three_d_secure_asks_the_guest_and_completing_it_takes_the_hold() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::THREE_D_SECURE).await.expect(200);

    let asked = complete(&server, &code).await;
    assert_eq!(asked["status"], "requires_action", "{asked}");
    assert_eq!(booking(&server, &code).await["paymentStatus"], "unpaid");
    stripe.authenticate(asked["clientSecret"].as_str().unwrap(), true).await.expect(200);
    assert_eq!(complete(&server, &code).await, json!({"status": "authorized"}));
    assert_eq!(booking(&server, &code).await["paymentStatus"], "authorized");
}

#[tokio::test]
async fn a_failed_3_d_secure_is_answered_failed_and_not_charged_again_at_once() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::THREE_D_SECURE).await.expect(200);
    let asked = complete(&server, &code).await;
    stripe.authenticate(asked["clientSecret"].as_str().unwrap(), false).await.expect(200);

    let failed = complete(&server, &code).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["error"].as_str().unwrap().contains("failed authentication"), "{failed}");
    let (status, _, error) = first_installment(&server, &code);
    assert_eq!((status.as_str(), error.is_some()), ("failed", true));
    assert_eq!(booking(&server, &code).await["paymentStatus"], "unpaid");
    let intents = stripe.get("/v1/payment_intents?limit=100").await;
    assert_eq!(intents["data"].as_array().unwrap().len(), 1, "no second attempt on its own: {intents}");
    // The refusal is news, once.
    let events = server.rental.admin().events_after(0, 1_000).unwrap();
    let failed: Vec<_> = events.iter().filter(|e| e.event.event.as_str() == "booking.payment_failed").collect();
    assert_eq!(failed.len(), 1, "{events:?}");
    assert_eq!(failed[0].event.data["code"], code.as_str());
}

#[tokio::test]
async fn an_amount_from_the_client_is_422_and_changes_nothing() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    for path in ["checkout", "checkout/complete"] {
        let reply = server.post(&format!("/api/v1/bookings/{code}/{path}"), &server.key, &json!({"amount": 1})).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), ["amount"]);
    }
    assert_eq!(stripe.get("/v1/customers").await["data"], json!([]), "nothing was asked of the provider");
}

#[tokio::test]
async fn without_a_provider_checkout_is_409_payments_not_configured() {
    let server = TestServer::memory().await;
    let code = request(&server).await;
    for path in ["checkout", "checkout/complete"] {
        let reply = server.post(&format!("/api/v1/bookings/{code}/{path}"), &server.key, &json!({})).await;
        reply.problem(409, "payments_not_configured");
    }
}

#[tokio::test]
async fn no_answer_or_metric_holds_the_secret_key_or_the_webhook_secret() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let code = request(&server).await;
    let mut seen = Vec::new();
    let started = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    seen.push(started.text());
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), cards::CHARGE_DECLINED).await;
    seen.push(server.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &server.key, &json!({})).await.text());
    seen.push(server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.text());
    seen.push(server.get("/api/openapi.json", "").await.text());
    let metrics_key = server.rental.admin().create_key("metrics", &[rental_core::Scope::Metrics]).unwrap().secret;
    seen.push(server.get("/metrics", &metrics_key).await.text());
    for text in seen {
        assert!(!text.contains(SECRET_KEY) && !text.contains(WEBHOOK_SECRET), "a secret in: {text}");
    }
}

#[tokio::test]
async fn an_instant_booking_is_charged_at_checkout_and_confirmed() {
    let Some(stripe) = LocalStripe::start() else { return };
    let server = server(&stripe).await;
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.instant_booking = true;
    server.rental.import_properties(&[property]).unwrap();
    let code = request(&server).await;
    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::OK).await.expect(200);

    assert_eq!(complete(&server, &code).await, json!({"status": "succeeded"}));
    let paid = booking(&server, &code).await;
    assert_eq!((paid["status"].as_str(), paid["paymentStatus"].as_str()), (Some("confirmed"), Some("paid")));
    let intent = the_intent(&stripe).await;
    assert_eq!((intent["status"].as_str(), intent["capture_method"].as_str()), (Some("succeeded"), Some("automatic")));
}

#[tokio::test]
async fn a_declined_first_payment_is_sent_as_payment_failed_once_and_a_retry_that_pays_as_payment_succeeded() {
    let Some(stripe) = LocalStripe::start() else { return };
    let provider = Stripe::new(stripe.config()).expect("a Stripe client");
    let config = ServerConfig { payments: Some(Arc::new(provider)), ..crate::webhooks::config() };
    let server = TestServer::with_config(&config).await;
    let receiver = Receiver::ok().await;
    let events = rental_core::webhook::Subscription::parse("booking.payment_failed,booking.payment_succeeded").unwrap();
    server.rental.admin().add_webhook(&receiver.url(), events, None).unwrap();
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.instant_booking = true;
    server.rental.import_properties(&[property]).unwrap();
    let code = request(&server).await;

    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::CHARGE_DECLINED).await.expect(200);
    assert_eq!(complete(&server, &code).await["status"], "failed");
    let sent = receiver.wait_for(1, Duration::from_secs(5)).await;
    let failed = sent[0].json();
    assert_eq!(
        (failed["event"].as_str(), failed["data"]["code"].as_str()),
        (Some("booking.payment_failed"), Some(code.as_str()))
    );
    assert_eq!(
        (failed["data"]["status"].as_str(), failed["data"]["paymentStatus"].as_str()),
        (Some("pending"), Some("unpaid"))
    );
    let payment = &failed["data"]["payment"];
    assert_eq!((payment["number"].as_u64(), payment["status"].as_str()), (Some(1), Some("failed")));
    assert!(payment["error"].as_str().unwrap().contains("declined"), "{failed}");

    let secret = checkout(&server, &code).await["setupClientSecret"].as_str().unwrap().to_owned();
    stripe.save_card(&secret, cards::OK).await.expect(200);
    assert_eq!(complete(&server, &code).await["status"], "succeeded");
    let sent = receiver.wait_for(2, Duration::from_secs(5)).await;
    let succeeded = sent[1].json();
    assert_eq!(succeeded["event"], "booking.payment_succeeded", "{succeeded}");
    assert_eq!(
        (succeeded["data"]["code"].as_str(), succeeded["data"]["payment"]["status"].as_str()),
        (Some(code.as_str()), Some("succeeded"))
    );
    assert_eq!(succeeded["data"]["amountPaid"], booking(&server, &code).await["total"]);
    receiver.assert_no_more_than(2, Duration::from_millis(500)).await;
}
