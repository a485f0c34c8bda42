//! The mail server connection: lettre's async SMTP transport on tokio with
//! rustls (ring, Mozilla's roots plus an optional CA of one's own), and what
//! an SMTP answer means for a message: sent, retried or failed.
//!
//! Credentials never go out in clear unless the URL says `tls=none`: a URL
//! with a password and no `tls` (or `tls=opportunistic`) requires STARTTLS.

use std::time::Duration;

use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use rental_core::message::Outcome;

/// Where and how mail goes out (`smtp`, docs/API.md section 21).
#[derive(Clone)]
pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    security: Security,
}

/// How the connection to the mail server is protected, as [`Smtp::new`] chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Security {
    /// TLS from the first byte (`smtps://`).
    Tls,
    /// STARTTLS, and no mail without it (`tls=required`, or a password in the URL).
    StartTlsRequired,
    /// STARTTLS when the server offers it (`tls=opportunistic`, no password).
    StartTlsOpportunistic,
    /// Plain text, with no password (`smtp://host`: a relay on the same machine).
    Plain,
    /// Plain text with the password, because the URL says `tls=none`.
    PlainWithCredentials,
}

impl std::fmt::Display for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Security::Tls => "TLS (smtps)",
            Security::StartTlsRequired => "STARTTLS required",
            Security::StartTlsOpportunistic => "STARTTLS when offered",
            Security::Plain => "plain text, no credentials",
            Security::PlainWithCredentials => "plain text WITH credentials (tls=none)",
        })
    }
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
    /// machine). A URL with a password and no `tls` or `tls=opportunistic`
    /// requires STARTTLS too; only `tls=none` sends a password in clear.
    /// `ca_pem`, when given, is trusted beside Mozilla's roots. Each exchange
    /// with the server may take at most `timeout`.
    pub fn new(url: &str, ca_pem: Option<&[u8]>, timeout: Duration) -> Result<Smtp, SmtpError> {
        let parts = UrlParts::of(url);
        let security = parts.security()?;
        // lettre knows no `tls=none`: without the parameter it speaks plain text.
        let lettre_url = if parts.tls == Some("none") { without_tls_none(url) } else { url.to_owned() };
        let builder =
            AsyncSmtpTransport::<Tokio1Executor>::from_url(&lettre_url).map_err(|e| SmtpError::Url(e.to_string()))?;
        let params = match ca_pem {
            Some(pem) => {
                let certificate = Certificate::from_pem(pem).map_err(|e| SmtpError::Ca(e.to_string()))?;
                TlsParameters::builder(parts.host.to_owned()).add_root_certificate(certificate).build_rustls()
            }
            None => TlsParameters::new(parts.host.to_owned()),
        }
        .map_err(|e| SmtpError::Ca(e.to_string()))?;
        let builder = match security {
            Security::Tls => builder.tls(Tls::Wrapper(params)),
            Security::StartTlsRequired => builder.tls(Tls::Required(params)),
            Security::StartTlsOpportunistic => builder.tls(Tls::Opportunistic(params)),
            Security::Plain | Security::PlainWithCredentials => builder.tls(Tls::None),
        };
        Ok(Smtp { transport: builder.timeout(Some(timeout)).build(), security })
    }

    /// How the connection is protected: what `serve` says at start.
    pub fn security(&self) -> Security {
        self.security
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

/// The pieces of an SMTP URL the TLS settings need (lettre reads it whole).
struct UrlParts<'a> {
    scheme: &'a str,
    host: &'a str,
    tls: Option<&'a str>,
    /// A password is given (lettre logs in only with one).
    password: bool,
}

impl UrlParts<'_> {
    /// How to protect the connection: what the URL asks for, but never a
    /// password in clear unless it says `tls=none`.
    fn security(&self) -> Result<Security, SmtpError> {
        Ok(match (self.scheme, self.tls, self.password) {
            ("smtps", _, _) => Security::Tls,
            ("smtp", Some("required"), _) | ("smtp", None | Some("opportunistic"), true) => Security::StartTlsRequired,
            ("smtp", Some("opportunistic"), false) => Security::StartTlsOpportunistic,
            ("smtp", None | Some("none"), false) => Security::Plain,
            ("smtp", Some("none"), true) => Security::PlainWithCredentials,
            (scheme, tls, _) => {
                return Err(SmtpError::Url(format!(
                    "unknown scheme {scheme:?} or tls={} (use smtps://, or smtp:// with tls=required, \
                     opportunistic or none)",
                    tls.unwrap_or_default()
                )));
            }
        })
    }
}

/// `url` without its `tls=none` parameter.
fn without_tls_none(url: &str) -> String {
    let Some((base, query)) = url.split_once('?') else { return url.to_owned() };
    let rest: Vec<&str> = query.split('&').filter(|pair| *pair != "tls=none").collect();
    if rest.is_empty() { base.to_owned() } else { format!("{base}?{}", rest.join("&")) }
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
        let password = authority.rsplit_once('@').is_some_and(|(user, _)| user.contains(':'));
        UrlParts { scheme, host, tls, password }
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

    // A transport's pool lives on a tokio runtime.
    #[tokio::test]
    async fn a_password_goes_out_in_clear_only_when_the_url_says_tls_none() {
        let cases = [
            ("smtp://u:p@mail.example.com:587", Security::StartTlsRequired),
            ("smtp://u:p@mail.example.com:587?tls=opportunistic", Security::StartTlsRequired),
            ("smtp://u:p@mail.example.com:587?tls=required", Security::StartTlsRequired),
            ("smtp://u:p@mail.example.com:25?tls=none", Security::PlainWithCredentials),
            ("smtps://u:p@mail.example.com", Security::Tls),
            ("smtp://127.0.0.1:25", Security::Plain),
            ("smtp://127.0.0.1:25?tls=none", Security::Plain),
            ("smtp://relay.example.com?tls=opportunistic", Security::StartTlsOpportunistic),
        ];
        for (url, security) in cases {
            let smtp = Smtp::new(url, None, Duration::from_secs(1)).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(smtp.security(), security, "{url}");
        }
        assert!(Smtp::new("smtp://h?tls=sometimes", None, Duration::from_secs(1)).is_err());
        assert_eq!(without_tls_none("smtp://u:p@h:25?tls=none"), "smtp://u:p@h:25");
    }
}
