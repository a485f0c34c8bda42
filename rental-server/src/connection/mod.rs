//! The limits on one accepted TCP connection and on how many are open: how long
//! a request head may take, how long a connection may idle, and the cap.
//!
//! - hyper's header read timer ([`ConnectionLimits::header_read_timeout`]) starts
//!   whenever the connection is ready for a request head: at accept, and again
//!   once a response is written. It is one deadline for the whole head, so a
//!   client that trickles a header line at a time does not extend it. Past it
//!   the connection is closed without an answer.
//! - [`idle::IdleTimeout`] closes a keep-alive connection that sends nothing for
//!   [`ConnectionLimits::keep_alive_idle`] after its last response.
//! - [`malformed::MalformedAnswers`] replaces the bare answer hyper writes for a
//!   request it cannot parse (400, 414, 431) with a problem+json one.
//! - Above [`ConnectionLimits::max_connections`] the server stops accepting
//!   until one closes; new connections wait in the kernel's listen queue.

pub mod idle;
pub mod malformed;

use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioTimer;

/// How long a client has to send a whole request head, counted from when the
/// connection is ready for one (accept, or the end of the previous response).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a keep-alive connection may send nothing after a response.
pub const KEEP_ALIVE_IDLE: Duration = Duration::from_secs(5);

/// The most connections open at once. Below the usual 1,024 open-file limit,
/// leaving room for the store, the listener and outbound webhook and feed calls.
pub const MAX_CONNECTIONS: usize = 512;

/// The most header fields in one request; more is 431 `headers_too_large`.
pub const MAX_HEADERS: usize = 100;

/// The longest request target (path and query): hyper's own limit, which it
/// does not let a server raise; longer is 414 `uri_too_long`.
pub const MAX_URI_BYTES: usize = 65_534;

/// The connection limits of a server; tests shorten them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The deadline for a whole request head ([`HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// The idle time after which a keep-alive connection is closed ([`KEEP_ALIVE_IDLE`]).
    pub keep_alive_idle: Duration,
    /// How many connections may be open at once ([`MAX_CONNECTIONS`]; 0 counts as 1).
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read_timeout: HEADER_READ_TIMEOUT,
            keep_alive_idle: KEEP_ALIVE_IDLE,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

impl ConnectionLimits {
    /// hyper's HTTP/1 connection settings for these limits.
    pub(crate) fn builder(&self) -> http1::Builder {
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(self.header_read_timeout).max_headers(MAX_HEADERS);
        builder
    }
}
