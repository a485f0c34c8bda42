//! Admin sessions, kept in server memory: a random id in a cookie, a CSRF
//! token per session, idle expiry, and a one-time message for the next page.
//! A restart logs everyone out.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rental_core::clock::{Entropy, OsEntropy};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The session cookie's name.
pub const COOKIE: &str = "rental_admin";

/// How long a session lasts without a request.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(12 * 3600);

/// A message shown once on the next page: what an action did, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// True for a failure.
    pub error: bool,
    /// The sentence.
    pub message: String,
    /// A secret shown this once (a new key or webhook secret): a label and the value.
    pub secret: Option<(String, String)>,
}

impl Flash {
    /// A success message.
    pub fn done(message: impl Into<String>) -> Self {
        Flash { error: false, message: message.into(), secret: None }
    }

    /// A failure message.
    pub fn failed(message: impl Into<String>) -> Self {
        Flash { error: true, message: message.into(), secret: None }
    }
}

/// What a request learns of its session.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session's key in the table (the hash of its id).
    pub key: [u8; 32],
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

#[derive(Debug)]
struct Entry {
    csrf: String,
    last_seen: Instant,
    flash: Option<Flash>,
}

/// Every live session, by the SHA-256 of its id (so the table holds no usable cookie).
#[derive(Debug)]
pub struct Sessions {
    idle: Duration,
    entries: Mutex<HashMap<[u8; 32], Entry>>,
}

impl Sessions {
    /// No sessions; each expires after `idle` without a request.
    pub fn new(idle: Duration) -> Self {
        Sessions { idle, entries: Mutex::default() }
    }

    /// Starts a session; returns the id to put in the cookie.
    pub fn create(&self, now: Instant) -> String {
        let id = random_token();
        let entry = Entry { csrf: random_token(), last_seen: now, flash: None };
        let mut entries = self.lock();
        entries.retain(|_, e| now.duration_since(e.last_seen) < self.idle);
        entries.insert(digest(&id), entry);
        id
    }

    /// The live session of cookie value `id`, marked as seen now, with its flash taken.
    pub fn get(&self, id: &str, now: Instant) -> Option<Session> {
        let key = digest(id);
        let mut entries = self.lock();
        let entry = entries.get_mut(&key)?;
        if now.duration_since(entry.last_seen) >= self.idle {
            entries.remove(&key);
            return None;
        }
        entry.last_seen = now;
        Some(Session { key, csrf: entry.csrf.clone(), flash: entry.flash.take() })
    }

    /// Leaves `flash` for the session's next page.
    pub fn set_flash(&self, session: &Session, flash: Flash) {
        if let Some(entry) = self.lock().get_mut(&session.key) {
            entry.flash = Some(flash);
        }
    }

    /// Ends a session.
    pub fn remove(&self, key: &[u8; 32]) {
        self.lock().remove(key);
    }

    /// Ends the session of cookie value `id`, if there is one.
    pub fn remove_id(&self, id: &str) {
        self.remove(&digest(id));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// 32 random bytes in hex.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    OsEntropy.fill(&mut bytes);
    hex::encode(bytes)
}

fn digest(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
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
    fn a_session_lives_while_used_and_expires_when_idle() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let t0 = Instant::now();
        let id = sessions.create(t0);
        assert_eq!(id.len(), 64);
        assert!(sessions.get(&id, t0 + Duration::from_secs(59)).is_some());
        assert!(sessions.get(&id, t0 + Duration::from_secs(118)).is_some(), "each request renews it");
        assert!(sessions.get(&id, t0 + Duration::from_secs(178)).is_none());
        assert!(sessions.get(&id, t0 + Duration::from_secs(179)).is_none());
        assert!(sessions.get("not-a-session", t0).is_none());
    }

    #[test]
    fn each_session_has_its_own_csrf_token_and_a_flash_is_shown_once() {
        let sessions = Sessions::new(DEFAULT_IDLE);
        let now = Instant::now();
        let (a, b) = (sessions.create(now), sessions.create(now));
        let (sa, sb) = (sessions.get(&a, now).unwrap(), sessions.get(&b, now).unwrap());
        assert_ne!(sa.csrf, sb.csrf);
        assert!(sa.csrf_matches(&sa.csrf.clone()) && !sa.csrf_matches(&sb.csrf) && !sa.csrf_matches(""));
        sessions.set_flash(&sa, Flash::done("saved"));
        assert_eq!(sessions.get(&a, now).unwrap().flash, Some(Flash::done("saved")));
        assert_eq!(sessions.get(&a, now).unwrap().flash, None);
        sessions.remove_id(&a);
        assert!(sessions.get(&a, now).is_none() && sessions.get(&b, now).is_some());
    }

    #[test]
    fn the_cookie_is_found_among_others_and_set_with_its_attributes() {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::COOKIE, "a=1; rental_admin=abc; b=2".parse().unwrap());
        assert_eq!(cookie_value(&headers), Some("abc"));
        assert_eq!(set_cookie("abc", false), "rental_admin=abc; HttpOnly; SameSite=Strict; Path=/admin");
        assert!(set_cookie("abc", true).ends_with("; Secure"));
    }
}
