//! `/admin/login` and `/admin/logout`: the password form, failed logins
//! slowed per client address, a fresh session id at each login.
//!
//! The client address is the TCP peer's, or behind a trusted reverse proxy
//! the one it forwards (`trustedProxies`, see `client_addr`).
//!
//! The login form has no session yet, so its CSRF token is a double-submit
//! one: a random value in a short-lived cookie and the same in the form.

use std::net::IpAddr;
use std::sync::Arc;

use http::{HeaderMap, HeaderValue, StatusCode, header};
use maud::html;
use rental_core::clock::{Entropy, OsEntropy};
use rental_core::{Rental, Store};
use subtle::ConstantTimeEq;

use super::form::Form;
use super::page::{Page, redirect, shell};
use super::password_check::Unchecked;
use super::session::{self, Session};
use super::{throttle, unavailable};
use crate::AppState;
use crate::connection::body::Body;
use crate::reply::blocking;

/// The cookie holding the login form's CSRF token.
const LOGIN_COOKIE: &str = "rental_login";

/// The login page, with `error` when the last try failed.
pub async fn page<S: Store + 'static>(state: &Arc<AppState<S>>, error: Option<&str>) -> Page {
    let has_password = blocking(state.rental(), |r: &Rental<_>| r.admin().has_admin_password()).await.unwrap_or(true);
    let token = token();
    let body = html! {
        div.card style="max-width:26rem" {
            @if !has_password {
                p.flash.error { "No admin password is set yet. On the server, run "
                    code { "rental admin set-password" } " and type one in." }
            }
            @if let Some(error) = error { p.flash.error role="alert" { (error) } }
            form method="post" action="/admin/login" {
                input type="hidden" name="_csrf" value=(token);
                label for="password" { "Password" }
                input #password type="password" name="password" autocomplete="current-password" required autofocus;
                p { button type="submit" { "Log in" } }
            }
        }
    };
    let mut page = shell("Log in", None, None, &body);
    if error.is_some() {
        *page.status_mut() = StatusCode::UNAUTHORIZED;
    }
    let secure = if state.admin.config.secure_cookie { "; Secure" } else { "" };
    let cookie = format!("{LOGIN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/admin/login{secure}");
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        page.headers_mut().append(header::SET_COOKIE, cookie);
    }
    page
}

/// Checks the password from `client`: `303` to `/admin` with a new session,
/// `401` with the form again, or `429` while this address must wait.
pub async fn submit<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    client: IpAddr,
    headers: &HeaderMap,
    body: Body,
) -> Page {
    let form = Form::read(body).await.unwrap_or_default();
    if !login_token_matches(headers, form.get("_csrf")) {
        return page(state, Some("The login form expired. Try again.")).await;
    }
    // Counted before the check: a burst from one address is refused here, unhashed.
    match throttle::attempt(state, client).await {
        Ok(None) => {}
        Ok(Some(seconds)) => return too_many(seconds),
        Err(problem) => return unavailable(&problem),
    }
    let password = form.get("password").to_owned();
    let ok = match state.admin.checks.verify(state.rental(), password).await {
        Ok(ok) => ok,
        Err(Unchecked::Busy) => return busy(),
        Err(Unchecked::Failed) => false,
    };
    if !ok {
        tracing::warn!(%client, "failed admin login");
        return page(state, Some("Wrong password.")).await;
    }
    let started = async {
        throttle::succeeded(state, client).await?;
        if let Some(old) = session::cookie_value(headers) {
            session::end_id(state, old).await?;
        }
        session::start(state).await
    };
    let id = match started.await {
        Ok(id) => id,
        Err(problem) => return unavailable(&problem),
    };
    tracing::info!(%client, "admin logged in");
    with_cookie(redirect("/admin"), &session::set_cookie(&id, state.admin.config.secure_cookie))
}

/// `GET /admin/logout`: a button that logs out (logging out is a POST, so
/// another site cannot do it with a link).
pub fn logout_page(session: &Session) -> Page {
    let body = html! {
        div.card {
            p { "End this session? You will need the password to come back." }
            (super::page::button_form(session, "/admin/logout", "Log out", "", None))
        }
    };
    shell("Log out", None, Some(session), &body)
}

/// Ends the session and clears its cookie.
pub async fn logout<S: Store + 'static>(state: &Arc<AppState<S>>, session: &Session) -> Page {
    if let Err(problem) = session::end(state, session.key.clone()).await {
        return unavailable(&problem);
    }
    with_cookie(redirect("/admin/login"), &session::clear_cookie(state.admin.config.secure_cookie))
}

/// Every password checker is busy: come back in a second (the attempt still counts).
fn busy() -> Page {
    let text = "Too many logins are being checked right now. Try again in a moment.";
    let mut page = super::page::message(StatusCode::TOO_MANY_REQUESTS, "Busy", text);
    page.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(1));
    page
}

fn too_many(seconds: u64) -> Page {
    let text = format!("Too many wrong passwords. Wait {seconds} s before trying again.");
    let mut page = super::page::message(StatusCode::TOO_MANY_REQUESTS, "Slow down", &text);
    page.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    page
}

fn with_cookie(mut page: Page, cookie: &str) -> Page {
    if let Ok(cookie) = HeaderValue::from_str(cookie) {
        page.headers_mut().append(header::SET_COOKIE, cookie);
    }
    page
}

/// True when the form's token equals the login cookie's.
fn login_token_matches(headers: &HeaderMap, token: &str) -> bool {
    session::cookie(headers, LOGIN_COOKIE).is_some_and(|c| {
        !token.is_empty() && c.len() == token.len() && bool::from(c.as_bytes().ct_eq(token.as_bytes()))
    })
}

fn token() -> String {
    let mut bytes = [0u8; 24];
    OsEntropy.fill(&mut bytes);
    hex::encode(bytes)
}
