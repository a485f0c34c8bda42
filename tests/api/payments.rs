//! Payments (docs/API.md, Payments): a property priced in euros or yen is
//! quoted, booked and shown in its own currency and minor unit, its currency
//! cannot change while bookings are to come, and its payment settings are checked.

use rental_core::{Error, MemoryStore};
use rental_tests::http::{NO_KEY, TestServer};
use serde_json::json;

/// A server whose Sea View is priced in `currency`, with its booking page on.
async fn server_in(currency: &'static str) -> TestServer<MemoryStore> {
    let s = TestServer::memory().await;
    s.rental
        .edit_property("sea-view", |p| {
            currency.clone_into(&mut p.currency);
            p.booking_page.enabled = true;
        })
        .expect("no booking is to come yet: the currency may change");
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_euro_property_is_quoted_booked_and_shown_in_euros() {
    let s = server_in("EUR").await;
    let property = s.get("/api/v1/properties/sea-view", &s.read_key).await;
    assert_eq!(property.body["currency"], "EUR");
    let quote = s
        .post(
            "/api/v1/quotes",
            &s.read_key,
            &json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3}),
        )
        .await;
    quote.expect(200);
    assert_eq!((quote.body["currency"].as_str(), quote.body["total"].as_i64()), (Some("EUR"), Some(134_288)));
    let availability =
        s.get("/api/v1/properties/sea-view/availability?from=2026-12-01&to=2026-12-02", &s.read_key).await;
    assert_eq!(availability.body["currency"], "EUR");
    let booking = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    assert_eq!((booking["currency"].as_str(), booking["total"].as_i64()), (Some("EUR"), Some(134_288)));

    let page = s.http.get("/book/sea-view?checkIn=2026-12-28&checkOut=2027-01-04&guests=3", NO_KEY).await;
    page.expect(200);
    let page = page.text();
    assert!(page.contains("€150</small>"), "calendar cells in whole euros");
    for line in ["€1,110.00", "€60.00", "<td id=\"total\">€1,342.88</td>"] {
        assert!(page.contains(line), "{line} on the quote view");
    }
    assert!(!page.contains('$'), "no dollar sign on a euro page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_yen_property_is_priced_and_shown_in_whole_yen() {
    let s = server_in("JPY").await;
    // Rates in yen: 15,000 a night, 18,000 at weekends, 6,000 cleaning.
    let quote = s
        .post(
            "/api/v1/quotes",
            &s.read_key,
            &json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3}),
        )
        .await;
    assert_eq!((quote.body["currency"].as_str(), quote.body["total"].as_i64()), (Some("JPY"), Some(134_288)));
    let booking = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    assert_eq!((booking["currency"].as_str(), booking["total"].as_i64()), (Some("JPY"), Some(134_288)));
    let page = s.http.get("/book/sea-view?checkIn=2026-12-28&checkOut=2027-01-04&guests=3", NO_KEY).await.text();
    assert!(page.contains("¥15,000</small>") && page.contains("¥18,000</small>"), "calendar cells in yen");
    assert!(page.contains("<td id=\"total\">¥134,288</td>"), "the total in whole yen");
    assert!(!page.contains("¥1,342.88"), "yen have no decimals");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_currency_change_is_refused_while_bookings_are_to_come() {
    let s = server_in("EUR").await;
    let booking = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let code = booking["code"].as_str().unwrap().to_owned();
    let Err(Error::Validation(faults)) = s.rental.edit_property("sea-view", |p| "GBP".clone_into(&mut p.currency))
    else {
        panic!("the currency changed under a booking to come");
    };
    assert_eq!((faults[0].field.as_str(), faults[0].code), ("currency", "currency_locked"));
    assert!(faults[0].message.contains(&code), "{}", faults[0].message);
    let mut moved = s.rental.property("sea-view").unwrap();
    assert_eq!(moved.currency, "EUR", "nothing was saved");
    "GBP".clone_into(&mut moved.currency);
    let Err(Error::Validation(faults)) = s.rental.import_properties(std::slice::from_ref(&moved)) else {
        panic!("an import changed the currency under a booking to come");
    };
    assert_eq!(faults[0].field, "[0].currency");
    // Other edits still save; once the stay is cancelled the currency may change.
    s.rental.edit_property("sea-view", |p| p.name = "Sea View".into()).expect("other fields may change");
    s.act(&code, &json!({"action": "cancel", "by": "host"})).await.expect(200);
    s.rental.import_properties(&[moved]).expect("nothing is to come");
    assert_eq!(s.get("/api/v1/properties/sea-view", &s.read_key).await.body["currency"], "GBP");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_or_lower_case_currency_is_refused_naming_the_field() {
    let s = TestServer::memory().await;
    for bad in ["eur", "XXX", "EURO", ""] {
        let Err(Error::Validation(faults)) = s.rental.edit_property("sea-view", |p| bad.clone_into(&mut p.currency))
        else {
            panic!("{bad:?} was accepted");
        };
        assert_eq!(faults[0].field, "currency", "{bad:?}");
    }
    assert_eq!(s.rental.property("sea-view").unwrap().currency, "USD");
}

/// Sea View's JSON with `fields` set over it, as `rental property import` reads it.
fn sea_view_with(s: &TestServer<MemoryStore>, fields: &serde_json::Value) -> Result<rental_core::Property, String> {
    let mut json = serde_json::to_value(s.rental.property("sea-view").unwrap()).unwrap();
    for (k, v) in fields.as_object().unwrap() {
        json[k] = v.clone();
    }
    serde_json::from_value(json).map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payment_settings_that_break_a_rule_are_refused_naming_the_field_and_nothing_is_saved() {
    let s = TestServer::memory().await;
    let cases = [
        (
            json!({"paymentTerms": {"installments": [{"share": 5000, "due": "booking"}, {"share": 4000, "daysBeforeCheckIn": 30}]}}),
            "paymentTerms.installments.share",
        ),
        (
            json!({"paymentTerms": {"installments": [{"share": 5000, "due": "booking"}, {"share": 2500, "daysBeforeCheckIn": 10}, {"share": 2500, "daysBeforeCheckIn": 30}]}}),
            "paymentTerms.installments.daysBeforeCheckIn",
        ),
        (
            json!({"paymentTerms": {"installments": [{"share": 2000, "due": "booking"}, {"share": 2000, "daysBeforeCheckIn": 40}, {"share": 2000, "daysBeforeCheckIn": 30}, {"share": 2000, "daysBeforeCheckIn": 20}, {"share": 2000, "daysBeforeCheckIn": 10}]}}),
            "paymentTerms.installments",
        ),
        (
            json!({"paymentTerms": {"installments": [{"share": 10000, "daysBeforeCheckIn": 30}]}}),
            "paymentTerms.installments.due",
        ),
        (json!({"securityDeposit": {"amount": -30000}}), "securityDeposit.amount"),
        (
            json!({"cancellationPolicy": {"refunds": [{"daysBeforeCheckIn": 30, "share": 12000}]}}),
            "cancellationPolicy.refunds.share",
        ),
        (json!({"cancellationPolicy": {"refunds": [], "graceHours": 9999}}), "cancellationPolicy.graceHours"),
    ];
    for (fields, want) in cases {
        let property = sea_view_with(&s, &fields).expect("well-formed JSON");
        let Err(Error::Validation(faults)) = s.rental.import_properties(&[property]) else {
            panic!("{fields} was saved");
        };
        assert_eq!(faults[0].field, format!("[0].{want}"), "{fields}");
    }
    // Nothing saved: the public view still leaves every payment setting out, as it does at their defaults.
    let shown = s.get("/api/v1/properties/sea-view", &s.read_key).await.body;
    for field in ["paymentTerms", "cancellationPolicy", "instantBooking", "securityDeposit"] {
        assert_eq!(shown.get(field), None, "{field}: {shown}");
    }
    let kept = s.rental.property("sea-view").unwrap().payments;
    assert_eq!(kept, rental_core::property::PaymentSettings::default(), "nothing saved");

    let good = json!({"instantBooking": true,
        "paymentTerms": {"installments": [{"share": 3000, "due": "booking"}, {"share": 7000, "daysBeforeCheckIn": 30}], "graceHours": 24},
        "securityDeposit": {"amount": 30000, "holdDaysBeforeCheckIn": 1, "releaseDaysAfterCheckOut": 3},
        "cancellationPolicy": {"refunds": [{"daysBeforeCheckIn": 30, "share": 10000}, {"daysBeforeCheckIn": 7, "share": 5000}],
            "graceHours": 48, "graceMinDaysBeforeCheckIn": 14}});
    s.rental.import_properties(&[sea_view_with(&s, &good).unwrap()]).expect("good settings save");
    let shown = s.get("/api/v1/properties/sea-view", &s.read_key).await.body;
    for field in ["instantBooking", "paymentTerms", "securityDeposit", "cancellationPolicy"] {
        assert_eq!(shown[field], good[field], "{field} as saved");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_shows_its_schedule_in_its_ledger_and_its_sums_in_its_body() {
    let s = server_in("EUR").await;
    s.rental
        .edit_property("sea-view", |p| {
            p.payments.terms = rental_core::property::PaymentTerms::split(&[(3_000, None), (7_000, Some(14))], 48);
            p.payments.security_deposit = Some(rental_core::property::SecurityDeposit::new(30_000));
        })
        .unwrap();
    let booking = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let code = booking["code"].as_str().unwrap();
    assert_eq!(
        (&booking["amountPaid"], &booking["amountRefunded"], &booking["balanceDue"], &booking["nextPaymentAt"]),
        (&json!(0), &json!(0), &json!(134_288), &json!("2026-11-22T07:39:21.123Z")),
        "nothing paid yet; the first installment is due now"
    );
    let ledger = s.get(&format!("/api/v1/bookings/{code}/payments"), &s.read_key).await;
    ledger.expect(200);
    let first = json!({"id": format!("pay_{code}_i1"), "kind": "installment", "number": 1, "amount": 40_286,
        "currency": "EUR", "status": "due", "dueAt": "2026-11-22T07:39:21.123Z", "at": null, "providerRef": null,
        "error": null});
    assert_eq!(ledger.body["data"][0], first);
    assert_eq!(
        (&ledger.body["data"][1]["amount"], &ledger.body["data"][1]["status"], &ledger.body["data"][1]["dueAt"]),
        (&json!(94_002), &json!("scheduled"), &json!("2026-12-06T15:00:00.000Z")),
        "14 days before check-in at 15:00 in Lisbon"
    );
    assert_eq!(
        (&ledger.body["data"][2]["kind"], &ledger.body["data"][2]["amount"]),
        (&json!("deposit"), &json!(30_000))
    );
    assert!(ledger.body["data"][0].get("idempotencyKey").is_none(), "the provider's key stays inside");
    // Later property edits do not change a booking's schedule.
    s.rental.edit_property("sea-view", |p| p.payments.terms = rental_core::property::PaymentTerms::default()).unwrap();
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}/payments"), &s.read_key).await.body, ledger.body);

    s.get("/api/v1/bookings/BK-NOPE22/payments", &s.read_key).await.problem(404, "not_found");
    s.get(&format!("/api/v1/bookings/{code}/payments"), &s.write_key).await.problem(403, "insufficient_scope");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_booking_owes_nothing_more_and_its_unpaid_installments_are_canceled() {
    let s = server_in("EUR").await;
    s.rental
        .edit_property("sea-view", |p| {
            p.payments.terms = rental_core::property::PaymentTerms::split(&[(3_000, None), (7_000, Some(14))], 48);
        })
        .unwrap();
    let code = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await["code"].as_str().unwrap().to_owned();
    let cancelled = s.act(&code, &json!({"action": "cancel", "by": "guest"})).await;
    cancelled.expect(200);
    assert_eq!(
        (&cancelled.body["balanceDue"], &cancelled.body["nextPaymentAt"], &cancelled.body["amountPaid"]),
        (&json!(0), &json!(null), &json!(0))
    );
    let ledger = s.get(&format!("/api/v1/bookings/{code}/payments"), &s.read_key).await.body;
    let statuses: Vec<&str> =
        ledger["data"].as_array().unwrap().iter().map(|p| p["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["canceled", "canceled"], "nothing paid: nothing to refund, nothing more to charge");
    assert_eq!(ledger["data"][0]["at"], ledger["data"][1]["at"]);
}
