//! Later installments (docs/API.md section 23): charged off-session with the saved card at
//! their instant, against localstripe; a bank that wants the guest present is a refusal.

use std::sync::Arc;

use rental_core::MemoryStore;
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState};
use rental_core::property::PaymentTerms;
use rental_server::ServerConfig;
use rental_server::payments::Stripe;
use rental_server::payments::installments::charge_due;
use rental_tests::http::TestServer;
use rental_tests::localstripe::{LocalStripe, cards};
use serde_json::{Value, json};

/// A server whose sea-view takes half at booking and half 7 days before check-in, and a
/// confirmed booking there paid at checkout with `card`; its code.
async fn confirmed_half_paid(stripe: &LocalStripe, card: &str) -> (TestServer<MemoryStore>, Arc<Stripe>, String) {
    let provider = Arc::new(Stripe::new(stripe.config()).unwrap());
    let server =
        TestServer::with_config(&ServerConfig { payments: Some(provider.clone()), ..ServerConfig::default() }).await;
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.terms = PaymentTerms::split(&[(5_000, None), (5_000, Some(7))], 48);
    server.rental.import_properties(&[property]).unwrap();
    let code = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    let started = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), card).await.expect(200);
    let path = format!("/api/v1/bookings/{code}/checkout/complete");
    let mut done = server.post(&path, &server.key, &json!({})).await.body;
    if done["status"] == "requires_action" {
        stripe.authenticate(done["clientSecret"].as_str().unwrap(), true).await.expect(200);
        done = server.post(&path, &server.key, &json!({})).await.body;
    }
    assert_eq!(done["status"], "authorized", "{done}");
    server.act(&code, &json!({"action": "confirm"})).await.expect(200);
    (server, provider, code)
}

/// The booking's stay page, as its guest sees it.
async fn stay_page(server: &TestServer<MemoryStore>, code: &str) -> String {
    let url = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body["stayUrl"].clone();
    let path = url.as_str().map(|u| u[u.find("/stay/").unwrap()..].to_owned()).unwrap();
    server.get(&path, "").await.text()
}

/// An amount in dollars as the pages write it.
fn money(cents: i64) -> String {
    rental_core::format_amount(cents, "USD")
}

fn installment(server: &TestServer<MemoryStore>, code: &str, number: u32) -> PaymentRecord {
    let records = server.rental.payments(code).unwrap();
    records.into_iter().find(|r| r.kind == PaymentKind::Installment && r.number == number).expect("the installment")
}

/// The booking `code`, whose second installment (due 2026-12-13 15:00 in Lisbon,
/// 48 hours' grace) is refused and unpaid: still confirmed a minute before its
/// grace ends, cancelled as overdue by the first charging pass after it.
async fn cancelled_past_grace(server: &TestServer<MemoryStore>, provider: &Stripe, code: &str) -> Value {
    server.set_now("2026-12-15T14:59:00Z");
    charge_due(&server.rental, provider).await;
    assert_eq!(server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body["status"], "confirmed");
    server.set_now("2026-12-15T15:01:00Z");
    charge_due(&server.rental, provider).await;
    let cancelled = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!(
        (cancelled["status"].as_str(), cancelled["cancelledBy"].as_str(), cancelled["cancelReason"].as_str()),
        (Some("cancelled"), Some("system"), Some("payment_overdue"))
    );
    cancelled
}

#[tokio::test]
async fn the_second_installment_is_charged_off_session_at_its_instant_once() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code) = confirmed_half_paid(&stripe, cards::OK).await;
    let (first, second) = (installment(&server, &code, 1), installment(&server, &code, 2));
    assert_eq!(first.status, PaymentState::Succeeded, "captured on confirm");
    assert_eq!(second.status, PaymentState::Scheduled);
    let status = |body: Value| body["paymentStatus"].as_str().map(str::to_owned);
    let path = format!("/api/v1/bookings/{code}");
    assert_eq!(status(server.get(&path, &server.key).await.body).as_deref(), Some("partially_paid"), "one of two paid");
    let page = stay_page(&server, &code).await;
    let (paid, due) = (money(first.amount), money(second.amount));
    assert!(page.contains(&format!("id=\"amount-paid\">{paid}<")), "paid {paid}: {page}");
    assert!(page.contains(&format!("id=\"balance-due\">{due}<")), "due {due}");
    // Seven days before the 15:00 check-in, on the property's (Lisbon's) clock.
    assert!(page.contains("id=\"next-payment\">13 December at 15:00 (Lisbon time)<"), "{page}");

    charge_due(&server.rental, provider.as_ref()).await;
    assert_eq!(installment(&server, &code, 2).status, PaymentState::Scheduled, "not before its instant");

    server.set_now("2026-12-14T10:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    charge_due(&server.rental, provider.as_ref()).await;
    let paid = installment(&server, &code, 2);
    assert_eq!(paid.status, PaymentState::Succeeded);
    let intent = stripe.get(&format!("/v1/payment_intents/{}", paid.provider_ref.clone().unwrap())).await;
    assert_eq!((intent["status"].as_str(), intent["amount"].as_i64()), (Some("succeeded"), Some(second.amount)));
    assert_eq!(intent["metadata"]["rental_movement"], second.idempotency_key.as_str());
    let intents = stripe.get("/v1/payment_intents?limit=100").await;
    assert_eq!(intents["data"].as_array().unwrap().len(), 2, "the hold, then one charge: {intents}");
    let page = stay_page(&server, &code).await;
    assert!(page.contains(&format!("id=\"balance-due\">{}<", money(0))) && !page.contains("id=\"next-payment\""));
    assert_eq!(status(server.get(&path, &server.key).await.body).as_deref(), Some("paid"), "both paid");
}

#[tokio::test]
async fn a_bank_that_wants_the_guest_present_fails_the_installment_with_its_reason() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code) = confirmed_half_paid(&stripe, cards::THREE_D_SECURE).await;
    server.set_now("2026-12-14T10:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    let refused = installment(&server, &code, 2);
    assert_eq!((refused.status, refused.attempts), (PaymentState::Failed, 1));
    assert!(refused.error.is_some() && refused.provider_ref.is_some(), "{refused:?}");
    // Not tried again on its own: the guest pays it on the stay page.
    charge_due(&server.rental, provider.as_ref()).await;
    assert_eq!(installment(&server, &code, 2).attempts, 1);
}

#[tokio::test]
async fn the_deposit_is_held_before_check_in_and_released_after_check_out() {
    let Some(stripe) = LocalStripe::start() else { return };
    let provider = Arc::new(Stripe::new(stripe.config()).unwrap());
    let server =
        TestServer::with_config(&ServerConfig { payments: Some(provider.clone()), ..ServerConfig::default() }).await;
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.security_deposit = Some(rental_core::property::SecurityDeposit::new(30_000).days(2, 2));
    server.rental.import_properties(&[property]).unwrap();
    let code = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    let started = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), cards::OK).await.expect(200);
    server.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &server.key, &json!({})).await.expect(200);
    server.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let deposit =
        || server.rental.payments(&code).unwrap().into_iter().find(|r| r.kind == PaymentKind::Deposit).unwrap();

    // Inside the reveal window, the stay page waits for the hold (docs/API.md section 24).
    server.set_now("2026-12-18T18:00:00Z");
    let stay_url = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body["stayUrl"].clone();
    let stay_path = stay_url.as_str().map(|u| u[u.find("/stay/").unwrap()..].to_owned()).unwrap();
    let page = server.get(&stay_path, "").await.text();
    assert!(page.contains("once the security deposit is held") && !page.contains("id=\"door-code\""), "{page}");
    charge_due(&server.rental, provider.as_ref()).await;
    let page = server.get(&stay_path, "").await.text();
    assert!(page.contains("id=\"door-code\"") && !page.contains("security deposit is held"), "held: {page}");
    let held = deposit();
    assert_eq!((held.status, held.amount), (PaymentState::Authorized, 30_000));
    let intent = stripe.get(&format!("/v1/payment_intents/{}", held.provider_ref.clone().unwrap())).await;
    assert_eq!((intent["status"].as_str(), intent["amount"].as_i64()), (Some("requires_capture"), Some(30_000)));

    server.set_now("2026-12-30T12:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    assert_eq!(deposit().status, PaymentState::Released);
    let intent = stripe.get(&format!("/v1/payment_intents/{}", held.provider_ref.unwrap())).await;
    assert_eq!(intent["status"], "canceled");
}

/// Replaces the booking's saved card by `card`, saved for the same customer through the provider.
async fn swap_card(server: &TestServer<MemoryStore>, stripe: &LocalStripe, provider: &Stripe, code: &str, card: &str) {
    use rental_core::payment_provider::{CardSetupRequest, PaymentProvider};
    let mut checkout = server.rental.checkout_of(code).unwrap().unwrap();
    let mut request = CardSetupRequest::new("guest@example.com", "Guest");
    request.customer = Some(checkout.customer.clone());
    let setup = provider.start_card_setup(request).await.unwrap();
    stripe.save_card(&setup.client_secret, card).await.expect(200);
    checkout.card = provider.card_setup(&setup.id).await.unwrap().card;
    server.rental.save_checkout(&checkout).unwrap();
}

#[tokio::test]
async fn a_refused_installment_tells_the_guest_and_past_its_grace_cancels_the_booking_with_its_refund() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code) = confirmed_half_paid(&stripe, cards::OK).await;
    let first = installment(&server, &code, 1);
    // The card saved later fails: every charge with it is declined.
    swap_card(&server, &stripe, &provider, &code, cards::CHARGE_DECLINED).await;

    server.set_now("2026-12-14T10:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    let refused = installment(&server, &code, 2);
    assert_eq!(refused.status, PaymentState::Failed, "{refused:?}");
    assert!(refused.error.is_some());
    let messages = server.get(&format!("/api/v1/bookings/{code}/messages"), &server.key).await.body;
    let failed: Vec<&serde_json::Value> =
        messages["data"].as_array().unwrap().iter().filter(|m| m["kind"] == "payment_failed").collect();
    assert_eq!(failed.len(), 1, "{messages}");
    assert_eq!(failed[0]["subject"], "Your payment for Sea View Cottage did not go through");
    let events = server.rental.admin().events_after(0, 10_000).unwrap();
    let named = |name: &str| events.iter().filter(|e| e.event.event.as_str() == name).count();
    assert_eq!(named("booking.payment_failed"), 1);
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!(booking["status"], "confirmed", "within its grace the booking stands");

    // The grace is 48 hours after the installment's instant (2026-12-13 15:00 in Lisbon).
    let cancelled = cancelled_past_grace(&server, provider.as_ref(), &code).await;
    // The default policy refunds everything a cancellation 5 days ahead: the first installment.
    assert_eq!(cancelled["amountRefunded"], first.amount, "{cancelled}");
    let refunds = stripe.get(&format!("/v1/refunds?payment_intent={}", first.provider_ref.unwrap())).await;
    assert_eq!(refunds["data"].as_array().unwrap().len(), 1, "{refunds}");
    assert_eq!(refunds["data"][0]["amount"], first.amount);
    assert_eq!(installment(&server, &code, 2).status, PaymentState::Canceled);
}

/// A confirmed booking whose 300.00 deposit is held (its instant, 2 days before check-in, has come).
async fn held_deposit(stripe: &LocalStripe) -> (TestServer<MemoryStore>, Arc<Stripe>, String) {
    let provider = Arc::new(Stripe::new(stripe.config()).unwrap());
    let server =
        TestServer::with_config(&ServerConfig { payments: Some(provider.clone()), ..ServerConfig::default() }).await;
    let mut property = server.rental.property("sea-view").unwrap();
    property.payments.security_deposit = Some(rental_core::property::SecurityDeposit::new(30_000).days(2, 2));
    server.rental.import_properties(&[property]).unwrap();
    let code = server.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    let started = server.post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({})).await;
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), cards::OK).await.expect(200);
    server.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &server.key, &json!({})).await.expect(200);
    server.act(&code, &json!({"action": "confirm"})).await.expect(200);
    server.set_now("2026-12-18T18:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    (server, provider, code)
}

#[tokio::test]
async fn the_host_claims_part_of_the_deposit_and_the_rest_is_let_go() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, code) = held_deposit(&stripe).await;
    let path = format!("/api/v1/bookings/{code}/deposit");
    for bad in [
        json!({"action": "claim", "amount": 30_001}),
        json!({"action": "claim", "amount": 0}),
        json!({"action": "claim"}),
        json!({"action": "keep"}),
        json!({"action": "release", "amount": 5}),
    ] {
        server.post(&path, &server.key, &bad).await.problem(422, "validation_failed");
    }
    let claimed =
        server.post(&path, &server.key, &json!({"action": "claim", "amount": 5_000, "reason": "a broken lamp"})).await;
    claimed.expect(200);
    assert_eq!((claimed.body["status"].as_str(), claimed.body["amount"].as_i64()), (Some("claimed"), Some(5_000)));
    let id = claimed.body["providerRef"].as_str().unwrap();
    assert_eq!(stripe.get(&format!("/v1/payment_intents/{id}")).await["status"], "succeeded");
    // The stand-in shows the part of a hold not captured as a refund of it.
    let rest = stripe.get(&format!("/v1/refunds?payment_intent={id}")).await;
    assert_eq!(rest["data"][0]["amount"], 25_000, "{rest}");
    server.post(&path, &server.key, &json!({"action": "release"})).await.problem(409, "invalid_transition");
    let events = server.rental.admin().events_after(0, 10_000).unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.event.event.as_str() == "booking.payment_succeeded"
                && e.event.data["payment"]["kind"] == "deposit")
    );
}

#[tokio::test]
async fn the_host_releases_the_deposit_before_its_instant_and_again_is_a_no_op() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code) = held_deposit(&stripe).await;
    let path = format!("/api/v1/bookings/{code}/deposit");
    let released = server.post(&path, &server.key, &json!({"action": "release"})).await;
    released.expect(200);
    assert_eq!(released.body["status"], "released");
    let intent = stripe.get(&format!("/v1/payment_intents/{}", released.body["providerRef"].as_str().unwrap())).await;
    assert_eq!(intent["status"], "canceled");
    server.post(&path, &server.key, &json!({"action": "release"})).await.expect(200);
    server.post(&path, &server.key, &json!({"action": "claim", "amount": 1})).await.problem(409, "invalid_transition");
    // Its automatic release after check-out has nothing left to do.
    server.set_now("2026-12-30T12:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    let deposit = server.rental.payments(&code).unwrap().into_iter().find(|r| r.kind == PaymentKind::Deposit).unwrap();
    assert_eq!(deposit.status, PaymentState::Released);
}

#[tokio::test]
async fn a_deposit_not_held_or_absent_is_409() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, _) = confirmed_half_paid(&stripe, cards::OK).await;
    let code = server.book("sea-view", "2027-01-10", "2027-01-12", 2).await["code"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/bookings/{code}/deposit");
    server.post(&path, &server.key, &json!({"action": "release"})).await.problem(409, "invalid_transition");
    server.post("/api/v1/bookings/BK-NOPE00/deposit", &server.key, &json!({"action": "release"})).await.expect(404);
}

#[tokio::test]
async fn a_change_reprices_the_unpaid_installment_and_the_ledger_sums_to_the_new_total() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, _, code) = confirmed_half_paid(&stripe, cards::OK).await;
    let first = installment(&server, &code, 1);
    let changed = server.act(&code, &json!({"action": "change", "checkOut": "2026-12-29"})).await;
    changed.expect(200);
    let total = changed.body["total"].as_i64().unwrap();
    let second = installment(&server, &code, 2);
    assert_eq!((installment(&server, &code, 1).amount, second.amount), (first.amount, total - first.amount));
    assert_eq!(second.status, PaymentState::Scheduled);
    assert_eq!(changed.body["balanceDue"], total - first.amount, "{}", changed.body);
}

/// Posts the form of `page` that follows `after` (an id in the page) to `path`, with its token.
async fn post_form(server: &TestServer<MemoryStore>, path: &str, page: &str, after: &str) -> rental_tests::http::Reply {
    let rest = &page[page.find(after).unwrap_or_else(|| panic!("{after} in {page}"))..];
    let token = rest.split("name=\"token\" value=\"").nth(1).unwrap().split('"').next().unwrap();
    let form = format!("token={token}");
    server.http.send_bytes(http::Method::POST, path, "", "application/x-www-form-urlencoded", form).await
}

#[tokio::test]
async fn a_guest_pays_a_refused_installment_on_the_stay_page_and_its_grace_then_cancels_nothing() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code) = confirmed_half_paid(&stripe, cards::OK).await;
    swap_card(&server, &stripe, &provider, &code, cards::CHARGE_DECLINED).await;
    server.set_now("2026-12-14T10:00:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    let refused = installment(&server, &code, 2);
    assert_eq!(refused.status, PaymentState::Failed, "{refused:?}");

    // The page the payment_failed message links to offers to pay what is due: the refused installment.
    let url = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body["stayUrl"].clone();
    let link = url.as_str().map(|u| u[u.find("/stay/").unwrap()..].to_owned()).unwrap();
    let page = server.get(&link, "").await.text();
    assert!(page.contains("id=\"pay-start\""), "a pay button: {page}");
    let pay = post_form(&server, &format!("{link}/pay"), &page, "id=\"pay-start\"").await;
    let pay_page = pay.expect(200).text();
    assert!(pay_page.contains(&format!("Pay {}", money(refused.amount))), "{pay_page}");
    // The guest saves a new card in the provider's form (what its Stripe.js does), then pays.
    let secret = pay_page.split("confirmCardSetup(\"").nth(1).unwrap().split('"').next().unwrap();
    stripe.save_card(secret, cards::OK).await.expect(200);
    let done = post_form(&server, &format!("{link}/pay/complete"), &pay_page, "id=\"pay-done\"").await;
    assert_eq!((done.status, done.header("location")), (303, Some(link.as_str())), "{}", done.text());

    let paid = installment(&server, &code, 2);
    assert_eq!((paid.status, paid.amount), (PaymentState::Succeeded, refused.amount), "{paid:?}");
    assert_ne!(paid.provider_ref, refused.provider_ref, "a new payment, with the new card");
    let intent = stripe.get(&format!("/v1/payment_intents/{}", paid.provider_ref.clone().unwrap())).await;
    assert_eq!((intent["status"].as_str(), intent["amount"].as_i64()), (Some("succeeded"), Some(refused.amount)));
    assert_eq!(intent["capture_method"], "automatic", "charged, not held: {intent}");
    assert_eq!(intent["metadata"]["rental_movement"], refused.idempotency_key.as_str(), "the movement's own key");
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!((booking["paymentStatus"].as_str(), booking["balanceDue"].as_i64()), (Some("paid"), Some(0)));
    let events = server.rental.admin().events_after(0, 10_000).unwrap();
    let succeeded: Vec<_> = events
        .iter()
        .filter(|e| e.event.event.as_str() == "booking.payment_succeeded")
        .map(|e| &e.event.data)
        .collect();
    let numbers: Vec<_> = succeeded.iter().map(|data| data["payment"]["number"].as_u64()).collect();
    assert_eq!(numbers, [Some(1), Some(2)], "the host's capture, then the stay page's payment, once each");
    let page = server.get(&link, "").await.text();
    assert!(!page.contains("id=\"pay-start\""), "nothing more to pay");
    server
        .post(&format!("/api/v1/bookings/{code}/checkout"), &server.key, &json!({}))
        .await
        .problem(409, "invalid_transition");

    // Past the end of its grace the booking stands, and nothing more is charged.
    server.set_now("2026-12-15T15:01:00Z");
    charge_due(&server.rental, provider.as_ref()).await;
    let booking = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body;
    assert_eq!((booking["status"].as_str(), booking["cancelReason"].as_str()), (Some("confirmed"), None));
    assert_eq!(installment(&server, &code, 2).status, PaymentState::Succeeded);
    let intents = stripe.get("/v1/payment_intents?limit=100").await;
    let made = intents["data"].as_array().unwrap().iter().filter(|i| i["status"] == "succeeded").count();
    assert_eq!(made, 2, "the first installment and the stay page's payment: {intents}");
}

#[tokio::test]
async fn an_installment_refused_on_the_stay_page_before_any_off_session_charge_cancels_past_its_grace() {
    let Some(stripe) = LocalStripe::start() else { return };
    let (server, provider, code) = confirmed_half_paid(&stripe, cards::OK).await;
    // Its instant (2026-12-13 15:00 in Lisbon) has come; the guest pays on the stay page
    // before the server charges it, with a card the bank refuses.
    server.set_now("2026-12-14T10:00:00Z");
    let url = server.get(&format!("/api/v1/bookings/{code}"), &server.key).await.body["stayUrl"].clone();
    let link = url.as_str().map(|u| u[u.find("/stay/").unwrap()..].to_owned()).unwrap();
    let page = server.get(&link, "").await.text();
    let pay_page = post_form(&server, &format!("{link}/pay"), &page, "id=\"pay-start\"").await.expect(200).text();
    let secret = pay_page.split("confirmCardSetup(\"").nth(1).unwrap().split('"').next().unwrap();
    stripe.save_card(secret, cards::CHARGE_DECLINED).await.expect(200);
    let done = post_form(&server, &format!("{link}/pay/complete"), &pay_page, "id=\"pay-done\"").await;
    assert_eq!(done.status, 422, "{}", done.text());
    let refused = installment(&server, &code, 2);
    assert_eq!((refused.status, refused.attempts), (PaymentState::Failed, 1), "{refused:?}");

    // The grace is 48 hours after the installment's instant, however it was refused.
    let cancelled = cancelled_past_grace(&server, provider.as_ref(), &code).await;
    assert_eq!(cancelled["amountRefunded"], installment(&server, &code, 1).amount, "the policy's refund: {cancelled}");
    assert_eq!(installment(&server, &code, 2).status, PaymentState::Canceled);
}
