//! The pool of idle keep-alive connections, keyed by scheme, host and port,
//! and why reusing one keeps the address rules (see [`Pool`]).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use http::Version;
use http::header::CONNECTION;

use super::conn::Conn;
use super::target::Target;

/// Idle connections kept at most this long (checked when one is taken or put back).
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this many idle connections per key.
const IDLE_PER_KEY: usize = 4;
/// At most this many idle connections in all.
const IDLE_TOTAL: usize = 64;

/// Idle keep-alive connections, keyed by scheme, host and port.
///
/// Why reuse is safe with the address rules: a connection only enters the pool after it was made
/// to an address that `Outbound::resolve` checked (by this same client, so under the same
/// `allow_private_targets`), and the socket cannot move to another address afterwards. The key
/// holds everything that chose that address and the TLS identity: the scheme (TLS or not), the
/// host exactly as resolved and verified (ASCII-lowercased: DNS names and certificates ignore
/// case) and the port. A request is only ever sent on a connection whose key equals its own, so
/// it reaches an address that was checked for its host. A host that now resolves elsewhere (DNS
/// rebinding included) gains nothing: new connections still resolve, check and connect afresh,
/// and a pooled one keeps talking to the address that was checked. Idle connections expire after
/// [`IDLE_TIMEOUT`], so a changed DNS answer is followed within that time.
#[derive(Default)]
pub(super) struct Pool {
    idle: Mutex<HashMap<PoolKey, Vec<Idle>>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct PoolKey {
    https: bool,
    host: String,
    port: u16,
}

impl PoolKey {
    pub(super) fn of(target: &Target) -> PoolKey {
        PoolKey { https: target.https, host: target.host.to_ascii_lowercase(), port: target.port }
    }
}

struct Idle {
    conn: Conn,
    since: Instant,
}

impl Idle {
    fn usable(&self) -> bool {
        self.since.elapsed() < IDLE_TIMEOUT && !self.conn.sender.is_closed()
    }
}

impl Pool {
    /// The most recently used idle connection for `key` that is still open and ready for a request.
    pub(super) async fn take(&self, key: &PoolKey) -> Option<Conn> {
        loop {
            let mut conn = self.pop(key)?;
            if conn.sender.ready().await.is_ok() {
                return Some(conn);
            }
        }
    }

    fn pop(&self, key: &PoolKey) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.get_mut(key)?;
        let mut found = None;
        while let Some(entry) = list.pop() {
            if entry.usable() {
                found = Some(entry.conn);
                break;
            }
        }
        if list.is_empty() {
            idle.remove(key);
        }
        found
    }

    /// Keeps `conn` for the next request to `key`, unless the pool is full (then it is closed).
    pub(super) fn put(&self, key: PoolKey, conn: Conn) {
        if conn.sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let mut total: usize = idle.values().map(Vec::len).sum();
        if total >= IDLE_TOTAL {
            idle.retain(|_, list| {
                list.retain(Idle::usable);
                !list.is_empty()
            });
            total = idle.values().map(Vec::len).sum();
        }
        let list = idle.entry(key).or_default();
        list.retain(Idle::usable);
        if total < IDLE_TOTAL && list.len() < IDLE_PER_KEY {
            list.push(Idle { conn, since: Instant::now() });
        }
    }
}

/// Whether the connection may carry another request after this response (read in full).
pub(super) fn reusable(parts: &http::response::Parts) -> bool {
    let close = parts
        .headers
        .get_all(CONNECTION)
        .iter()
        .any(|value| value.to_str().is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close"))));
    parts.version == Version::HTTP_11 && !close
}
