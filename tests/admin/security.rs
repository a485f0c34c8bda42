//! The dashboard's defences, over plain HTTP: sessions, CSRF, the login
//! throttle, cookie attributes, escaping, logout and idle expiry.

use std::time::Duration;

use chrono::TimeDelta;

use rental_core::keys::Scope;
use rental_core::{Slug, demo};
use rental_server::admin::AdminConfig;

use crate::client::{Client, PASSWORD, server, server_with};

const SESSION_COOKIE: &str = "rental_admin";

#[tokio::test]
async fn every_admin_route_without_a_session_answers_303_to_the_login_page() {
    let s = server().await;
    let anonymous = Client::new(&s.http);
    let stranger = Client::new(&s.http);
    stranger.set_cookie(SESSION_COOKIE, &"ab".repeat(32));
    let gets = [
        "/admin",
        "/admin/",
        "/admin/api-keys",
        "/admin/webhooks",
        "/admin/properties",
        "/admin/properties/sea-view/edit",
        "/admin/calendar",
        "/admin/bookings",
        "/admin/bookings/BK-X",
        "/admin/logout",
        "/admin/nope",
    ];
    let posts = [
        "/admin/api-keys",
        "/admin/api-keys/key_x/revoke",
        "/admin/webhooks",
        "/admin/webhooks/wh_x/test",
        "/admin/deliveries/dlv_x/resend",
        "/admin/properties/sea-view/feeds",
        "/admin/bookings/BK-X/confirm",
        "/admin/booking/BK-X/change",
        "/admin/blocks",
        "/admin/blocks/sea-view/blk_x/remove",
        "/admin/properties/sea-view/edit",
        "/admin/logout",
    ];
    for client in [&anonymous, &stranger] {
        for path in gets {
            let r = client.get(path).await;
            assert_eq!((r.status, r.header("location")), (303, Some("/admin/login")), "GET {path}");
        }
        for path in posts {
            let r = client.post_raw(path, &[("name", "x")]).await;
            assert_eq!((r.status, r.header("location")), (303, Some("/admin/login")), "POST {path}");
        }
    }
    assert_eq!(s.rental.admin().keys().unwrap().len(), 3, "nothing was created");
    anonymous.get("/admin/login").await.expect(200);
}

#[tokio::test]
async fn the_session_cookie_is_http_only_and_strict_and_each_login_gets_a_new_id() {
    let s = server().await;
    let client = Client::new(&s.http);
    let reply = client.login(PASSWORD).await;
    reply.expect(303);
    assert_eq!(reply.header("location"), Some("/admin"));
    let set = reply.header("set-cookie").unwrap().to_owned();
    assert!(set.starts_with("rental_admin="), "{set}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/admin"] {
        assert!(set.split("; ").any(|a| a == attribute), "{attribute} missing from {set}");
    }
    assert!(!set.contains("Secure"), "plain http: {set}");
    let first = client.cookie(SESSION_COOKIE).unwrap();
    client.get("/admin").await.expect(200);

    client.login(PASSWORD).await.expect(303);
    let second = client.cookie(SESSION_COOKIE).unwrap();
    assert_ne!(first, second, "a new session id at each login");
    let old = Client::new(&s.http);
    old.set_cookie(SESSION_COOKIE, &first);
    old.get("/admin").await.expect(303);

    let https = server_with(AdminConfig { secure_cookie: true, ..AdminConfig::default() }).await;
    let reply = Client::new(&https.http).login(PASSWORD).await;
    assert!(reply.header("set-cookie").unwrap().ends_with("; Secure"));
}

#[tokio::test]
async fn a_form_post_without_or_with_a_wrong_csrf_token_is_refused_and_changes_nothing() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let other = Client::logged_in(&s.http).await;
    let victim = s.rental.admin().keys().unwrap()[0].clone();
    let before = s.rental.admin().keys().unwrap();
    let token_of_another_session = other.csrf().await;
    for token in [None, Some(""), Some("0000"), Some(token_of_another_session.as_str())] {
        let mut fields = vec![("name", "sneaky"), ("scope", "write")];
        fields.extend(token.map(|t| ("_csrf", t)));
        let r = client.post_raw("/admin/api-keys", &fields).await;
        assert_eq!(r.status, 403, "token {token:?}: {}", r.text());
        let mut fields = vec![];
        fields.extend(token.map(|t| ("_csrf", t)));
        client.post_raw(&format!("/admin/api-keys/{}/revoke", victim.id), &fields).await.expect(403);
        client.post_raw("/admin/logout", &fields).await.expect(403);
    }
    assert_eq!(s.rental.admin().keys().unwrap(), before, "no key created or revoked");
    client.get("/admin").await.expect(200);

    let made = client.post("/admin/api-keys", &[("name", "site"), ("scope", "read")]).await;
    assert_eq!((made.status, made.header("location")), (303, Some("/admin/api-keys")));
    let keys = s.rental.admin().keys().unwrap();
    assert!(keys.iter().any(|k| k.name == "site" && k.scopes == [Scope::Read]), "{keys:?}");
}

#[tokio::test]
async fn a_form_post_from_another_origin_is_refused_even_with_the_right_token() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let token = client.csrf().await;
    let before = s.rental.admin().keys().unwrap();
    let own = format!("http://{}", s.http.addr);
    for origin in ["http://evil.example", "null", &format!("https://{}", s.http.addr), "http://127.0.0.1:1"] {
        client.send_origin(origin);
        let r = client.post_raw("/admin/api-keys", &[("_csrf", &token), ("name", "sneaky"), ("scope", "write")]).await;
        assert_eq!(r.status, 403, "{origin}: {}", r.text());
        client.post_raw("/admin/login", &[("_csrf", &token), ("password", PASSWORD)]).await.expect(403);
    }
    assert_eq!(s.rental.admin().keys().unwrap(), before, "no key created");
    client.send_origin(&own);
    let made = client.post_raw("/admin/api-keys", &[("_csrf", &token), ("name", "site"), ("scope", "read")]).await;
    assert_eq!((made.status, made.header("location")), (303, Some("/admin/api-keys")), "{}", made.text());
}

#[tokio::test]
async fn ten_wrong_passwords_in_a_row_are_slowed_down() {
    let s = server().await;
    let client = Client::new(&s.http);
    let mut statuses = Vec::new();
    let mut retry_after = 0;
    for _ in 0..10 {
        let r = client.login("not the password").await;
        if r.status == 429 {
            retry_after = r.header("retry-after").unwrap().parse::<u64>().unwrap();
        }
        statuses.push(r.status);
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    assert!(retry_after >= 1, "Retry-After: {retry_after}");
    let locked = client.login(PASSWORD).await;
    assert_eq!(locked.status, 429, "even the right password waits");
    assert!(client.cookie(SESSION_COOKIE).is_none());

    // The throttle runs on the engine's clock: move it on instead of waiting.
    s.clock.advance(TimeDelta::seconds(i64::try_from(retry_after).unwrap()));
    client.login("still wrong").await.expect(401);
    let r = client.login(PASSWORD).await;
    assert_eq!(r.status, 429, "the wait doubled after the next failure");
    let wait = r.header("retry-after").unwrap().parse::<u64>().unwrap();
    assert_eq!(wait, 2);
    s.clock.advance(TimeDelta::seconds(1));
    client.login(PASSWORD).await.expect(429);
    s.clock.advance(TimeDelta::seconds(1));
    client.login(PASSWORD).await.expect(303);
    client.get("/admin").await.expect(200);
}

#[tokio::test]
async fn a_wrong_password_shows_the_form_again_and_no_password_set_says_how_to_set_one() {
    let s = server().await;
    let client = Client::new(&s.http);
    let r = client.login("nope nope nope").await;
    r.expect(401);
    assert!(r.text().contains("Wrong password."), "{}", r.text());
    assert!(client.cookie(SESSION_COOKIE).is_none());

    let fresh = rental_tests::http::TestServer::with_config(&crate::client::config(AdminConfig::default())).await;
    let page = Client::new(&fresh.http).get("/admin/login").await;
    assert!(page.text().contains("rental admin set-password"), "{}", page.text());
    Client::new(&fresh.http).login("").await.expect(401);
}

#[tokio::test]
async fn stored_html_comes_back_escaped() {
    let s = server().await;
    let mut evil = demo::properties()[0].clone();
    evil.slug = Slug::parse("xss-test").unwrap();
    evil.name = "<script>alert(1)</script>".into();
    evil.access.wifi_ssid = "<b>wifi</b>".into();
    s.rental.import_properties(&[evil]).unwrap();
    let client = Client::logged_in(&s.http).await;
    client.post("/admin/api-keys", &[("name", "<img src=x onerror=alert(2)>"), ("scope", "read")]).await.expect(303);
    client
        .post("/admin/webhooks", &[("url", "https://example.com/h?a=<i>x</i>&b=\"q\""), ("events", "*")])
        .await
        .expect(303);

    let properties = client.get("/admin/properties").await.text();
    assert!(properties.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{properties}");
    assert!(properties.contains("&lt;b&gt;wifi&lt;/b&gt;"));
    let keys = client.get("/admin/api-keys").await.text();
    assert!(keys.contains("&lt;img src=x onerror=alert(2)&gt;"), "{keys}");
    let webhooks = client.get("/admin/webhooks").await.text();
    assert!(webhooks.contains("https://example.com/h?a=&lt;i&gt;x&lt;/i&gt;&amp;b=&quot;q&quot;"), "{webhooks}");
    for page in [&properties, &keys, &webhooks] {
        assert!(!page.contains("<script>alert") && !page.contains("<img src=x") && !page.contains("<i>x</i>"));
    }
}

#[tokio::test]
async fn pages_forbid_framing_and_run_only_their_own_script() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let page = client.get("/admin/api-keys").await;
    assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let csp = page.header("content-security-policy").unwrap();
    let nonce = csp.split("'nonce-").nth(1).unwrap().split('\'').next().unwrap();
    assert!(page.text().contains(&format!("<script nonce=\"{nonce}\">")), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'") && csp.contains("form-action 'self'"), "{csp}");
}

#[tokio::test]
async fn logout_ends_the_session() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let id = client.cookie(SESSION_COOKIE).unwrap();
    let page = client.get("/admin/logout").await;
    page.expect(200);
    assert!(page.text().contains(r#"action="/admin/logout""#), "a GET only offers the button");
    client.get("/admin").await.expect(200);
    let r = client.post("/admin/logout", &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/admin/login")));
    assert!(r.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert!(client.cookie(SESSION_COOKIE).is_none(), "the cookie is cleared");
    let replay = Client::new(&s.http);
    replay.set_cookie(SESSION_COOKIE, &id);
    assert_eq!(replay.get("/admin").await.status, 303, "the old id no longer works");
    assert_eq!(replay.post_raw("/admin/api-keys", &[("name", "x"), ("scope", "read")]).await.status, 303);
    assert_eq!(s.rental.admin().keys().unwrap().len(), 3);
}

#[tokio::test]
async fn an_idle_session_expires() {
    let s = server_with(AdminConfig { session_idle: Duration::from_secs(60), ..AdminConfig::default() }).await;
    let client = Client::logged_in(&s.http).await;
    // Sessions run on the engine's clock: move it on instead of waiting.
    s.clock.advance(TimeDelta::seconds(40));
    client.get("/admin").await.expect(200);
    s.clock.advance(TimeDelta::seconds(40));
    client.get("/admin").await.expect(200);
    s.clock.advance(TimeDelta::seconds(60));
    let r = client.get("/admin").await;
    assert_eq!((r.status, r.header("location")), (303, Some("/admin/login")));
    client.login(PASSWORD).await.expect(303);
    client.get("/admin").await.expect(200);
}
