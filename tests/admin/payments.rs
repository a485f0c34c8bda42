//! The property editor's payment settings over HTTP (docs/API.md,
//! Payments): terms, deposit and policy saved through the library, a broken
//! rule shown on its field with nothing saved, and the worked example.

use rental_core::property::{CancellationPolicy, PaymentTerms, SecurityDeposit};

use crate::client::{Client, server};

/// The base fields with the payment fields of `extra`.
fn form<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut fields = crate::client::SEA_VIEW_FORM.to_vec();
    fields.push(("paymentsForm", "yes"));
    fields.extend_from_slice(extra);
    fields
}

const GOOD: [(&str, &str); 15] = [
    ("inst.share", "50"),
    ("inst.days", ""),
    ("inst.share", "50"),
    ("inst.days", "30"),
    ("graceHours", "24"),
    ("depositAmount", "300"),
    ("depositHoldDays", "1"),
    ("depositReleaseDays", "3"),
    ("refund.days", "30"),
    ("refund.share", "100"),
    ("refund.days", "7"),
    ("refund.share", "50"),
    ("refundGraceHours", "48"),
    ("refundGraceMinDays", "14"),
    ("instantBooking", "yes"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_saves_terms_deposit_and_policy_and_shows_what_a_cancellation_refunds() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let page = client.get("/admin/properties/sea-view/edit").await.text();
    // The default policy refunds everything up to check-in: a week and cleaning, $1,110.00.
    assert!(page.contains("cancelled 10 days before: refund <strong>$1,110.00</strong>"), "{page}");

    client.post("/admin/properties/sea-view/edit", &form(&GOOD)).await.expect(303);
    let saved = s.rental.property("sea-view").unwrap().payments;
    assert!(saved.instant_booking);
    assert_eq!(saved.terms, PaymentTerms::split(&[(5_000, None), (5_000, Some(30))], 24));
    assert_eq!(saved.security_deposit, Some(SecurityDeposit::new(30_000).days(1, 3)));
    assert_eq!(saved.cancellation_policy, CancellationPolicy::checkpoints(&[(30, 10_000), (7, 5_000)]).grace(48, 14));
    let page = client.get("/admin/properties/sea-view/edit").await.text();
    for line in [
        "cancelled 30 days before: refund <strong>$1,110.00</strong>",
        "cancelled 10 days before: refund <strong>$555.00</strong>",
        "cancelled 1 day before: refund <strong>$0.00</strong>",
    ] {
        assert!(page.contains(line), "{line}");
    }
    assert!(page.contains(r#"name="depositAmount" value="300.00""#), "the deposit in dollars");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_payment_settings_are_shown_on_their_field_and_nothing_is_saved() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let cases: [(&[(&str, &str)], &str); 4] = [
        (
            &[("inst.share", "50"), ("inst.days", ""), ("inst.share", "40"), ("inst.days", "30"), ("graceHours", "48")],
            "paymentTerms",
        ),
        (
            &[
                ("inst.share", "50"),
                ("inst.days", ""),
                ("inst.share", "50"),
                ("inst.days", "lots"),
                ("graceHours", "48"),
            ],
            "paymentTerms",
        ),
        (&[("inst.share", "100"), ("inst.days", ""), ("graceHours", "48"), ("depositAmount", "-5")], "securityDeposit"),
        (
            &[
                ("inst.share", "100"),
                ("inst.days", ""),
                ("graceHours", "48"),
                ("refund.days", "30"),
                ("refund.share", "120"),
            ],
            "cancellationPolicy",
        ),
    ];
    for (fields, area) in cases {
        let r = client.post("/admin/properties/sea-view/edit", &form(fields)).await;
        assert_eq!(r.status, 422, "{fields:?}");
        assert!(r.text().contains(&format!(r#"data-field="{area}" role="alert""#)), "{fields:?}");
    }
    assert_eq!(s.rental.property("sea-view").unwrap().payments, rental_core::property::PaymentSettings::default());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bookings_page_lists_its_ledger_with_its_sums() {
    let s = server().await;
    s.rental
        .edit_property("sea-view", |p| p.payments.terms = PaymentTerms::split(&[(3_000, None), (7_000, Some(14))], 48))
        .unwrap();
    let code = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await["code"].as_str().unwrap().to_owned();
    let client = Client::logged_in(&s.http).await;
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains("<h2>Payments (2)</h2>"), "{page}");
    assert!(page.contains(r#"<strong id="balance-due">$1,342.88</strong>"#), "still due: the whole total");
    for (id, amount) in [("i1", "$402.86"), ("i2", "$940.02")] {
        let row = &page[page.find(&format!(r#"data-payment="pay_{code}_{id}""#)).expect("a row per installment")..];
        assert!(row[..row.find("</tr>").unwrap()].contains(amount), "{id}: {amount}");
    }
}

/// With localstripe: the booking page's confirm captures the card hold, its refund button
/// refunds through the provider, and a refund beyond what was paid is refused with nothing done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_booking_pages_buttons_capture_and_refund_through_the_provider() {
    use rental_tests::localstripe::{LocalStripe, cards};
    use serde_json::json;
    let Some(stripe) = LocalStripe::start() else { return };
    let provider = std::sync::Arc::new(rental_server::payments::Stripe::new(stripe.config()).unwrap());
    let config = rental_server::ServerConfig {
        payments: Some(provider),
        ..crate::client::config(rental_server::admin::AdminConfig::default())
    };
    let s = rental_tests::http::TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(crate::client::PASSWORD).unwrap();
    let code = s.book("sea-view", "2026-12-20", "2026-12-27", 2).await["code"].as_str().unwrap().to_owned();
    let started = s.post(&format!("/api/v1/bookings/{code}/checkout"), &s.key, &json!({})).await;
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), cards::OK).await.expect(200);
    s.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &s.key, &json!({})).await.expect(200);

    let client = Client::logged_in(&s.http).await;
    client.post(&format!("/admin/booking/{code}/confirm"), &[]).await;
    let booking = s.rental.booking(&code).unwrap();
    let shown = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(shown.contains("the card hold was captured"), "{}", &shown[..shown.len().min(3000)]);
    assert_eq!((booking.money.amount_paid, booking.total), (booking.total, booking.total), "captured on confirm");
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains(&format!("/admin/booking/{code}/refund")), "the refund button");

    let too_much = (booking.total + 1).to_string();
    client.post(&format!("/admin/booking/{code}/refund"), &[("amount", too_much.as_str())]).await;
    assert_eq!(s.rental.booking(&code).unwrap().money.amount_refunded, 0, "nothing refunded");
    client.post(&format!("/admin/booking/{code}/refund"), &[("amount", "2500"), ("reason", "late check-in")]).await;
    assert_eq!(s.rental.booking(&code).unwrap().money.amount_refunded, 2_500);
    let intent = s.rental.payments(&code).unwrap()[0].provider_ref.clone().unwrap();
    let refunds = stripe.get(&format!("/v1/refunds?payment_intent={intent}")).await;
    assert_eq!(refunds["data"][0]["amount"], 2_500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_admin_page_or_backup_holds_the_stripe_secret_key_or_webhook_secret() {
    use std::sync::Arc;

    use rental_server::payments::Stripe;
    use rental_tests::localstripe::{LocalStripe, SECRET_KEY, WEBHOOK_SECRET, cards};
    use serde_json::json;

    let Some(stripe) = LocalStripe::start() else { return };
    let provider = Arc::new(Stripe::new(stripe.config()).unwrap());
    let config = rental_server::ServerConfig {
        payments: Some(provider),
        ..crate::client::config(rental_server::admin::AdminConfig::default())
    };
    let s = rental_tests::http::TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(crate::client::PASSWORD).unwrap();
    // A booking with a hold, a refused card and a captured payment: the ledger has every kind of row.
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let started = s.post(&format!("/api/v1/bookings/{code}/checkout"), &s.key, &json!({})).await;
    stripe.save_card(started.body["setupClientSecret"].as_str().unwrap(), cards::OK).await.expect(200);
    s.post(&format!("/api/v1/bookings/{code}/checkout/complete"), &s.key, &json!({})).await.expect(200);
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);

    let client = crate::client::Client::logged_in(&s.http).await;
    let mut seen = Vec::new();
    for path in [
        "/admin".to_owned(),
        "/admin/bookings".to_owned(),
        format!("/admin/bookings/{code}"),
        "/admin/calendar".to_owned(),
        "/admin/properties".to_owned(),
        "/admin/properties/sea-view/edit".to_owned(),
        "/admin/webhooks".to_owned(),
        "/admin/api-keys".to_owned(),
    ] {
        let page = client.get(&path).await;
        page.expect(200);
        seen.push((path, page.text()));
    }
    assert!(seen[2].1.contains("succeeded"), "the ledger is on the booking's page: {}", seen[2].1);
    let backups = s.rental.admin().create_key("backups", &[rental_core::Scope::Backup]).unwrap().secret;
    let backup = s.get("/api/v1/backup", &backups).await;
    backup.expect(200);
    let bytes = String::from_utf8_lossy(&backup.bytes).into_owned();
    assert!(bytes.contains(&code), "the backup holds the booking");
    seen.push(("the backup".to_owned(), bytes));
    for (what, text) in seen {
        assert!(!text.contains(SECRET_KEY) && !text.contains(WEBHOOK_SECRET), "a Stripe secret in {what}");
    }
}
