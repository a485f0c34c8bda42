//! A cookie-keeping HTTP client of the admin pages, and a server with an admin
//! password and webhook delivery to loopback receivers.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util::Full;
use rental_core::MemoryStore;
use rental_server::admin::AdminConfig;
use rental_server::dispatcher::DispatchConfig;
use rental_server::feed_pulls::FeedPullConfig;
use rental_server::outbound::OutboundConfig;
use rental_server::{ServerConfig, WebhookConfig};
use rental_tests::http::{Http, Reply, TestServer};

/// The admin password of every test server.
pub const PASSWORD: &str = "correct horse battery staple";

/// Fast retries and polling, loopback receivers allowed, and `admin`.
pub fn config(admin: AdminConfig) -> ServerConfig {
    let dispatch = DispatchConfig {
        retries: vec![Duration::from_millis(200); 3],
        poll: Duration::from_millis(50),
        timeout: Duration::from_secs(2),
        ..DispatchConfig::default()
    };
    let outbound = OutboundConfig { allow_private_targets: true, ..OutboundConfig::default() };
    let feed_pulls = FeedPullConfig { outbound: outbound.clone(), ..FeedPullConfig::default() };
    ServerConfig { webhooks: Some(WebhookConfig { dispatch, outbound }), admin, feed_pulls, ..ServerConfig::default() }
}

/// A server with the demo properties and [`PASSWORD`] set.
pub async fn server() -> TestServer<MemoryStore> {
    server_with(AdminConfig::default()).await
}

/// The same with `admin` settings.
pub async fn server_with(admin: AdminConfig) -> TestServer<MemoryStore> {
    let server = TestServer::with_config(&config(admin)).await;
    server.rental.admin().set_admin_password(PASSWORD).expect("the password is set");
    server
}

/// A browser-like client: it keeps the cookies it is given and sends them back.
#[derive(Debug)]
pub struct Client {
    http: Http,
    cookies: Mutex<BTreeMap<String, String>>,
    forwarded_for: Option<String>,
    origin: Mutex<Option<String>>,
}

impl Client {
    /// A client with no cookies.
    pub fn new(http: &Http) -> Self {
        Client { http: http.clone(), cookies: Mutex::default(), forwarded_for: None, origin: Mutex::default() }
    }

    /// Sends `Origin: origin` with every request from now on, as a browser does with a form post.
    pub fn send_origin(&self, origin: &str) {
        *self.origin.lock().unwrap() = Some(origin.to_owned());
    }

    /// A client that sends `X-Forwarded-For: forwarded_for` with every request,
    /// as a reverse proxy in front of the server would.
    pub fn behind_proxy(http: &Http, forwarded_for: &str) -> Self {
        Client { forwarded_for: Some(forwarded_for.to_owned()), ..Client::new(http) }
    }

    /// A client already logged in.
    pub async fn logged_in(http: &Http) -> Self {
        let client = Client::new(http);
        client.login(PASSWORD).await.expect(303);
        client
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None).await
    }

    /// `POST path` with `fields` as a form, sent as given (no CSRF token added).
    pub async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        self.send(Method::POST, path, Some(encode(fields))).await
    }

    /// `POST path` with `fields` and the CSRF token of the session's pages.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let token = self.csrf().await;
        let mut all = vec![("_csrf", token.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    /// The CSRF token found in the forms of `/admin`.
    pub async fn csrf(&self) -> String {
        let page = self.get("/admin").await;
        page.expect(200);
        hidden_csrf(&page.text()).expect("a page of a session carries a CSRF token")
    }

    /// Fetches the login form, then posts `password` with its token.
    pub async fn login(&self, password: &str) -> Reply {
        let form = self.get("/admin/login").await;
        let token = hidden_csrf(&form.text()).expect("the login form carries a token");
        self.post_raw("/admin/login", &[("_csrf", &token), ("password", password)]).await
    }

    /// The value of cookie `name` the client holds.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.cookies.lock().unwrap().get(name).cloned()
    }

    /// Replaces cookie `name` (to replay an old session, say).
    pub fn set_cookie(&self, name: &str, value: &str) {
        self.cookies.lock().unwrap().insert(name.to_owned(), value.to_owned());
    }

    async fn send(&self, method: Method, path: &str, form: Option<String>) -> Reply {
        let cookie: Vec<String> = self.cookies.lock().unwrap().iter().map(|(n, v)| format!("{n}={v}")).collect();
        let mut builder = self.http.request(method, path, "");
        if !cookie.is_empty() {
            builder = builder.header(header::COOKIE, cookie.join("; "));
        }
        if form.is_some() {
            builder = builder.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        }
        if let Some(forwarded_for) = &self.forwarded_for {
            builder = builder.header("x-forwarded-for", forwarded_for);
        }
        if let Some(origin) = self.origin.lock().unwrap().as_deref() {
            builder = builder.header(header::ORIGIN, origin);
        }
        let request: Request<Full<Bytes>> =
            builder.body(Full::new(Bytes::from(form.unwrap_or_default()))).expect("a valid request");
        let reply = self.http.send(request).await;
        for set in reply.headers.get_all(header::SET_COOKIE) {
            let set = set.to_str().unwrap();
            let (name, value) = set.split(';').next().unwrap().split_once('=').unwrap();
            let mut cookies = self.cookies.lock().unwrap();
            if set.contains("Max-Age=0") {
                cookies.remove(name);
            } else {
                cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        reply
    }
}

/// The value of the first `_csrf` hidden field in `html`.
pub fn hidden_csrf(html: &str) -> Option<String> {
    let at = html.find(r#"name="_csrf" value=""#)? + r#"name="_csrf" value=""#.len();
    Some(html[at..].split('"').next()?.to_owned())
}

/// `a=1&b=x%20y`.
fn encode(fields: &[(&str, &str)]) -> String {
    let enc = |s: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(b).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    fields.iter().map(|(n, v)| format!("{}={}", enc(n), enc(v))).collect::<Vec<_>>().join("&")
}

/// Sea View's demo fields as the property editor posts them.
pub const SEA_VIEW_FORM: [(&str, &str); 15] = [
    ("name", "Sea View Cottage"),
    ("nightlyRate", "150"),
    ("weekendRate", "180"),
    ("cleaningFee", "60"),
    ("extraGuestFee", "20"),
    ("baseGuests", "2"),
    ("maxGuests", "4"),
    ("taxRate", "12"),
    ("weeklyDiscount", "10"),
    ("monthlyDiscount", "20"),
    ("minNights", "2"),
    ("maxNights", "28"),
    ("checkInTime", "15:00"),
    ("checkOutTime", "11:00"),
    ("active", "yes"),
];
