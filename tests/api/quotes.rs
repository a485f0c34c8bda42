//! docs/API.md section 5: quotes over HTTP.

use rental_core::Stay;
use rental_tests::d;
use rental_tests::http::TestServer;
use serde_json::{Value, json};

const PATH: &str = "/api/v1/quotes";

fn contract_request() -> Value {
    json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3})
}

fn problem_codes(quote: &Value) -> Vec<&str> {
    quote["problems"].as_array().expect("problems is an array").iter().map(|p| p["code"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_contract_example_is_priced_line_by_line() {
    let s = TestServer::memory().await;
    let reply = s.post(PATH, &s.read_key, &contract_request()).await;
    reply.expect(200);
    let nightly: Vec<Value> = ["20", "21", "22", "23", "24", "25", "26"]
        .iter()
        .map(|day| {
            let price = if ["25", "26"].contains(day) { 18000 } else { 15000 };
            json!({"date": format!("2026-12-{day}"), "base": price, "price": price})
        })
        .collect();
    let want = json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3,
        "children": 0, "pets": 0, "nights": 7, "available": true, "currency": "USD", "nightly": nightly,
        "accommodation": 111_000, "discount": 11_100, "discountKind": "length_of_stay", "extraGuestFee": 14_000,
        "cleaningFee": 6000, "petFee": 0, "taxes": 14_388, "touristTax": 0, "total": 134_288, "problems": []});
    assert_eq!(reply.body, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_taken_night_is_a_problem_and_the_stay_is_still_priced() {
    let s = TestServer::memory().await;
    s.rental.calendars().add_block("sea-view", Stay::new(d("2026-12-24"), d("2026-12-25")).unwrap(), "owner").unwrap();
    let reply = s.post(PATH, &s.read_key, &contract_request()).await;
    reply.expect(200);
    assert_eq!(reply.body["available"], false);
    assert_eq!(reply.body["total"], 134_288);
    assert_eq!(reply.body["problems"], json!([{"code": "dates_unavailable", "dates": ["2026-12-24"]}]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_broken_stay_rule_is_a_problem_with_its_code() {
    let s = TestServer::memory().await;
    let cases: [(&str, &str, u32, &[&str]); 5] = [
        ("2026-12-20", "2026-12-21", 2, &["min_nights"]),
        ("2027-01-01", "2027-02-01", 2, &["max_nights"]),
        ("2026-12-20", "2026-12-23", 5, &["max_guests"]),
        ("2026-11-21", "2026-11-24", 2, &["past_dates"]),
        ("2026-11-22", "2026-11-24", 4, &[]),
    ];
    for (check_in, check_out, guests, want) in cases {
        let body = json!({"property": "sea-view", "checkIn": check_in, "checkOut": check_out, "guests": guests});
        let reply = s.post(PATH, &s.read_key, &body).await;
        reply.expect(200);
        assert_eq!(problem_codes(&reply.body), want, "{body}");
        assert_eq!(reply.body["available"], want.is_empty(), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_default_to_one() {
    let s = TestServer::memory().await;
    let body = json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27"});
    let reply = s.post(PATH, &s.read_key, &body).await;
    reply.expect(200);
    assert_eq!((reply.body["guests"].as_u64(), reply.body["extraGuestFee"].as_u64()), (Some(1), Some(0)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_of_an_unknown_or_inactive_property_is_404() {
    let s = TestServer::memory().await;
    let body = json!({"property": "nowhere", "checkIn": "2026-12-20", "checkOut": "2026-12-27"});
    s.post(PATH, &s.read_key, &body).await.problem(404, "not_found");
    s.rental
        .import_properties(&[{
            let mut edited = rental_core::demo::sea_view();
            edited.active = false;
            edited
        }])
        .unwrap();
    s.post(PATH, &s.read_key, &contract_request()).await.problem(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_quote_request_is_400_or_422() {
    let s = TestServer::memory().await;
    let cases = [
        (json!({"property": "sea-view", "checkIn": "2026-12-27", "checkOut": "2026-12-20"}), "checkOut"),
        (json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 0}), "guests"),
        (json!({"property": "sea-view", "checkIn": "2026-12-20"}), "checkOut"),
    ];
    for (body, field) in cases {
        let reply = s.post(PATH, &s.read_key, &body).await;
        reply.problem(422, "validation_failed");
        assert_eq!(reply.error_fields(), [field], "{body}: {}", reply.body);
    }
    let reply = s.send_bytes(http::Method::POST, PATH, &s.read_key, "application/json", "{\"property\":").await;
    reply.problem(400, "invalid_json");
}
