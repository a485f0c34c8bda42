//! The Stripe client (`rental_server::payments::Stripe`) against a real stateful stand-in,
//! localstripe: every call of the `PaymentProvider` seam, each test card's answer, and a
//! provider that is down.

use rental_core::payment_provider::{
    CardSetup, CardSetupRequest, ChargeRequest, PaymentProvider, PaymentState, ProviderError, RefundRequest,
    RefundState, Session, SetupState,
};
use rental_server::payments::Stripe;
use rental_tests::localstripe::{LocalStripe, SECRET_KEY, cards};

/// A card saved for a new customer: the setup as the provider has it after the guest's
/// browser confirmed it with `card` (the stand-in's answer to that confirmation too).
async fn saved(stripe: &LocalStripe, provider: &Stripe, card: &str) -> (CardSetup, u16) {
    let mut request = CardSetupRequest::new("ada@example.com", "Ada Lovelace");
    request.metadata.insert("booking".into(), "SV-TEST".into());
    let setup = provider.start_card_setup(request).await.expect("a setup intent");
    assert_eq!(setup.state, SetupState::NeedsCard);
    let confirmed = stripe.save_card(&setup.client_secret, card).await;
    (provider.card_setup(&setup.id).await.expect("the setup intent reads back"), confirmed.status)
}

fn charge(setup: &CardSetup, amount: i64, key: &str, hold: bool, session: Session) -> ChargeRequest {
    let card = setup.card.clone().expect("a saved card");
    let mut request = ChargeRequest::new(amount, "EUR", &setup.customer, card, key);
    request.hold = hold;
    request.session = session;
    request.metadata.insert("booking".into(), "SV-TEST".into());
    request
}

#[tokio::test]
async fn a_saved_card_is_held_captured_charged_refunded_and_released() {
    let Some(stripe) = LocalStripe::start() else { return };
    let provider = Stripe::new(stripe.config()).unwrap();
    let (setup, status) = saved(&stripe, &provider, cards::OK).await;
    assert_eq!((status, setup.state), (200, SetupState::Saved));

    let hold = provider.charge(charge(&setup, 10_000, "k-hold", true, Session::On)).await.unwrap();
    assert_eq!((hold.state, hold.amount, hold.currency.as_str()), (PaymentState::Authorized, 10_000, "EUR"));
    assert_eq!(hold.movement_key(), Some("k-hold"));
    let captured = provider.capture(&hold.id, Some(6_000), "k-hold-capture").await.unwrap();
    assert_eq!(captured.state, PaymentState::Succeeded);
    assert_eq!(stripe.get(&format!("/v1/payment_intents/{}", hold.id)).await["status"], "succeeded");

    let paid = provider.charge(charge(&setup, 5_000, "k-paid", false, Session::Off)).await.unwrap();
    assert_eq!((paid.state, paid.amount_received), (PaymentState::Succeeded, 5_000));
    let refund = provider.refund(RefundRequest::new(&paid.id, 2_000, "k-refund")).await.unwrap();
    assert_eq!((refund.amount, refund.state), (2_000, RefundState::Succeeded));

    let released_hold = provider.charge(charge(&setup, 3_000, "k-release", true, Session::On)).await.unwrap();
    let released = provider.release(&released_hold.id, "k-release-cancel").await.unwrap();
    assert_eq!(released.state, PaymentState::Canceled);
    assert_eq!(provider.payment(&released_hold.id).await.unwrap().state, PaymentState::Canceled);
}

#[tokio::test]
async fn a_payment_whose_answer_was_lost_is_found_by_its_movement_key() {
    let Some(stripe) = LocalStripe::start() else { return };
    let provider = Stripe::new(stripe.config()).unwrap();
    let (setup, _) = saved(&stripe, &provider, cards::OK).await;
    let (other, _) = saved(&stripe, &provider, cards::OK).await;
    let made = provider.charge(charge(&setup, 4_200, "k-lost", false, Session::Off)).await.unwrap();
    provider.charge(charge(&other, 4_200, "k-other", false, Session::Off)).await.unwrap();

    let found = provider.find_payment(&setup.customer, "k-lost").await.unwrap().expect("found by key");
    assert_eq!((found.id.as_str(), found.state), (made.id.as_str(), PaymentState::Succeeded));
    assert_eq!(provider.find_payment(&setup.customer, "k-other").await.unwrap(), None, "another customer's");
    assert_eq!(provider.find_payment(&setup.customer, "k-never").await.unwrap(), None);
}

#[tokio::test]
async fn each_test_card_gets_the_banks_answer() {
    let Some(stripe) = LocalStripe::start() else { return };
    let provider = Stripe::new(stripe.config()).unwrap();

    // Declined when saved: the browser is told, and the setup is over.
    let (declined, status) = saved(&stripe, &provider, cards::DECLINED).await;
    assert_eq!((status, declined.state), (402, SetupState::Canceled));

    // Saved, then every charge refused: a failed payment with the bank's reason, not an error.
    let (refusing, _) = saved(&stripe, &provider, cards::CHARGE_DECLINED).await;
    let failed = provider.charge(charge(&refusing, 1_000, "k-341", true, Session::On)).await.unwrap();
    assert_eq!(failed.state, PaymentState::Failed);
    assert!(failed.error.as_deref().unwrap_or_default().contains("declined"), "{failed:?}");

    // 3-D Secure: on the page the guest is asked, and completing it authorizes the hold;
    // off-session nobody can answer, which the engine treats as a refusal.
    let (secure, status) = saved(&stripe, &provider, cards::THREE_D_SECURE).await;
    assert_eq!((status, secure.state), (200, SetupState::Saved));
    let asked = provider.charge(charge(&secure, 2_500, "k-3ds", true, Session::On)).await.unwrap();
    assert_eq!(asked.state, PaymentState::RequiresAction);
    let client_secret = asked.client_secret.clone().expect("a client secret for the page");
    stripe.authenticate(&client_secret, true).await.expect(200);
    assert_eq!(provider.payment(&asked.id).await.unwrap().state, PaymentState::Authorized);
    let later = provider.charge(charge(&secure, 2_500, "k-3ds-later", false, Session::Off)).await.unwrap();
    assert!(matches!(later.state, PaymentState::RequiresAction | PaymentState::Failed), "{later:?}");
}

#[tokio::test]
async fn a_provider_that_is_down_is_retryable_and_its_error_holds_no_secret() {
    let Some(stripe) = LocalStripe::start() else { return };
    let mut config = stripe.config();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    config.api_base = format!("http://{closed}");
    let provider = Stripe::new(config).unwrap();
    let error = provider.payment("pi_anything").await.unwrap_err();
    assert!(error.is_retryable(), "{error}");
    assert!(matches!(error, ProviderError::Unavailable { .. }));

    // An error answer from the provider holds no key, nor does the client's Debug.
    let mut config = stripe.config();
    config.secret_key = rental_server::payments::Secret::new("sk_test_wrong_key_1234567");
    let provider = Stripe::new(config).unwrap();
    let error = provider.payment("pi_missing").await.unwrap_err();
    let message = error.to_string();
    assert!(!message.contains("sk_test_wrong_key_1234567") && !message.contains(SECRET_KEY), "{message}");
    assert!(format!("{provider:?}").find("sk_test").is_none(), "the client's Debug shows a key");
}
