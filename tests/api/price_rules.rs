//! docs/API.md section 25 over HTTP: a quote explains every line, a booking
//! is refused as its quote's problems say (rules 422 with each problem,
//! promo codes 422 `promo_code`), counts its promo code's use, and keeps
//! its price when the rules change; a `change` re-prices under the new ones.

use rental_core::demo;
use rental_core::property::{LeadTimeAdjustment, PriceRules, PromoCode, TouristTax};
use rental_tests::http::TestServer;
use serde_json::{Value, json};

/// Sea View with Saturday arrivals, a promo code for one booking, pets and a tourist tax.
fn sea_view_with_rules() -> rental_core::Property {
    let mut p = demo::sea_view();
    p.stay_rules.check_in_days = serde_json::from_value(json!(["sat", "sun"])).unwrap();
    let mut once = PromoCode::new("WINTER", 1_500);
    once.max_uses = Some(1);
    p.pricing.rules = PriceRules::default().promo(once).pets(2_500, 1).tourist_tax(TouristTax {
        per_person_per_night: 200,
        max_nights: Some(5),
        exempt_under_age: Some(12),
    });
    p
}

fn booking(check_in: &str, check_out: &str, extra: &Value) -> Value {
    let mut body = json!({"property": "sea-view", "checkIn": check_in, "checkOut": check_out, "guests": 3,
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_shows_every_line_with_children_pets_and_a_code() {
    let s = TestServer::memory().await;
    s.rental.import_properties(&[sea_view_with_rules()]).unwrap();
    let body = json!({"property": "sea-view", "checkIn": "2026-12-19", "checkOut": "2026-12-26", "guests": 3,
        "children": 1, "pets": 1, "promoCode": "winter"});
    let reply = s.post("/api/v1/quotes", &s.read_key, &body).await;
    reply.expect(200);
    let q = &reply.body;
    assert_eq!((&q["children"], &q["pets"], &q["promoCode"]), (&json!(1), &json!(1), &json!("winter")));
    assert_eq!(q["discountKind"], "promo", "15 % beats the weekly 10 %");
    assert_eq!(q["discount"], (q["accommodation"].as_i64().unwrap() * 1_500 + 5_000) / 10_000);
    assert_eq!((&q["petFee"], &q["touristTax"]), (&json!(2_500), &json!(2 * 5 * 200)), "2 adults, 5 nights taxed");
    assert_eq!(q["nightly"][0], json!({"date": "2026-12-19", "base": 18_000, "price": 18_000}));
    let lines = ["accommodation", "extraGuestFee", "cleaningFee", "petFee", "taxes", "touristTax"];
    let sum: i64 = lines.iter().map(|k| q[k].as_i64().unwrap()).sum::<i64>() - q["discount"].as_i64().unwrap();
    assert_eq!(q["total"].as_i64(), Some(sum));
    assert_eq!(q["problems"], json!([]));

    let bad =
        json!({"property": "sea-view", "checkIn": "2026-12-19", "checkOut": "2026-12-26", "guests": 2, "children": 2});
    let reply = s.post("/api/v1/quotes", &s.read_key, &bad).await;
    reply.problem(422, "validation_failed");
    assert_eq!(reply.body["errors"][0]["field"], "children", "one guest at least is an adult");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_is_refused_as_its_quote_says_and_a_code_is_used_once() {
    let s = TestServer::memory().await;
    s.rental.import_properties(&[sea_view_with_rules()]).unwrap();
    let post = |body: Value| {
        let s = &s;
        async move { s.post("/api/v1/bookings", &s.key, &body).await }
    };
    // A Friday arrival and two pets: each rule is named, nothing is written.
    let reply = post(booking("2026-12-18", "2026-12-22", &json!({"pets": 2}))).await;
    reply.problem(422, "validation_failed");
    let codes: Vec<(&str, &str)> = reply.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["field"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(codes, [("checkIn", "check_in_day"), ("pets", "max_pets")]);
    let reply = post(booking("2026-12-19", "2026-12-22", &json!({"promoCode": "SUMMER"}))).await;
    reply.problem(422, "promo_code");
    assert_eq!(
        reply.body["errors"],
        json!([{"field": "promoCode", "code": "unknown",
        "message": "the promo code cannot be used: unknown"}])
    );
    assert!(s.all_bookings().await.is_empty(), "refusals write nothing");

    // The code's one use: the first booking has it, the second is refused.
    let first = post(booking("2026-12-19", "2026-12-22", &json!({"promoCode": "winter", "pets": 1}))).await;
    first.expect(201);
    assert_eq!((&first.body["promoCode"], &first.body["pets"]), (&json!("WINTER"), &json!(1)));
    let quoted = s
        .post(
            "/api/v1/quotes",
            &s.read_key,
            &json!({"property": "sea-view", "checkIn": "2026-12-19",
        "checkOut": "2026-12-22", "guests": 3, "pets": 1, "promoCode": "winter"}),
        )
        .await;
    assert_eq!(
        quoted.body["problems"],
        json!([{"code": "dates_unavailable",
        "dates": ["2026-12-19", "2026-12-20", "2026-12-21"]}, {"code": "promo_code", "reason": "used_up"}])
    );
    let second = post(booking("2027-01-02", "2027-01-05", &json!({"promoCode": "WINTER"}))).await;
    second.problem(422, "promo_code");
    assert_eq!(second.body["errors"][0]["code"], "used_up");
    // A taken night alone is still a 409.
    post(booking("2026-12-20", "2026-12-23", &json!({}))).await.problem(409, "dates_unavailable");

    // Cancelling the booking gives the use back.
    let code = first.body["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "cancel"})).await.expect(200);
    post(booking("2027-01-02", "2027-01-05", &json!({"promoCode": "WINTER"}))).await.expect(201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_keeps_its_price_when_the_rules_change_and_a_change_reprices_it() {
    let s = TestServer::memory().await;
    let booked = s.book("sea-view", "2026-12-20", "2026-12-27", 3).await;
    let code = booked["code"].as_str().unwrap().to_owned();
    assert_eq!(booked["total"], 134_288);
    let mut dearer = demo::sea_view();
    dearer.pricing.nightly_rate = 20_000;
    dearer.pricing.rules =
        PriceRules::default().lead_time(LeadTimeAdjustment { within_days: None, beyond_days: Some(20), adjust: 1_000 });
    s.rental.import_properties(&[dearer]).unwrap();

    let read = s.get(&format!("/api/v1/bookings/{code}"), &s.key).await;
    read.expect(200);
    assert_eq!(read.body["total"], 134_288, "a rule edit does not re-price a booking");

    let now = s
        .post(
            "/api/v1/quotes",
            &s.read_key,
            &json!({"property": "sea-view", "checkIn": "2026-12-20",
        "checkOut": "2026-12-27", "guests": 2}),
        )
        .await;
    assert_ne!(now.body["total"], 134_288);
    let changed = s.act(&code, &json!({"action": "change", "guests": 2})).await;
    changed.expect(200);
    assert_eq!(changed.body["total"], now.body["total"], "a change is priced under the rules in force");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn availability_says_per_night_where_a_stay_may_start_or_end_and_what_is_kept_to_prepare() {
    let s = TestServer::memory().await;
    let mut p = sea_view_with_rules(); // arrivals on Saturdays and Sundays
    p.stay_rules.preparation_nights = 1;
    p.stay_rules.check_out_days = serde_json::from_value(json!(["sat"])).unwrap();
    s.rental.import_properties(&[p]).unwrap();
    s.book("sea-view", "2026-12-13", "2026-12-19", 2).await; // Sunday to Saturday
    let reply = s.get("/api/v1/properties/sea-view/availability?from=2026-12-11&to=2026-12-21", &s.read_key).await;
    reply.expect(200);
    let nights: Vec<(String, String, bool, bool)> = reply.body["nights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let text = |k: &str| n[k].as_str().unwrap().to_owned();
            (text("date"), text("status"), n["checkIn"].as_bool().unwrap(), n["checkOut"].as_bool().unwrap())
        })
        .collect();
    let want = [
        ("2026-12-11", "available", false, false), // Friday
        ("2026-12-12", "preparation", true, true), // Saturday, the night before the stay
        ("2026-12-13", "held", true, false),
        ("2026-12-18", "held", false, false),
        ("2026-12-19", "preparation", true, true), // the night after
        ("2026-12-20", "available", true, false),
    ];
    for (date, status, check_in, check_out) in want {
        let got = nights.iter().find(|n| n.0 == date).unwrap();
        assert_eq!((got.1.as_str(), got.2, got.3), (status, check_in, check_out), "{date}");
    }
}
