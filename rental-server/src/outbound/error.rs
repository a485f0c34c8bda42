//! [`OutboundError`]: why an outbound call failed, one variant per step
//! (URL, address check, DNS, connect, TLS, HTTP, limits), each message short and lowercase.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// Why an outbound request failed. `Display` is the whole message: short, lowercase, and fit to
/// store as a delivery attempt's error or to show a host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutboundError {
    /// The URL (or a redirect's `Location`) is not an absolute `http`/`https` URL this client can fetch.
    #[error("invalid url: {reason}")]
    InvalidUrl {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The host resolved to an address that is not public, and private targets are not allowed.
    #[error("refused target {addr}: {range} address")]
    Refused {
        /// The refused address.
        addr: IpAddr,
        /// The kind of range it is in, as [`super::blocked_range`] names it.
        range: &'static str,
    },
    /// The host name could not be resolved.
    #[error("dns lookup of {host} failed: {error}")]
    Dns {
        /// The host name.
        host: String,
        /// The resolver's error.
        error: io::Error,
    },
    /// No TCP connection could be made (the error of the last address tried).
    #[error("connect to {addr} failed: {error}")]
    Connect {
        /// The address tried last.
        addr: SocketAddr,
        /// The socket error.
        error: io::Error,
    },
    /// The TLS handshake failed (bad certificate, not a TLS server, closed early).
    #[error("tls handshake with {host} failed: {error}")]
    Tls {
        /// The server name that was verified.
        host: String,
        /// The handshake error.
        error: io::Error,
    },
    /// The whole call took longer than the caller's timeout.
    #[error("timed out after {} ms", .after.as_millis())]
    Timeout {
        /// The timeout given.
        after: Duration,
    },
    /// The response body is longer than the caller's limit.
    #[error("response body exceeds {limit} bytes")]
    BodyTooLarge {
        /// The limit given.
        limit: usize,
    },
    /// More redirects than the caller allowed.
    #[error("more than {limit} redirects")]
    TooManyRedirects {
        /// The number of redirects allowed.
        limit: u8,
    },
    /// The HTTP exchange failed after connecting (connection closed, malformed response).
    #[error("http error: {0}")]
    Http(hyper::Error),
    /// Another I/O failure while reading the response.
    #[error("i/o error: {0}")]
    Io(io::Error),
    /// The client could not be built from its config.
    #[error("invalid outbound config: {reason}")]
    Config {
        /// What is wrong.
        reason: String,
    },
}

pub(super) fn invalid(reason: &'static str) -> OutboundError {
    OutboundError::InvalidUrl { reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_are_short_and_lowercase() {
        let cases = [
            (invalid("not a valid url"), "invalid url: not a valid url"),
            (
                OutboundError::Refused { addr: "127.0.0.1".parse().unwrap(), range: "loopback" },
                "refused target 127.0.0.1: loopback address",
            ),
            (OutboundError::Timeout { after: Duration::from_secs(10) }, "timed out after 10000 ms"),
            (OutboundError::BodyTooLarge { limit: 65536 }, "response body exceeds 65536 bytes"),
            (OutboundError::TooManyRedirects { limit: 5 }, "more than 5 redirects"),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }
}
