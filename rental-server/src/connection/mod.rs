//! The limits on one accepted TCP connection and on how many are open: how long
//! a request head and body may take, how long a response may stall, how long a
//! connection may idle, and the caps overall and per client address.
//!
//! - hyper's header read timer ([`ConnectionLimits::header_read_timeout`]) starts
//!   whenever the connection is ready for a request head: at accept, and again
//!   once a response is written. It is one deadline for the whole head, so a
//!   client that trickles a header line at a time does not extend it. Past it
//!   the connection is closed without an answer.
//! - [`body::Body`] is every request's body, with a deadline: a request that
//!   has not proven a credential (an API key, an admin session) must be whole
//!   by the head's own deadline, so no anonymous client holds a connection
//!   longer than [`ConnectionLimits::header_read_timeout`]; one that has gets
//!   [`ConnectionLimits::body_read_timeout`] from the end of its head. Either
//!   way the body must keep up [`ConnectionLimits::min_body_rate`] after a
//!   short grace. Past either, an API request is answered 408
//!   `request_timeout` and an HTML form shows its page again; either way the
//!   connection then closes.
//! - [`stall::WriteStall`] closes (with a reset, discarding what is unsent) a
//!   connection whose client reads nothing of a response for
//!   [`ConnectionLimits::write_stall_timeout`], or keeps writes waiting while it
//!   reads slower than [`ConnectionLimits::min_write_rate`].
//! - [`idle::IdleTimeout`] closes a keep-alive connection that sends nothing for
//!   [`ConnectionLimits::keep_alive_idle`] after its last response.
//! - [`malformed::MalformedAnswers`] replaces the bare answer hyper writes for a
//!   request it cannot parse (400, 414, 431) with a problem+json one.
//! - Above [`ConnectionLimits::max_connections`] the server stops accepting
//!   until one closes; new connections wait in the kernel's listen queue.
//! - [`per_address::AddressSlots`] caps the connections of one client address
//!   (an IPv6 /64 counts as one) at [`ConnectionLimits::max_per_address`], so
//!   one host cannot take the slots everyone shares. The socket's address is
//!   what is counted; trusted reverse proxies are not capped, since all their
//!   clients arrive from their address.

pub mod body;
pub mod idle;
pub mod malformed;
pub mod per_address;
pub mod stall;

use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioTimer;

/// How long a client has to send a whole request head, counted from when the
/// connection is ready for one (accept, or the end of the previous response).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an authenticated request's body may take, from the end of its head.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The slowest a request body may arrive, in bytes a second, once
/// [`BODY_RATE_GRACE`] has passed: a 64 KiB body at this rate would take
/// a minute, while a trickle of a byte every few seconds is cut within the grace.
pub const MIN_BODY_RATE: u32 = 1024;

/// How long a body may take before [`MIN_BODY_RATE`] applies.
pub const BODY_RATE_GRACE: Duration = Duration::from_secs(2);

/// How long a response may wait for a client that reads nothing of it.
pub const WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The slowest a client may read what the server waits to write, in bytes a
/// second averaged over [`WRITE_RATE_WINDOW`]: a byte every few seconds
/// keeps a write from stalling, not from being cut.
pub const MIN_WRITE_RATE: u32 = 1024;

/// How long writes must keep waiting on a client before [`MIN_WRITE_RATE`] is judged.
pub const WRITE_RATE_WINDOW: Duration = Duration::from_secs(10);

/// The most connections one client address may hold open: an eighth of
/// [`MAX_CONNECTIONS`], and far more than a browser opens (six).
pub const MAX_PER_ADDRESS: usize = 64;

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
    /// The deadline for an authenticated request's body ([`BODY_READ_TIMEOUT`]).
    pub body_read_timeout: Duration,
    /// The slowest a body may arrive after the grace, in bytes a second ([`MIN_BODY_RATE`]).
    pub min_body_rate: u32,
    /// How long a body may take before the rate applies ([`BODY_RATE_GRACE`]).
    pub body_rate_grace: Duration,
    /// How long a response may wait for a client that does not read ([`WRITE_STALL_TIMEOUT`]).
    pub write_stall_timeout: Duration,
    /// The slowest a client may read what waits for it ([`MIN_WRITE_RATE`], [`WRITE_RATE_WINDOW`]).
    pub min_write_rate: stall::MinRate,
    /// How many connections one client address may hold ([`MAX_PER_ADDRESS`]; 0 counts as 1).
    pub max_per_address: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read_timeout: HEADER_READ_TIMEOUT,
            keep_alive_idle: KEEP_ALIVE_IDLE,
            max_connections: MAX_CONNECTIONS,
            body_read_timeout: BODY_READ_TIMEOUT,
            min_body_rate: MIN_BODY_RATE,
            body_rate_grace: BODY_RATE_GRACE,
            write_stall_timeout: WRITE_STALL_TIMEOUT,
            min_write_rate: stall::MinRate { bytes_per_second: MIN_WRITE_RATE, window: WRITE_RATE_WINDOW },
            max_per_address: MAX_PER_ADDRESS,
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
