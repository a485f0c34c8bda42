//! Learning what happened at the provider (docs/API.md section 23): Stripe's webhook signed by
//! localstripe, refused when unsigned, wrongly signed, stale; replays and forged or foreign
//! events changing nothing; and reconciliation finding a payment whose answer was lost and
//! releasing a hold left on a cancelled booking.

use std::sync::Arc;
use std::time::{Duration, Instant};

use http::Method;
use rental_core::payment_provider::{ChargeRequest, Checkout, PaymentProvider, Session};
use rental_core::{Action, MemoryStore};
use rental_server::ServerConfig;
use rental_server::payments::Stripe;
use rental_server::payments::reconcile;
use rental_server::payments::stripe::sign;
use rental_tests::http::{Http, Reply, TestServer};
use rental_tests::localstripe::{LocalStripe, SECRET_KEY, WEBHOOK_SECRET, cards};
use serde_json::{Value, json};

const WEBHOOK: &str = "/payments/stripe/webhook";

async fn server(stripe: &LocalStripe) -> (TestServer<MemoryStore>, Arc<Stripe>) {
    let provider = Arc::new(Stripe::new(stripe.config()).expect("a Stripe client"));
    let config = ServerConfig { payments: Some(provider.clone()), ..ServerConfig::default() };
    (TestServer::with_config(&config).await, provider)
}

/// A request at sea-view with a card saved (`card`); its code.
async fn with_card(server: &TestServer<MemoryStore>, stripe: &LocalStripe, card: &str) -> String {
    let code = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    let reply = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    stripe.save_card(reply.body["setupClientSecret"].as_str().unwrap(), card).await.expect(200);
    code
}

async fn complete(server: &TestServer<MemoryStore>, code: &str) -> Value {
    let reply = server.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &server.key, &json!({})).await;
    reply.expect(200);
    reply.body
}

async fn payment_status(server: &TestServer<MemoryStore>, code: &str) -> String {
    server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body["paymentStatus"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Posts `body` to the webhook with `signature` (none: no header).
async fn deliver(server: &TestServer<MemoryStore>, body: &str, signature: Option<&str>) -> Reply {
    let mut request = server.request(Method::POST, WEBHOOK, "").header("content-type", "application/json");
    if let Some(signature) = signature {
        request = request.header("stripe-signature", signature);
    }
    server.send(request.body(body.to_owned().into()).unwrap()).await
}

fn event(id: &str, intent: &str, status: &str) -> String {
    json!({"id": id, "type": "payment_intent.succeeded",
        "data": {"object": {"object": "payment_intent", "id": intent, "status": status}}})
    .to_string()
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[tokio::test]
async fn a_payment_finished_on_the_guests_page_is_learned_from_the_webhook_alone() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _) = server(&stripe).await;
    stripe.register_webhook(&format!("http://{}{WEBHOOK}", server.http.addr)).await;
    // An instant booking: localstripe sends its events for charges (not for holds).
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.instant_booking = true;
    server.rental.import_properties(&[property]).unwrap();
    let code = with_card(&server, &stripe, cards::THREE_D_SECURE).await;
    let asked = complete(&server, &code).await;
    assert_eq!(asked["status"], "requires_action");

    // The guest authenticates in the card form and never comes back to `complete`.
    stripe.authenticate(asked["clientSecret"].as_str().unwrap(), true).await.expect(200);
    let until = Instant::now() + Duration::from_secs(15);
    while payment_status(&server, &code).await != "paid" {
        assert!(Instant::now() < until, "the webhook did not make the payment known");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!(booking["status"], "confirmed");
}

#[tokio::test]
async fn unsigned_wrongly_signed_and_stale_webhooks_are_400_and_change_nothing() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::THREE_D_SECURE).await;
    let intent =
        complete(&server, &code).await["clientSecret"].as_str().unwrap().split("_secret_").next().unwrap().to_owned();
    stripe.authenticate(&format!("{intent}_secret_x"), true).await; // wrong secret: nothing happens at the provider
    let body = event("evt_1", &intent, "succeeded");
    let wrong = sign(b"whsec_someone_else", now(), body.as_bytes());
    let stale = sign(WEBHOOK_SECRET.as_bytes(), now() - 3600, body.as_bytes());
    let tampered = sign(WEBHOOK_SECRET.as_bytes(), now(), event("evt_1", "pi_other", "succeeded").as_bytes());
    for signature in [None, Some(wrong.as_str()), Some(stale.as_str()), Some(tampered.as_str()), Some("t=1,v1=zz")] {
        deliver(&server, &body, signature).await.problem(400, "invalid_signature");
    }
    assert_eq!(payment_status(&server, &code).await, "unpaid");
}

#[tokio::test]
async fn a_forged_success_a_replay_and_a_foreign_intent_change_nothing() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::THREE_D_SECURE).await;
    let asked = complete(&server, &code).await;
    let intent = asked["clientSecret"].as_str().unwrap().split("_secret_").next().unwrap().to_owned();

    // Signed, but the provider says the intent still waits for the guest: no change.
    let forged = event("evt_forged", &intent, "succeeded");
    for _ in 0..2 {
        deliver(&server, &forged, Some(&sign(WEBHOOK_SECRET.as_bytes(), now(), forged.as_bytes()))).await.expect(200);
    }
    assert_eq!(payment_status(&server, &code).await, "unpaid");

    // An intent made by someone else at the same account, with our booking's code in its metadata.
    let setup = provider.card_setup(&checkout_of(&server, &code).setup).await.unwrap();
    let mut request = ChargeRequest::new(999, "USD", setup.customer.clone(), setup.card.unwrap(), "theirs");
    request.metadata.insert("booking".into(), code.clone());
    request.session = Session::On;
    let theirs = provider.charge(request).await.unwrap();
    let foreign = event("evt_foreign", &theirs.id, "succeeded");
    deliver(&server, &foreign, Some(&sign(WEBHOOK_SECRET.as_bytes(), now(), foreign.as_bytes()))).await.expect(200);
    assert_eq!(payment_status(&server, &code).await, "unpaid");
    assert_eq!(checkout_of(&server, &code).payment.as_deref(), Some(intent.as_str()));

    // Once the guest authenticated, the same event (a replay) makes the hold known, once.
    stripe.authenticate(asked["clientSecret"].as_str().unwrap(), true).await.expect(200);
    for _ in 0..2 {
        deliver(&server, &forged, Some(&sign(WEBHOOK_SECRET.as_bytes(), now(), forged.as_bytes()))).await.expect(200);
    }
    assert_eq!(payment_status(&server, &code).await, "authorized");
    let events: Vec<_> =
        server.rental.admin().events_after(0, 100).unwrap().into_iter().map(|e| e.event.event.as_str()).collect();
    assert_eq!(events.iter().filter(|e| **e == "booking.payment_authorized").count(), 1, "{events:?}");
}

fn checkout_of(server: &TestServer<MemoryStore>, code: &str) -> Checkout {
    server.rental.checkout_of(code).unwrap().expect("a checkout")
}

#[tokio::test]
async fn reconciliation_finds_a_payment_whose_answer_was_lost_by_its_key() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::OK).await;
    // What `complete` does before it asks the provider, then the provider's hold, whose answer
    // never reached the store (the server was killed in between).
    let mut checkout = checkout_of(&server, &code);
    let setup = provider.card_setup(&checkout.setup).await.unwrap();
    checkout.card = setup.card.clone();
    checkout.attempts += 1;
    checkout.hold = true;
    server.rental.save_checkout(&checkout).unwrap();
    let total = server.rental.booking(&code).unwrap().total;
    let mut request = ChargeRequest::new(total, "USD", &checkout.customer, setup.card.unwrap(), checkout.payment_key());
    request.hold = true;
    let made = provider.charge(request).await.unwrap();
    assert_eq!(payment_status(&server, &code).await, "unpaid");

    reconcile::once(&server.rental, provider.as_ref()).await;
    assert_eq!(payment_status(&server, &code).await, "authorized");
    assert_eq!(checkout_of(&server, &code).payment, Some(made.id.clone()));
    // Completing now answers with that hold and takes no second one.
    assert_eq!(complete(&server, &code).await["status"], "authorized");
    assert_eq!(stripe.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn reconciliation_finds_a_first_payment_made_under_the_key_its_checkout_began_with() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::OK).await;
    // `complete`'s first attempt writes nothing before it asks the provider: the checkout
    // began it. The hold is made under its key, and its answer never reaches the store.
    let checkout = checkout_of(&server, &code);
    let setup = provider.card_setup(&checkout.setup).await.unwrap();
    let total = server.rental.booking(&code).unwrap().total;
    let mut request = ChargeRequest::new(total, "USD", &checkout.customer, setup.card.unwrap(), checkout.payment_key());
    request.hold = true;
    let made = provider.charge(request).await.unwrap();

    reconcile::once(&server.rental, provider.as_ref()).await;
    assert_eq!(payment_status(&server, &code).await, "authorized");
    let ledger = server.rental.payments(&code).unwrap();
    assert_eq!(ledger[0].provider_ref.as_deref(), Some(made.id.as_str()), "{ledger:?}");
    assert_eq!(complete(&server, &code).await["status"], "authorized");
    assert_eq!(stripe.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_checkout_left_unpaid_on_a_cancelled_booking_is_closed_by_reconciliation() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::OK).await;
    reconcile::once(&server.rental, provider.as_ref()).await;
    assert!(!checkout_of(&server, &code).settled, "a pending booking's guest may still pay");

    server.act(&code, &json!({"action": "cancel"})).await.expect(200);
    reconcile::once(&server.rental, provider.as_ref()).await;
    assert!(checkout_of(&server, &code).settled);
    assert_eq!(server.rental.open_checkouts("", 10).unwrap(), Vec::new(), "not looked at again");
    assert_eq!(stripe.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn a_checkout_left_unpaid_on_a_stay_confirmed_as_paid_outside_is_closed_once_the_stay_is_over() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::OK).await;
    server.act(&code, &json!({"action": "confirm"})).await.expect(200);
    server.set_now("2026-12-27T10:00:00Z");
    reconcile::once(&server.rental, provider.as_ref()).await;
    assert!(!checkout_of(&server, &code).settled, "on its last day the guest may still pay");

    server.set_now("2026-12-29T10:00:00Z");
    reconcile::once(&server.rental, provider.as_ref()).await;
    assert!(checkout_of(&server, &code).settled);
    assert_eq!(server.rental.open_checkouts("", 10).unwrap(), Vec::new(), "not looked at again");
}

#[tokio::test]
async fn reconciliation_releases_a_hold_left_on_a_cancelled_booking() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider) = server(&stripe).await;
    let code = with_card(&server, &stripe, cards::OK).await;
    assert_eq!(complete(&server, &code).await["status"], "authorized");
    // Cancelled while the provider could not be told (here: behind the server's back).
    server
        .rental
        .update_booking(&code, &Action::Cancel { by: rental_core::lifecycle::Party::Guest, reason: None })
        .unwrap();
    let id = checkout_of(&server, &code).payment.unwrap();
    let intent = |stripe: &LocalStripe| {
        let http = Http::new(stripe.addr);
        let id = id.clone();
        async move { http.get(&format!("/v1/payment_intents/{id}"), SECRET_KEY).await.body["status"].clone() }
    };
    assert_eq!(intent(&stripe).await, "requires_capture");

    reconcile::once(&server.rental, provider.as_ref()).await;
    assert_eq!(intent(&stripe).await, "canceled");
    assert!(checkout_of(&server, &code).settled);
}

#[tokio::test]
async fn a_provider_that_stalls_gets_503_within_the_handlers_deadline_and_nothing_changes() {
    // A stand-in that accepts connections and never answers.
    let stall = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = stall.local_addr().unwrap();
    std::thread::spawn(move || {
        let held: Vec<_> = stall.incoming().take(8).collect();
        std::thread::sleep(Duration::from_secs(30));
        drop(held);
    });
    let mut config = rental_server::payments::StripeConfig::new(SECRET_KEY, "pk_test_x", WEBHOOK_SECRET);
    config.api_base = format!("http://{addr}");
    let provider = Arc::new(Stripe::new(config).unwrap());
    let server = TestServer::with_config(&ServerConfig { payments: Some(provider), ..ServerConfig::default() }).await;
    let code = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();

    let started = Instant::now();
    let reply = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    let took = started.elapsed();
    reply.problem(503, "unavailable");
    assert!(took < rental_server::payments::HANDLER_DEADLINE + Duration::from_secs(2), "waited {took:?}");
    assert_eq!(server.rental.checkout_of(&code).unwrap(), None);
    // The host can still cancel: the booking does not wait on the provider.
    server.act(&code, &json!({"action": "cancel"})).await.expect(200);
}
