//! The mail server connection: lettre's async SMTP transport on tokio with
//! rustls (ring, Mozilla's roots plus an optional CA of one's own), and what
//! an SMTP answer means for a message: sent, retried or failed.

use std::time::Duration;

use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use rental_core::message::Outcome;

/// Where and how mail goes out (`smtp`, docs/API.md section 21).
#[derive(Clone)]
pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl std::fmt::Debug for Smtp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Smtp")
    }
}

/// Why a mail server setting cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SmtpError {
    /// The URL is not one lettre reads.
    #[error("smtp: {0}")]
    Url(String),
    /// The CA file cannot be read or is not PEM.
    #[error("smtp CA file: {0}")]
    Ca(String),
}

impl Smtp {
    /// A transport for `url`: `smtps://user:pass@host:465` (TLS from the first
    /// byte), `smtp://user:pass@host:587?tls=required` (STARTTLS, refused
    /// without it) or `smtp://host:25` (plain, for a relay on the same
    /// machine). `ca_pem`, when given, is trusted beside Mozilla's roots.
    /// Each exchange with the server may take at most `timeout`.
    pub fn new(url: &str, ca_pem: Option<&[u8]>, timeout: Duration) -> Result<Smtp, SmtpError> {
        let mut builder =
            AsyncSmtpTransport::<Tokio1Executor>::from_url(url).map_err(|e| SmtpError::Url(e.to_string()))?;
        if let Some(pem) = ca_pem {
            let parts = UrlParts::of(url);
            let certificate = Certificate::from_pem(pem).map_err(|e| SmtpError::Ca(e.to_string()))?;
            let params = TlsParameters::builder(parts.host.to_owned())
                .add_root_certificate(certificate)
                .build_rustls()
                .map_err(|e| SmtpError::Ca(e.to_string()))?;
            builder = match (parts.scheme, parts.tls) {
                ("smtps", _) => builder.tls(Tls::Wrapper(params)),
                ("smtp", Some("required")) => builder.tls(Tls::Required(params)),
                ("smtp", Some("opportunistic")) => builder.tls(Tls::Opportunistic(params)),
                _ => builder,
            };
        }
        Ok(Smtp { transport: builder.timeout(Some(timeout)).build() })
    }

    /// Connects and greets the server (and starts TLS and logs in, as the
    /// URL says), sending nothing: `Err` says why it refused.
    pub async fn check(&self) -> Result<(), String> {
        match self.transport.test_connection().await {
            Ok(true) => Ok(()),
            Ok(false) => Err("the mail server did not answer the greeting".to_owned()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Sends `email` to its envelope's recipients and says how it went.
    pub async fn send(&self, email: lettre::Message) -> Outcome {
        match self.transport.send(email).await {
            Ok(_) => Outcome::Sent,
            Err(e) => classify(&e),
        }
    }
}

/// The pieces of an SMTP URL the TLS settings need (lettre has read it whole already).
struct UrlParts<'a> {
    scheme: &'a str,
    host: &'a str,
    tls: Option<&'a str>,
}

impl<'a> UrlParts<'a> {
    fn of(url: &'a str) -> Self {
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        let (authority, query) = rest.split_once('?').unwrap_or((rest, ""));
        let authority = authority.split('/').next().unwrap_or_default();
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = if host_port.starts_with('[') {
            host_port.split_once(']').map_or(host_port, |(h, _)| h.trim_start_matches('['))
        } else {
            host_port.split(':').next().unwrap_or_default()
        };
        let tls = query.split('&').find_map(|pair| pair.strip_prefix("tls="));
        UrlParts { scheme, host, tls }
    }
}

/// A permanent refusal (5xx) fails a message at once; anything else (4xx, a
/// refused connection, TLS, a time-out) is worth another try. The error
/// names the SMTP code when there is one, never the message's content.
fn classify(e: &lettre::transport::smtp::Error) -> Outcome {
    let detail = short(&e.to_string());
    if e.is_permanent() { Outcome::Permanent(detail) } else { Outcome::Transient(detail) }
}

/// One line of at most 300 characters.
fn short(s: &str) -> String {
    rental_core::message::template::one_line(s).chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_settings_read_scheme_host_and_mode() {
        let p = UrlParts::of("smtp://user:p%40ss@mail.example.com:587?tls=required");
        assert_eq!((p.scheme, p.host, p.tls), ("smtp", "mail.example.com", Some("required")));
        let p = UrlParts::of("smtps://127.0.0.1:465");
        assert_eq!((p.scheme, p.host, p.tls), ("smtps", "127.0.0.1", None));
        let p = UrlParts::of("smtp://[::1]:25");
        assert_eq!(p.host, "::1");
    }
}
