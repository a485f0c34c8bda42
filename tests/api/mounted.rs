//! `RentalService` mounted under `/rental` in a program's own hyper server,
//! beside a route of the program's own: auth, request ids, the body cap, a
//! quote, a booking, the admin pages, and the calendar all keep working, and
//! every link and redirect keeps the prefix.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::{Service, service_fn};
use hyper_util::rt::TokioIo;
use rental_core::keys::Scope;
use rental_core::{MemoryStore, Rental};
use rental_server::{AppState, Jobs, RentalService, ServerConfig};
use rental_tests::http::{Http, NO_KEY, booking_body};
use rental_tests::{fixed_clock, rental_with_demo};
use serde_json::json;
use tokio::net::TcpListener;

const PASSWORD: &str = "correct horse battery staple";

/// A program's own server: `/hello` is its, everything under `/rental` the engine's.
async fn program() -> (Http, String, Jobs, Arc<Rental<MemoryStore>>) {
    let rental = Arc::new(rental_with_demo(MemoryStore::new(), fixed_clock()));
    rental.admin().set_admin_password(PASSWORD).expect("the password is set");
    let key = rental.admin().create_key("mounted", &[Scope::Read, Scope::Write]).expect("a key").secret;
    let state = AppState::new(Arc::clone(&rental), &ServerConfig::default());
    let jobs = Jobs::start(&state).await.expect("the jobs start");
    let mounted = RentalService::new(state).under("/rental");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    tokio::spawn(async move {
        loop {
            let Ok((stream, peer)) = listener.accept().await else { continue };
            let rental = mounted.for_client(peer.ip());
            let app = service_fn(move |req: Request<Incoming>| {
                let rental = rental.clone();
                async move {
                    if req.uri().path().starts_with("/rental/") {
                        return rental.call(req).await;
                    }
                    let mut own = Response::new(Full::new(Bytes::from_static(b"the program's own page")));
                    if req.uri().path() != "/hello" {
                        *own.status_mut() = http::StatusCode::NOT_FOUND;
                    }
                    Ok::<_, Infallible>(own)
                }
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), app));
        }
    });
    (Http::new(addr), key, jobs, rental)
}

#[tokio::test]
async fn the_api_under_a_prefix_keeps_auth_request_ids_and_limits_and_answers_quotes_and_bookings() {
    let (http, key, jobs, _rental) = program().await;
    let own = http.get("/hello", NO_KEY).await;
    own.expect(200);
    assert_eq!(own.text(), "the program's own page");

    http.get("/rental/api/v1/bookings", NO_KEY).await.problem(401, "unauthorized");
    let listed = http.get("/rental/api/v1/properties", &key).await;
    listed.expect(200);
    assert!(listed.header("x-request-id").is_some_and(|id| id.starts_with("req_")), "{:?}", listed.headers);
    let echoed = http
        .send(
            http.request(Method::GET, "/rental/api/v1/properties", &key)
                .header("x-request-id", "mine-1")
                .body(Full::default())
                .unwrap(),
        )
        .await;
    assert_eq!(echoed.header("x-request-id"), Some("mine-1"));
    http.get("/rental/api/v1/nowhere", &key).await.problem(404, "not_found");

    let stay = booking_body("sea-view", "2026-12-20", "2026-12-27", 3);
    let quote = http.post("/rental/api/v1/quotes", &key, &stay).await;
    quote.expect(200);
    assert_eq!(quote.body["total"], 134_288, "{}", quote.body);

    let created = http.post("/rental/api/v1/bookings", &key, &stay).await;
    created.expect(201);
    let code = created.body["code"].as_str().expect("a code").to_owned();
    assert_eq!(created.header("location"), Some(format!("/rental/api/v1/bookings/{code}").as_str()));
    http.get(&format!("/rental/api/v1/bookings/{code}"), &key).await.expect(200);
    http.post("/rental/api/v1/bookings", &key, &stay).await.problem(409, "dates_unavailable");

    let too_big = json!({"property": "sea-view", "notes": "x".repeat(70_000)});
    http.post("/rental/api/v1/quotes", &key, &too_big).await.problem(413, "payload_too_large");

    let calendar = http.get("/rental/api/v1/calendar/sea-view.ics", NO_KEY).await;
    calendar.expect(200);
    assert!(calendar.header("content-type").is_some_and(|t| t.starts_with("text/calendar")), "{:?}", calendar.headers);
    assert!(calendar.text().contains("BEGIN:VCALENDAR"));

    let document = http.get("/rental/api/openapi.json", NO_KEY).await;
    document.expect(200);
    assert_eq!(document.body["servers"][0]["url"], "/rental/");
    jobs.stop(std::time::Duration::from_secs(5)).await;
}

#[tokio::test]
async fn the_admin_pages_under_a_prefix_log_in_and_link_below_it() {
    let (http, _key, jobs, _rental) = program().await;
    let home = http.get("/rental/admin", NO_KEY).await;
    home.expect(303);
    assert_eq!(home.header("location"), Some("/rental/admin/login"));

    let form = http.get("/rental/admin/login", NO_KEY).await;
    form.expect(200);
    let page = form.text();
    assert!(page.contains(r#"action="/rental/admin/login""#), "{page}");
    assert!(!page.contains(r#"="/admin"#), "a link lost the prefix: {page}");
    let login_cookie = cookie(&form, "/rental/admin/login");
    let token = hidden_csrf(&page);

    let body = format!("_csrf={token}&password={}", PASSWORD.replace(' ', "%20"));
    let request = http
        .request(Method::POST, "/rental/admin/login", NO_KEY)
        .header(header::COOKIE, &login_cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let logged_in = http.send(request).await;
    logged_in.expect(303);
    assert_eq!(logged_in.header("location"), Some("/rental/admin"));
    let session = cookie(&logged_in, "/rental/admin");

    let request = http
        .request(Method::GET, "/rental/admin", NO_KEY)
        .header(header::COOKIE, &session)
        .body(Full::default())
        .unwrap();
    let dashboard = http.send(request).await;
    dashboard.expect(200);
    let page = dashboard.text();
    assert!(page.contains(r#"href="/rental/admin/bookings""#), "{page}");
    assert!(!page.contains(r#"="/admin"#) && !page.contains(r#"="/book"#), "a link lost the prefix: {page}");

    let request = http
        .request(Method::GET, "/rental/admin/properties/sea-view/edit", NO_KEY)
        .header(header::COOKIE, &session)
        .body(Full::default())
        .unwrap();
    let edit = http.send(request).await;
    edit.expect(200);
    let host = http.addr;
    assert!(
        edit.text().contains(&format!("http://{host}/rental/book/sea-view")),
        "the booking page's link keeps the prefix"
    );
    jobs.stop(std::time::Duration::from_secs(5)).await;
}

/// `name=value` of the cookie `reply` sets for `path`, for a `Cookie` header.
fn cookie(reply: &rental_tests::http::Reply, path: &str) -> String {
    let set = reply
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|c| c.to_str().ok())
        .find(|c| c.contains(&format!("Path={path};")) || c.ends_with(&format!("Path={path}")))
        .unwrap_or_else(|| panic!("no cookie for {path}: {:?}", reply.headers));
    set.split(';').next().unwrap().to_owned()
}

/// The value of the first `_csrf` hidden field of `html`.
fn hidden_csrf(html: &str) -> String {
    let at = html.find(r#"name="_csrf" value=""#).expect("a CSRF field") + r#"name="_csrf" value=""#.len();
    html[at..].split('"').next().unwrap().to_owned()
}

#[tokio::test]
async fn the_booking_page_under_a_prefix_links_posts_and_frames_below_it() {
    let (http, _key, jobs, rental) = program().await;
    rental.import_properties(&rental_core::demo::with_booking_pages(rental_core::demo::properties())).unwrap();
    let page = http.get("/rental/book/sea-view", NO_KEY).await;
    page.expect(200);
    let html = page.text();
    assert!(html.contains(r#"action="/rental/book/sea-view"#), "{html}");
    assert!(html.contains(r#"href="/rental/book/sea-view?"#), "the calendar's links keep the prefix: {html}");
    assert!(!html.contains(r#"="/book"#), "a link lost the prefix: {html}");
    let script = http.get("/rental/book/embed.js", NO_KEY).await;
    script.expect(200);
    assert!(
        script.text().contains("root+'/book/'"),
        "embed.js frames the page from where it was loaded: {}",
        script.text()
    );
    http.get("/book/sea-view", NO_KEY).await.expect(404);
    jobs.stop(std::time::Duration::from_secs(5)).await;
}
