//! The host-operation forms over plain HTTP: each needs the session's CSRF
//! token (else 403, nothing changed), escapes what guests and hosts typed,
//! and changes what the API serves through the library's use cases.

use rental_tests::http::TestServer;
use serde_json::json;

use crate::client::{Client, SEA_VIEW_FORM, server};

async fn booked(s: &TestServer<rental_core::MemoryStore>, name: &str) -> String {
    let mut body = rental_tests::http::booking_body("sea-view", "2026-12-20", "2026-12-23", 2);
    body["guestName"] = json!(name);
    s.http.post("/api/v1/bookings", &s.write_key, &body).await.body["code"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_forms_without_the_csrf_token_are_refused_and_change_nothing() {
    let s = server().await;
    let code = booked(&s, "Ada Lovelace").await;
    let block = s
        .rental
        .calendars()
        .add_block(
            "sea-view",
            rental_core::Stay::new(rental_tests::d("2027-01-05"), rental_tests::d("2027-01-07")).unwrap(),
            "",
        )
        .unwrap();
    let client = Client::logged_in(&s.http).await;
    let before = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body.clone();
    let posts: [(&str, &[(&str, &str)]); 7] = [
        (
            &format!("/admin/booking/{code}/change"),
            &[("checkIn", "2026-12-21"), ("checkOut", "2026-12-24"), ("guests", "2")],
        ),
        (&format!("/admin/booking/{code}/note"), &[("note", "hi")]),
        (&format!("/admin/booking/{code}/cancel"), &[("reason", "x")]),
        (&format!("/admin/booking/{code}/confirm"), &[]),
        ("/admin/blocks", &[("property", "sea-view"), ("startDate", "2027-02-01"), ("endDate", "2027-02-03")]),
        (&format!("/admin/blocks/sea-view/{}/remove", block.id), &[]),
        ("/admin/properties/sea-view/edit", &[("name", "Renamed"), ("nightlyRate", "1")]),
    ];
    for (path, fields) in posts {
        client.post_raw(path, fields).await.expect(403);
        let mut forged = vec![("_csrf", "00")];
        forged.extend_from_slice(fields);
        client.post_raw(path, &forged).await.expect(403);
    }
    assert_eq!(s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body, before);
    assert_eq!(
        s.rental
            .calendars()
            .blocks("sea-view", Some(rental_tests::d("2026-11-22")), Some(rental_tests::d("2027-11-22")))
            .unwrap()
            .len(),
        1
    );
    assert_eq!(s.rental.property("sea-view").unwrap().name, "Sea View Cottage");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_guests_and_hosts_typed_is_escaped_on_every_host_page() {
    let s = server().await;
    let code = booked(&s, "<script>alert(1)</script>").await;
    let client = Client::logged_in(&s.http).await;
    client.post(&format!("/admin/booking/{code}/note"), &[("note", "<img src=x onerror=alert(3)>")]).await.expect(303);
    let r = client
        .post(
            "/admin/blocks",
            &[
                ("property", "sea-view"),
                ("startDate", "2027-01-05"),
                ("endDate", "2027-01-07"),
                ("note", "<b>paint</b>"),
                ("back", "/admin/calendar?from=2026-12-15"),
            ],
        )
        .await;
    assert_eq!((r.status, r.header("location")), (303, Some("/admin/calendar?from=2026-12-15")));
    let pages = [
        "/admin/calendar?from=2026-12-15".to_owned(),
        "/admin/bookings?q=script".to_owned(),
        format!("/admin/bookings/{code}"),
        "/admin/properties/sea-view/edit".to_owned(),
    ];
    for path in pages {
        let page = client.get(&path).await;
        page.expect(200);
        let html = page.text();
        assert!(
            !html.contains("<script>alert") && !html.contains("<img src=x") && !html.contains("<b>paint"),
            "{path}"
        );
    }
    assert!(client.get(&format!("/admin/bookings/{code}")).await.text().contains("&lt;img src=x onerror=alert(3)&gt;"));
    let r = client
        .post(
            "/admin/blocks",
            &[
                ("property", "sea-view"),
                ("startDate", "2027-02-05"),
                ("endDate", "2027-02-07"),
                ("back", "https://evil.example/"),
            ],
        )
        .await;
    assert_eq!(r.header("location"), Some("/admin/calendar"), "only dashboard paths are followed back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forms_act_through_the_library_and_refusals_come_back_as_messages() {
    let s = server().await;
    let code = booked(&s, "Ada Lovelace").await;
    s.book("sea-view", "2026-12-26", "2026-12-29", 2).await;
    let client = Client::logged_in(&s.http).await;
    let preview = client.get(&format!("/admin/bookings/{code}?checkIn=2026-12-21&checkOut=2026-12-27&guests=2")).await;
    assert!(preview.text().contains("cannot be booked"), "the preview names the taken night");
    let back = format!("/admin/bookings/{code}");
    let r = client
        .post(
            &format!("/admin/booking/{code}/change"),
            &[("checkIn", "2026-12-21"), ("checkOut", "2026-12-27"), ("guests", "2")],
        )
        .await;
    assert_eq!(r.header("location"), Some(back.as_str()));
    assert!(client.get(&back).await.text().contains("Dates unavailable: 2026-12-26"));
    client
        .post(
            &format!("/admin/booking/{code}/change"),
            &[("checkIn", "2026-12-21"), ("checkOut", "2026-12-24"), ("guests", "3")],
        )
        .await
        .expect(303);
    client.post(&format!("/admin/booking/{code}/note"), &[("note", "late arrival")]).await.expect(303);
    client.post(&format!("/admin/booking/{code}/cancel"), &[("reason", "owner needs the house")]).await.expect(303);
    let b = s.get(&format!("/api/v1/bookings/{code}"), &s.read_key).await.body.clone();
    assert_eq!(
        (&b["checkIn"], &b["guests"], &b["notes"][0]["text"], &b["status"], &b["cancelledBy"], &b["cancelReason"]),
        (
            &json!("2026-12-21"),
            &json!(3),
            &json!("late arrival"),
            &json!("cancelled"),
            &json!("host"),
            &json!("owner needs the house")
        )
    );
    let bad =
        client.post("/admin/properties/sea-view/edit", &[("name", "Sea View Cottage"), ("nightlyRate", "lots")]).await;
    assert_eq!(bad.status, 422);
    assert!(bad.text().contains(r#"data-field="nightlyRate""#));
    assert_eq!(s.rental.property("sea-view").unwrap().pricing.nightly_rate, 15_000, "nothing saved");
}

/// The `data-code` of every row of the results table, in order.
fn listed(html: &str) -> Vec<String> {
    let results = &html[html.find("id=\"results\"").expect("the results card")..];
    results.split("<tr data-code=\"").skip(1).map(|row| row[..row.find('"').unwrap()].to_owned()).collect()
}

/// The `href` of the link with `id`, unescaped, if the page has it.
fn link(html: &str, id: &str) -> Option<String> {
    let at = html.find(&format!("id=\"{id}\""))?;
    let href = &html[at..][html[at..].find("href=\"")? + 6..];
    Some(href[..href.find('"')?].replace("&amp;", "&"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bookings_list_goes_page_by_page_from_where_the_last_page_ended() {
    let s = server().await;
    let first = rental_tests::d("2027-01-04");
    for i in 0..120u64 {
        let slug = ["sea-view", "alpine-cabin", "harbour-loft"][usize::try_from(i % 3).unwrap()];
        let check_in = (first + chrono::Days::new(i / 3 * 8)).to_string();
        let check_out = (first + chrono::Days::new(i / 3 * 8 + 7)).to_string();
        let mut request = rental_tests::new_booking(slug, &check_in, &check_out, 2);
        request.guest_name = format!("Guest {i}");
        s.rental.create_booking(&request, None).unwrap();
    }
    let everything = rental_core::BookingQuery { limit: rental_core::BookingQuery::MAX_LIMIT, ..Default::default() };
    let expected: Vec<String> =
        rental_tests::list_all(&s.rental, everything).iter().map(|b| b.code.to_string()).collect();
    let client = Client::logged_in(&s.http).await;

    let mut pages = Vec::new();
    let mut path = Some("/admin/bookings".to_owned());
    while let Some(next) = path {
        let html = client.get(&next).await.text();
        assert_eq!(link(&html, "page-first").is_some(), !pages.is_empty(), "{next}: a way back to the first page");
        pages.push(listed(&html));
        path = link(&html, "page-next");
        assert!(pages.len() <= 3, "{next} links on past the end");
    }
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [50, 50, 20]);
    assert_eq!(pages.concat(), expected, "every booking once, in check-in order");

    let html = client.get("/admin/bookings?q=GUEST+11").await.text();
    assert_eq!(listed(&html).len(), 11, "Guest 11 and Guest 110 to 119");
    assert!(html.contains("11 bookings") && link(&html, "page-next").is_none(), "one page holds them all");
    let r = client.get("/admin/bookings?after=not-a-position").await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("start again from the first page"), "{}", r.text());
}

#[tokio::test]
async fn a_back_value_that_is_not_a_dashboard_path_goes_back_to_the_calendar() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let block = [("property", "sea-view"), ("startDate", "2027-02-01"), ("endDate", "2027-02-03")];
    for back in
        ["/admin/calendar\r\nSet-Cookie: rental_admin=x", "//evil.example/admin", "https://evil.example", "/adminx"]
    {
        let mut fields = block.to_vec();
        fields.push(("back", back));
        let r = client.post("/admin/blocks", &fields).await;
        assert_eq!((r.status, r.header("location")), (303, Some("/admin/calendar")), "{back:?}");
        assert!(r.header("set-cookie").is_none(), "{back:?}");
    }
    let mut fields = block.to_vec();
    fields.push(("back", "/admin/calendar?from=2027-02-01&nights=14"));
    let r = client.post("/admin/blocks", &fields).await;
    assert_eq!(r.header("location"), Some("/admin/calendar?from=2027-02-01&nights=14"));
}

#[tokio::test]
async fn a_property_name_with_a_line_break_or_a_bidi_override_is_refused_by_the_editor() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let form: Vec<(&str, &str)> = SEA_VIEW_FORM.into_iter().filter(|(k, _)| *k != "name").collect();
    for name in ["Evil\r\nBEGIN:VEVENT\r\nSUMMARY:Injected", "Sea \u{202e}weiV", "Sea\u{9b}View"] {
        let mut fields = vec![("name", name)];
        fields.extend_from_slice(&form);
        let r = client.post("/admin/properties/sea-view/edit", &fields).await;
        assert_eq!(r.status, 422, "{name:?}");
        let html = r.text();
        assert!(html.contains(r#"data-field="name" role="alert">must not contain control"#), "{name:?}: {html}");
    }
    assert_eq!(s.rental.property("sea-view").unwrap().name, "Sea View Cottage", "nothing saved");
    let mut fields = vec![("name", r#"Zoë's <b>"loft"</b>; 日本, by the sea"#)];
    fields.extend_from_slice(&form);
    client.post("/admin/properties/sea-view/edit", &fields).await.expect(303);
    let page = client.get("/admin/properties").await.text();
    assert!(
        page.contains("Zoë&#39;s &lt;b&gt;&quot;loft&quot;&lt;/b&gt;; 日本, by the sea")
            || page.contains("Zoë's &lt;b&gt;&quot;loft&quot;&lt;/b&gt;; 日本, by the sea"),
        "{page}"
    );
}
