//! Admin sessions, kept in the store so that every server sharing it knows
//! them: a random id in a cookie, a CSRF token per session, idle expiry, and
//! a one-time message for the next page. A restart logs no one out.

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use rental_core::Store;
use rental_core::clock::{Entropy, OsEntropy};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub use rental_core::admin_session::Flash;

use crate::AppState;
use crate::problem::Problem;
use crate::reply::blocking;

/// The session cookie's name.
pub const COOKIE: &str = "rental_admin";

/// How long a session lasts without a request.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(12 * 3600);

/// What a request learns of its session.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session's key in the store (hex SHA-256 of its id).
    pub key: String,
    /// The token every form of this session carries.
    pub csrf: String,
    /// The message left for this page, taken.
    pub flash: Option<Flash>,
}

impl Session {
    /// True when `token` is this session's CSRF token (constant time).
    pub fn csrf_matches(&self, token: &str) -> bool {
        self.csrf.len() == token.len() && bool::from(self.csrf.as_bytes().ct_eq(token.as_bytes()))
    }
}

/// Starts a session; returns the id to put in the cookie.
pub async fn start<S: Store + 'static>(state: &Arc<AppState<S>>) -> Result<String, Problem> {
    let (id, csrf) = (random_token(), random_token());
    let (key, idle) = (digest(&id), idle(state));
    blocking(state.rental(), move |r| r.worker().start_admin_session(&key, &csrf, idle, r.now())).await?;
    Ok(id)
}

/// The live session of cookie value `id`, marked as seen, with its flash taken.
pub async fn find<S: Store + 'static>(state: &Arc<AppState<S>>, id: &str) -> Result<Option<Session>, Problem> {
    let (key, idle) = (digest(id), idle(state));
    let found = blocking(state.rental(), {
        let key = key.clone();
        move |r| r.worker().admin_session(&key, idle, r.now())
    })
    .await?;
    Ok(found.map(|s| Session { key, csrf: s.csrf, flash: s.flash }))
}

/// Leaves `flash` for the session's next page; a failure to store it is only logged.
pub async fn set_flash<S: Store + 'static>(state: &Arc<AppState<S>>, session: &Session, flash: Flash) {
    let key = session.key.clone();
    if let Err(problem) = blocking(state.rental(), move |r| r.worker().set_admin_flash(&key, &flash)).await {
        tracing::warn!(detail = %problem.detail, "an admin message was not stored");
    }
}

/// Ends the session stored under `key`.
pub async fn end<S: Store + 'static>(state: &Arc<AppState<S>>, key: String) -> Result<(), Problem> {
    blocking(state.rental(), move |r| r.worker().end_admin_session(&key)).await
}

/// Ends the session of cookie value `id`, if there is one.
pub async fn end_id<S: Store + 'static>(state: &Arc<AppState<S>>, id: &str) -> Result<(), Problem> {
    end(state, digest(id)).await
}

fn idle<S>(state: &AppState<S>) -> TimeDelta {
    TimeDelta::from_std(state.admin.config.session_idle).unwrap_or(TimeDelta::MAX)
}

/// 32 random bytes in hex.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    OsEntropy.fill(&mut bytes);
    hex::encode(bytes)
}

fn digest(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// The session id in a request's `Cookie` headers, if any.
pub fn cookie_value(headers: &http::HeaderMap) -> Option<&str> {
    cookie(headers, COOKIE)
}

/// The value of cookie `name` in a request's `Cookie` headers, if any.
pub fn cookie<'h>(headers: &'h http::HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value)
}

/// The `Set-Cookie` value that hands out session `id`.
pub fn set_cookie(id: &str, secure: bool) -> String {
    format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/admin{}", if secure { "; Secure" } else { "" })
}

/// The `Set-Cookie` value that clears the session cookie.
pub fn clear_cookie(secure: bool) -> String {
    format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=0{}", if secure { "; Secure" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others_and_set_with_its_attributes() {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::COOKIE, "a=1; rental_admin=abc; b=2".parse().unwrap());
        assert_eq!(cookie_value(&headers), Some("abc"));
        assert_eq!(set_cookie("abc", false), "rental_admin=abc; HttpOnly; SameSite=Strict; Path=/admin");
        assert!(set_cookie("abc", true).ends_with("; Secure"));
    }
}
