//! docs/API.md section 3: the property list and detail, public fields only.

use rental_core::property::IcalFeed;
use rental_core::{Property, Source, demo};
use rental_tests::http::{NO_KEY, TestServer};
use serde_json::json;

/// The public fields of a property, in the contract's order.
const PUBLIC_FIELDS: [&str; 19] = [
    "slug",
    "name",
    "timezone",
    "currency",
    "maxGuests",
    "baseGuests",
    "extraGuestFee",
    "nightlyRate",
    "weekendRate",
    "cleaningFee",
    "taxRate",
    "minNights",
    "maxNights",
    "weeklyDiscount",
    "monthlyDiscount",
    "checkInTime",
    "checkOutTime",
    "seasonalRates",
    "bookingPage",
];

fn with_a_feed() -> Property {
    let feed = IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: "https://example.com/secret-feed.ics".into(),
        reservation_patterns: vec![],
    };
    {
        let mut edited = demo::sea_view();
        edited.feeds.ical_feeds = vec![feed];
        edited
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_has_every_active_property_by_slug() {
    let s = TestServer::memory().await;
    let reply = s.get("/api/v1/properties", &s.read_key).await;
    reply.expect(200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let slugs: Vec<&str> = reply.body["data"].as_array().unwrap().iter().map(|p| p["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs, ["alpine-cabin", "harbour-loft", "sea-view"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inactive_property_is_neither_listed_nor_found() {
    let s = TestServer::memory().await;
    s.rental
        .import_properties(&[{
            let mut edited = demo::alpine_cabin();
            edited.active = false;
            edited
        }])
        .unwrap();
    let reply = s.get("/api/v1/properties", &s.read_key).await;
    let slugs: Vec<&str> = reply.body["data"].as_array().unwrap().iter().map(|p| p["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs, ["harbour-loft", "sea-view"]);
    s.get("/api/v1/properties/alpine-cabin", &s.read_key).await.problem(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_property_is_not_found() {
    let s = TestServer::memory().await;
    s.get("/api/v1/properties/nowhere", &s.read_key).await.problem(404, "not_found");
    s.get("/api/v1/properties/NOT%20A%20SLUG", &s.read_key).await.problem(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_detail_is_the_contract_example_with_its_seasonal_rates() {
    let s = TestServer::memory().await;
    let reply = s.get("/api/v1/properties/sea-view", &s.read_key).await;
    reply.expect(200);
    let want = json!({"slug": "sea-view", "name": "Sea View Cottage", "timezone": "Europe/Lisbon",
        "currency": "USD", "maxGuests": 4, "baseGuests": 2, "extraGuestFee": 2000,
        "nightlyRate": 15000, "weekendRate": 18000, "cleaningFee": 6000, "taxRate": 1200,
        "minNights": 2, "maxNights": 28, "weeklyDiscount": 1000, "monthlyDiscount": 2000,
        "checkInTime": "15:00", "checkOutTime": "11:00",
        "seasonalRates": [{"name": "Summer", "startDate": "2026-06-01", "endDate": "2026-08-31",
                           "nightlyRate": 22000, "weekendRate": 25000, "minNights": 3}],
        "bookingPage": {"enabled": false, "embedOrigins": []}});
    assert_eq!(reply.body, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neither_list_nor_detail_shows_door_code_wifi_or_feeds() {
    let s = TestServer::memory().await;
    s.rental.import_properties(&[with_a_feed()]).unwrap();
    let list = s.get("/api/v1/properties", &s.read_key).await;
    let detail = s.get("/api/v1/properties/sea-view", &s.read_key).await;
    for property in list.body["data"].as_array().unwrap().iter().chain([&detail.body]) {
        let mut fields: Vec<&str> = property.as_object().unwrap().keys().map(String::as_str).collect();
        fields.sort_unstable();
        let mut allowed: Vec<&str> = PUBLIC_FIELDS.to_vec();
        allowed.sort_unstable();
        assert!(fields.iter().all(|f| allowed.contains(f)), "a private field is shown: {fields:?}");
    }
    for text in [list.text(), detail.text()] {
        for secret in ["doorCode", "wifiSsid", "icalFeeds", "4821", "SeaView-Guest", "secret-feed", "1357", "Loft-5G"] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_property_without_a_weekend_rate_omits_it() {
    let s = TestServer::memory().await;
    let reply = s.get("/api/v1/properties/harbour-loft", &s.read_key).await;
    reply.expect(200);
    assert!(reply.body.get("weekendRate").is_none(), "{}", reply.body);
    assert_eq!(reply.body["timezone"], "Pacific/Auckland");
    assert_eq!(reply.body["seasonalRates"][0]["name"], "Summer holidays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn property_endpoints_need_a_key() {
    let s = TestServer::memory().await;
    s.get("/api/v1/properties", NO_KEY).await.problem(401, "unauthorized");
    s.get("/api/v1/properties/sea-view", NO_KEY).await.problem(401, "unauthorized");
}
