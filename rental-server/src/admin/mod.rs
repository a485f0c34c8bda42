//! The admin dashboard: server-rendered pages under `/admin` for keys,
//! webhooks, properties, bookings and the calendar, behind a password and a session.
//!
//! Every route but the login page needs a session (else `303` to
//! `/admin/login`); every POST carries the session's CSRF token and, when the
//! browser names its `Origin`, comes from the dashboard's own (else `403`,
//! nothing changed). Pages call the same library use cases as the API.

mod booking;
mod booking_check_in;
mod booking_money;
mod booking_payments;
mod bookings;
mod calendar;
pub(crate) mod form;
mod home;
mod keys;
mod login;
mod origin;
pub(crate) mod page;
pub mod password_check;
mod properties;
mod property_edit;
mod property_messages;
mod property_payments;
mod property_rules;
mod rules_preview;
pub mod session;
mod stays;
pub mod throttle;
mod webhooks;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use http::{Method, Request, StatusCode};
use rental_core::Store;

use self::form::Form;
use self::page::{Page, message, redirect};
use self::session::{Flash, Session};
use crate::AppState;
use crate::connection::body::Body;
use crate::problem::Problem;

/// How the dashboard behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminConfig {
    /// Adds `Secure` to the session cookie: set when the base URL is https.
    pub secure_cookie: bool,
    /// How long a session lasts without a request.
    pub session_idle: Duration,
    /// The server's public URL (`baseUrl`), for the booking page links it shows;
    /// `None`: the request's `Host` over http.
    pub base_url: Option<String>,
}

impl Default for AdminConfig {
    fn default() -> Self {
        AdminConfig { secure_cookie: false, session_idle: session::DEFAULT_IDLE, base_url: None }
    }
}

/// The dashboard's state (its sessions and failed logins are in the store).
#[derive(Debug)]
pub struct Admin {
    config: AdminConfig,
    /// Where login passwords are checked, a few at a time.
    checks: password_check::PasswordChecks,
}

impl Admin {
    /// A dashboard configured by `config`.
    pub fn new(config: AdminConfig) -> Self {
        Admin { config, checks: password_check::PasswordChecks::new() }
    }
}

/// True for the paths the dashboard answers.
pub fn owns(path: &str) -> bool {
    path == "/admin" || path.starts_with("/admin/")
}

/// Answers one `/admin` request from the TCP peer `peer` (the client, or a
/// trusted proxy that names the client).
pub async fn handle<S: Store + 'static>(state: &Arc<AppState<S>>, peer: IpAddr, req: Request<Body>) -> Page {
    let (parts, mut body) = req.into_parts();
    let client = state.proxies.client(peer, &parts.headers);
    let https = state.admin.config.secure_cookie;
    let arrival = origin::Arrival { headers: &parts.headers, peer, proxies: &state.proxies, https };
    if parts.method == Method::POST && arrival.is_cross_origin() {
        return message(StatusCode::FORBIDDEN, "Refused", "This form was sent from another site.");
    }
    let path = parts.uri.path().to_owned();
    let segments: Vec<&str> = path.trim_start_matches("/admin").split('/').filter(|s| !s.is_empty()).collect();
    let session = match session::cookie_value(&parts.headers) {
        Some(id) => match session::find(state, id).await {
            Ok(session) => session,
            Err(problem) => return unavailable(&problem),
        },
        None => None,
    };
    let method = parts.method.clone();
    if segments == ["login"] {
        // Shown even to a session: logging in again replaces it with a new one.
        return match method {
            Method::POST => login::submit(state, client, &parts.headers, body).await,
            _ => login::page(state, None).await,
        };
    }
    let Some(session) = session else { return redirect("/admin/login") };
    body.credential_proven();
    let query = match crate::request::Query::of(&parts.uri) {
        Ok(query) => query,
        Err(p) => return message(p.status, "Bad request", &explain(&p)),
    };
    if method == Method::GET {
        return match segments.as_slice() {
            ["calendar"] => calendar::page(state.rental(), &session, &query).await,
            ["bookings"] => bookings::page(state.rental(), &session, &query).await,
            ["bookings", code] => {
                let base = base_url(state, &parts);
                booking::page(
                    state.rental(),
                    &session,
                    code,
                    &query,
                    (state.stay_links(), &base, state.payments.is_some()),
                )
                .await
            }
            [] => home::page(state.rental(), &session, state.message_counters().trouble()).await,
            ["api-keys"] => keys::page(state.rental(), &session).await,
            ["webhooks"] => webhooks::page(state.rental(), &session).await,
            ["properties"] => properties::page(state.rental(), &session).await,
            ["properties", slug, "edit"] => {
                let base = base_url(state, &parts);
                property_edit::page(state.rental(), &session, slug, &base, query.get("preview")).await
            }
            ["logout"] => login::logout_page(&session),
            _ => message(StatusCode::NOT_FOUND, "Not found", "There is no admin page here."),
        };
    }
    if method != Method::POST {
        return message(StatusCode::METHOD_NOT_ALLOWED, "Not allowed", "Use the dashboard's pages and buttons.");
    }
    let Some(form) = Form::read(body).await else {
        return message(StatusCode::BAD_REQUEST, "Bad request", "The form could not be read.");
    };
    if !session.csrf_matches(form.get("_csrf")) {
        return message(
            StatusCode::FORBIDDEN,
            "Refused",
            "This form did not come from this dashboard, or it has expired. Reload the page and try again.",
        );
    }
    let base = base_url(state, &parts);
    let act = Act { state, session: &session, form: &form, base: &base };
    match segments.as_slice() {
        ["logout"] => login::logout(state, &session).await,
        ["api-keys"] => keys::create(&act).await,
        ["api-keys", id, "revoke"] => keys::revoke(&act, id).await,
        ["webhooks"] => webhooks::register(&act).await,
        ["webhooks", id, action] => webhooks::act(&act, id, action).await,
        ["deliveries", id, "resend"] => webhooks::resend(&act, id).await,
        ["properties", slug, "feeds"] => properties::add_feed(&act, slug).await,
        ["properties", slug, "edit"] => property_edit::save(&act, slug).await,
        ["properties", slug, "test-message"] => property_messages::send_test(&act, slug).await,
        ["properties", slug, "sync"] => properties::sync(&act, slug).await,
        ["properties", slug, "feeds", name, "remove"] => properties::remove_feed(&act, slug, name).await,
        ["bookings", code, action] => home::act(&act, code, action).await,
        ["booking", code, action] => booking::act(&act, code, action).await,
        ["blocks"] => calendar::add(&act).await,
        ["blocks", slug, id, "remove"] => calendar::remove(&act, slug, id, query.get("back")).await,
        _ => message(StatusCode::NOT_FOUND, "Not found", "There is no admin action here."),
    }
}

/// What a form post acts with.
struct Act<'a, S> {
    state: &'a Arc<AppState<S>>,
    session: &'a Session,
    form: &'a Form,
    /// The server's public URL, for links shown to the host.
    base: &'a str,
}

/// The configured public URL, else `http://`, the request's `Host` and the
/// path prefix the server is mounted under (`crate::RentalService::under`).
pub(crate) fn base_url<S>(state: &AppState<S>, parts: &http::request::Parts) -> String {
    if let Some(base) = &state.admin.config.base_url {
        return base.trim_end_matches('/').to_owned();
    }
    let host = parts.headers.get(http::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    let prefix = parts.extensions.get::<crate::service::Mount>().map_or("", |m| &m.0);
    format!("http://{host}{prefix}")
}

impl<S: Store + 'static> Act<'_, S> {
    fn rental(&self) -> &Arc<rental_core::Rental<S>> {
        self.state.rental()
    }

    /// Leaves what `result` says for the next page, then sends the browser to `back`.
    async fn done<T>(&self, result: Result<T, Problem>, back: &str, ok: impl FnOnce(T) -> Flash) -> Page {
        let flash = match result {
            Ok(value) => ok(value),
            Err(problem) => Flash::failed(explain(&problem)),
        };
        session::set_flash(self.state, self.session, flash).await;
        redirect(back)
    }
}

/// The page for a request the store could not serve (its session could not be read or written).
fn unavailable(problem: &Problem) -> Page {
    message(problem.status, "Unavailable", &explain(problem))
}

/// A problem as a sentence for the host; internal failures say only that.
fn explain(problem: &Problem) -> String {
    if problem.status.is_server_error() {
        return "Something went wrong; the server log has the details.".to_owned();
    }
    if problem.errors.is_empty() {
        return capitalized(&problem.detail);
    }
    let parts: Vec<String> = problem.errors.iter().map(|e| format!("{}: {}", e.field, e.message)).collect();
    capitalized(&parts.join("; "))
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
