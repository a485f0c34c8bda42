//! docs/API.md section 7: the occupancy summary over
//! HTTP, its shape, each property's own midnight, and the door code held
//! back by the stay page's access gate (section 15).

use rental_core::property::{CheckInField, CheckInForm, FieldRule};
use rental_core::{MemoryStore, PaymentStatus};
use rental_tests::NOW;
use rental_tests::http::{NO_KEY, TestServer};
use serde_json::{Value, json};

fn of<'a>(summary: &'a Value, slug: &str) -> &'a Value {
    let properties = summary["properties"].as_array().expect("properties is an array");
    properties.iter().find(|p| p["slug"] == slug).unwrap_or_else(|| panic!("{slug} is not in {summary}"))
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

fn sorted(mut fields: Vec<&str>) -> Vec<&str> {
    fields.sort_unstable();
    fields
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_summary_has_the_spec_shape_with_a_date_per_property() {
    let s = TestServer::memory().await;
    // A guest in the house since the 20th, and a request arriving next week.
    s.set_now("2026-11-15T12:00:00Z");
    let current = s.book("sea-view", "2026-11-20", "2026-11-24", 2).await;
    s.act(current["code"].as_str().unwrap(), &json!({"action": "confirm"})).await.expect(200);
    s.set_now(NOW);
    let next = s.book("sea-view", "2026-11-29", "2026-12-02", 3).await;

    let reply = s.get("/api/v1/ha/summary", &s.read_key).await;
    reply.expect(200);
    let b = &reply.body;
    assert_eq!(keys(b), ["date", "generatedAt", "properties", "totals"]);
    assert_eq!((b["date"].as_str(), b["generatedAt"].as_str()), (Some("2026-11-22"), Some(NOW)));
    assert_eq!(
        b["totals"],
        json!({"properties": 3, "occupiedTonight": 1, "checkInsToday": 0, "checkOutsToday": 0, "pendingBookings": 1,
               "checkedIn": 1, "staleFeeds": 0})
    );
    let slugs: Vec<&str> = b["properties"].as_array().unwrap().iter().map(|p| p["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs, ["alpine-cabin", "harbour-loft", "sea-view"]);
    let sea = of(b, "sea-view");
    assert_eq!(
        keys(sea),
        sorted(vec![
            "slug",
            "name",
            "date",
            "occupied",
            "checkInToday",
            "checkOutToday",
            "currentBooking",
            "nextArrival",
            "checkInTime",
            "checkOutTime",
            "doorCode",
            "wifiSsid",
            "stayState",
            "nextTransitionAt",
            "access",
            "accessWithheld",
            "turnover",
            "feeds"
        ])
    );
    let want = json!({"slug": "sea-view", "name": "Sea View Cottage", "date": "2026-11-22", "occupied": true,
        "checkInToday": false, "checkOutToday": false,
        "currentBooking": {"code": current["code"], "guestName": "Ada Lovelace", "guests": 2,
                           "checkIn": "2026-11-20", "checkOut": "2026-11-24"},
        "nextArrival": {"code": next["code"], "guestName": "Ada Lovelace", "checkIn": "2026-11-29", "status": "pending"},
        "checkInTime": "3:00 PM", "checkOutTime": "11:00 AM", "doorCode": "4821", "wifiSsid": "SeaView-Guest",
        "stayState": "checked_in", "nextTransitionAt": "2026-11-24T11:00:00.000Z",
        "access": {"code": "4821", "validFrom": "2026-11-20T15:00:00.000Z", "validUntil": "2026-11-24T11:00:00.000Z",
                   "booking": current["code"]},
        "accessWithheld": null,
        "turnover": {"sameDay": false, "cleaningFrom": "2026-11-24T11:00:00.000Z",
                     "cleaningUntil": "2026-11-29T15:00:00.000Z", "gapNights": 5, "unbookableGap": false},
        "feeds": []});
    assert_eq!(*sea, want);
    let loft = of(b, "harbour-loft");
    assert_eq!(
        (&loft["currentBooking"], &loft["nextArrival"], &loft["occupied"]),
        (&json!(null), &json!(null), &json!(false))
    );
    assert_eq!((&loft["checkInTime"], &loft["checkOutTime"]), (&json!("2:00 PM"), &json!("10:30 AM")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auckland_arrival_shows_just_after_auckland_midnight_not_a_minute_before() {
    let s = TestServer::memory().await;
    s.book("harbour-loft", "2026-11-23", "2026-11-25", 2).await;
    s.book("sea-view", "2026-11-23", "2026-11-25", 2).await;

    // 10:59Z is 23:59 on the 22nd in Auckland (NZDT, UTC+13) and 10:59 in Lisbon.
    s.set_now("2026-11-22T10:59:00Z");
    let before = s.summary().await;
    assert_eq!(
        (&of(&before, "harbour-loft")["date"], &of(&before, "harbour-loft")["checkInToday"]),
        (&json!("2026-11-22"), &json!(false))
    );
    assert_eq!(
        (&of(&before, "sea-view")["date"], &of(&before, "sea-view")["checkInToday"]),
        (&json!("2026-11-22"), &json!(false))
    );
    assert_eq!(before["totals"]["checkInsToday"], 0);

    // 11:00Z is midnight of the 23rd in Auckland; Lisbon is still on the 22nd.
    s.set_now("2026-11-22T11:00:00Z");
    let after = s.summary().await;
    assert_eq!(
        (&of(&after, "harbour-loft")["date"], &of(&after, "harbour-loft")["checkInToday"]),
        (&json!("2026-11-23"), &json!(true))
    );
    assert_eq!(
        (&of(&after, "sea-view")["date"], &of(&after, "sea-view")["checkInToday"]),
        (&json!("2026-11-22"), &json!(false))
    );
    assert_eq!(after["totals"]["checkInsToday"], 1);
    assert_eq!(after["date"], "2026-11-22", "the top-level date is the service's zone, UTC");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lisbon_arrival_shows_just_after_lisbon_midnight_not_a_minute_before() {
    let s = TestServer::memory().await;
    s.book("sea-view", "2026-11-23", "2026-11-25", 2).await;
    s.book("harbour-loft", "2026-11-23", "2026-11-24", 2).await;

    // 23:59Z on the 22nd is 23:59 in Lisbon (WET, UTC+0); Auckland is on the 23rd, at 12:59.
    s.set_now("2026-11-22T23:59:00Z");
    let before = s.summary().await;
    assert_eq!(
        (&of(&before, "sea-view")["date"], &of(&before, "sea-view")["checkInToday"]),
        (&json!("2026-11-22"), &json!(false))
    );
    assert_eq!(of(&before, "harbour-loft")["checkInToday"], true);
    assert_eq!(before["totals"]["checkInsToday"], 1);

    s.set_now("2026-11-23T00:00:00Z");
    let after = s.summary().await;
    assert_eq!(
        (&of(&after, "sea-view")["date"], &of(&after, "sea-view")["checkInToday"]),
        (&json!("2026-11-23"), &json!(true))
    );
    assert_eq!(after["totals"]["checkInsToday"], 2);
    assert_eq!(after["date"], "2026-11-23");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_departure_is_judged_on_the_property_date_and_only_confirmed_stays_occupy() {
    let s = TestServer::memory().await;
    s.set_now("2026-11-15T12:00:00Z");
    let leaving = s.book("harbour-loft", "2026-11-20", "2026-11-23", 2).await;
    s.act(leaving["code"].as_str().unwrap(), &json!({"action": "confirm"})).await.expect(200);
    // Authorized, so the checkout expiry leaves it pending when the clock jumps a week.
    let request = s.book("alpine-cabin", "2026-11-20", "2026-11-24", 2).await;
    s.act(request["code"].as_str().unwrap(), &json!({"action": "authorize"})).await.expect(200);
    s.set_now("2026-11-22T10:59:00Z");
    let before = s.summary().await;
    assert_eq!(
        (&of(&before, "harbour-loft")["occupied"], &of(&before, "harbour-loft")["checkOutToday"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(of(&before, "alpine-cabin")["occupied"], false, "a pending request does not occupy");
    s.set_now("2026-11-22T11:00:00Z");
    let after = s.summary().await;
    assert_eq!(
        (&of(&after, "harbour-loft")["occupied"], &of(&after, "harbour-loft")["checkOutToday"]),
        (&json!(false), &json!(true))
    );
    assert_eq!(after["totals"]["checkOutsToday"], 1);
    assert_eq!(after["totals"]["occupiedTonight"], 0);
    assert_eq!(after["totals"]["pendingBookings"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inactive_property_neither_appears_nor_counts() {
    let s = TestServer::memory().await;
    s.book("alpine-cabin", "2026-12-01", "2026-12-05", 2).await;
    s.book("sea-view", "2026-12-01", "2026-12-05", 2).await;
    let inactive = {
        let mut edited = rental_core::demo::alpine_cabin();
        edited.active = false;
        edited
    };
    s.rental.import_properties(&[inactive]).unwrap();
    let summary = s.summary().await;
    let slugs: Vec<&str> =
        summary["properties"].as_array().unwrap().iter().map(|p| p["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs, ["harbour-loft", "sea-view"]);
    assert_eq!((&summary["totals"]["properties"], &summary["totals"]["pendingBookings"]), (&json!(2), &json!(1)));
}

/// A confirmed stay in sea-view since the 20th, with `form` as its check-in
/// form, payment required, and its payment set to `payment` before any summary.
async fn staying(form: CheckInForm, payment: PaymentStatus) -> (TestServer<MemoryStore>, String) {
    let s = TestServer::memory().await;
    s.rental
        .edit_property("sea-view", |p| {
            p.access.access_requires_payment = Some(true);
            p.access.stay_page.check_in_form = form.clone();
        })
        .unwrap();
    s.set_now("2026-11-15T12:00:00Z");
    let code = s.book("sea-view", "2026-11-20", "2026-11-24", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    s.set_now(NOW);
    crate::stay_page::set_payment(&s, &code, payment);
    (s, code)
}

/// sea-view's door code, `access` and `accessWithheld` in the summary.
async fn door_of(s: &TestServer<MemoryStore>) -> (Value, Value, Value) {
    let summary = s.summary().await;
    let sea = of(&summary, "sea-view");
    (sea["doorCode"].clone(), sea["access"].clone(), sea["accessWithheld"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unpaid_stay_shows_no_door_code_when_the_property_requires_payment_and_a_paid_one_does() {
    let (unpaid, code) = staying(CheckInForm::default(), PaymentStatus::Unpaid).await;
    let withheld = json!({"booking": code, "missing": ["unpaid"], "revealAt": "2026-11-18T15:00:00.000Z"});
    assert_eq!(door_of(&unpaid).await, (json!(""), json!(null), withheld));
    let (paid, code) = staying(CheckInForm::default(), PaymentStatus::Paid).await;
    let access = json!({"code": "4821", "validFrom": "2026-11-20T15:00:00.000Z",
        "validUntil": "2026-11-24T11:00:00.000Z", "booking": code});
    assert_eq!(door_of(&paid).await, (json!("4821"), access, json!(null)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_code_waits_for_a_required_check_in_form_and_shows_once_it_is_sent() {
    let form = CheckInForm::default().with(CheckInField::Phone, FieldRule::Required);
    let (s, code) = staying(form, PaymentStatus::Paid).await;
    let (door, access, withheld) = door_of(&s).await;
    assert_eq!((door, access, &withheld["missing"]), (json!(""), json!(null), &json!(["form_not_done"])));
    let path = crate::check_in::stay_path(&s, &code).await;
    let token = crate::check_in::token_of(&s.http.get(&path, NO_KEY).await.text());
    crate::check_in::post(&s, &path, &[("token", &token), ("phone", "+351 912 345 678")]).await.expect(303);
    let (door, access, withheld) = door_of(&s).await;
    assert_eq!((door, &access["code"], withheld), (json!("4821"), &json!("4821"), json!(null)), "sent");
}
