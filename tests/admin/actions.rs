//! What the dashboard's forms do, seen through the API and a webhook
//! receiver: the same use cases, the same events, the real delivery path.

use std::time::Duration;

use rental_core::webhook::verify;
use rental_tests::NOW;
use rental_tests::feeds::{Feed, FeedServer, calendar};
use rental_tests::receiver::Receiver;
use serde_json::json;

use crate::client::{Client, server};

/// Today in Lisbon (sea-view) at [`NOW`].
const TODAY: &str = "2026-11-22";

#[tokio::test]
async fn the_dashboard_lists_todays_arrivals_and_confirms_and_cancels_like_the_api() {
    let s = server().await;
    assert!(NOW.starts_with(TODAY));
    let arriving = s.book("sea-view", TODAY, "2026-11-25", 2).await;
    let later = s.book("alpine-cabin", "2026-12-10", "2026-12-14", 2).await;
    let (arriving, later) = (arriving["code"].as_str().unwrap(), later["code"].as_str().unwrap());
    let client = Client::logged_in(&s.http).await;
    let page = client.get("/admin").await.text();
    let arrivals = page.split("id=\"arrivals\"").nth(1).unwrap().split("</section>").next().unwrap();
    assert!(arrivals.contains(arriving) && !arrivals.contains(later), "{arrivals}");
    let pending = page.split("id=\"pending\"").nth(1).unwrap();
    assert!(pending.contains(arriving) && pending.contains(later), "{pending}");

    let seq = s.rental.events_after(0, 10_000).unwrap().last().unwrap().seq;
    let r = client.post(&format!("/admin/bookings/{arriving}/confirm"), &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/admin")));
    let booking = s.http.get(&format!("/api/v1/bookings/{arriving}"), &s.key).await;
    assert_eq!(
        (booking.body["status"].as_str(), booking.body["paymentStatus"].as_str()),
        (Some("confirmed"), Some("paid"))
    );
    let events: Vec<_> = s.rental.events_after(seq, 100).unwrap().iter().map(|e| e.event.event.as_str()).collect();
    assert_eq!(events, ["booking.confirmed", "booking.updated"]);
    assert!(client.get("/admin").await.text().contains(&format!("Booking {arriving} is now confirmed.")));

    client.post(&format!("/admin/bookings/{later}/cancel"), &[]).await.expect(303);
    let cancelled = s.http.get(&format!("/api/v1/bookings/{later}"), &s.key).await;
    assert_eq!(cancelled.body["status"], "cancelled");
    assert_eq!(cancelled.body["cancelledBy"], "host");

    client.post(&format!("/admin/bookings/{later}/confirm"), &[]).await.expect(303);
    let page = client.get("/admin").await.text();
    assert!(page.contains("class=\"flash error\""), "a refused transition is explained: {page}");
    assert_eq!(s.http.get(&format!("/api/v1/bookings/{later}"), &s.key).await.body["status"], "cancelled");
}

#[tokio::test]
async fn ical_feeds_are_added_and_removed_and_bad_ones_refused() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let feed = [("name", "airbnb"), ("url", "https://www.airbnb.com/calendar/ical/1.ics?s=abc")];
    client.post("/admin/properties/sea-view/feeds", &feed).await.expect(303);
    let property = s.rental.property("sea-view").unwrap();
    assert_eq!(property.feeds.ical_feeds.len(), 1);
    assert_eq!(property.feeds.ical_feeds[0].name.as_str(), "airbnb");
    let page = client.get("/admin/properties").await.text();
    assert!(page.contains("https://www.airbnb.com/calendar/ical/1.ics?s=abc"), "{page}");

    for bad in
        [[("name", "Air BnB"), ("url", "https://x.example/a.ics")], [("name", "vrbo"), ("url", "ftp://x/a.ics")], feed]
    {
        client.post("/admin/properties/sea-view/feeds", &bad).await.expect(303);
        assert!(client.get("/admin/properties").await.text().contains("class=\"flash error\""), "{bad:?}");
    }
    assert_eq!(s.rental.property("sea-view").unwrap().feeds.ical_feeds.len(), 1);
    assert_eq!(s.http.get("/api/v1/properties/sea-view", &s.key).await.body.get("icalFeeds"), None, "still private");

    client.post("/admin/properties/sea-view/feeds/airbnb/remove", &[]).await.expect(303);
    assert!(s.rental.property("sea-view").unwrap().feeds.ical_feeds.is_empty());
}

#[tokio::test]
async fn import_now_pulls_the_feeds_and_the_page_shows_each_last_pull() {
    let s = server().await;
    let channel = FeedServer::start().await;
    channel.set("/airbnb.ics", Feed::Calendar(calendar(&[("a1", "Reserved - Jane", "2026-12-01", "2026-12-04")])));
    let client = Client::logged_in(&s.http).await;
    let page = client.get("/admin/properties").await.text();
    assert!(!page.contains("Import channel calendars now"), "no button without feeds");
    for (name, url) in [("airbnb", channel.url("/airbnb.ics")), ("vrbo", channel.url("/missing.ics"))] {
        client.post("/admin/properties/sea-view/feeds", &[("name", name), ("url", url.as_str())]).await.expect(303);
    }
    assert!(client.get("/admin/properties").await.text().contains("not pulled yet"));

    let r = client.post("/admin/properties/sea-view/sync", &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/admin/properties")));
    let page = client.get("/admin/properties").await.text();
    assert!(page.contains("Pulled 2 feeds: 1 created, 0 updated, 0 cancelled, 0 conflicts. 1 failed (vrbo: the feed answered 404 Not Found)."), "{page}");
    assert!(page.contains("1 event; 1 created"), "{page}");
    let bookings = s.all_bookings().await;
    let jane = bookings.iter().find(|b| b["source"] == "airbnb").expect("the imported stay");
    assert_eq!((&jane["guestName"], &jane["status"]), (&json!("Jane"), &json!("confirmed")));
}

#[tokio::test]
async fn a_test_event_goes_signed_to_that_webhook_alone_and_a_resend_repeats_the_same_delivery() {
    let s = server().await;
    let (target, bystander) = (Receiver::ok().await, Receiver::ok().await);
    let client = Client::logged_in(&s.http).await;
    let secret = "whsec_YWRtaW4gdGVzdCBzZWNyZXQ="; // "admin test secret"
    client.post("/admin/webhooks", &[("url", &target.url()), ("events", "*"), ("secret", secret)]).await.expect(303);
    client.post("/admin/webhooks", &[("url", &bystander.url()), ("events", "*")]).await.expect(303);
    let hooks = s.rental.webhooks().unwrap();
    let hook = hooks.iter().find(|w| w.url == target.url()).unwrap();

    client.post(&format!("/admin/webhooks/{}/test", hook.id), &[]).await.expect(303);
    let got = target.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(got[0].event(), "webhook.test");
    assert!(verify(secret.as_bytes(), &got[0].body, got[0].header("x-svc-signature").unwrap()));
    assert_eq!(got[0].json()["data"]["webhook"], json!(hook.id));
    bystander.assert_no_more_than(0, Duration::from_millis(400)).await;

    let delivery = s.rental.deliveries_of(&hook.id, 10).unwrap().remove(0);
    assert_eq!(delivery.id, got[0].delivery());
    let page = client.get("/admin/webhooks").await.text();
    assert!(page.contains(&delivery.id) && page.contains("delivered"), "{page}");

    client.post(&format!("/admin/deliveries/{}/resend", delivery.id), &[]).await.expect(303);
    let got = target.wait_for(2, Duration::from_secs(5)).await;
    assert_eq!(got[1].delivery(), delivery.id, "same X-SVC-Delivery");
    assert_eq!(got[1].body, got[0].body, "same bytes");
    bystander.assert_no_more_than(0, Duration::from_millis(100)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(s.rental.delivery(&delivery.id).unwrap().attempts.len(), 2);
}

#[tokio::test]
async fn a_deactivated_webhook_gets_nothing_until_activated_and_a_deleted_one_is_gone() {
    let s = server().await;
    let target = Receiver::ok().await;
    let client = Client::logged_in(&s.http).await;
    client.post("/admin/webhooks", &[("url", &target.url()), ("events", "booking.created")]).await.expect(303);
    let id = s.rental.webhooks().unwrap()[0].id.clone();
    client.post(&format!("/admin/webhooks/{id}/deactivate"), &[]).await.expect(303);
    assert!(!s.rental.webhooks().unwrap()[0].active);
    s.book("sea-view", "2026-12-01", "2026-12-04", 2).await;
    client.post(&format!("/admin/webhooks/{id}/test"), &[]).await.expect(303);
    target.assert_no_more_than(0, Duration::from_millis(400)).await;

    client.post(&format!("/admin/webhooks/{id}/activate"), &[]).await.expect(303);
    s.book("sea-view", "2026-12-10", "2026-12-13", 2).await;
    let got = target.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(got[0].event(), "booking.created");

    client.post(&format!("/admin/webhooks/{id}/delete"), &[]).await.expect(303);
    assert!(s.rental.webhooks().unwrap().is_empty());
    assert!(!client.get("/admin/webhooks").await.text().contains(&target.url()));
}

#[tokio::test]
async fn rotating_a_secret_shows_the_new_one_once_and_deliveries_carry_both_for_a_day() {
    let s = server().await;
    let target = Receiver::ok().await;
    let client = Client::logged_in(&s.http).await;
    let old = "whsec_YWRtaW4gdGVzdCBzZWNyZXQ="; // "admin test secret"
    client.post("/admin/webhooks", &[("url", &target.url()), ("events", "*"), ("secret", old)]).await.expect(303);
    let id = s.rental.webhooks().unwrap()[0].id.clone();
    assert!(client.get("/admin/webhooks").await.text().contains("one secret"));

    client.post(&format!("/admin/webhooks/{id}/rotate"), &[]).await.expect(303);
    let new = s.rental.webhooks().unwrap()[0].secret().to_owned();
    assert!(new.starts_with("whsec_") && new != old, "{new}");
    let page = client.get("/admin/webhooks").await.text();
    assert!(page.contains(&new) && page.contains("New signing secret"), "the new secret is shown: {page}");
    assert!(page.contains("2 secrets") && page.contains("2026-11-23"), "the overlap's end is shown: {page}");
    assert!(!client.get("/admin/webhooks").await.text().contains(&new), "and only once");

    client.post(&format!("/admin/webhooks/{id}/test"), &[]).await.expect(303);
    let got = target.wait_for(1, Duration::from_secs(5)).await;
    assert!(verify(new.as_bytes(), &got[0].body, got[0].header("x-svc-signature").unwrap()), "X-SVC: the new secret");
    let signatures = got[0].header("webhook-signature").unwrap();
    assert_eq!(signatures.split(' ').count(), 2, "webhook-signature: both secrets: {signatures}");

    let unknown = client.post("/admin/webhooks/wh_nobody/rotate", &[]).await;
    assert_eq!(unknown.status, 303);
    assert!(client.get("/admin/webhooks").await.text().contains("not found"));
}

#[tokio::test]
async fn a_webhook_needs_at_least_one_event() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    client.post("/admin/webhooks", &[("url", "https://example.com/hook")]).await.expect(303);
    assert!(s.rental.webhooks().unwrap().is_empty());
    let page = client.get("/admin/webhooks").await.text();
    assert!(page.contains("choose at least one event"), "{page}");
    client
        .post(
            "/admin/webhooks",
            &[("url", "https://example.com/hook"), ("events", "booking.created"), ("events", "booking.cancelled")],
        )
        .await
        .expect(303);
    let hooks = s.rental.webhooks().unwrap();
    assert_eq!(serde_json::to_value(&hooks[0].events).unwrap(), json!(["booking.created", "booking.cancelled"]));
}

#[tokio::test]
async fn the_houses_show_each_stay_and_check_in_and_out_like_the_api() {
    let s = server().await;
    let mut sea = rental_core::demo::sea_view();
    sea.name = "Sea <View> & Co".into();
    sea.access.door_code_mode = rental_core::access::DoorCodeMode::PerStay;
    s.rental.import_properties(&[sea]).unwrap();
    let code = s.book("sea-view", TODAY, "2026-11-25", 2).await["code"].as_str().unwrap().to_owned();
    s.act(&code, &json!({"action": "confirm"})).await.expect(200);
    let digits = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["access"]["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = Client::logged_in(&s.http).await;
    let page = client.get("/admin").await.text();
    let houses = page.split("id=\"houses\"").nth(1).unwrap().split("</section>").next().unwrap();
    let row = houses.split("data-slug=\"sea-view\"").nth(1).unwrap().split("</tr>").next().unwrap();
    assert!(row.contains("data-state=\"awaiting_check_in\""), "{row}");
    assert!(row.contains(&digits) && row.contains("not valid yet"), "the next code with its window: {row}");
    assert!(houses.contains("Sea &lt;View&gt; &amp; Co"), "names are escaped: {houses}");
    assert!(row.contains(&format!("/admin/bookings/{code}/check_in")), "{row}");

    let r = client.post(&format!("/admin/bookings/{code}/check_in"), &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/admin")));
    assert_eq!(s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["checkedInBy"], "action");
    let page = client.get("/admin").await.text();
    assert!(page.contains("data-state=\"checked_in\"") && page.contains("is checked in."), "{page}");
    assert!(page.contains(&format!("/admin/bookings/{code}/check_out")));

    // Without the session's CSRF token nothing happens.
    client.post_raw(&format!("/admin/bookings/{code}/check_out"), &[]).await.expect(403);
    assert!(s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["checkedOutAt"].is_null());
    client.post(&format!("/admin/bookings/{code}/check_out"), &[]).await.expect(303);
    let booking = s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body;
    assert_eq!(booking["checkedOutBy"], "action");
    assert!(client.get("/admin").await.text().contains("data-state=\"checked_out\""));
}

#[tokio::test]
async fn a_booking_shows_its_stay_link_to_copy_and_a_new_link_kills_the_old_one() {
    let s = server().await;
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let url =
        s.http.get(&format!("/api/v1/bookings/{code}"), &s.key).await.body["stayUrl"].as_str().unwrap().to_owned();
    let client = Client::logged_in(&s.http).await;
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains(&format!("<code id=\"stay-url\">{url}</code>")), "the link is shown");
    assert!(page.contains("data-copy=\"stay-url\""), "with a copy button");
    let old = &url[url.find("/stay/").unwrap()..];
    s.http.get(old, "").await.expect(200);

    let r = client.post(&format!("/admin/booking/{code}/stay-link"), &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some(format!("/admin/bookings/{code}").as_str())));
    s.http.get(old, "").await.expect(404);
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains("the old one no longer opens") && !page.contains(&url), "a new link is shown");
}

#[tokio::test]
async fn a_booking_shows_what_its_guest_gave_on_the_check_in_form_escaped() {
    use rental_core::check_in::CheckInInput;
    use rental_core::property::{CheckInField, CheckInForm, FieldRule};

    let s = server().await;
    let form = CheckInForm::default()
        .with(CheckInField::GuestNames, FieldRule::Optional)
        .with(CheckInField::DocumentNumber, FieldRule::Optional);
    s.rental.edit_property("sea-view", |p| p.access.stay_page.check_in_form = form.clone()).unwrap();
    let code = s.book("sea-view", "2026-12-20", "2026-12-23", 2).await["code"].as_str().unwrap().to_owned();
    let client = Client::logged_in(&s.http).await;
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains("has not sent the check-in form"));
    let input = CheckInInput {
        guest_names: "Ada <img src=x onerror=alert(1)>\nCharles".into(),
        arrival_time: "17:30".into(),
        document_number: "X1234567".into(),
        ..CheckInInput::default()
    };
    s.rental.check_ins().submit(&code, &input, "form-1").unwrap();
    let page = client.get(&format!("/admin/bookings/{code}")).await.text();
    assert!(page.contains("Ada &lt;img src=x onerror=alert(1)&gt;\nCharles"), "escaped: {page}");
    assert!(!page.contains("<img src=x"));
    for shown in ["id=\"check-in-arrival\">17:30<", "id=\"check-in-document\">X1234567<"] {
        assert!(page.contains(shown), "{shown}");
    }
}
