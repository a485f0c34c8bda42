//! The booking page over HTTP (docs/API.md section 20): what it shows, the
//! quote and its refusals, requests from its form (tokens, honeypot, rate
//! limit, races), the confirmation's address, 404s, and who may frame it.

use bytes::Bytes;
use chrono::TimeDelta;
use http::{Method, header};
use http_body_util::Full;
use rental_core::{MemoryStore, Stay};
use rental_server::ServerConfig;
use rental_server::book::BookConfig;
use rental_server::book::throttle::PostLimit;
use rental_tests::d;
use rental_tests::http::{NO_KEY, Reply, TestServer};

/// The site allowed to frame Sea View's page in these tests.
const SITE: &str = "https://cottages.example";

/// A server whose Sea View page is on and may be framed by [`SITE`].
pub(crate) async fn server_with(config: &ServerConfig) -> TestServer<MemoryStore> {
    let s = TestServer::with_config(config).await;
    s.rental
        .edit_property("sea-view", |p| {
            p.booking_page.enabled = true;
            p.booking_page.embed_origins = vec![SITE.to_owned()];
        })
        .expect("the page is turned on");
    s
}

async fn server() -> TestServer<MemoryStore> {
    server_with(&ServerConfig::default()).await
}

/// The value of the first `name="{name}" value="..."` in a page.
pub(crate) fn field(page: &str, name: &str) -> String {
    let needle = format!("name=\"{name}\" value=\"");
    let start = page.find(&needle).unwrap_or_else(|| panic!("no {name} field in the page")) + needle.len();
    page[start..].split('"').next().unwrap_or_default().to_owned()
}

/// The request form's token on the quote view of a stay.
pub(crate) async fn token(s: &TestServer<MemoryStore>, check_in: &str, check_out: &str) -> String {
    let page = s.http.get(&format!("/book/sea-view?checkIn={check_in}&checkOut={check_out}&guests=2"), NO_KEY).await;
    page.expect(200);
    field(&page.text(), "token")
}

/// A form body for a stay, with `extra` fields appended (already encoded).
fn form(check_in: &str, check_out: &str, token: &str, extra: &str) -> String {
    format!(
        "checkIn={check_in}&checkOut={check_out}&guests=2&guestName=Ada+Lovelace&guestEmail=ada%40example.com\
         &notes=Arriving+late&token={token}&reference={extra}"
    )
}

pub(crate) async fn post(s: &TestServer<MemoryStore>, body: String) -> Reply {
    s.http.send_bytes(Method::POST, "/book/sea-view", NO_KEY, "application/x-www-form-urlencoded", body).await
}

async fn post_from(s: &TestServer<MemoryStore>, client: &str, body: String) -> Reply {
    let request = s
        .http
        .request(Method::POST, "/book/sea-view", NO_KEY)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header("x-forwarded-for", client)
        .body(Full::new(Bytes::from(body)))
        .expect("a valid request");
    s.http.send(request).await
}

async fn page_bookings(s: &TestServer<MemoryStore>) -> Vec<serde_json::Value> {
    s.all_bookings().await.into_iter().filter(|b| b["source"] == "page").collect()
}

#[tokio::test]
async fn the_page_shows_the_rules_and_two_months_of_priced_nights_without_a_key() {
    let s = server().await;
    let reply = s.http.get("/book/sea-view", NO_KEY).await;
    reply.expect(200);
    assert_eq!(reply.header("content-type"), Some("text/html; charset=utf-8"));
    let page = reply.text();
    assert!(page.contains("<html lang=\"en\">"));
    assert!(page.contains("<title>Sea View Cottage · Book your stay</title>"), "the title names the property");
    // Lisbon writes a 24-hour clock, as the property's e-mails do (issue 44).
    for rule in ["Up to 4 guests", "At least 2 nights", "Check-in from 15:00", "Check-out by 11:00"] {
        assert!(page.contains(rule), "{rule}");
    }
    assert!(page.contains("<caption>November 2026</caption>") && page.contains("<caption>December 2026</caption>"));
    // A free Monday and a free Friday carry their prices; past days cannot be picked.
    assert!(page.contains("data-date=\"2026-12-21\""));
    assert!(page.contains("$150</small>") && page.contains("$180</small>"));
    assert!(page.contains("data-day=\"2026-11-21\""), "yesterday is shown, not offered");
    assert!(!page.contains("data-date=\"2026-11-21\""));
    assert!(page.len() < 60_000, "HTML, CSS and script stay under 60 KB: {} bytes", page.len());
    assert!(!page.contains("http://") && !page.contains("https://"), "nothing loads from another host");
}

#[tokio::test]
async fn taken_nights_say_nothing_of_why_and_a_day_that_cannot_begin_a_stay_is_not_offered() {
    let s = server().await;
    let mut body = rental_tests::http::booking_body("sea-view", "2026-12-10", "2026-12-12", 2);
    body["guestName"] = "Grace Hopper".into();
    s.post("/api/v1/bookings", &s.key, &body).await.expect(201);
    s.rental
        .calendars()
        .add_block("sea-view", Stay::new(d("2026-12-15"), d("2026-12-16")).unwrap(), "window cleaning")
        .unwrap();
    let page = s.http.get("/book/sea-view", NO_KEY).await.text();
    for secret in ["Grace", "window cleaning", "held", "booked", "blocked", "api"] {
        assert!(!page.contains(secret), "the page leaks {secret:?}");
    }
    for taken in ["2026-12-10", "2026-12-11", "2026-12-15"] {
        assert!(page.contains(&format!("class=\"day taken\" data-day=\"{taken}\"")), "{taken} is taken");
    }
    // The 9th is free but its second night is taken: no stay can begin on it.
    assert!(page.contains("class=\"day closed\" data-day=\"2026-12-09\""));
    assert!(page.contains("class=\"day closed\" data-day=\"2026-12-14\""));
    assert!(page.contains("data-date=\"2026-12-12\""), "the day the stay leaves can begin the next");
}

#[tokio::test]
async fn the_calendar_moves_by_plain_links_up_to_the_booking_horizon() {
    let s = server().await;
    let first = s.http.get("/book/sea-view", NO_KEY).await.text();
    assert!(first.contains("month=2027-01") && !first.contains("data-nav=\"prev\""), "later, but nothing earlier");
    let later = s.http.get("/book/sea-view?month=2027-01", NO_KEY).await.text();
    assert!(later.contains("<caption>January 2027</caption>") && later.contains("<caption>February 2027</caption>"));
    assert!(later.contains("data-nav=\"prev\"") && later.contains("data-nav=\"next\""));
    // Stays may begin up to 2029-11-22 (36 months on): the last view shows that month, and nothing later.
    let last = s.http.get("/book/sea-view?month=2029-11", NO_KEY).await.text();
    assert!(last.contains("<caption>November 2029</caption>") && !last.contains("data-nav=\"next\""));
    assert!(last.contains("data-date=\"2029-11-20\"") && !last.contains("data-date=\"2029-11-23\""));
    let beyond = s.http.get("/book/sea-view?month=2031-01", NO_KEY).await.text();
    assert!(beyond.contains("<caption>November 2029</caption>"), "a month past the horizon shows the last one");
    s.http.get("/book/sea-view?month=soon", NO_KEY).await.expect(400);
}

#[tokio::test]
async fn the_quote_view_itemises_the_contract_example_and_offers_the_form() {
    let s = server().await;
    let reply = s.http.get("/book/sea-view?checkIn=2026-12-20&checkOut=2026-12-27&guests=3", NO_KEY).await;
    reply.expect(200);
    let page = reply.text();
    for line in ["Price for 7 nights", "$1,110.00", "Weekly discount", "−$111.00", "Extra guests", "$140.00"] {
        assert!(page.contains(line), "{line}");
    }
    for line in ["Cleaning fee", "$60.00", "Taxes", "$143.88", "<td id=\"total\">$1,342.88</td>", "Sun 20 Dec 2026"] {
        assert!(page.contains(line), "{line}");
    }
    assert!(page.contains("id=\"request\"") && page.contains("name=\"token\""), "the request form");
    assert!(page.contains("class=\"day chosen\" data-date=\"2026-12-20\""), "the stay is marked on the calendar");
}

#[tokio::test]
async fn a_stay_the_rules_refuse_is_explained_in_words_and_gets_no_form() {
    let s = server().await;
    s.book("sea-view", "2026-12-24", "2026-12-26", 2).await;
    let cases = [
        ("2026-12-20", "2026-12-21", 2, "Stays starting on Sun 20 Dec 2026 are at least 2 nights."),
        ("2026-12-01", "2026-12-30", 2, "are at most 28 nights."),
        ("2026-12-20", "2026-12-23", 5, "The house takes at most 4 guests."),
        ("2026-11-01", "2026-11-05", 2, "Check-in cannot be before today, Sun 22 Nov 2026."),
        ("2029-12-01", "2029-12-05", 2, "Stays can be booked up to a check-in on Thu 22 Nov 2029."),
        ("2026-12-22", "2026-12-27", 2, "Some of these nights are already taken: Thu 24 Dec, Fri 25 Dec."),
    ];
    for (check_in, check_out, guests, words) in cases {
        let path = format!("/book/sea-view?checkIn={check_in}&checkOut={check_out}&guests={guests}");
        let reply = s.http.get(&path, NO_KEY).await;
        reply.expect(200);
        let page = reply.text();
        assert!(page.contains("These dates cannot be booked") && page.contains(words), "{path}: {words}");
        assert!(!page.contains("id=\"request\""), "{path}: no form");
    }
    let backwards = s.http.get("/book/sea-view?checkIn=2026-12-20&checkOut=2026-12-18", NO_KEY).await;
    let backwards = backwards.expect(400).text();
    assert!(backwards.contains("Check-out must be after check-in."), "in words, no field names (issue 44)");
    assert!(!backwards.contains("checkOut must"), "{backwards}");
    let nonsense = s.http.get("/book/sea-view?checkIn=tomorrow&checkOut=2026-12-18", NO_KEY).await;
    assert!(nonsense.expect(400).text().contains("The check-in day is not a date."));
}

#[tokio::test]
async fn a_request_from_the_page_is_a_pending_booking_and_lands_on_its_confirmation() {
    let s = server().await;
    let seq = s.rental.admin().events_after(0, 10_000).unwrap().len();
    let token = token(&s, "2026-12-20", "2026-12-27").await;
    let reply = post(&s, form("2026-12-20", "2026-12-27", &token, "")).await;
    reply.expect(303);
    let location = reply.header("location").unwrap().to_owned();
    assert!(location.starts_with("/book/sea-view/requested/"), "{location}");
    let bookings = page_bookings(&s).await;
    assert_eq!(bookings.len(), 1);
    let b = &bookings[0];
    assert_eq!((b["status"].as_str(), b["paymentStatus"].as_str()), (Some("pending"), Some("unpaid")));
    assert_eq!((b["guests"].as_u64(), b["notes"][0]["text"].as_str()), (Some(2), Some("Arriving late")));
    let events = s.rental.admin().events_after(0, 10_000).unwrap();
    assert_eq!(events[seq..].iter().map(|e| e.event.event.as_str()).collect::<Vec<_>>(), ["booking.created"]);
    let code = b["code"].as_str().unwrap();
    let confirmation = s.http.get(&location, NO_KEY).await;
    confirmation.expect(200);
    let page = confirmation.text();
    for text in [code, "Request sent", "Sun 20 Dec 2026 from 15:00", "Sun 27 Dec 2026 by 11:00", "What happens next"] {
        assert!(page.contains(text), "{text}");
    }
    assert!(page.contains("<dd id=\"total\">$1,186.08</dd>"), "the quote's total for 2 guests");
    assert_eq!(b["total"], 118_608);
}

#[tokio::test]
async fn a_repeated_submit_of_one_form_creates_nothing_new_and_answers_the_same() {
    let s = server().await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let first = post(&s, form("2026-12-20", "2026-12-23", &token, "")).await;
    let again = post(&s, form("2026-12-20", "2026-12-23", &token, "")).await;
    first.expect(303);
    again.expect(303);
    assert_eq!(first.header("location"), again.header("location"));
    assert_eq!(page_bookings(&s).await.len(), 1);
    // The same token with other details is refused, and the form comes back with the guest's input.
    let other = post(&s, form("2027-01-10", "2027-01-13", &token, "")).await;
    assert!(other.expect(422).text().contains("already sent"));
    assert_eq!(page_bookings(&s).await.len(), 1);
}

#[tokio::test]
async fn a_form_token_lapses_after_two_hours_and_a_forged_one_is_refused() {
    let s = server().await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    s.clock.advance(TimeDelta::hours(2) + TimeDelta::seconds(1));
    let lapsed = post(&s, form("2026-12-20", "2026-12-23", &token, "")).await;
    let page = lapsed.expect(422).text();
    assert!(page.contains("The form has expired"), "{page}");
    assert_eq!(field(&page, "guestName"), "Ada Lovelace", "the guest's input is kept");
    assert_ne!(field(&page, "token"), token, "with a new token to send it again");
    let fresh = field(&page, "token");
    let (issued, rest) = fresh.split_once('.').unwrap();
    let forged = format!("{}.{rest}", issued.parse::<i64>().unwrap() + 60);
    assert!(post(&s, form("2026-12-20", "2026-12-23", &forged, "")).await.expect(422).text().contains("did not come"));
    assert!(post(&s, form("2026-12-20", "2026-12-23", "", "")).await.expect(422).text().contains("incomplete"));
    assert!(page_bookings(&s).await.is_empty());
    post(&s, form("2026-12-20", "2026-12-23", &fresh, "")).await.expect(303);
}

#[tokio::test]
async fn a_filled_hidden_field_creates_nothing() {
    let s = server().await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let reply = post(&s, form("2026-12-20", "2026-12-23", &token, "bot-was-here")).await;
    assert_eq!(reply.expect(400).header("content-type"), Some("text/html; charset=utf-8"));
    assert!(page_bookings(&s).await.is_empty());
}

#[tokio::test]
async fn the_sixth_post_in_ten_minutes_from_one_address_waits_and_a_proxy_s_other_clients_do_not() {
    let trusted_proxies = "127.0.0.0/8".parse().unwrap();
    let s = server_with(&ServerConfig { trusted_proxies, ..ServerConfig::default() }).await;
    // Forms refused for their fields or token (issue 44) do not count; posts that try to book do.
    for _ in 0..6 {
        post_from(&s, "203.0.113.7", form("2026-12-20", "2026-12-21", "x", "")).await.expect(422);
    }
    for _ in 0..5 {
        post_from(&s, "203.0.113.7", form("2026-12-20", "2026-12-21", "x", "bot")).await.expect(400);
    }
    let limited = post_from(&s, "203.0.113.7", form("2026-12-20", "2026-12-21", "x", "")).await;
    limited.expect(429);
    assert!(limited.header("retry-after").is_some_and(|s| s.parse::<u64>().unwrap() > 0));
    assert!(limited.text().contains("Too many requests"));
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    post_from(&s, "198.51.100.20", form("2026-12-20", "2026-12-23", &token, "")).await.expect(303);
    s.clock.advance(TimeDelta::minutes(10));
    post_from(&s, "203.0.113.7", form("2026-12-20", "2026-12-21", "x", "")).await.expect(422);
}

#[tokio::test]
async fn addresses_of_one_ipv6_64_share_one_allowance_of_posts() {
    let trusted_proxies = "127.0.0.0/8".parse().unwrap();
    let s = server_with(&ServerConfig { trusted_proxies, ..ServerConfig::default() }).await;
    // Each a real request for other nights, from a new address of the same /64.
    let stays = [("2027-01-04", "2027-01-07"), ("2027-01-08", "2027-01-11"), ("2027-01-12", "2027-01-15")];
    let more = [("2027-01-16", "2027-01-19"), ("2027-01-20", "2027-01-23"), ("2027-01-24", "2027-01-27")];
    for (i, (check_in, check_out)) in stays.iter().chain(&more).enumerate() {
        let token = token(&s, check_in, check_out).await;
        let reply = post_from(&s, &format!("2001:db8:9:1::{:x}", i + 1), form(check_in, check_out, &token, "")).await;
        reply.expect(if i < 5 { 303 } else { 429 });
    }
    assert_eq!(page_bookings(&s).await.len(), 5);
}

#[tokio::test]
async fn an_address_the_mailer_would_refuse_brings_the_form_back() {
    let s = server().await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let body = form("2026-12-20", "2026-12-23", &token, "").replace("ada%40example.com", "%3Cada%40example.com%3E");
    let reply = post(&s, body).await;
    reply.expect(422);
    assert!(reply.text().contains("Ada Lovelace"), "the guest's input is kept");
    assert!(page_bookings(&s).await.is_empty());
}

#[tokio::test]
async fn two_guests_racing_for_the_same_nights_get_one_booking_and_one_form_back() {
    let s = server().await;
    let (a, b) = (token(&s, "2026-12-20", "2026-12-23").await, token(&s, "2026-12-20", "2026-12-23").await);
    let (one, two) = tokio::join!(
        post(&s, form("2026-12-20", "2026-12-23", &a, "")),
        post(&s, form("2026-12-21", "2026-12-24", &b, "").replace("Ada+Lovelace", "Mary+Somerville"))
    );
    let mut statuses = [one.status, two.status];
    statuses.sort_unstable();
    assert_eq!(statuses, [303, 422]);
    let lost = if one.status == 422 { one } else { two };
    let page = lost.text();
    assert!(page.contains("were just taken"), "{page}");
    assert!(page.contains("Arriving late"), "the guest's note is kept");
    assert_eq!(page_bookings(&s).await.len(), 1);
}

#[tokio::test]
async fn a_broken_rule_or_a_bad_address_brings_the_form_back_with_the_reason_beside_the_field() {
    let posts = PostLimit { posts: 20, ..PostLimit::default() };
    let s =
        server_with(&ServerConfig { book: BookConfig { posts, ..BookConfig::default() }, ..ServerConfig::default() })
            .await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let short = post(&s, form("2026-12-20", "2026-12-21", &token, "")).await;
    let page = short.expect(422).text();
    assert!(page.contains("data-field=\"checkOut\""), "the stay's fault is named by its field: {page}");
    assert!(page.contains("Stays starting on Sun 20 Dec 2026 are at least 2 nights."));
    let bad_email = form("2026-12-20", "2026-12-23", &token, "").replace("ada%40example.com", "ada");
    let page = post(&s, bad_email).await.expect(422).text();
    assert!(page.contains("id=\"guestEmail-err\""), "{page}");
    assert!(page.contains("aria-invalid=\"true\" aria-describedby=\"guestEmail-err\""));
    assert_eq!(field(&page, "guestEmail"), "ada", "kept as typed");
    let past = post(&s, form("2026-11-01", "2026-11-04", &token, "")).await;
    assert!(past.expect(422).text().contains("Check-in cannot be before today"));
    let crowd = form("2026-12-20", "2026-12-23", &token, "").replace("guests=2", "guests=5");
    assert!(post(&s, crowd).await.expect(422).text().contains("At most 4 guests"));
    let far = post(&s, form("2029-12-01", "2029-12-04", &token, "")).await;
    assert!(far.expect(422).text().contains("Stays can be booked up to a check-in on 2029-11-22"));
    let unreadable = post(&s, form("x", "2026-12-23", &token, "")).await;
    assert!(unreadable.expect(422).text().contains("Please pick a check-in day."));
    let spaces = form("2026-12-20", "2026-12-23", &token, "").replace("Ada+Lovelace", "+++");
    let page = post(&s, spaces).await.expect(422).text();
    assert!(page.contains("Please enter your name.") && !page.contains("1 to 200"), "{page}");
    assert!(page_bookings(&s).await.is_empty());
}

#[tokio::test]
async fn markup_in_a_name_or_note_is_shown_as_text() {
    let s = server().await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let body = form("2026-12-20", "2026-12-23", &token, "")
        .replace("Ada+Lovelace", "%3Cscript%3Ealert(1)%3C%2Fscript%3E")
        .replace("Arriving+late", "%3Cb%3Ehi%3C%2Fb%3E");
    let location = post(&s, body).await.expect(303).header("location").unwrap().to_owned();
    let page = s.http.get(&location, NO_KEY).await.text();
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.contains("<script>alert"));
}

#[tokio::test]
async fn the_confirmation_address_cannot_be_guessed_from_a_booking_code() {
    let s = server().await;
    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let location = post(&s, form("2026-12-20", "2026-12-23", &token, "")).await.header("location").unwrap().to_owned();
    let confirmation = location.rsplit('/').next().unwrap();
    let (code, mac) = confirmation.rsplit_once('.').unwrap();
    assert_eq!(mac.len(), 32, "128 bits");
    let flipped = format!("{code}.{}{}", if mac.starts_with('0') { '1' } else { '0' }, &mac[1..]);
    for path in [
        format!("/book/sea-view/requested/{code}"),
        format!("/book/sea-view/requested/{flipped}"),
        format!("/book/alpine-cabin/requested/{confirmation}"),
    ] {
        let reply = s.http.get(&path, NO_KEY).await;
        assert!(reply.expect(404).text().contains("There is no booking page here"), "{path}");
    }
    s.http.get(&location, NO_KEY).await.expect(200);
}

#[tokio::test]
async fn unknown_inactive_and_switched_off_pages_are_html_404s() {
    let s = server().await;
    s.rental.edit_property("harbour-loft", |p| p.booking_page.enabled = true).unwrap();
    s.http.get("/book/harbour-loft", NO_KEY).await.expect(200);
    s.rental.edit_property("harbour-loft", |p| p.active = false).unwrap();
    for path in ["/book/harbour-loft", "/book/alpine-cabin", "/book/nowhere", "/book/sea-view/extra/path/x"] {
        let reply = s.http.get(path, NO_KEY).await;
        reply.expect(404);
        assert_eq!(reply.header("content-type"), Some("text/html; charset=utf-8"), "{path}");
    }
    let off = post(&s, form("2026-12-20", "2026-12-23", "x", "")).await;
    off.expect(422);
    s.rental.edit_property("sea-view", |p| p.booking_page.enabled = false).unwrap();
    post(&s, form("2026-12-20", "2026-12-23", "x", "")).await.expect(404);
    s.http.send_bytes(Method::DELETE, "/book/sea-view", NO_KEY, "text/plain", "").await.expect(405);
}

#[tokio::test]
async fn only_the_allowed_sites_may_frame_the_page_and_hear_from_it() {
    let s = server().await;
    let page = s.http.get("/book/sea-view", NO_KEY).await;
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains(&format!("frame-ancestors 'self' {SITE};")), "{csp}");
    assert!(csp.contains("default-src 'none'") && csp.contains("form-action 'self'"));
    assert!(page.header("x-frame-options").is_none(), "no header that contradicts the policy");
    let alpine = s.rental.edit_property("alpine-cabin", |p| p.booking_page.enabled = true).unwrap();
    assert!(alpine.booking_page.embed_origins.is_empty());
    let csp = s.http.get("/book/alpine-cabin", NO_KEY).await.header("content-security-policy").unwrap().to_owned();
    assert!(csp.contains("frame-ancestors 'self';"), "{csp}");

    let framed = s.http.get("/book/sea-view?embed=https%3A%2F%2Fcottages.example", NO_KEY).await.text();
    assert!(framed.contains(&format!("data-embed=\"{SITE}\"")));
    assert!(framed.contains(&format!("name=\"embed\" value=\"{SITE}\"")), "the stay form keeps it");
    let other = s.http.get("/book/sea-view?embed=https%3A%2F%2Fevil.example", NO_KEY).await.text();
    assert!(!other.contains("data-embed=\"") && !other.contains("evil.example"), "an origin not allowed is ignored");

    let token = token(&s, "2026-12-20", "2026-12-23").await;
    let body = format!("{}&embed=https%3A%2F%2Fcottages.example", form("2026-12-20", "2026-12-23", &token, ""));
    let location = post(&s, body).await.expect(303).header("location").unwrap().to_owned();
    assert!(location.ends_with("?embed=https%3A%2F%2Fcottages.example"), "{location}");
    let confirmation = s.http.get(&location, NO_KEY).await.text();
    let code = page_bookings(&s).await[0]["code"].as_str().unwrap().to_owned();
    assert!(confirmation.contains(&format!("data-embed=\"{SITE}\" data-requested=\"{code}\"")));
    let bare = location.split('?').next().unwrap().to_owned() + "?embed=https%3A%2F%2Fevil.example";
    let page = s.http.get(&bare, NO_KEY).await.text();
    assert!(!page.contains("data-embed=\""), "no message to a site not allowed");

    let script = s.http.get("/book/embed.js", NO_KEY).await;
    assert_eq!(script.expect(200).header("content-type"), Some("text/javascript; charset=utf-8"));
    assert!(script.text().contains("data-rental-property") && !script.text().contains("'*'"));
}

#[tokio::test]
async fn the_property_json_carries_its_booking_page_and_a_bad_origin_is_refused() {
    let s = server().await;
    let reply = s.http.get("/api/v1/properties/sea-view", &s.key).await;
    assert_eq!(reply.expect(200).body["bookingPage"], serde_json::json!({"enabled": true, "embedOrigins": [SITE]}));
    for bad in ["https://cottages.example/", "cottages.example", "https://x.example; script-src *"] {
        let refused = s.rental.edit_property("sea-view", |p| p.booking_page.embed_origins = vec![bad.to_owned()]);
        assert!(matches!(refused, Err(rental_core::Error::Validation(_))), "{bad}");
    }
    assert_eq!(s.rental.property("sea-view").unwrap().booking_page.embed_origins, [SITE], "nothing changed");
}

#[tokio::test]
async fn every_answer_of_the_page_carries_the_same_frame_ancestors_and_the_limit_page_keeps_the_input() {
    let posts = PostLimit { posts: 1, ..PostLimit::default() };
    let s =
        server_with(&ServerConfig { book: BookConfig { posts, ..BookConfig::default() }, ..ServerConfig::default() })
            .await;
    let ancestors = format!("frame-ancestors 'self' {SITE};");
    let first = token(&s, "2026-12-20", "2026-12-23").await;
    post(&s, form("2026-12-20", "2026-12-23", &first, "")).await.expect(303);
    let second = token(&s, "2027-01-04", "2027-01-08").await;
    let limited = post(&s, form("2027-01-04", "2027-01-08", &second, "")).await;
    limited.expect(429);
    let page = limited.text();
    assert!(page.contains("value=\"Ada Lovelace\"") && page.contains("Arriving late"), "the input is kept");
    assert!(page.contains(&format!("name=\"token\" value=\"{second}\"")), "with its unspent token");
    assert!(page.contains("href=\"/book/sea-view?checkIn=2027-01-04&amp;checkOut=2027-01-08&amp;guests=2\""));
    let mut answers = vec![("the 429 page", limited)];
    for path in ["/book/sea-view/requested/forged", "/book/sea-view/nothing/here", "/book/sea-view?month=soon"] {
        answers.push((path, s.http.get(path, NO_KEY).await));
    }
    answers.push(("405", s.http.send_bytes(Method::DELETE, "/book/sea-view", NO_KEY, "text/plain", "").await));
    answers.push(("a page of no property", s.http.get("/book/no-such-house", NO_KEY).await));
    s.rental.edit_property("sea-view", |p| p.booking_page.enabled = false).unwrap();
    answers.push(("a page turned off", s.http.get("/book/sea-view", NO_KEY).await));
    for (what, reply) in answers {
        assert!(reply.status >= 400, "{what}: {}", reply.status);
        let csp = reply.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains(&ancestors), "{what}: {csp}");
    }
}

#[tokio::test]
async fn the_page_s_icon_is_served_so_no_embed_logs_a_404() {
    let s = server().await;
    let icon = s.http.get("/favicon.ico", NO_KEY).await;
    icon.expect(200);
    assert_eq!(icon.header("content-type"), Some("image/x-icon"));
    assert!(icon.header("cache-control").is_some_and(|c| c.contains("max-age")));
    assert!(icon.bytes.starts_with(&[0, 0, 1, 0]), "an ICO file");
}

#[tokio::test]
async fn past_days_read_past_and_show_no_price() {
    let s = server().await;
    let page = s.http.get("/book/sea-view", NO_KEY).await.text();
    let cell = |date: &str| {
        let start = page.find(&format!("data-day=\"{date}\"")).unwrap_or_else(|| panic!("no {date}"));
        let end = start + page[start..].find("</td>").unwrap();
        page[start..end].to_owned()
    };
    let past = cell("2026-11-10");
    assert!(past.contains(", past") && !past.contains("taken"), "{past}");
    assert!(!past.contains("<small>") && !past.contains('$'), "no old price: {past}");
    assert!(page.contains("data-date=\"2026-11-23\""), "tomorrow can still be picked");
}

#[tokio::test]
async fn the_page_takes_children_pets_and_a_promo_code_and_says_each_rule_in_words() {
    let s = server().await;
    s.rental
        .edit_property("sea-view", |p| {
            p.stay_rules.check_in_days = serde_json::from_str(r#"["sat"]"#).unwrap();
            p.pricing.rules = rental_core::property::PriceRules::default()
                .pets(2_500, 1)
                .promo(rental_core::property::PromoCode::new("WINTER", 1_500))
                .tourist_tax(rental_core::property::TouristTax {
                    per_person_per_night: 200,
                    max_nights: None,
                    exempt_under_age: Some(12),
                });
        })
        .unwrap();
    let page = s.http.get("/book/sea-view", NO_KEY).await.text();
    for control in ["name=\"children\"", "name=\"pets\"", "name=\"promoCode\""] {
        assert!(page.contains(control), "{control}");
    }
    let priced = "/book/sea-view?checkIn=2026-12-19&checkOut=2026-12-26&guests=3&children=1&pets=1&promoCode=winter";
    let page = s.http.get(priced, NO_KEY).await.text();
    for line in ["Promo code", "Pet fee", "$25.00", "Tourist tax", "$28.00"] {
        assert!(page.contains(line), "{line} missing");
    }
    assert_eq!(
        (field(&page, "children"), field(&page, "pets"), field(&page, "promoCode")),
        ("1".into(), "1".into(), "winter".into())
    );
    let friday =
        s.http.get("/book/sea-view?checkIn=2026-12-18&checkOut=2026-12-26&guests=2&pets=2", NO_KEY).await.text();
    for words in ["Stays start only on Saturdays.", "The house takes at most 1 pet."] {
        assert!(friday.contains(words), "{words} missing");
    }
    assert!(!friday.contains("id=\"request\""), "no form for a stay the rules refuse");
}
